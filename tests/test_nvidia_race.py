"""The CPU side of `bench/gpu_race_nvidia.py` (no GPU, no torch needed): the ctypes
`TensorDesc` against a `#[repr(C)]` Rust struct of `ffi_util.rs`'s shape, C prototypes,
the ratio and interval math, the table."""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: NVIDIA's file, where a copy of the wheel is cached (a corpus: read, never copied)
FFI_UTIL = ROOT / ".cache" / "tilegym" / "cutile_rs" / "ffi_util.rs"


@pytest.fixture(scope="module")
def race() -> types.ModuleType:
    """The bench module, imported with a stand-in for torch where torch is missing (its
    CPU-side functions do not touch torch)."""
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.nn", "torch.nn.functional")}
    if importlib.util.find_spec("torch") is None:
        stub = types.ModuleType("torch")
        stub.__dict__["__getattr__"] = lambda name: f"torch.{name}"
        nn = types.ModuleType("torch.nn")
        functional = types.ModuleType("torch.nn.functional")
        stub.nn, nn.functional = nn, functional  # type: ignore[attr-defined]
        sys.modules.update({"torch": stub, "torch.nn": nn, "torch.nn.functional": functional})
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        module = importlib.import_module("gpu_race_nvidia")
    finally:
        sys.path.remove(str(ROOT / "bench"))
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
    return module


def test_tensor_desc_has_the_repr_c_layout(race: types.ModuleType) -> None:
    desc = race.TensorDesc
    # u64, i32 (+4 padding), [i64; 5], [i64; 5], i32 (+4 padding to the u64 alignment)
    assert [(name, getattr(desc, name).offset) for name, _ in desc._fields_] == [
        ("ptr", 0), ("ndim", 8), ("shape", 16), ("strides", 56), ("dtype", 96)]
    assert ctypes.sizeof(desc) == 104 and ctypes.alignment(desc) == 8


def test_fields_match_ffi_util_where_it_is_cached(race: types.ModuleType) -> None:
    if not FFI_UTIL.exists():
        pytest.skip("no cached tilegym wheel (.cache/tilegym)")
    body = re.search(r"pub struct TensorDesc \{(.*?)\n\}", FFI_UTIL.read_text(), re.S)
    assert body is not None
    fields = re.findall(r"pub (\w+): ([^,]+),", body.group(1))
    rust_types = {"u64": ctypes.c_uint64, "i32": ctypes.c_int32,
                  "[i64; MAX_DIMS]": ctypes.c_int64 * race.MAX_DIMS}
    assert [(n, rust_types[t].__name__) for n, t in fields] == [
        (n, t.__name__) for n, t in race.TensorDesc._fields_]


RUST_PROBE = """
#[repr(C)]
pub struct TensorDesc { pub ptr: u64, pub ndim: i32, pub shape: [i64; 5], pub strides: [i64; 5],
                        pub dtype: i32 }
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_probe(d: *const TensorDesc, scale: f32, k: i32, s: u64) -> i32 {
    let d = unsafe { &*d };
    (d.ptr as i64 + d.ndim as i64 * 10 + d.shape[1] * 100 + d.strides[0] * 1000
     + d.dtype as i64 * 10000 + (scale * 2.0) as i64 + k as i64 + s as i64) as i32
}
"""
CDEF = """
int32_t cutile_probe(
    const TensorDesc* d, float scale, int32_t k,
    uint64_t raw_stream);
"""


def test_a_rust_cdylib_reads_the_descriptor_the_wrapper_packs(race: types.ModuleType,
                                                               tmp_path: Path) -> None:
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("no rustc")
    (tmp_path / "probe.rs").write_text(RUST_PROBE)
    subprocess.run([rustc, "--edition", "2024", "--crate-type", "cdylib", "-O", "-o",
                    str(tmp_path / "libprobe.so"), str(tmp_path / "probe.rs")], check=True,
                   capture_output=True)
    ffi, lib = race.ctypes_binder(tmp_path / "libprobe.so")("probe", CDEF)
    desc = ffi.new("TensorDesc *")  # as tilegym's make_tensor_desc fills it
    desc.ptr, desc.ndim, desc.dtype = 7, 2, 2
    desc.shape[1], desc.strides[0] = 3, 4
    assert lib.cutile_probe(desc, 1.5, 20, 100) == 7 + 20 + 300 + 4000 + 20000 + 3 + 20 + 100
    with pytest.raises(ValueError, match="only `TensorDesc"):
        ffi.new("int32_t *")


def test_prototypes(race: types.ModuleType) -> None:
    restype, argtypes = race.parse_prototypes(CDEF)["cutile_probe"]
    assert restype is ctypes.c_int32
    assert argtypes == [ctypes.POINTER(race.TensorDesc), ctypes.c_float, ctypes.c_int32,
                        ctypes.c_uint64]
    with pytest.raises(ValueError, match="no ctypes mapping"):
        race.parse_prototypes("int32_t f(char* name);")


def test_ratios_and_intervals(race: types.ModuleType) -> None:
    times = {"python": [10.0, 11.0, 9.0, 10.0, 10.5], "ours": [8.0, 8.5, 7.5, 8.0, 8.2],
             "nvidia": [12.0, 12.5, 11.0, 12.0, 13.0]}
    row = race.ratio_row(times)
    assert row["kernel_us"] == {"python": 10.0, "ours": 8.0, "nvidia": 12.0}
    assert row["nvidia_over_ours"] == pytest.approx(1.5)
    assert row["ours_over_python"] == pytest.approx(0.8)
    low, high = row["nvidia_over_ours_ci95"]
    assert low <= 1.5 <= high and low > 1.0  # every resample has NVIDIA slower here
    low, high = row["ours_over_python_ci95"]
    assert low <= 0.8 <= high < 1.0
    same = race.ratio_row({"python": [5.0] * 4, "ours": [5.0] * 4, "nvidia": [5.0] * 4})
    assert same["nvidia_over_ours_ci95"] == [1.0, 1.0]


def test_table(race: types.ModuleType) -> None:
    good = {"ok": True, "bitwise": False, "nan": False, "max_abs_diff": 0.001}
    bad = {"ok": False, "bitwise": False, "nan": True, "max_abs_diff": float("nan")}
    rows = [{"op": "tilegym/silu_and_mul", "shape": [4096, 8192], "dtype": "f16",
             "check": {"ours": good, "nvidia": bad},
             "timing": race.ratio_row({"python": [10.0, 10.0], "ours": [9.0, 9.0],
                                       "nvidia": [18.0, 18.0]})},
            {"op": "tilegym/bmm", "shape": [16, 1024, 1024, 1024], "dtype": "bf16",
             "error": "RuntimeError: launch failed"}]
    text = race.markdown(rows, {"device": "test"})
    assert "| tilegym/silu_and_mul | 4096x8192 | f16 | 10.0 | 9.0 | 18.0 | 2.00 [2.00, 2.00]" \
        in text
    assert "| yes | NO (max diff nan), NaN |" in text
    assert "| tilegym/bmm | 16x1024x1024x1024 | bf16 | error: RuntimeError: launch failed" \
        in text
    assert "nv/ours 2.00" in race.row_line(rows[0])


def test_every_race_has_a_bench_case(race: types.ModuleType) -> None:
    for entry in race.RACES:
        case = race.case_for(entry)
        assert case.tilegym == f"{entry.nvidia_module}.py" and entry.nvidia_entries
    with pytest.raises(KeyError):
        race.case_for(race.Race("tilegym/nope", "nope", "nope"))
