"""Tests of `transpiler.emit_launcher`: launch plans, launcher and wrapper text, and (where cargo
and the CUDA headers are here) the built library's grid functions and argument checks.

No GPU is needed: the library loads without a driver, its `__grid` twins compute grids, and a
launch fails cleanly with a driver error. The wrapper runs against a small fake `torch`.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import re
import shutil
import struct
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
    packable,
    packed_format,
    plan_launches,
)
from transpiler.frontend.cutile_py import parse_source
from transpiler.hostglue.rust_launchers import _cond_rust
from transpiler.hostglue.signatures import KernelSig, ParamSig

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
        "ET": "dispatch"}


def test_softmax_output_dtype_is_tied_to_input() -> None:
    (launch,) = _plan("softmax_rows").launches
    assert launch.grid == ("x.dim(0)", "1i64", "1i64")
    plans = launch.generics["softmax_row_kernel"]
    assert plans["ET"].mode == "dispatch"
    assert (plans["EY"].mode, plans["EY"].other) == ("same", "ET")


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


def test_grid_call_arguments_carry_no_redundant_parentheses(tmp_path: Path) -> None:
    # rustc warns (unused_parens) about `floordiv((a + b), c)`.
    path = tmp_path / "scale.py"
    path.write_text(HOST_PARAM_GRID.replace(
        "(blocks,), scale_kernel", "(max((x.shape[0] + 255) // 256, 1),), scale_kernel"))
    source, rust = _translate(path)
    (launch,) = plan_launches(source, rust).launches
    assert launch.grid == ("floordiv(x.dim(0) + 255i64, 256i64)?.max(1i64)", "1i64", "1i64")


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
    assert first.count("#[no_mangle]") == 3  # the launcher, its packed and grid twins
    assert "async_on(stream)" in first and "catch_unwind" not in first


def test_slice_strides_are_passed_from_the_sliced_arrays() -> None:
    # A slice keeps its array's strides, which the kernel takes as parameters.
    text = emit_rust_launchers(*_translate(GOLDEN / "segment_glu.py"))
    assert "let x_stride_0: i32 = x.strides[0] as i32;" in text
    assert "let y_stride_0: i32 = y.strides[0] as i32;" in text
    assert "(&x, &y, &offsets, &scales, x_stride_0, y_stride_0)" in text


def test_layer_norm_launcher_fixes_stats_dtype_and_dispatches_the_rest() -> None:
    text = emit_rust_launchers(*_translate(GOLDEN / "layer_norm.py"))
    assert 'expect_dtype("Mean", Mean, DT_F32' in text
    assert 'expect_dtype("Y", Y, g_ET,' in text
    assert text.count("=> unsafe {") == 27  # ET x EW x EB over three element types
    # The float constant reaches the entry as the f32 bits of its value, a const generic.
    assert "((eps as f32).to_bits() as i32).to_string()" in text


# ---- kernels translated per dtype / per constant value: one Rust entry each -----------------

# Golden file -> the arrays whose dtype selects the entry (the float dtypes translated for
# follow the analysis; each has its own entry `<kernel>_<element>`).
DTYPE_VARIANTS = {
    "gram_matrix": ("X",),
    "batched_matmul_scaled": ("A", "B"),
    "matmul_tf32": ("A",),
}

CONST_VARIANT = '''
import cuda.tile as ct
import torch


@ct.kernel
def maybe_widen(x, y, TILE: ct.Constant[int], WIDE: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if WIDE:
        r = t.astype(ct.float32) * 2.0
    else:
        r = t
    ct.store(y, index=(ct.bid(0),), tile=r.astype(y.dtype))


def widen(x, wide: bool):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 256,), maybe_widen, (x, y, 256, wide))
    return y
'''


def _extern_body(text: str, symbol: str) -> str:
    start = text.index(f'extern "C" fn {symbol}(')
    return text[start:text.index("\n}\n", start)]


def _assert_dispatch(body: str, branches: list[tuple[str, str]], tag: str) -> None:
    """Each `if TEST {` branch, in order, launches its own entry and no other."""
    starts = [body.index(f"if {test} {{") for _, test in branches]
    assert starts == sorted(starts)
    ends = [*starts[1:], body.index("} else {\n", starts[-1])]
    for (entry, _), start, end in zip(branches, starts, ends, strict=True):
        launched = set(re.findall(r"run_" + tag + r"_(\w+?)(?:::<|\()", body[start:end]))
        assert launched == {entry}, (entry, launched)


@pytest.mark.parametrize("name", sorted(DTYPE_VARIANTS))
def test_dtype_variants_are_dispatched_on_the_runtime_dtypes(name: str) -> None:
    source, rust = _translate(GOLDEN / f"{name}.py")
    (launch,) = plan_launches(source, rust).launches
    expected = []
    for entry in launch.entries:
        assert entry.name == launch.kernel.name
        assert tuple(p for p, _ in entry.variant) == DTYPE_VARIANTS[name]
        (element,) = {e for _, e in entry.variant}
        assert entry.rust_fn == f"{entry.name}_{element}"
        expected.append((entry.rust_fn, " && ".join(
            f"{p}.dtype == DT_{element.upper()}" for p in DTYPE_VARIANTS[name])))
    assert "f32" in {e for entry in launch.entries for _, e in entry.variant}
    text = emit_rust_launchers(source, rust)
    body = _extern_body(text, launch.symbol)
    _assert_dispatch(body, expected, f"s0_{launch.kernel.name}")
    # No entry fits: an error code naming the dtypes the call has and the translated ones.
    tail = body[body.rindex("} else {"):]
    assert "TL_UNSUPPORTED_DTYPE" in tail and "dtype_name(" in tail
    assert f"no translation of `{launch.kernel.name}` for " in tail
    for entry in launch.entries:
        fixed = ", ".join(f"{p} = {e}" for p, e in entry.variant)
        assert f"Entry `{entry.rust_fn}` (launched for {fixed})" in text
        assert fixed in tail


def test_matmul_tf32_output_dtype_follows_the_selected_entry() -> None:
    source, rust = _translate(GOLDEN / "matmul_tf32.py")
    (launch,) = plan_launches(source, rust).launches
    elements = [e.upper() for entry in launch.entries for _, e in entry.variant]
    assert elements == ["F32", "F16", "BF16"]
    text = emit_rust_launchers(source, rust)
    for element in elements:
        branch = text[text.index(f"if A.dtype == DT_{element} {{"):]
        branch = branch[:branch.index("} else ")]
        assert f'expect_dtype("C", C, DT_{element},' in branch
        assert f'expect_dtype("A", A, DT_{element},' in branch


def test_constant_value_variants_are_dispatched_on_the_constant(tmp_path: Path) -> None:
    source, rust = _translate(tmp_path / "widen.py", CONST_VARIANT)
    (launch,) = plan_launches(source, rust).launches
    assert {e.rust_fn: e.consts for e in launch.entries} == {
        "maybe_widen_wide_true": (("WIDE", True),), "maybe_widen_wide_false": (("WIDE", False),)}
    body = _extern_body(emit_rust_launchers(source, rust), launch.symbol)
    _assert_dispatch(body, [("maybe_widen_wide_true", "WIDE"),
                            ("maybe_widen_wide_false", "!WIDE")], "s0_maybe_widen")
    assert "if true" not in body
    assert "TL_INVALID_ARGUMENT" in body[body.rindex("} else {"):]


def test_condition_variants_are_dispatched_on_the_condition() -> None:
    source, rust = _translate(GOLDEN / "row_scale_ragged.py")
    (launch,) = plan_launches(source, rust).launches
    outcomes = {e.rust_fn: [v for _, v, _ in e.conds] for e in launch.entries}
    assert sorted(map(tuple, outcomes.values())) == [(False,)] * 3 + [(True,)] * 3
    body = _extern_body(emit_rust_launchers(source, rust), launch.symbol)
    test = "(floor_mod_i64(N as i64, TILE as i64) != 0i64)"
    assert body.count(f"!{test}") == 3 and body.count(test) == 6
    assert "!((N % TILE) != 0)" in body[body.rindex("} else {"):]  # the no-entry error


def test_a_variant_without_a_c_abi_dtype_is_left_out(tmp_path: Path) -> None:
    source, rust = _translate(GOLDEN / "matmul_tf32.py")
    rust = rust.replace('"dtype_variant":{"A":"bfloat16"}', '"dtype_variant":{"A":"float8_e4m3fn"}')
    (launch,) = plan_launches(source, rust).launches
    assert [e.rust_fn for e in launch.entries] == ["matmul_tf32_kernel_f32",
                                                   "matmul_tf32_kernel_f16"]
    text = emit_rust_launchers(source, rust)
    assert "Entry `matmul_tf32_kernel_bf16` is not launched from here" in text
    assert "run_s0_matmul_tf32_kernel_matmul_tf32_kernel_bf16" not in text


def test_pywrapper_text() -> None:
    text = emit_pywrapper(*_translate(GOLDEN / "vector_add.py"))
    compile(text, "vector_add_wrapper.py", "exec")
    assert "@ct.kernel" not in text
    assert "vector_add_kernel = _TlKernel('vector_add_kernel')" in text
    # ct.launch becomes a call of the site's stand-in, which the library makes native.
    assert "_tl_site_0(torch.cuda.current_stream(), grid, vector_add_kernel," in text
    assert "_tl_site_0 = _tl_python_site(0)\n" in text
    assert "LIBRARY = 'libtl_vector_add.so'" in text
    assert text == emit_pywrapper(*_translate(GOLDEN / "vector_add.py"))


def test_launch_with_keywords_keeps_the_python_site(tmp_path: Path) -> None:
    source = (GOLDEN / "vector_add.py").read_text()
    call = "ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, BLOCK))"
    assert call in source
    path = tmp_path / "vector_add.py"
    path.write_text(source.replace(call, call.replace("(a, b, c", "kernel_args=(a, b, c")))
    text = emit_pywrapper(*_translate(path))
    assert ("_tl_launch_site(0, torch.cuda.current_stream(), grid, vector_add_kernel, "
            "kernel_args=(a, b, c, BLOCK))") in text


def test_packed_record_layout() -> None:
    (launch,) = _plan("vector_add").launches
    assert packable(launch.kernel)
    # stream, device, then a, b, c as data/dtype/shape/strides, then TILE
    assert packed_format(launch.kernel, grid_param=False) == "<Qi" + "Qiqq" * 3 + "i"
    assert packed_format(launch.kernel, grid_param=True).endswith("iqqq")
    (ln,) = _plan("layer_norm").launches
    # N (i32), eps (a float constant: f64), BLOCK_N (an int constant: i32)
    assert packed_format(ln.kernel, False) == "<Qi" + "Qiqqqq" + "Qiqq" * 2 + "Qiqqqq" \
        + "Qiqq" * 2 + "idi"


def test_launcher_has_a_fast_path_and_a_packed_twin() -> None:
    text = emit_rust_launchers(*_translate(GOLDEN / "softmax_rows.py"))
    assert "static FAST_S0_SOFTMAX_ROW_KERNEL_SOFTMAX_ROW_KERNEL: FastCache" in text
    # The key: both tensors, the constant's value, the grid; the packet: what cutile pushes.
    key = text[text.index("let mut fast_key"):text.index("let mut packet")]
    assert [line.strip() for line in key.splitlines() if line.strip()] == [
        "let mut fast_key = FastKey::new(device);", "fast_key.tensor(x);",
        "fast_key.tensor(y);", "fast_key.int(TILE_N as i64);", "fast_key.grid(grid);"]
    assert "packet.tensor(x);\n            packet.tensor(y);" in text
    # The fast path is tried before the checked path, which remembers the key afterwards.
    assert text.index(".launch(&fast_key, &packet, stream, grid)") < text.index(
        "borrowed_stream(device, stream)")
    assert "fast.remember(fast_key, packet, context, &spec, |probe| {" in text
    assert ".l1_cache_key_on(probe)" in text
    assert "fn tl_softmax_rows__softmax__softmax_row_kernel__packed(" in text
    assert "let x = unsafe { tl_reader.desc(2) };" in text


def test_fast_path_packs_scalars_and_keys_float_constants() -> None:
    text = emit_rust_launchers(*_translate(GOLDEN / "layer_norm.py"))
    packet = text[text.index("let mut packet"):text.index("if unsafe {", text.index(
        "let mut packet"))]
    assert [line.strip() for line in packet.splitlines() if line.strip()][1:] == [
        "packet.tensor(X);", "packet.tensor(W);", "packet.tensor(B);", "packet.tensor(Y);",
        "packet.tensor(Mean);", "packet.tensor(Rstd);", "packet.i32(N);"]
    assert "fast_key.hint(N as i64);" in text and "fast_key.float(eps);" in text


def test_pywrapper_fast_path_text() -> None:
    text = emit_pywrapper(*_translate(GOLDEN / "vector_add.py"))
    assert "_TL_ABI_VERSION = 2" in text
    assert "_tl_pack_0 = _tl_struct.Struct('<QiQiqqQiqqQiqqi').pack" in text
    assert "_TL_FAST = {'vector_add_kernel': {0: _tl_fast_0}}" in text
    assert "_tl_packed('tl_vector_add__vector_add__vector_add_kernel')" in text
    # The native twin's layout: three rank-1 arrays and the i32 constant.
    assert "_tl_fast_0.native = ('A1,A1,A1,i', 'tl_vector_add__vector_add__vector_add_kernel')" \
        in text


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
    (work / "widen.py").write_text(CONST_VARIANT)
    sources = [GOLDEN / f"{name}.py" for name in ("vector_add", "softmax_rows",
                                                  "row_scale_ragged", *sorted(DTYPE_VARIANTS))]
    # Triton golden files, renamed: their module names repeat cuTile Python goldens'.
    for name in TRITON_LIBRARY:
        (work / f"t_{name}.py").write_text((GOLDEN / "triton" / f"{name}.py").read_text())
    sources += [work / f"t_{name}.py" for name in TRITON_LIBRARY]
    for path in [*sources, work / "widen.py"]:
        name = path.stem
        for kind, suffix in (("kernels", ".rs"), ("launcher", "_launcher.rs"),
                             ("pywrapper", "_wrapper.py")):
            assert cli_main([str(path), "--emit", kind, "-q", "--no-llm",
                             "-o", str(work / f"{name}{suffix}")]) == 0
        pairs += [str(work / f"{name}.rs"), str(work / f"{name}_launcher.rs")]
    proc = subprocess.run(["bash", str(REPO / "launcher" / "build.sh"), *pairs, str(work)],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "libtl_launchers.so"


#: Triton golden files built into the test library (pointer generics, dtype variants, bool
#: generics, a pointer of a fixed element type).
TRITON_LIBRARY = ("vector_add", "autotuned_scale", "atomic_max_index")


def _triton_fn(lib: ctypes.CDLL, symbol: str, scalars: list) -> ctypes._CFuncPtr:
    """A Triton launcher: stream, device, (address, dtype) per pointer, then `scalars`
    (the C types of its scalars and generics), then the grid."""
    fn = getattr(lib, symbol)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int32, *scalars, *[ctypes.c_int64] * 3]
    fn.restype = ctypes.c_int32
    return fn


def test_triton_launchers_check_pointer_dtypes(library: Path) -> None:
    lib = _lib(library)
    ptr = [ctypes.c_uint64, ctypes.c_int32]
    add = _triton_fn(lib, "tl_t_vector_add__add_kernel",
                     [*ptr * 3, ctypes.c_int32, ctypes.c_int32])
    # one generic, two dtypes
    assert add(None, 0, 0x1000, 8, 0x2000, 6, 0x3000, 8, 100, 1024, 1, 1, 1) == 2
    assert b"`x_ptr` points to f32 but `y_ptr` to f16" in lib.tl_last_error()
    # a dtype the generic was not built for: refused before the driver is needed
    assert add(None, 0, 0x1000, 9, 0x2000, 9, 0x3000, 9, 100, 1024, 1, 1, 1) == 2
    assert b"f64" in lib.tl_last_error() and b"built for f32, f16, bf16" in lib.tl_last_error()
    # a grid with a zero dimension launches nothing; a negative one is an argument error
    assert add(None, 0, 0x1000, 8, 0x2000, 8, 0x3000, 8, 100, 1024, 0, 1, 1) == 0
    assert add(None, 0, 0x1000, 8, 0x2000, 8, 0x3000, 8, 100, 1024, -1, 1, 1) == 1
    # accepted: the launch itself needs the driver (none here)
    assert add(None, 0, 0x1000, 8, 0x2000, 8, 0x3000, 8, 100, 1024, 1, 1, 1) == 3
    scale = _triton_fn(lib, "tl_t_autotuned_scale__scale_kernel_f16",
                       [*ptr * 2, ctypes.c_int32, ctypes.c_float, ctypes.c_int32,
                        ctypes.c_bool])
    assert scale(None, 0, 0x1000, 8, 0x2000, 6, 100, 1.0, 128, False, 1, 1, 1) == 2
    assert b"`x_ptr` points to f32, the Rust entry takes a pointer to f16" in (
        lib.tl_last_error())
    assert scale(None, 0, 0x1000, 6, 0x2000, 7, 100, 1.0, 128, True, 1, 1, 1) == 3


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


def test_variant_launchers_are_exported(library: Path) -> None:
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True,
                         text=True, check=True).stdout
    for symbol in ("tl_gram_matrix__gram__gram_kernel",
                   "tl_batched_matmul_scaled__scaled_bmm__scaled_bmm_kernel",
                   "tl_matmul_tf32__matmul_tf32__matmul_tf32_kernel",
                   "tl_widen__widen__maybe_widen"):
        assert f" T {symbol}\n" in out


def test_the_entry_is_chosen_by_the_runtime_dtypes(library: Path) -> None:
    """No driver here: a call that passes the dtype checks fails at the launch (code 3), so
    the code and message show which entry the dtypes selected."""
    lib = _lib(library)
    fn = lib.tl_matmul_tf32__matmul_tf32__matmul_tf32_kernel
    tiles = (ctypes.c_int32(64), ctypes.c_int32(64), ctypes.c_int32(32))

    def call(a: int, b: int, c: int) -> tuple[int, str]:
        descs = [_desc((128, 128), dtype) for dtype in (a, b, c)]
        code = fn(None, 0, *(ctypes.byref(d) for d in descs), *tiles)
        return code, (lib.tl_last_error() or b"").decode()

    F16, BF16, F32, F64 = 6, 7, 8, 9
    code, message = call(F64, F64, F64)
    assert code == 2
    assert message == ("no translation of `matmul_tf32_kernel` for A = f64 (translated for: "
                       "A = f32; A = f16; A = bf16)")
    gram = lib.tl_gram_matrix__gram__gram_kernel
    x, g = _desc((256, 64), F64), _desc((64, 64))
    assert gram(None, 0, ctypes.byref(x), ctypes.byref(g), ctypes.c_int32(256),
                ctypes.c_int32(32), ctypes.c_int32(64)) == 2
    assert (lib.tl_last_error() or b"").decode().startswith(
        "no translation of `gram_kernel` for X = f64 (translated for: X = f32")
    # A bf16: the bf16 entry, whose output C is bf16 too.
    code, message = call(BF16, BF16, F32)
    assert code == 2 and "`C` has dtype f32, expected bf16" in message
    code, message = call(F16, F16, F32)
    assert code == 2 and "`C` has dtype f32, expected f16" in message
    for dtype in (F32, F16, BF16):  # every check passes; only the driver is missing
        code, message = call(dtype, F32, dtype)
        assert code == 3, message
    bmm = lib.tl_batched_matmul_scaled__scaled_bmm__scaled_bmm_kernel
    a, b16, c = _desc((2, 64, 64)), _desc((2, 64, 64), F16), _desc((2, 64, 64))
    code = bmm(None, 0, ctypes.byref(a), ctypes.byref(b16), ctypes.byref(c),
               ctypes.c_double(0.5), *tiles)
    assert code == 2
    message = (lib.tl_last_error() or b"").decode()
    assert message.startswith("no translation of `scaled_bmm_kernel` for A = f32, B = f16 "
                              "(translated for: A = f32, B = f32")


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


def test_packed_twin_checks_like_the_launcher(library: Path) -> None:
    lib = _lib(library)
    assert lib.tl_abi_version() == 2
    packed = lib.tl_softmax_rows__softmax__softmax_row_kernel__packed
    packed.argtypes = [ctypes.c_char_p]
    assert packed(None) == 1 and b"null argument record" in lib.tl_last_error()

    def record(x_dtype: int, y_dtype: int) -> bytes:
        return struct.pack("<Qi" + "Qiqqqq" * 2 + "i", 0, 0, 0x10000, x_dtype, 7, 33, 33, 1,
                           0x20000, y_dtype, 7, 33, 33, 1, 64)

    assert packed(record(8, 7)) == 2
    assert b"expected f32" in lib.tl_last_error()
    assert packed(record(8, 8)) == 3  # every check passes; only the driver is missing
    stats = (ctypes.c_uint64 * 4)()
    assert lib.tl_fast_stats(stats) == 0
    assert tuple(stats) == (0, 0, 0, 0)  # nothing launched, nothing remembered


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

    def get_device(self) -> int:
        return 0


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


@pytest.mark.parametrize("native", [True, False])
def test_wrapper_fast_path_makes_one_packed_call(library: Path, native: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    torch = _fake_torch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setenv("TRANSPILER_LAUNCHER_PYFAST", "1" if native else "0")
    path = library.parent / "vector_add_wrapper.py"
    spec = importlib.util.spec_from_file_location("vector_add_wrapper_fast", path)
    assert spec is not None and spec.loader is not None
    wrapper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrapper)
    wrapper.load_library(library)
    # The library's native packing stands in for the Python one unless turned off.
    fast = wrapper._TL_FAST["vector_add_kernel"][0]
    assert hasattr(fast, "__code__") is not native
    # So does its stand-in for `ct.launch`, which host code calls directly.
    assert hasattr(wrapper._tl_site_0, "__code__") is not native
    a = _FakeTensor((3000,), torch.float32)
    wrapper._tl_dtype_codes()
    calls: list[str] = []
    checked = wrapper._tl_launch_checked
    monkeypatch.setattr(wrapper, "_tl_launch_checked",
                        lambda *args: calls.append("checked") or checked(*args))
    # Plain CUDA tensors: the packed call (which reaches the missing driver: code 3).
    with pytest.raises(RuntimeError, match=r"vector_add_kernel failed \(code 3\)"):
        wrapper.vector_add(a, a)
    assert calls == [] and list(wrapper._TL_PACKED) == [
        "tl_vector_add__vector_add__vector_add_kernel"]
    # A tensor off the GPU: the fast path declines and the checked path reports it.
    cpu = _FakeTensor((3000,), torch.float32)
    cpu.is_cuda, cpu.get_device = False, lambda: -1
    with pytest.raises(TypeError, match="expected a CUDA tensor"):
        wrapper.vector_add(a, cpu)
    assert calls == ["checked"]
    # CHECK_GRID set on the module after loading: every launch takes the checked path.
    monkeypatch.setattr(wrapper, "CHECK_GRID", True)
    with pytest.raises(RuntimeError, match=r"code 3\).*(CUDA driver|libcuda)"):
        wrapper.vector_add(a, a)
    assert calls == ["checked", "checked"]


# ---- launches through the stub driver (launcher/stub; needs a full Tile IR toolchain) ------


def _stub_reason() -> str | None:
    tileiras = os.environ.get("CUTILE_TILEIRAS_PATH", "")
    if not tileiras or not (Path(tileiras).parent / "ptxas").exists():
        return "CUTILE_TILEIRAS_PATH does not name a tileiras with ptxas beside it"
    if shutil.which("cc") is None:
        return "no C compiler for the stub driver"
    return None


_STUB_SCRIPT = r"""
import ctypes, json, sys
stub = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
stub.stub_launch_count.restype = ctypes.c_uint64
lib = ctypes.CDLL(sys.argv[2]); lib.tl_last_error.restype = ctypes.c_char_p

