"""`pip install .` into a fresh virtual environment gives a `transpiler` command that works
from any folder: it builds the wheel, installs it (with the `verify` extra) into a new venv,
and from a temporary folder translates a kernel and verifies it.

The verify reuses the harness this checkout already built (`TRANSPILER_HARNESS`) and its
`tileirdisasm` (`TILEIRDISASM`): building the harness from the wheel's sources into the user
cache works the same way but takes minutes of cargo, too long for CI. Skipped when the
package index cannot be reached (the install needs libcst, lark and cuda-tile)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from transpiler.ircheck import toolchain

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "golden" / "vector_add.py"


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def test_the_wheel_installs_and_runs_from_any_folder(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, ROOT,
                 cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("transpiler-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    installed = _run(python, "-m", "pip", "install", "-q", f"{wheel}[verify]", cwd=tmp_path)
    if installed.returncode != 0 and "No matching distribution" in installed.stderr:
        pytest.skip(f"package index unreachable: {installed.stderr[-300:]}")
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "vector_add.py").write_bytes(KERNEL.read_bytes())
    # Nothing of this checkout on the module path; rustfmt (rustup's, under HOME) stays.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{env_dir / 'bin'}:{os.environ.get('PATH', '')}",
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    translated = _run(env_dir / "bin" / "transpiler", "vector_add.py", "-o", "op.rs", cwd=work,
                      env=env)
    assert translated.returncode == 0, translated.stderr
    assert (work / "op.rs").read_text() == KERNEL.with_suffix(".rs").read_text()
    doctor = _run(env_dir / "bin" / "transpiler", "doctor", cwd=work, env=env)
    assert "harness" in doctor.stdout, doctor.stdout + doctor.stderr
    try:
        env["TRANSPILER_HARNESS"] = str(toolchain.harness_binary())
        env["TILEIRDISASM"] = str(toolchain.tileirdisasm())
    except toolchain.ToolchainError as err:
        pytest.skip(f"translation checked; verify needs the tools: {err}")
    verified = _run(env_dir / "bin" / "transpiler", "vector_add.py", "-o", "op.rs", "--verify",
                    cwd=work, env=env)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The host code's three specializations and TILE's second value.
    assert verified.stdout.count("PASS") == 4, verified.stdout
