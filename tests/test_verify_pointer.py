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


def _verify(tmp_path: Path, rust_text: str, *extra: str,
            spec: dict | None = None) -> tuple[int, dict]:
    try:
        toolchain.harness_binary()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"harness not built: {err}")
    rust = tmp_path / "silu_ptr.rs"
    rust.write_text(rust_text)
    spec_file = tmp_path / "silu.spec.json"
    spec_file.write_text(json.dumps(spec or SPEC))
    args = [sys.executable, "-m", "transpiler", "verify", str(ROOT / "golden" / "silu.py"),
            str(rust), "--spec", str(spec_file), "--json", *extra]
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


def test_swapped_pointers_fail(tmp_path: Path) -> None:
    code, report = _verify(tmp_path, RUST.read_text(), "--bind", "x_ptr=y", "--bind",
                           "y_ptr=x")
    assert code == 1, report
    assert report["verdicts"][0]["verdict"] == "FAIL"


def test_shapes_bound_to_the_other_array_fail(tmp_path: Path) -> None:
    code, report = _verify(tmp_path, RUST.read_text(), "--bind", "x_shape0=y.shape[0]",
                           "--bind", "y_shape0=x.shape[0]")
    assert code == 1, report
    assert report["verdicts"][0]["verdict"] == "FAIL"


def test_a_shape_bound_to_a_stride_it_already_has_is_refused(tmp_path: Path) -> None:
    code, report = _verify(tmp_path, RUST.read_text(), "--bind", "x_shape0=x.stride[0]")
    assert code == 2, report
    assert "two Rust parameters bind to the same argument" in report["verdicts"][0]["error"]


def test_a_pointer_of_another_element_type_is_refused(tmp_path: Path) -> None:
    text = RUST.read_text().replace("x_ptr: *mut E,", "x_ptr: *mut f32,").replace(
        "PointerTile<*mut E, { [] }>", "PointerTile<*mut f32, { [] }>").replace(
        "Tensor<E, { [-1] }>", "Tensor<f32, { [-1] }>").replace(
        "Partition<E, { [TILE_SIZE] }>", "Partition<f32, { [TILE_SIZE] }>").replace(
        "Tile<E, { [TILE_SIZE] }>", "Tile<f32, { [TILE_SIZE] }>").replace(
        "unsafe fn silu_kernel<E: ElementType, EY", "unsafe fn silu_kernel<EY")
    code, report = _verify(tmp_path, text)
    f16 = [v for v in report["verdicts"] if "x:float16" in v["specialization"]]
    assert f16 and all(v["verdict"] == "SKIPPED" for v in f16), report
    assert "reads `x` (float16) as `f32`" in f16[0]["error"]
    # the specializations with f32 arrays are still checked
    assert any(v["verdict"] in ("PASS", "PASS_WITH_NOTES") for v in report["verdicts"]
               if "x:float32" in v["specialization"])


NUMERIC = {"sizes": [{"N": 2048}, {"N": 1024}], "shapes": {"x": ["N"], "y": ["N"]},
           "grid": ["cdiv(N, TILE_SIZE)", 1, 1]}


def test_numeric_check_of_a_pointer_entry(tmp_path: Path) -> None:
    spec = {"silu_kernel": [{**SPEC["silu_kernel"][0], "numeric": NUMERIC}]}
    code, report = _verify(tmp_path, RUST.read_text(), "--numeric", spec=spec)
    given = [n for n in report["numeric"] if n["specialization"].startswith(
        "silu_kernel[x:float16/1,y:float16/1,TILE_SIZE=1024]")]
    assert given and given[0]["verdict"] == "PASS", report["numeric"]
    assert len(given[0]["cases"]) == 4  # two sizes, plain and special values
    # the same entry with its result scaled must fail numerically, not only structurally
    text = RUST.read_text().replace("divf(xf, denom,", "divf(xf + xf, denom,")
    code, report = _verify(tmp_path, text, "--numeric", spec=spec)
    assert code == 1, report
    assert [n["verdict"] for n in report["numeric"]][0] == "FAIL"
