"""The tool as editors, CI and batch users run it: `--json` keeps stdout to the JSON,
`--explain`, `--stdin-filename`, `doctor`, `-j` (same output as one process), the progress bar
(none on a pipe), `--report`, output file modes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from transpiler.batch import WorkerPool
from transpiler.cli import main
from transpiler.diagnostics import CODES, EXPLANATIONS
from transpiler.ircheck import toolchain
from transpiler.ircheck.canonicalize import RULES
from transpiler.ircheck.notes import RULE_SUMMARIES
from transpiler.progress import Counts, Progress, render_line

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
SIBLING = ROOT / "tests" / "sibling_kernels"


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "transpiler", *args], input=stdin,
                          capture_output=True, cwd=cwd or ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
                          check=False)


def _verify_tools() -> None:
    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        pytest.skip(str(err))


# ---- --json: stdout holds the JSON and nothing else -----------------------------------------


def test_json_with_verify_keeps_stdout_to_the_json(tmp_path: Path) -> None:
    _verify_tools()
    proc = run(str(GOLDEN / "vector_add.py"), "-o", str(tmp_path / "va.rs"), "--json",
               "--verify")
    assert proc.returncode == 0, proc.stderr.decode()
    doc = json.loads(proc.stdout)  # the whole of stdout parses
    assert doc["files"][0]["verify"], doc
    assert b"PASS" in proc.stderr  # the human lines went to stderr
    quiet = run(str(GOLDEN / "vector_add.py"), "-o", str(tmp_path / "va.rs"), "--json",
                "--verify", "--quiet")
    json.loads(quiet.stdout)
    assert b"PASS" not in quiet.stderr


def test_verify_json_keeps_stdout_to_the_json() -> None:
    _verify_tools()
    proc = run("verify", str(GOLDEN / "vector_add.py"), str(GOLDEN / "vector_add.rs"), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["verdicts"]
    assert b"PASS" in proc.stderr


# ---- --explain ------------------------------------------------------------------------------


def test_every_code_and_rule_has_an_explanation() -> None:
    assert set(EXPLANATIONS) == set(CODES)
    assert {r.name for r in RULES} == set(RULE_SUMMARIES)


@pytest.mark.parametrize("name", [*CODES, *(r.name for r in RULES)])
def test_explain_prints_the_text(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--explain", name]) == 0
    text = capsys.readouterr().out
    assert text.startswith(name)
    if name in CODES:
        assert EXPLANATIONS[name].split("\n")[0] in text
    else:
        reason = next(r.reason for r in RULES if r.name == name)
        assert " ".join(text.split()).endswith(" ".join(reason.split()))


def test_explain_of_an_unknown_name_is_a_usage_error() -> None:
    proc = run("--explain", "E7777")
    assert proc.returncode == 2 and b"E0100" in proc.stderr


# ---- --stdin-filename -----------------------------------------------------------------------


def test_stdin_filename_resolves_sibling_helpers() -> None:
    source = (SIBLING / "silu_mul.py").read_bytes()
    assert run("-", stdin=source).returncode == 1  # no folder: the helper is not found
    proc = run("-", "--stdin-filename", str(SIBLING / "silu_mul.py"), stdin=source)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == (SIBLING / "silu_mul.rs").read_bytes()


def test_stdin_filename_names_the_real_path_in_diagnostics(tmp_path: Path) -> None:
    target = tmp_path / "op.py"
    shutil.copy(GOLDEN / "vector_add.py", target)
    edited = target.read_bytes().replace(b"ct.load(", b"ct.lode(", 1)
    proc = run("-", "--stdin-filename", str(target), stdin=edited)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith(f"{target}:") and "E0100" in err and "ct.lode(" in err, err


def test_stdin_filename_needs_stdin_input() -> None:
    assert run(str(GOLDEN / "vector_add.py"), "--stdin-filename", "x.py").returncode == 2


# ---- doctor ---------------------------------------------------------------------------------


def test_doctor_lists_every_part() -> None:
    proc = run("doctor", "--json")
    assert proc.returncode in (0, 1)
    names = {p["name"] for p in json.loads(proc.stdout)["parts"]}
    assert {"tileirdisasm", "harness", "cuda-tile", "triton", "rustc/cargo", "rustfmt",
            "LLM fallback"} <= names


def test_doctor_says_how_to_get_a_missing_harness(tmp_path: Path) -> None:
    proc = run("doctor", env={"TRANSPILER_HARNESS": str(tmp_path / "none"),
                              "TILEIRDISASM": str(tmp_path / "none")})
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "MISSING tileirdisasm" in out and "nvidia-cuda-tileiras" in out, out


def test_a_missing_harness_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    proc = run(str(GOLDEN / "vector_add.py"), "-o", str(tmp_path / "va.rs"), "--verify",
               env={"TRANSPILER_HARNESS": str(tmp_path / "none")})
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr and b"TRANSPILER_HARNESS" in proc.stderr


# ---- -j, progress ---------------------------------------------------------------------------


def test_parallel_folder_translation_is_the_same_as_serial(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("vector_add", "softmax_rows", "layer_norm", "matmul"):
        shutil.copy(GOLDEN / f"{name}.py", folder / f"{name}.py")
    (folder / "broken.py").write_text("import cuda.tile as ct\n@ct.kernel\ndef k(:\n")
    one = run(str(folder), "-o", str(tmp_path / "one"), "-j", "1", "--json")
    two = run(str(folder), "-o", str(tmp_path / "two"), "-j", "3", "--json")
    assert one.returncode == two.returncode == 1
    assert one.stderr == two.stderr
    strip = [json.dumps([{k: v for k, v in f.items() if k != "output"} for f in
                         json.loads(p.stdout)["files"]]) for p in (one, two)]
    assert strip[0] == strip[1]
    for name in ("vector_add", "softmax_rows", "layer_norm", "matmul"):
        assert ((tmp_path / "one" / f"{name}.rs").read_bytes()
                == (tmp_path / "two" / f"{name}.rs").read_bytes())
    assert not (tmp_path / "two" / "broken.rs").exists()
    assert b"\r" not in two.stderr  # stderr is a pipe: no progress bar


def test_parallel_verify_is_the_same_as_serial(tmp_path: Path) -> None:
    """`-j 2` splits each file's checks into (kernel, specialization) units across two
    processes; verdict lines, JSON and report are byte for byte those of `-j 1`."""
    _verify_tools()
    folder = tmp_path / "in"
    folder.mkdir()
    # embedding: two kernels and a second round (every target reached: its derived
    # `BLOCK_T * DIM` generic is no condition with a "false" arm); vector_add: one kernel.
    for name in ("embedding", "vector_add"):
        shutil.copy(GOLDEN / f"{name}.py", folder / f"{name}.py")
    out, report = tmp_path / "out", tmp_path / "report.html"
    runs = []
    for jobs in ("1", "2"):
        shutil.rmtree(out, ignore_errors=True)  # the same output paths (the IR names them)
        proc = run(str(folder), "-o", str(out), "--verify", "--json", "--report", str(report),
                   "-j", jobs)
        assert proc.returncode == 0, proc.stderr.decode()
        runs.append((proc.stdout, proc.stderr, report.read_bytes()))
    assert runs[0] == runs[1]
    lines = runs[0][1].decode().splitlines()
    assert [line.split(":")[0] for line in lines] == sorted(line.split(":")[0]
                                                             for line in lines)
    assert sum("embedding_bwd_kernel[" in line for line in lines) == 4
    assert sum("NOT_CHECKED" in line for line in lines) == 0
    doc = json.loads(runs[0][0])
    assert [len(f["verify"]) for f in doc["files"]] == [9, 4]


def test_parallel_verify_subcommand_is_the_same_as_serial() -> None:
    _verify_tools()
    args = ("verify", str(GOLDEN / "embedding.py"), str(GOLDEN / "embedding.rs"), "--json")
    one, two = run(*args, "-j", "1"), run(*args, "-j", "2")
    assert one.returncode == two.returncode == 0, two.stderr.decode()
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
    assert len(json.loads(one.stdout)["verdicts"]) == 9
    assert run(*args, "-j", "0").returncode == 2


def test_worker_pool_gives_results_as_they_finish() -> None:
    """The pool hands back the first task to finish, not the first submitted: ordering the
    output is the caller's (`parallel_verify` prints per file in input order)."""
    with WorkerPool(2) as pool:
        pool.submit("slow", time.sleep, 1.5)
        pool.submit("fast", abs, -3)
        assert pool.next_done() == ("fast", 3)
        assert pool.next_done() == ("slow", None)
        assert not pool.busy()
    with WorkerPool(1) as pool:  # in this process: lowest rank first, then submission order
        pool.submit("late file", abs, -1, rank=1)
        pool.submit("a", abs, -2)
        pool.submit("b", abs, -3)
        assert [pool.next_done() for _ in range(3)] == [("a", 2), ("b", 3), ("late file", 1)]
    with WorkerPool(2) as pool:  # only as many tasks as processes leave the queue
        pool.submit("first", time.sleep, 0.5)
        pool.submit("second", time.sleep, 3.0)
        pool.submit("later, rank 1", abs, -1, rank=1)
        assert pool.next_done() == ("first", None)
        # "second" still runs; of the two waiting, the lower rank takes the free process.
        pool.submit("now, rank 0", abs, -2)
        assert pool.next_done() == ("now, rank 0", 2)
        assert pool.next_done() == ("later, rank 1", 1)
        assert pool.next_done() == ("second", None)


