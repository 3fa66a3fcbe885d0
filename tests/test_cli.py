"""The command line as a user runs it: exit codes, files, stdin/stdout, --check/--diff/--json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad_inputs"
GOOD = ROOT / "golden" / "vector_add.py"


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "transpiler", *args], input=stdin,
                          capture_output=True, cwd=cwd or ROOT, env=env, check=False)


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.decode().startswith("transpiler ")


def test_usage_error_exit_code() -> None:
    assert run().returncode == 2
    assert run("does/not/exist.py").returncode == 2
    assert run("--no-such-flag", str(GOOD)).returncode == 2


@pytest.mark.parametrize("text", ["[1]", "{not json", '{"k": [{"x": {"ndim": 2}}]}'])
def test_a_malformed_spec_file_is_a_usage_error(text: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(text)
    for args in (("--verify", "--spec", str(spec), str(GOOD), "-o", str(tmp_path / "a.rs")),
                 ("verify", str(GOOD), str(GOOD.with_suffix(".rs")), "--spec", str(spec))):
        proc = run(*args)
        assert proc.returncode == 2, proc.stderr.decode()
        assert f"--spec {spec}" in proc.stderr.decode()
        assert b"Traceback" not in proc.stderr
    assert not (tmp_path / "a.rs").exists()


def test_file_to_file(tmp_path: Path) -> None:
    out = tmp_path / "op.rs"
    proc = run(str(GOOD), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    text = out.read_text()
    assert "#[cutile::module]" in text and "#[cutile::entry()]" in text
    assert text == (ROOT / "golden" / "vector_add.rs").read_text()


def test_stdin_to_stdout() -> None:
    proc = run("-", stdin=GOOD.read_bytes())
    assert proc.returncode == 0
    assert b"fn vector_add_kernel" in proc.stdout


def test_idempotent_check_and_diff(tmp_path: Path) -> None:
    out = tmp_path / "op.rs"
    assert run(str(GOOD), "-o", str(out)).returncode == 0
    before = out.stat().st_mtime_ns
    assert run(str(GOOD), "-o", str(out), "--check").returncode == 0
    assert run(str(GOOD), "-o", str(out)).returncode == 0
    assert out.stat().st_mtime_ns == before, "an unchanged output must not be rewritten"
    out.write_text(out.read_text().replace("let pid", "let pid_edited"))
    check = run(str(GOOD), "-o", str(out), "--check")
    assert check.returncode == 1
    assert b"would update" in check.stderr
    diff = run(str(GOOD), "-o", str(out), "--diff")
    assert b"-        let pid_edited" in diff.stdout
    assert "pid_edited" in out.read_text(), "--check/--diff never write"


def test_json_report(tmp_path: Path) -> None:
    proc = run(str(GOOD), "-o", str(tmp_path / "op.rs"), "--json")
    report = json.loads(proc.stdout)
    kernel = report["files"][0]["kernels"][0]
    assert kernel["name"] == "vector_add_kernel" and kernel["status"] == "translated"
    assert kernel["manifest"]["generics"][0]["name"] == "ET"


def test_folder_mirrors_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "nested").mkdir(parents=True)
    (src / "a.py").write_bytes(GOOD.read_bytes())
    (src / "nested" / "b.py").write_bytes((ROOT / "golden" / "softmax_rows.py").read_bytes())
    out = tmp_path / "out"
    proc = run(str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert (out / "a.rs").exists() and (out / "nested" / "b.rs").exists()


def test_folder_skips_files_without_kernels(tmp_path: Path) -> None:
    """A package's `__init__.py` and helper modules define no kernel: a folder translation
    skips them (no output, no error, `skipped` in the JSON); named alone, such a file is
    error E0003 (`test_bad_input_diagnostic`)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "__init__.py").write_text("")
    (src / "helpers.py").write_text("import cuda.tile as ct\n\n\ndef twice(x):\n"
                                    "    return x + x\n")
    (src / "op.py").write_bytes(GOOD.read_bytes())
    out = tmp_path / "out"
    proc = run(str(src), "-o", str(out), "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"E0003" not in proc.stderr
    assert sorted(p.name for p in out.rglob("*")) == ["op.rs"]
    status = {Path(f["path"]).name: f["status"] for f in json.loads(proc.stdout)["files"]}
    assert status == {"__init__.py": "skipped", "helpers.py": "skipped", "op.py": "ok"}
    (src / "broken.py").write_text("import cuda.tile as ct\n@ct.kernel\ndef k(:\n")
    assert run(str(src), "-o", str(out)).returncode == 1  # a real error still fails


def test_failed_translation_leaves_existing_output(tmp_path: Path) -> None:
    out = tmp_path / "op.rs"
    out.write_text("// previous output\n")
    proc = run(str(BAD / "unknown_function.py"), "-o", str(out))
    assert proc.returncode == 1
    assert out.read_text() == "// previous output\n"
    assert list(tmp_path.iterdir()) == [out], "no temp file may be left behind"


BAD_CASES = {
    "syntax_error.py": "E0001",
    "no_kernels.py": "E0003",
    "empty.py": "E0003",
    "unknown_function.py": "E0100",
    "non_constant_shape.py": "E0103",
    "try_block.py": "E0104",
    "lambda_in_kernel.py": "E0104",
    "closure.py": "E0104",
    "generator.py": "E0104",
    "recursion.py": "E0106",
    "wrong_arity.py": "E0102",
    "undefined_helper.py": "E0105",
    "binary_nul.py": "E0002",
    "not_utf8.py": "E0002",
    "slice_runtime_axis.py": "E0103",
    "slice_reversed_bounds.py": "E0108",
    "slice_float_bound.py": "E0107",
    "in_tile_operand.py": "E0107",
    "in_runtime_container.py": "E0107",
    "nested_runtime_return.py": "E0110",
    "static_iter_break.py": "E0104",
    "comprehension_runtime_if.py": "E0103",
    "static_iter_too_long.py": "E0108",
    "print_two_values.py": "E0110",
    "print_twice.py": "E0101",
    "print_built_string.py": "E0101",
}


@pytest.mark.parametrize("name,code", sorted(BAD_CASES.items()))
def test_bad_input_diagnostic(name: str, code: str, tmp_path: Path) -> None:
    out = tmp_path / "out.rs"
    proc = run(str(BAD / name), "-o", str(out))
    stderr = proc.stderr.decode()
    assert proc.returncode == 1
    assert f"error[{code}]" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()


def test_bad_input_diagnostic_points_at_source() -> None:
    proc = run(str(BAD / "unknown_function.py"))
    lines = proc.stderr.decode().splitlines()
    assert lines[0].startswith(f"{BAD / 'unknown_function.py'}:7:42: error[E0100]")
    assert lines[2].endswith("tile=ct.sigmoid(t))")
    assert lines[3].strip().endswith("^" * len("ct.sigmoid"))


def test_huge_file(tmp_path: Path) -> None:
    huge = tmp_path / "huge.py"
    huge.write_text("import cuda.tile as ct\n" + "# padding line\n" * 200_000)
    proc = run(str(huge), "-o", str(tmp_path / "huge.rs"))
    assert proc.returncode == 1
    assert b"error[E0004]" in proc.stderr
    assert b"Traceback" not in proc.stderr


# ---- the JSON report's unhandled-construct records, and start-up cost -----------------------

UNHANDLED = ROOT / "tests" / "llm_fixtures" / "polar_angle.py"  # ct.atan2: an E0101 record

MIXED = '''import cuda.tile as ct


@ct.kernel
def copy_kernel(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t)


@ct.kernel
def angle_kernel(y, x, out, TILE: ct.Constant[int]):
    yt = ct.load(y, index=(ct.bid(0),), shape=(TILE,))
    xt = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(out, index=(ct.bid(0),), tile=ct.atan2(yt, xt))
'''


def test_json_report_carries_the_unhandled_construct_records(tmp_path: Path) -> None:
    from transpiler.driver import translate_bytes

    proc = run(str(UNHANDLED), "-o", str(tmp_path / "op.rs"), "--json", "--no-llm")
    assert proc.returncode == 1
    entry = json.loads(proc.stdout)["files"][0]
    (record,) = entry["unhandled"]
    (expected,) = translate_bytes(UNHANDLED.read_bytes(), str(UNHANDLED)).unhandled
    assert record == {
        "kernel": "polar_angle_kernel", "construct": "call:ct.atan2", "code": "E0101",
        "message": expected.message, "line": 10, "col": 13, "end_line": 10, "end_col": 29,
        "source_text": "ct.atan2(yt, xt)", "context": expected.context,
    }
    assert record["context"]["yt"].startswith("tile<")
    # The same position as the kernel's diagnostic, which is 1-based too.
    (kernel,) = entry["kernels"]
    (diag,) = kernel["diagnostics"]
    assert (diag["line"], diag["col"], diag["code"]) == (record["line"], record["col"], "E0101")
    assert kernel["unhandled"] == record
    line = UNHANDLED.read_text().splitlines()[record["line"] - 1]
    assert line[record["col"] - 1:record["end_col"] - 1] == record["source_text"]


def test_json_unhandled_records_belong_to_their_kernel(tmp_path: Path) -> None:
    src = tmp_path / "mixed.py"
    src.write_text(MIXED)
    proc = run(str(src), "-o", str(tmp_path / "mixed.rs"), "--json", "--no-llm")
    entry = json.loads(proc.stdout)["files"][0]
    assert [u["kernel"] for u in entry["unhandled"]] == ["angle_kernel"]
    kernels = {k["name"]: k for k in entry["kernels"]}
    assert kernels["copy_kernel"]["status"] == "translated"
    assert kernels["copy_kernel"]["unhandled"] is None
    assert kernels["angle_kernel"]["unhandled"]["construct"] == "call:ct.atan2"
    assert kernels["angle_kernel"]["unhandled"]["line"] == 14


def test_json_report_of_a_clean_file_has_no_unhandled_records(tmp_path: Path) -> None:
    proc = run(str(GOOD), "-o", str(tmp_path / "op.rs"), "--json", "--no-llm")
    entry = json.loads(proc.stdout)["files"][0]
    assert entry["unhandled"] == []
    assert all(k["unhandled"] is None for k in entry["kernels"])


_LOADED = '''
import sys
from transpiler.cli import main
status = main(sys.argv[1:])
print(status, "transpiler.emit_launcher" in sys.modules)
'''


@pytest.mark.parametrize("emit, loaded", [("kernels", False), ("launcher", True),
                                          ("pywrapper", True)])
def test_the_launcher_generator_is_imported_only_when_emitted(
        emit: str, loaded: bool, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _LOADED, str(GOOD), "--emit", emit, "-q",
                           "--no-llm", "-o", str(tmp_path)], capture_output=True, env=env,
                          cwd=ROOT, check=False)
    assert proc.stdout.decode().split() == ["0", str(loaded)], proc.stderr.decode()
    suffix = {"kernels": ".rs", "launcher": "_launcher.rs", "pywrapper": "_wrapper.py"}[emit]
    assert (tmp_path / f"vector_add{suffix}").read_text().strip()


def test_emit_kinds_are_the_launcher_generators() -> None:
    from transpiler import emit_kinds, emit_launcher

    assert emit_launcher.EMIT_KINDS is emit_kinds.EMIT_KINDS
    assert emit_launcher.emit_path is emit_kinds.emit_path
    assert emit_kinds.emit_path(Path("a/op.py"), "launcher") == Path("a/op_launcher.rs")
