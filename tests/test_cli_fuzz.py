"""Input fuzzing of the command line (seeded, seconds): mutated and truncated kernel files,
random bytes, huge and deeply nested expressions, odd encodings. Every run ends in success or
a diagnostic (exit 0 or 1, `file:line:col: error[CODE]` on stderr), never a traceback, and
the output file is either the complete translation or left exactly as it was.

`FUZZ_CASES=N` runs more cases per generator (the CI form runs a few)."""

from __future__ import annotations

import codecs
import io
import os
import random
import re
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from transpiler.cli import main
from transpiler.driver import translate_bytes

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted((ROOT / "golden").glob("*.py"))
CASES = int(os.environ.get("FUZZ_CASES", "4"))
SENTINEL = "// an earlier output the run must not damage\n"
DIAGNOSTIC = re.compile(r"^\S.*?: (error|warning)\[[EW]\d{4}\]: ", re.M)
KERNEL_HEAD = (b"import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y):\n"
               b"    t = ct.load(x, index=(0,), shape=(16,))\n")


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randrange(len(data))]


def _drop_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def _swap_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _flip_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] = rng.choice(b"()[]{}:=,.+-*/%<>!@#0123456789 \n\tabcxyz_")
    return bytes(out)


def _splice(rng: random.Random, data: bytes) -> bytes:
    other = rng.choice(KERNELS).read_bytes()
    cut, at = rng.randrange(len(data)), rng.randrange(len(other))
    return data[:cut] + other[at:]


MUTATIONS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "truncate": _truncate, "drop-line": _drop_line, "swap-lines": _swap_lines,
    "flip-bytes": _flip_bytes, "splice": _splice,
}


def _random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))


def _huge_sum(rng: random.Random) -> bytes:
    terms = " + ".join("t" for _ in range(rng.choice((2000, 20000))))
    return KERNEL_HEAD + f"    ct.store(y, index=(0,), tile={terms})\n".encode()


def _deep_nesting(rng: random.Random) -> bytes:
    depth = rng.choice((200, 1000, 5000, 100000))
    return KERNEL_HEAD + b"    u = " + b"(" * depth + b"t" + b")" * depth + b"\n"


def _deep_calls(rng: random.Random) -> bytes:
    depth = rng.choice((100, 1000, 3000))
    return KERNEL_HEAD + b"    u = " + b"ct.exp(" * depth + b"t" + b")" * depth + b"\n"


def _encodings(rng: random.Random) -> bytes:
    text = rng.choice(KERNELS).read_text(encoding="utf-8") + "# caf\u00e9\n"
    kind = rng.choice(("bom", "utf-16", "latin-1", "nul", "cr"))
    if kind == "bom":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    if kind == "utf-16":
        return text.encode("utf-16")
    if kind == "latin-1":
        return text.encode("latin-1")
    if kind == "cr":
        return text.replace("\n", "\r").encode("utf-8")
    data = text.encode("utf-8")
    at = rng.randrange(len(data))
    return data[:at] + b"\x00" + data[at:]


GENERATED: dict[str, Callable[[random.Random], bytes]] = {
    "random-bytes": _random_bytes, "huge-sum": _huge_sum, "deep-nesting": _deep_nesting,
    "deep-calls": _deep_calls, "encodings": _encodings,
}


def check_run(data: bytes, tmp_path: Path, name: str = "case.py") -> None:
    """One CLI run on `data`: success with the full translation, or a diagnostic with the
    old output untouched; never an exception."""
    source = tmp_path / name
    source.write_bytes(data)
    output = tmp_path / "case.rs"
    output.write_text(SENTINEL)
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        code = main([str(source), "-o", str(output), "--no-llm"])
    stderr = err.getvalue()
    assert "Traceback" not in stderr, stderr
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers, leftovers
    if code == 0:
        expected = translate_bytes(data, str(source)).rust
        assert output.read_text() == expected
    else:
        assert code == 1, (code, stderr)
        assert DIAGNOSTIC.search(stderr), stderr
        assert "E9000" not in stderr, stderr  # an internal error is a bug to fix
        assert output.read_text() == SENTINEL


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutated_kernel_files(mutation: str, tmp_path: Path) -> None:
    rng = random.Random(f"mutation-{mutation}")
    for _ in range(CASES):
        data = rng.choice(KERNELS).read_bytes()
        check_run(MUTATIONS[mutation](rng, data), tmp_path)


@pytest.mark.parametrize("generator", sorted(GENERATED))
def test_generated_inputs(generator: str, tmp_path: Path) -> None:
    rng = random.Random(f"generated-{generator}")
    for _ in range(CASES):
        check_run(GENERATED[generator](rng), tmp_path)


def test_python_warnings_about_the_input_are_not_printed(tmp_path: Path) -> None:
    """`1if x` makes CPython warn (SyntaxWarning); the translator's stderr holds only its
    own diagnostics."""
    import subprocess
    import sys

    source = tmp_path / "warns.py"
    source.write_bytes(KERNEL_HEAD + b"    s = 1if True else 2\n"
                       b"    ct.store(y, index=(0,), tile=t * s)\n")
    done = subprocess.run([sys.executable, "-m", "transpiler", str(source), "-o",
                           str(tmp_path / "warns.rs")], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert "SyntaxWarning" not in done.stderr, done.stderr