def test_progress_line_and_terminal_detection() -> None:
    line = render_line(Counts(files_done=3, files=10, kernels=7, specs_done=4, specs=12), 12)
    for part in ("files 3/10", "kernels 7", "specializations 4/12", "elapsed 0:12", "ETA"):
        assert part in line
    assert "ETA" not in render_line(Counts(files_done=1, files=1), 3)

    class Pipe:
        def isatty(self) -> bool:
            return False

    assert not Progress.for_terminal(False, Pipe()).enabled  # type: ignore[arg-type]


def test_jobs_must_be_positive() -> None:
    assert run(str(GOLDEN / "vector_add.py"), "-j", "0").returncode == 2


# ---- files ----------------------------------------------------------------------------------


def test_output_files_get_the_usual_mode(tmp_path: Path) -> None:
    out = tmp_path / "va.rs"
    assert run(str(GOLDEN / "vector_add.py"), "-o", str(out)).returncode == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask


def test_report_holds_each_part(tmp_path: Path) -> None:
    _verify_tools()
    report = tmp_path / "r.html"
    proc = run(str(GOLDEN / "vector_add.py"), "-o", str(tmp_path / "va.rs"), "--verify",
               "--report", str(report))
    assert proc.returncode == 0, proc.stderr.decode()
    page = report.read_text()
    for part in ("def vector_add_kernel", "fn vector_add_kernel", "cuTile Python Tile IR",
                 "cuTile Rust Tile IR", "PASS_WITH_NOTES", "accepted notes", "make_tensor_view",
                 'class="ln noted"'):
        assert part in page, part
    assert "http://" not in page and "https://" not in page  # self-contained


