"""Helpers and constants imported from a sibling module (`from .act_common import f`).

tests/sibling_kernels/silu_mul.py calls a helper (which calls another) and reads a constant
from act_common.py beside it. The helper is inlined like a local one; the IR check lifts it
from its own file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "sibling_kernels"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "transpiler", *args], capture_output=True,
                          text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          check=False)


def test_a_sibling_helper_translates_to_the_recorded_rust() -> None:
    proc = run(str(KERNELS / "silu_mul.py"), "-o", str(KERNELS / "silu_mul.rs"), "--check")
    assert proc.returncode == 0, proc.stderr


def test_a_sibling_helper_passes_the_ir_check(tmp_path: Path) -> None:
    proc = run(str(KERNELS / "silu_mul.py"), "-o", str(tmp_path / "out.rs"), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout and "FAIL" not in proc.stdout, proc.stdout


def test_a_missing_sibling_file_is_a_diagnostic(tmp_path: Path) -> None:
    shutil.copy(KERNELS / "silu_mul.py", tmp_path / "silu_mul.py")
    proc = run(str(tmp_path / "silu_mul.py"), "-o", str(tmp_path / "out.rs"))
    assert proc.returncode == 1
    assert "error[E0105]" in proc.stderr and "`.act_common`" in proc.stderr, proc.stderr
    assert not (tmp_path / "out.rs").exists()


def test_an_error_inside_the_sibling_points_at_its_file(tmp_path: Path) -> None:
    shutil.copy(KERNELS / "silu_mul.py", tmp_path / "silu_mul.py")
    helper = (KERNELS / "act_common.py").read_text().replace(
        "return x * sigmoid_tile(x)", "assert x is not None\n    return x * sigmoid_tile(x)")
    (tmp_path / "act_common.py").write_text(helper)
    proc = run(str(tmp_path / "silu_mul.py"), "-o", str(tmp_path / "out.rs"))
    assert proc.returncode == 1
    line = helper.splitlines().index("    assert x is not None") + 1
    assert f"act_common.py:{line}:5: error[E0104]" in proc.stderr, proc.stderr
    assert "assert x is not None" in proc.stderr, proc.stderr
