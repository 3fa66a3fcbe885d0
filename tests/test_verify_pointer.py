"""`verify` of Rust in the pointer calling convention (raw pointers, shapes and strides as
scalars), on a translation written by hand for these tests: the correct one must PASS, an edit
that reads another array's shape must FAIL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from transpiler.ircheck import toolchain

ROOT = Path(__file__).resolve().parent.parent
RUST = Path(__file__).resolve().parent / "verify_kernels" / "silu_ptr.rs"
SPEC = {"silu_kernel": [{"x": {"dtype": "float16", "ndim": 1},
                         "y": {"dtype": "float16", "ndim": 1}, "TILE_SIZE": 1024}]}


def _verify(tmp_path: Path, rust_text: str) -> tuple[int, dict]:
    try:
        toolchain.harness_binary()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"harness not built: {err}")
    rust = tmp_path / "silu_ptr.rs"
    rust.write_text(rust_text)
    spec = tmp_path / "silu.spec.json"
    spec.write_text(json.dumps(SPEC))
    args = [sys.executable, "-m", "transpiler", "verify", str(ROOT / "golden" / "silu.py"),
            str(rust), "--spec", str(spec), "--json"]
    proc = subprocess.run(args, capture_output=True, text=True, check=False,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    report = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, report | {"stderr": proc.stderr}


def test_pointer_convention_translation_passes(tmp_path: Path) -> None:
    code, report = _verify(tmp_path, RUST.read_text())
    assert code == 0, report
    verdicts = report["verdicts"]  # the host's specialization and the coverage's
    assert verdicts and all(v["verdict"] in ("PASS", "PASS_WITH_NOTES") for v in verdicts)
    assert all("pointer-binding: x_shape0 = x.shape[0] (name)" in v["notes"] for v in verdicts)


def test_reading_the_wrong_arrays_shape_fails(tmp_path: Path) -> None:
    text = RUST.read_text().replace("assume_bounds_lower::<_, 0>(x_shape0)",
                                    "assume_bounds_lower::<_, 0>(y_shape0)")
    code, report = _verify(tmp_path, text)
    assert code == 1, report
    assert report["verdicts"][0]["verdict"] == "FAIL"
