"""Tests of the host glue for Triton launches (`--emit launcher` / `--emit pywrapper` of a file
whose kernels are `@triton.jit`): the plan, the launcher text, and the wrapper's pure
functions (binding, grid, heuristics, autotuning, entry choice, refusals), run on a CPU
against fake tensors that have only shape, stride, dtype and data_ptr. The built library's
checks (cargo and the CUDA headers, no GPU) are in `test_launcher.py`, whose library holds
Triton golden files too.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest

from transpiler.driver import translate_text
from transpiler.emit_launcher import is_triton_source
from transpiler.hostglue.abi import DEFAULT_ELEMENT_TYPES
from transpiler.hostglue.triton_launchers import emit_triton_launchers
from transpiler.hostglue.triton_plan import plan_triton
from transpiler.hostglue.triton_pywrapper import emit_triton_pywrapper, kernel_table

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "golden" / "triton"

ADD = '''
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output
'''

SOFTMAX = '''
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols,
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return y
'''

SCALE_HOST = '''

def scale(x, alpha):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, alpha)
    return y
'''


class FakeDtype:
    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return f"torch.{self.name}"


class FakeTensor:
    """What the wrapper reads of a tensor: shape, stride(), dtype, data_ptr(), device."""

    def __init__(self, shape: tuple[int, ...], dtype: str, address: int = 0x10000) -> None:
        self.shape = shape
        self.dtype = FakeDtype(dtype)
        self.address = address
        self.device = types.SimpleNamespace(index=0)

    def stride(self, dim: int | None = None):
        strides, step = [], 1
        for size in reversed(self.shape):
            strides.insert(0, step)
            step *= size
        return tuple(strides) if dim is None else strides[dim]

    def numel(self) -> int:
        out = 1
        for size in self.shape:
            out *= size
        return out

    def data_ptr(self) -> int:
        return self.address


def _fake_torch() -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.empty_like = lambda t: FakeTensor(t.shape, t.dtype.name, t.address + 0x100000)
    return torch


def _wrapper(tmp_path: Path, name: str, text: str, monkeypatch: pytest.MonkeyPatch):
    """The generated wrapper of `text`, imported (with a fake torch), and its plan."""
    result = translate_text(text, f"{name}.py")
    assert result.rust is not None, [d.message for d in result.all_diagnostics()]
    plan = plan_triton(text, f"{name}.py", result.rust)
    path = tmp_path / f"{name}_wrapper.py"
    path.write_text(emit_triton_pywrapper(text, plan))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    spec = importlib.util.spec_from_file_location(f"{name}_wrapper", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, plan, result.rust


class Recorder:
    """Stands in for the library: records each launcher call instead of launching."""

    def __init__(self, module) -> None:
        self.calls: list[tuple[str, tuple]] = []
        self.module = module

    def install(self, monkeypatch: pytest.MonkeyPatch) -> Recorder:
        def function(entry):
            # recorded without the stream and device (both 0 here)
            return lambda *args: self.calls.append((entry["symbol"], args[2:])) or 0
        monkeypatch.setattr(self.module, "_tl_function", function)
        monkeypatch.setattr(self.module, "_tl_stream_and_device", lambda plan, bound: (0, 0))
        return self


# ---- plan and launcher text -----------------------------------------------------------------


def test_plan_of_vector_add() -> None:
    text = (GOLDEN / "vector_add.py").read_text()
    plan = plan_triton(text, "vector_add.py", (GOLDEN / "vector_add.rs").read_text())
    (kernel,) = plan.kernels
    assert kernel.params == ("x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE")
    assert kernel.constexprs == ("BLOCK_SIZE",)
    # No `tl.dot`: pointer tiles; the fact entry (first: the most specific) assumes the
    # parameters its addresses and mask read aligned / divisible by 16.
    fact, entry = kernel.entries
    assert [text for _, text in fact.facts] == [
        "x_ptr % 16 == 0", "y_ptr % 16 == 0", "out_ptr % 16 == 0", "n_elements % 16 == 0"]
    assert fact.symbol == "tl_vector_add__add_kernel_jit"
    assert not entry.facts
    assert entry.symbol == "tl_vector_add__add_kernel"
    assert [(a.name, a.kind, a.element) for a in entry.args] == [
        ("x_ptr", "ptr", "ET"), ("y_ptr", "ptr", "ET"), ("out_ptr", "ptr", "ET"),
        ("n_elements", "i32", "")]
    assert [g.name for g in entry.value_generics] == ["BLOCK_SIZE"]


def test_launcher_checks_pointer_dtypes_and_dispatches_generics() -> None:
    text = (GOLDEN / "autotuned_scale.py").read_text()
    plan = plan_triton(text, "autotuned_scale.py", (GOLDEN / "autotuned_scale.rs").read_text())
    rust = emit_triton_launchers(plan)
    assert rust == emit_triton_launchers(plan)  # deterministic
    for variant in ("f16", "bf16", "f32"):
        symbol = f"tl_autotuned_scale__scale_kernel_{variant}"
        body = rust[rust.index(f"fn {symbol}("):]
        body = body[:body.index("\n}\n")]
        assert f'expect_pointer_dtype("x_ptr", dt_x_ptr, DT_{variant.upper()})' in body
        assert 'same_pointer_dtype("ET", &[("y_ptr", dt_y_ptr)])' in body
        assert "DT_BF16 => unsafe" in body and "other => Err(unsupported_dtype(" in body
    assert "BLOCK: i32" in rust and "EVEN: bool" in rust
    assert "DevicePointer::<f16>::from_cu_deviceptr(x_ptr)" in rust


def test_a_kernel_without_translation_is_listed_not_launched() -> None:
    text = (GOLDEN / "gelu_helper.py").read_text()
    plan = plan_triton(text, "gelu_helper.py", (GOLDEN / "gelu_helper.rs").read_text())
    helpers = [k for k in plan.kernels if not k.entries]
    assert helpers and all("no Rust translation" in k.why_none for k in helpers)
    assert "// No launcher for" in emit_triton_launchers(plan)


def test_triton_files_get_triton_glue() -> None:
    assert is_triton_source(ADD)
    assert not is_triton_source((REPO / "golden" / "vector_add.py").read_text())


# ---- the wrapper's pure functions -----------------------------------------------------------


def test_wrapper_imports_without_torch_or_triton(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "triton", None)  # an import of Triton would fail
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    assert repr(wrapper.add_kernel) == "<translated Triton kernel add_kernel>"
    assert wrapper.triton.cdiv(1000, 256) == 4


@pytest.mark.parametrize("n, blocks", [(1, 1), (1024, 1), (1025, 2), (98432, 97)])
def test_drop_in_add_computes_grid_and_arguments(tmp_path: Path, n: int, blocks: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    x, y = FakeTensor((n,), "float32", 0x1000), FakeTensor((n,), "float32", 0x2000)
    out = wrapper.add(x, y)
    assert out.shape == (n,)  # the host function's own result
    ((symbol, args),) = calls
    # the fact entry when n holds Triton's div-16 key (the tensors are aligned), else the
    # general one
    assert symbol == ("tl_add__add_kernel_jit" if n % 16 == 0 else "tl_add__add_kernel")
    # per pointer: address, dtype code (f32 = 8); the scalar; the constexpr; the grid
    assert args == (0x1000, 8, 0x2000, 8, out.address, 8, n, 1024, blocks, 1, 1)


def test_selection_is_remembered_per_key_of_the_arguments(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repeated call reuses the entry its key selected; a call whose key differs (an
    unaligned tensor, an int off Triton's div-16 key, another dtype) selects again, and gets
    the entry that call needs, not the remembered one."""
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    selected: list[str] = []
    select = wrapper._tl_select
    monkeypatch.setattr(wrapper, "_tl_select",
                        lambda plan, bound: selected.append(plan["name"]) or select(plan, bound))
    x, y = FakeTensor((4096,), "float32", 0x1000), FakeTensor((4096,), "float32", 0x2000)
    for _ in range(3):
        wrapper.add(x, y)
    assert len(selected) == 1 and {c[0] for c in calls} == {"tl_add__add_kernel_jit"}
    wrapper.add(FakeTensor((4096,), "float32", 0x1004), y)  # x not 16-byte aligned
    wrapper.add(FakeTensor((4000 + 1,), "float32", 0x1000),
                FakeTensor((4001,), "float32", 0x2000))  # n breaks the div-16 key
    wrapper.add(FakeTensor((4096,), "float16", 0x1000), FakeTensor((4096,), "float16", 0x2000))
    assert len(selected) == 4
    assert [c[0] for c in calls[3:]] == ["tl_add__add_kernel", "tl_add__add_kernel",
                                         "tl_add__add_kernel_jit"]
    assert calls[-1][1][1] == 6  # the f16 call passes f16's dtype code, not the cached f32's
    wrapper.add(x, y)
    assert len(selected) == 4  # the first key again: remembered