# ---- generated Rust builds without warnings ------------------------------------------------

LOWER_CASE_CONSTEXPRS = """\
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, block_size: tl.constexpr, num_stages: tl.constexpr):
    offs = tl.program_id(0) * block_size + tl.arange(0, block_size)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * num_stages, mask=offs < n)


def scale(x, y):
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, block_size=1024, num_stages=2)
    return y
"""


def test_triton_launcher_builds_without_warnings(tmp_path: Path) -> None:
    """Constexprs named in lower case (`num_stages`) keep their names in the Rust (the
    launcher's arguments, the manifest); rustc's upper-case lint for const parameters is
    allowed on the entry, so the kernels and their launchers build without a warning."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    try:
        toolchain.build_env()
    except toolchain.ToolchainError as err:
        pytest.skip(str(err))
    source = tmp_path / "lower_case.py"
    source.write_text(LOWER_CASE_CONSTEXPRS)
    kernels, launcher = tmp_path / "lower_case.rs", tmp_path / "lower_case_launcher.rs"
    assert main([str(source), "-o", str(kernels), "-q", "--no-llm"]) == 0
    assert main([str(source), "--emit", "launcher", "-o", str(launcher), "-q",
                 "--no-llm"]) == 0
    assert "const num_stages: i32" in kernels.read_text()
    assert "num_stages: i32," in launcher.read_text()
    build = subprocess.run(["bash", str(ROOT / "launcher" / "build.sh"), str(kernels),
                            str(launcher), str(tmp_path / "out")],
                           capture_output=True, text=True, timeout=1800, check=False)
    assert build.returncode == 0, build.stderr[-4000:]
    assert "warning" not in build.stderr, build.stderr[-4000:]
    assert (tmp_path / "out" / "libtl_lower_case.so").is_file()
