"""Tests of `transpiler.emit_launcher`: launch plans, launcher and wrapper text, and (where cargo
and the CUDA headers are here) the built library's grid functions and argument checks.

No GPU is needed: the library loads without a driver, its `__grid` twins compute grids, and a
launch fails cleanly with a driver error. The wrapper runs against a small fake `torch`.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from transpiler.cli import main as cli_main
from transpiler.driver import translate_text
from transpiler.emit_launcher import (
    emit_pywrapper,
    emit_rust_launchers,
    plan_launches,
)
from transpiler.frontend.cutile_py import parse_source

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "golden"


def _translate(path: Path, text: str | None = None):
    text = text if text is not None else path.read_text()
    result = translate_text(text, str(path))
    assert result.rust is not None, [d.message for d in result.all_diagnostics()]
    return parse_source(text, str(path)), result.rust


def _plan(name: str):
    source, rust = _translate(GOLDEN / f"{name}.py")
    return plan_launches(source, rust)


# ---- plans ----------------------------------------------------------------------------------


def test_vector_add_grid_and_generics() -> None:
    plan = _plan("vector_add")
    (launch,) = plan.launches
    assert launch.symbol == "tl_vector_add__vector_add__vector_add_kernel"
    assert launch.grid == ("cdiv(a.numel(), i64::from(TILE))?", "1i64", "1i64")
    assert {k: v.mode for k, v in launch.generics["vector_add_kernel"].items()} == {
        "E": "dispatch"}


def test_softmax_output_dtype_is_tied_to_input() -> None:
    (launch,) = _plan("softmax_rows").launches
    assert launch.grid == ("x.dim(0)", "1i64", "1i64")
    plans = launch.generics["softmax_row_kernel"]
    assert plans["E"].mode == "dispatch"
    assert (plans["EY"].mode, plans["EY"].other) == ("same", "E")


@pytest.mark.parametrize("name, expected", [
    ("matmul", ("cdiv(A.dim(0), i64::from(TILE_M))?", "cdiv(B.dim(1), i64::from(TILE_N))?",
                "1i64")),
    ("split_heads", ("cdiv(qkv.dim(1), i64::from(BLOCK_S))?", "(qkv.dim(0) * i64::from(HEADS))",
                     "3i64")),
    ("matmul_persistent", ("multiprocessor_count(device)?", "1i64", "1i64")),
    ("swiglu", ("gate_up.dim(0)", "floordiv(i64::from(hidden), i64::from(BLOCK_H))?", "1i64")),
])
def test_translated_grids(name: str, expected: tuple[str, str, str]) -> None:
    (launch,) = _plan(name).launches
    assert launch.grid == expected


HOST_PARAM_GRID = '''
import cuda.tile as ct
import torch

@ct.kernel
def scale_kernel(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=t)

def scale(x, blocks: int):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (blocks,), scale_kernel, (x, y, 256))
    return y
'''


def test_untranslatable_grid_becomes_parameters(tmp_path: Path) -> None:
    source, rust = _translate(tmp_path / "scale.py", HOST_PARAM_GRID)
    (launch,) = plan_launches(source, rust).launches
    assert launch.grid is None
    assert "host parameter `blocks`" in launch.grid_note
    text = emit_rust_launchers(source, rust)
    assert "grid_x: i64" in text and "__grid(" not in text
    assert "not translated (host parameter `blocks` is not passed to the kernel)" in text


def test_kernel_chosen_by_a_host_condition_gets_one_launcher_each() -> None:
    names = sorted(launch.kernel.name for launch in _plan("transpose").launches)
    assert names == ["transpose_kernel", "transpose_order_kernel"]


# ---- emitted text ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["vector_add", "softmax_rows", "layer_norm"])
def test_launcher_text_is_deterministic(name: str) -> None:
    source, rust = _translate(GOLDEN / f"{name}.py")
    first = emit_rust_launchers(source, rust)
    assert first == emit_rust_launchers(*_translate(GOLDEN / f"{name}.py"))
    assert first.count("#[no_mangle]") == 2  # the launcher and its grid twin
    assert "async_on(stream)" in first and "catch_unwind" not in first


def test_layer_norm_launcher_fixes_stats_dtype_and_dispatches_the_rest() -> None:
    text = emit_rust_launchers(*_translate(GOLDEN / "layer_norm.py"))
    assert 'expect_dtype("Mean", Mean, DT_F32' in text
    assert 'expect_dtype("Y", Y, g_E,' in text
    assert text.count("=> unsafe {") == 27  # E x EW x EB over three element types
    assert "eps as f32" in text


def test_pywrapper_text() -> None:
    text = emit_pywrapper(*_translate(GOLDEN / "vector_add.py"))
    compile(text, "vector_add_wrapper.py", "exec")
    assert "@ct.kernel" not in text
    assert "vector_add_kernel = _TlKernel('vector_add_kernel')" in text
    assert "_tl_launch_site(0, torch.cuda.current_stream(), grid, vector_add_kernel," in text
    assert "LIBRARY = 'libtl_vector_add.so'" in text
    assert text == emit_pywrapper(*_translate(GOLDEN / "vector_add.py"))


def test_cli_emit_writes_suffixed_files(tmp_path: Path) -> None:
    src = tmp_path / "vector_add.py"
    shutil.copy(GOLDEN / "vector_add.py", src)
    for kind, suffix in (("launcher", "_launcher.rs"), ("pywrapper", "_wrapper.py")):
        assert cli_main([str(src), "--emit", kind, "-o", str(tmp_path), "-q"]) == 0
        assert (tmp_path / f"vector_add{suffix}").read_text().strip()


# ---- the built library (needs cargo and the CUDA headers; no GPU) ---------------------------


class TensorDesc(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8)]


def _desc(shape: tuple[int, ...], dtype: int = 8) -> TensorDesc:
    strides, step = [], 1
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= dim
    return TensorDesc(0x10000, dtype, len(shape), (ctypes.c_int64 * 8)(*shape),
                      (ctypes.c_int64 * 8)(*strides))


def _toolchain_reason() -> str | None:
    if shutil.which("cargo") is None:
        return "cargo is not installed"
    try:
        from transpiler.ircheck.toolchain import build_env

        build_env()
    except Exception as err:  # noqa: BLE001 - any missing piece skips
        return f"no CUDA headers / libclang: {err}"
    return None


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = _toolchain_reason()
    if reason:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("launcher")
    pairs: list[str] = []
    for name in ("vector_add", "softmax_rows"):
        for kind, suffix in (("kernels", ".rs"), ("launcher", "_launcher.rs"),
                             ("pywrapper", "_wrapper.py")):
            assert cli_main([str(GOLDEN / f"{name}.py"), "--emit", kind, "-q",
                             "-o", str(work / f"{name}{suffix}")]) == 0
        pairs += [str(work / f"{name}.rs"), str(work / f"{name}_launcher.rs")]
    proc = subprocess.run(["bash", str(REPO / "launcher" / "build.sh"), *pairs, str(work)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "libtl_launchers.so"


def test_library_exports(library: Path) -> None:
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True,
                         text=True, check=True).stdout
    for symbol in ("tl_abi_version", "tl_last_error",
                   "tl_vector_add__vector_add__vector_add_kernel",
                   "tl_vector_add__vector_add__vector_add_kernel__grid",
                   "tl_softmax_rows__softmax__softmax_row_kernel"):
        assert f" T {symbol}\n" in out


def _lib(library: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(library))
    lib.tl_last_error.restype = ctypes.c_char_p
    return lib


@pytest.mark.parametrize("n, blocks", [(1, 1), (1024, 1), (1025, 2), (5000, 5)])
def test_vector_add_grid_twin(library: Path, n: int, blocks: int) -> None:
    lib = _lib(library)
    out = (ctypes.c_int64 * 3)()
    a = _desc((n,))
    code = lib.tl_vector_add__vector_add__vector_add_kernel__grid(
        0, ctypes.byref(a), ctypes.byref(a), ctypes.byref(a), ctypes.c_int32(1024), out)
    assert code == 0, lib.tl_last_error()
    assert tuple(out) == (blocks, 1, 1)


def test_launcher_errors_are_codes_not_panics(library: Path) -> None:
    lib = _lib(library)
    fn = lib.tl_softmax_rows__softmax__softmax_row_kernel
    x, y = _desc((7, 33)), _desc((7, 33), dtype=7)
    assert fn(None, 0, ctypes.byref(x), None, ctypes.c_int32(64)) == 1
    assert b"null tensor descriptor" in lib.tl_last_error()
    assert fn(None, 0, ctypes.byref(x), ctypes.byref(y), ctypes.c_int32(64)) == 2
    assert b"expected f32" in lib.tl_last_error()
    bad_rank = _desc((7,))
    assert fn(None, 0, ctypes.byref(bad_rank), ctypes.byref(x), ctypes.c_int32(64)) == 1


# ---- the wrapper against a fake torch -------------------------------------------------------


class _FakeTensor:
    def __init__(self, shape: tuple[int, ...], dtype: object) -> None:
        self.shape, self.dtype, self.is_cuda = tuple(shape), dtype, True
        self.device = types.SimpleNamespace(index=0)

    def dim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out

    def stride(self) -> tuple[int, ...]:
        strides, step = [], 1
        for dim in reversed(self.shape):
            strides.insert(0, step)
            step *= dim
        return tuple(strides)

    def data_ptr(self) -> int:
        return 0x20000


def _fake_torch() -> types.ModuleType:
    torch = types.ModuleType("torch")
    for name in ("float32", "float16", "bfloat16", "int32"):
        setattr(torch, name, f"torch.{name}")
    torch.Tensor = _FakeTensor
    torch.empty_like = lambda t: _FakeTensor(t.shape, t.dtype)
    stream = types.SimpleNamespace(cuda_stream=0, device=types.SimpleNamespace(index=0))
    torch.cuda = types.SimpleNamespace(current_stream=lambda: stream, current_device=lambda: 0)
    return torch


def test_wrapper_marshals_and_checks_the_grid(library: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    torch = _fake_torch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    path = library.parent / "vector_add_wrapper.py"
    spec = importlib.util.spec_from_file_location("vector_add_wrapper", path)
    assert spec is not None and spec.loader is not None
    wrapper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrapper)
    wrapper.load_library(library)
    wrapper.CHECK_GRID = True
    a = _FakeTensor((3000,), torch.float32)
    # The grid twin agrees with Python's (3, 1, 1); the launch itself needs a driver.
    with pytest.raises(RuntimeError, match=r"code 3\).*(CUDA driver|libcuda)"):
        wrapper.vector_add(a, a)
