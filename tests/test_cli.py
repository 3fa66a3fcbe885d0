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
    assert kernel["manifest"]["generics"][0]["name"] == "E"


def test_folder_mirrors_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "nested").mkdir(parents=True)
    (src / "a.py").write_bytes(GOOD.read_bytes())
    (src / "nested" / "b.py").write_bytes((ROOT / "golden" / "softmax_rows.py").read_bytes())
    out = tmp_path / "out"
    proc = run(str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert (out / "a.rs").exists() and (out / "nested" / "b.rs").exists()


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
    "while_loop.py": "E0104",
    "try_block.py": "E0104",
    "lambda_in_kernel.py": "E0104",
    "closure.py": "E0104",
    "generator.py": "E0104",
    "recursion.py": "E0106",
    "wrong_arity.py": "E0102",
    "undefined_helper.py": "E0105",
    "binary_nul.py": "E0002",
    "not_utf8.py": "E0002",
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