class TD(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8)]

fn = lib.tl_vector_add__vector_add__vector_add_kernel
def call(n, dtype=8, stream=None):
    descs = [TD(0x7f0000000000 + i * (1 << 30), dtype, 1, (ctypes.c_int64 * 8)(n),
                (ctypes.c_int64 * 8)(1)) for i in range(3)]
    code = fn(ctypes.c_void_p(stream), 0, *(ctypes.byref(d) for d in descs), ctypes.c_int32(1024))
    assert code == 0, lib.tl_last_error()
    grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
    shared, strm, buf = ctypes.c_uint(), ctypes.c_void_p(), (ctypes.c_ubyte * 256)()
    size = stub.stub_last_launch(grid, block, ctypes.byref(shared), ctypes.byref(strm), buf, 256)
    return [list(grid), list(block), shared.value, strm.value, bytes(buf[:size]).hex()]

def stats():
    out = (ctypes.c_uint64 * 4)(); lib.tl_fast_stats(out); return list(out)

sizes = bytes([8, 4, 4] * 3)
stub.stub_set_param_sizes(sizes, len(sizes))
out = {"first": call(5000, stream=0x1234), "after_first": stats()}
out["second"] = call(5000, stream=0x1234); out["after_second"] = stats()
out["other_shape"] = call(7000); out["after_other"] = stats()
out["other_shape_again"] = call(7000); out["after_other_again"] = stats()
stub.stub_set_param_sizes(sizes[:-1], len(sizes) - 1)   # the driver disagrees: refused
call(5000, dtype=6); call(5000, dtype=6); out["after_refused"] = stats()
out["launches"] = stub.stub_launch_count()
print(json.dumps(out))
"""


def test_warm_launches_take_the_fast_path_with_cutiles_arguments(
        library: Path, tmp_path: Path) -> None:
    reason = _stub_reason()
    if reason:
        pytest.skip(reason)
    stub = tmp_path / "libcuda.so.1"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o",
                    str(stub), str(REPO / "launcher" / "stub" / "libcuda_stub.c")], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}

    def run(**extra: str) -> dict:
        proc = subprocess.run([sys.executable, "-c", _STUB_SCRIPT, str(stub), str(library)],
                              capture_output=True, text=True, timeout=600,
                              env={**env, **extra}, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    out = run()
    # [fast, checked, remembered, refused]: the first launch of a key is checked, then fast.
    assert out["after_first"] == [0, 1, 1, 0]
    assert out["after_second"] == [1, 1, 1, 0]
    # The fast path hands the driver exactly what cutile did: grid, block, stream, arguments.
    assert out["second"] == out["first"]
    assert out["first"][:4] == [[5, 1, 1], [1, 1, 1], 0, 0x1234]
    assert out["after_other"] == [1, 2, 2, 0] and out["after_other_again"] == [2, 2, 2, 0]
    assert out["other_shape"][0] == [7, 1, 1]
    # A function whose parameters disagree with the packet is never launched fast.
    assert out["after_refused"] == [2, 4, 2, 1]
    assert out["launches"] == 6
    off = run(TRANSPILER_LAUNCHER_FAST="0")
    assert off["after_other_again"] == [0, 4, 0, 0]


def test_condition_divisions_carry_no_redundant_parentheses() -> None:
    # rustc warns (unused_parens) about `floor_div_i64(((N as i64) + 1i64), (T as i64))`.
    entry = KernelSig("k", "k", (ParamSig("N", "const", const_kind="int"),
                                 ParamSig("T", "const", const_kind="int")), ())
    tree = ["!=", ["*", ["//", ["+", ["param", "N"], 1], ["param", "T"]], ["param", "T"]],
            ["param", "N"]]
    rust = _cond_rust(entry, tree)
    assert "floor_div_i64((N as i64) + 1i64, T as i64)" in rust
    assert rust.startswith("((floor_div_i64(") and rust.endswith(" != (N as i64))")