@pytest.mark.parametrize("cols, block", [(781, 1024), (1024, 1024), (1, 1), (3, 4)])
def test_next_power_of_2_and_strides(tmp_path: Path, cols: int, block: int,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _wrapper(tmp_path, "softmax", SOFTMAX, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    x = FakeTensor((37, cols), "bfloat16")
    wrapper.softmax(x)
    ((_, args),) = calls
    assert args[1] == 7 and args[3] == 7  # bf16 both
    assert args[4:7] == (cols, cols, cols)  # row strides, n_cols
    assert args[7] == block and args[8:] == (37, 1, 1)


def test_bind_follows_triton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    plan = wrapper._TL_KERNELS["add_kernel"]
    bound = wrapper._tl_bind(plan, (1, 2, 3), {"n_elements": 4, "BLOCK_SIZE": 8,
                                               "num_warps": 4})
    assert bound == {"x_ptr": 1, "y_ptr": 2, "out_ptr": 3, "n_elements": 4, "BLOCK_SIZE": 8}
    with pytest.raises(TypeError, match="missing argument.*BLOCK_SIZE"):
        wrapper._tl_bind(plan, (1, 2, 3, 4), {})
    with pytest.raises(TypeError, match="unexpected keyword argument `BLOCK`"):
        wrapper._tl_bind(plan, (1, 2, 3, 4), {"BLOCK": 8})
    assert wrapper._tl_grid(lambda m: (m["n_elements"] // 2, 3), bound) == (2, 3, 1)
    assert wrapper._tl_grid(5, bound) == (5, 1, 1)
    with pytest.raises(ValueError, match="4 dimensions"):
        wrapper._tl_grid((1, 1, 1, 1), bound)


def test_refusals_name_the_argument(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    Recorder(wrapper).install(monkeypatch)
    f64 = FakeTensor((16,), "float64")
    with pytest.raises(wrapper.TranslationUnsupported, match=r"x_ptr = float64.*one of f32"):
        wrapper.add(f64, f64)
    x, y = FakeTensor((16,), "float16"), FakeTensor((16,), "float32")
    with pytest.raises(wrapper.TranslationUnsupported, match="one dtype for x_ptr, y_ptr"):
        wrapper.add_kernel[(1,)](x, y, y, 16, BLOCK_SIZE=16)
    with pytest.raises(wrapper.TranslationUnsupported, match="`y_ptr` = None"):
        wrapper.add_kernel[(1,)](x, None, x, 16, BLOCK_SIZE=16)
    with pytest.raises(wrapper.TranslationUnsupported, match="constexpr `BLOCK_SIZE` = 'big'"):
        wrapper.add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE="big")
    with pytest.raises(wrapper.TranslationUnsupported, match=r"`n_elements` = 4294967296.*i32"):
        wrapper.add_kernel[(1,)](x, x, x, 2**32, BLOCK_SIZE=16)
    with pytest.raises(wrapper.TranslationUnsupported, match="warmup"):
        wrapper.add_kernel.warmup(x, x, x, 16, BLOCK_SIZE=16, grid=(1,))


def test_int_keys_are_reported_not_refused(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Triton's int==1 and divisible-by-16 keys only tell its compiler a fact of the value;
    the entry takes the int at run time and computes the same result."""
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    x = FakeTensor((1,), "float16")
    wrapper.add_kernel[(1,)](x, x, x, 1, BLOCK_SIZE=16)
    assert calls[0][1][6] == 1
    plan = wrapper._TL_KERNELS["add_kernel"]
    bound = wrapper._tl_bind(plan, (x, x, x, 32), {"BLOCK_SIZE": 16})
    assert wrapper._tl_specialization_keys(plan, bound) == {"n_elements": "D"}


def test_heuristics_and_autotune_pick_constexprs_and_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (GOLDEN / "autotuned_scale.py").read_text().replace(
        "import triton\n", "import torch\nimport triton\n", 1) + SCALE_HOST
    wrapper, _, _ = _wrapper(tmp_path, "scale", text, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    monkeypatch.setattr(wrapper, "AUTOTUNE", "first")
    wrapper.scale(FakeTensor((1000,), "float16"), 2.0)
    ((symbol, args),) = calls
    assert symbol == "tl_scale__scale_kernel_f16"  # the x_ptr dtype variant (n = 1000)
    # x (f16 = 6), y (same dtype: empty_like), n, alpha, BLOCK = 128 (config 0),
    # EVEN = 1000 % 128 == 0 (heuristic), grid cdiv(1000, 128)
    assert args[1] == 6 and args[3] == 6 and args[4:] == (1000, 2.0, 128, False, 8, 1, 1)
    calls.clear()
    monkeypatch.setattr(wrapper, "AUTOTUNE", "1")
    wrapper.scale_kernel.cache.clear()
    wrapper.scale(FakeTensor((1024,), "bfloat16"), 0.5)
    assert calls[0][0] == "tl_scale__scale_kernel_bf16_jit"  # n = 1024: its fact entry
    assert calls[0][1][6:] == (256, True, 4, 1, 1)


def test_autotune_benchmarks_once_per_key(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    text = (GOLDEN / "autotuned_scale.py").read_text().replace(
        "import triton\n", "import torch\nimport triton\n", 1) + SCALE_HOST
    wrapper, _, _ = _wrapper(tmp_path, "scale", text, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    timed: list[int] = []

    def bench(self, config, args, grid, kwargs):  # config 1 (BLOCK 256) is faster
        timed.append(config.kwargs["BLOCK"])
        return 1.0 if config.kwargs["BLOCK"] == 256 else 2.0

    monkeypatch.setattr(wrapper._TlAutotuner, "_bench", bench)
    x = FakeTensor((4096,), "float32")
    wrapper.scale(x, 1.0)
    wrapper.scale(x, 1.0)
    assert timed == [128, 256]  # benchmarked once for n = 4096, float32
    assert [c[1][6] for c in calls] == [256, 256]
    wrapper.scale(FakeTensor((4096,), "float16"), 1.0)  # another dtype: another key
    assert timed == [128, 256, 128, 256]
    assert wrapper._tl_choose_config([1, 2], "benchmark", lambda c: {1: 5.0, 2: 3.0}[c]) == 2


def test_autotune_skips_refused_configs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _wrapper(tmp_path, "add", ADD, monkeypatch)

    def bench(config):
        if config == "bad":
            raise wrapper.TranslationUnsupported("no entry")
        return 1.0

    assert wrapper._tl_choose_config(["bad", "good"], "benchmark", bench) == "good"
    with pytest.raises(wrapper.TranslationUnsupported, match="no autotune config runs"):
        wrapper._tl_choose_config(["bad", "bad"], "benchmark", bench)
    with pytest.raises(ValueError, match="2 configs"):
        wrapper._tl_choose_config(["a", "b"], "5", bench)


def test_every_golden_triton_file_gets_glue() -> None:
    """Every golden Triton translation gets a launcher per Rust entry and a wrapper that
    compiles as Python."""
    for path in sorted(GOLDEN.glob("*.py")):
        text, rust = path.read_text(), path.with_suffix(".rs").read_text()
        plan = plan_triton(text, path.name, rust)
        launchers = emit_triton_launchers(plan)
        for kernel in plan.kernels:
            for entry in kernel.entries:
                assert f"pub unsafe extern \"C\" fn {entry.symbol}(" in launchers, entry
        compile(emit_triton_pywrapper(text, plan), path.name, "exec")



ARGMAX_HOST = '''

def argmax(x):
    rows, n = x.shape
    out = torch.empty((rows,), dtype=torch.int32, device=x.device)
    argmax_kernel[(rows,)](x, out, n, x.stride(0), BLOCK=triton.next_power_of_2(n))
    return out
'''


def test_an_element_type_the_launches_pass_gets_its_launcher_arm() -> None:
    # The type generics are built for f32/f16/bf16; an int32 output that the file's own
    # launch passes is built too, and the wrapper's table lets the call through.
    text = "import torch\n" + (GOLDEN / "argmax_rows.py").read_text() + ARGMAX_HOST
    rust = translate_text(text, "argmax_rows.py", jit_facts=False).rust
    plan = plan_triton(text, "argmax_rows.py", rust)
    (entry,) = plan.kernel("argmax_kernel").entries
    launched = {g.name: g.launched for g in entry.generics if g.kind == "type"}
    out_generic = next(g.name for g in entry.generics if g.params == ("out_ptr",))
    assert "i32" in launched[out_generic]
    launcher = emit_triton_launchers(plan)
    body = launcher[launcher.index(f"fn {entry.symbol}("):]
    assert "DT_I32 => unsafe" in body and '"i32"' in body
    (table,) = kernel_table(plan.kernel("argmax_kernel"), DEFAULT_ELEMENT_TYPES)["entries"]
    assert table["launched"][out_generic] == ("i32",)


DTYPE_CONSTEXPR = '''
import torch
import triton
import triton.language as tl


@triton.jit
def cast_kernel(x_ptr, y_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=m).to(OUT_DTYPE), mask=m)


def cast(x, y, out_dtype):
    n = x.numel()
    cast_kernel[(triton.cdiv(n, 128),)](x, y, n, OUT_DTYPE=out_dtype, BLOCK=128)
'''


def test_an_element_type_constexpr_picks_its_entry(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A constexpr used as an element type that no launch names gets an entry per float
    type; the wrapper picks the one the call's `triton.language` dtype names."""
    tl = pytest.importorskip("triton.language")
    wrapper, _, rust = _wrapper(tmp_path, "cast", DTYPE_CONSTEXPR, monkeypatch)
    assert {"cast_kernel_out_dtype_float16", "cast_kernel_out_dtype_bfloat16",
            "cast_kernel_out_dtype_float32"} <= set(
                line.split("fn ", 1)[1].split("<", 1)[0] for line in rust.splitlines()
                if "unsafe fn " in line)
    calls = Recorder(wrapper).install(monkeypatch).calls
    x = FakeTensor((300,), "float32")
    wrapper.cast(x, FakeTensor((300,), "bfloat16"), tl.bfloat16)
    wrapper.cast(x, FakeTensor((300,), "float16"), tl.float16)
    assert [c[0] for c in calls] == ["tl_cast__cast_kernel_out_dtype_bfloat16",
                                     "tl_cast__cast_kernel_out_dtype_float16"]
    with pytest.raises(wrapper.TranslationUnsupported, match="OUT_DTYPE"):
        wrapper.cast(x, FakeTensor((300,), "int8"), tl.int8)


def test_a_pointer_passed_as_none_picks_the_none_entry(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`if mask_ptr is not None` in the kernel: Triton compiles None as a constexpr; the
    wrapper sends a None argument to the entry for None and a tensor to the other."""
    text = "import torch\n" + (GOLDEN / "optional_mask.py").read_text()
    wrapper, _, _ = _wrapper(tmp_path, "optional_mask", text, monkeypatch)
    calls = Recorder(wrapper).install(monkeypatch).calls
    x = FakeTensor((300,), "float32")
    wrapper.run(x, x)
    wrapper.run(x, x, FakeTensor((300,), "float32"))
    assert [c[0] for c in calls] == ["tl_optional_mask__masked_scale_mask_ptr_none",
                                     "tl_optional_mask__masked_scale"]
    with pytest.raises(wrapper.TranslationUnsupported, match="mask_ptr"):
        wrapper.run(x, x, 3)


# ---- JIT fact entries: selection as Triton's launcher keys its arguments ---------------------

MATMUL_HOST = '''

def matmul(a, b, c, bm=64):
    M, K = a.shape
    N = b.shape[1]
    matmul_kernel[(M // bm, N // bm)](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                      b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                      BLOCK_M=bm, BLOCK_N=bm, BLOCK_K=32)
'''


def _matmul_wrapper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    text = "import torch\n" + (GOLDEN / "matmul.py").read_text() + MATMUL_HOST
    wrapper, plan, rust = _wrapper(tmp_path, "mm", text, monkeypatch)
    return wrapper, Recorder(wrapper).install(monkeypatch).calls, plan


def _transposed(t: FakeTensor) -> FakeTensor:
    out = FakeTensor(t.shape, t.dtype.name, t.address)
    strides = t.stride()[::-1]
    out.stride = lambda dim=None: strides if dim is None else strides[dim]  # type: ignore
    return out


@pytest.mark.parametrize("case, entry", [
    ("aligned", "tl_mm__matmul_kernel_f16_jit"),
    ("a unaligned by 2 bytes", "tl_mm__matmul_kernel_f16"),
    ("c unaligned by 8 bytes", "tl_mm__matmul_kernel_f16"),
    ("K not divisible by 16", "tl_mm__matmul_kernel_f16"),
    ("b transposed (stride_bn != 1)", "tl_mm__matmul_kernel_f16"),
])
def test_the_launch_selects_the_fact_entry_only_when_its_facts_hold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, entry: str) -> None:
    wrapper, calls, _ = _matmul_wrapper(tmp_path, monkeypatch)
    K = 72 if "K not" in case else 64
    a = FakeTensor((128, K), "float16", 0x10002 if "a unaligned" in case else 0x10000)
    b = FakeTensor((K, 128), "float16", 0x20000)
    if "transposed" in case:
        b = _transposed(FakeTensor((128, K), "float16", 0x20000))
        b.shape = (K, 128)
    c = FakeTensor((128, 128), "float16", 0x30008 if "c unaligned" in case else 0x30000)
    wrapper.matmul(a, b, c)
    ((symbol, _),) = calls
    assert symbol == entry, case


def test_selection_reads_addresses_and_ints_as_triton_keys_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper, _, _ = _matmul_wrapper(tmp_path, monkeypatch)
    bound = {"x": FakeTensor((4,), "float16", 0x10010), "n": 32, "one": 1, "flag": True,
             "f": 16.0}
    holds = wrapper._tl_fact_holds
    assert holds(["==", ["%", ["arg", "x"], 16], 0], bound) is True
    assert holds(["==", ["%", ["arg", "n"], 16], 0], bound) is True
    assert holds(["==", ["arg", "one"], 1], bound) is True
    # Triton keys neither bools nor floats: no fact holds for them
    assert holds(["==", ["arg", "flag"], 1], bound) is None
    assert holds(["==", ["%", ["arg", "f"], 16], 0], bound) is None
    bound["x"] = FakeTensor((4,), "float16", 0x10004)
    assert holds(["==", ["%", ["arg", "x"], 16], 0], bound) is False


def test_the_fact_entrys_launcher_refuses_arguments_that_break_its_facts() -> None:
    text = (GOLDEN / "matmul.py").read_text()
    plan = plan_triton(text, "matmul.py", (GOLDEN / "matmul.rs").read_text())
    rust = emit_triton_launchers(plan)
    body = rust[rust.index("fn tl_matmul__matmul_kernel_f16_jit("):]
    body = body[:body.index("\n}\n")]
    assert "(i128::from(a_ptr) % 16i128) == 0i128)" in body and "LaunchError::invalid(" in body
    assert "(i128::from(stride_ak) == 1i128)" in body
    assert "`matmul_kernel_f16_jit` assumes K % 16 == 0" in body
    # the checks come before the stream is touched; the general entry has none
    assert body.index("assumes") < body.index("borrowed_stream")
    general = rust[rust.index("fn tl_matmul__matmul_kernel_f16("):]
    assert "assumes" not in general[:general.index("\n}\n")]
