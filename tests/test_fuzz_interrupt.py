"""Folder translation killed without warning (SIGKILL: no handler runs) at seeded random
moments, while other processes write the same output folder: every output file present is
a whole translation (temp file + rename, so a reader never sees a partial one), and a rerun
completes the folder. A temp file a killed process leaves behind is never an output
(`*.rs` are whole, whatever else is there)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
KERNELS = ("vector_add", "softmax_rows", "matmul", "gelu_tanh", "embedding", "rope")


def _translate(src: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "transpiler", str(src), "-o", str(out),
                             "--quiet", "-j", "1"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _outputs_are_whole(out: Path) -> None:
    for path in out.glob("*.rs"):
        assert path.read_bytes() == (GOLDEN / path.name).read_bytes(), path.name


def test_killed_translations_among_concurrent_ones_leave_whole_files(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    for name in KERNELS:
        shutil.copy(GOLDEN / f"{name}.py", src / f"{name}.py")
    out = tmp_path / "out"
    rng = random.Random("sigkill")
    for _ in range(2):
        steady = _translate(src, out)
        victim = _translate(src, out)
        time.sleep(rng.uniform(0.3, 3.0))
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=60)
        _, stderr = steady.communicate(timeout=300)
        assert steady.returncode == 0, stderr.decode()
        assert b"Traceback" not in stderr
        _outputs_are_whole(out)
    rerun = _translate(src, out)
    assert rerun.wait(timeout=300) == 0
    _outputs_are_whole(out)
    assert sorted(p.stem for p in out.glob("*.rs")) == sorted(KERNELS)
