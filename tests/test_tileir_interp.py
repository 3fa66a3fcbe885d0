"""The Tile IR interpreter on hand-written and sample IR: ops against numpy / ml_dtypes truth,
out-of-bounds accesses reported with the op and source line, block-order dependence."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from transpiler.ircheck.parse import parse_tileir
from transpiler.numeric_check.binding import BindingPlan, LogicalArrays, Slot
from transpiler.numeric_check.inputs import LaunchCase, layout_of
from transpiler.numeric_check.run import order_dependence
from transpiler.numeric_check.sides import TileIrSide
from transpiler.tileir_interp.errors import AssumptionError, InterpError, MemoryAccessError
from transpiler.tileir_interp.grid import block_order, run_grid
from transpiler.tileir_interp.memory import Memory
from transpiler.tileir_interp.table import OP_TABLE

SAMPLES = Path(__file__).parent / "ircheck_kernels" / "samples"


def _unary_kernel(body: str, in_type: str, out_type: str, n: int = 8) -> str:
    """An entry that loads `n` elements of `in_type` through a pointer tile, applies `body`
    (from `%x` to `%y`) and stores `%y` as `out_type`."""
    return f"""entry @k(%arg0: tile<ptr<{in_type}>>, %arg1: tile<ptr<{out_type}>>) {{
  %iota = iota : tile<{n}xi32>
  %p0 = reshape %arg0 : tile<ptr<{in_type}>> -> tile<1xptr<{in_type}>>
  %b0 = broadcast %p0 : tile<1xptr<{in_type}>> -> tile<{n}xptr<{in_type}>>
  %ptrs = offset %b0, %iota : tile<{n}xptr<{in_type}>>, tile<{n}xi32> -> tile<{n}xptr<{in_type}>>
  %x, %t = load_ptr_tko weak %ptrs : tile<{n}xptr<{in_type}>> -> tile<{n}x{in_type}>, token
{body}
  %p1 = reshape %arg1 : tile<ptr<{out_type}>> -> tile<1xptr<{out_type}>>
  %b1 = broadcast %p1 : tile<1xptr<{out_type}>> -> tile<{n}xptr<{out_type}>>
  %qtrs = offset %b1, %iota : tile<{n}xptr<{out_type}>>, tile<{n}xi32> -> tile<{n}xptr<{out_type}>>
  %t2 = store_ptr_tko weak %qtrs, %y : tile<{n}xptr<{out_type}>>, tile<{n}x{out_type}> -> token
  return
}}
"""


def _run_unary(body: str, x: np.ndarray, in_type: str, out_type: str,
               out_dtype: object) -> np.ndarray:
    entry = parse_tileir(_unary_kernel(body, in_type, out_type, x.size)).entry()
    memory = Memory()
    out = np.zeros(x.size, dtype=out_dtype)
    args = [memory.allocate("x", x), memory.allocate("y", out)]
    run_grid(entry, args, memory, (1, 1, 1))
    return memory.read_back("y", out)


NEGATIVES = np.array([-7, 7, -8, 8, -1, 0, 5, -5], dtype=np.int32)


@pytest.mark.parametrize(("rounding", "expected"), [
    ("", np.trunc(NEGATIVES / 3)),
    ("rounding<negative_inf>", np.floor(NEGATIVES / 3)),
    ("rounding<positive_inf>", np.ceil(NEGATIVES / 3)),
])
def test_signed_division_rounds_as_told(rounding: str, expected: np.ndarray) -> None:
    body = (f"  %three = constant <i32: 3> : tile<8xi32>\n"
            f"  %y = divi %x, %three signed {rounding} : tile<8xi32>")
    got = _run_unary(body, NEGATIVES, "i32", "i32", np.int32)
    assert got.tolist() == expected.astype(np.int32).tolist()


def test_signed_remainder_takes_the_dividend_sign() -> None:
    body = ("  %three = constant <i32: 3> : tile<8xi32>\n"
            "  %y = remi %x, %three signed : tile<8xi32>")
    got = _run_unary(body, NEGATIVES, "i32", "i32", np.int32)
    assert got.tolist() == np.fmod(NEGATIVES, 3).tolist()


def test_unsigned_shift_and_compare_read_the_bits_unsigned() -> None:
    body = ("  %one = constant <i32: 1> : tile<8xi32>\n"
            "  %y = shri %x, %one unsigned : tile<8xi32>")
    got = _run_unary(body, NEGATIVES, "i32", "i32", np.int32)
    assert got.tolist() == (NEGATIVES.view(np.uint32) >> 1).view(np.int32).tolist()


def test_division_by_zero_is_an_error() -> None:
    body = ("  %zero = constant <i32: 0> : tile<8xi32>\n"
            "  %y = divi %x, %zero signed : tile<8xi32>")
    with pytest.raises(InterpError, match="divi.*division by zero"):
        _run_unary(body, NEGATIVES, "i32", "i32", np.int32)


def test_bf16_conversion_rounds_to_nearest_even() -> None:
    x = np.array([1.00390625, 1.01171875, -3.3, 1e-39, np.inf, np.nan, 65504.0, 0.1],
                 dtype=np.float32)
    got = _run_unary("  %y = ftof %x : tile<8xf32> -> tile<8xbf16>", x, "f32", "bf16",
                     ml_dtypes.bfloat16)
    assert got.view(np.uint16).tolist() == x.astype(ml_dtypes.bfloat16).view(np.uint16).tolist()


def test_float8_conversion_matches_ml_dtypes() -> None:
    x = np.linspace(-500, 500, 8).astype(np.float32)
    got = _run_unary("  %y = ftof %x : tile<8xf32> -> tile<8xf8E4M3FN>", x, "f32", "f8E4M3FN",
                     ml_dtypes.float8_e4m3fn)
    assert got.view(np.uint8).tolist() == x.astype(ml_dtypes.float8_e4m3fn).view(
        np.uint8).tolist()


def test_maxf_ignores_nan_unless_told_to_propagate() -> None:
    x = np.array([np.nan, 1, -1, 2, np.nan, 0, 3, -3], dtype=np.float32)
    zero = "  %z = constant <f32: 0.000000e+00> : tile<8xf32>\n"
    quiet = _run_unary(zero + "  %y = maxf %x, %z : tile<8xf32>", x, "f32", "f32", np.float32)
    loud = _run_unary(zero + "  %y = maxf %x, %z propagate_nan : tile<8xf32>", x, "f32",
                      "f32", np.float32)
    assert np.array_equal(quiet, np.fmax(x, 0))
    assert np.array_equal(loud, np.maximum(x, 0), equal_nan=True)


def test_flush_to_zero_flushes_subnormal_results() -> None:
    x = np.array([1e-39, -1e-39, 1.0, 2e-38, 0, 1e-45, -2.0, 1e-38], dtype=np.float32)
    one = "  %one = constant <f32: 1.000000e+00> : tile<8xf32>\n"
    got = _run_unary(one + "  %y = mulf %x, %one flush_to_zero : tile<8xf32>", x, "f32",
                     "f32", np.float32)
    tiny = np.finfo(np.float32).tiny
    assert np.array_equal(got, np.where(np.abs(x) < tiny, 0 * x, x))
    assert np.signbit(got[1])


def test_ordered_comparison_is_false_on_nan() -> None:
    x = np.array([np.nan, 1, -1, 2, np.nan, 0, 3, -3], dtype=np.float32)
    zero = "  %z = constant <f32: 0.000000e+00> : tile<8xf32>\n"
    body = zero + ("  %c = cmpf not_equal ordered %x, %z : tile<8xf32> -> tile<8xi1>\n"
                   "  %y = exti %c unsigned : tile<8xi1> -> tile<8xi32>")
    got = _run_unary(body, x, "f32", "i32", np.int32)
    assert got.tolist() == [0, 1, 1, 1, 0, 0, 1, 1]


def test_vector_add_sample_matches_numpy() -> None:
    for name in ("vadd.tileir", "vadd_rust.tileir"):
        entry = parse_tileir((SAMPLES / name).read_text()).entry()
        rng = np.random.default_rng(1)
        a, b = (rng.standard_normal(2048).astype(np.float32) for _ in range(2))
        memory = Memory()
        args = [memory.allocate("a", a), 2048, 1, memory.allocate("b", b), 2048, 1,
                memory.allocate("c", np.zeros(2048, np.float32)), 2048, 1]
        run_grid(entry, args, memory, (2, 1, 1))
        assert np.array_equal(memory.read_back("c", a), a + b)


def test_out_of_bounds_read_names_the_op_and_line() -> None:
    entry = parse_tileir((SAMPLES / "vadd_rust.tileir").read_text()).entry()
    memory = Memory()
    small = np.zeros(1000, np.float32)
    # The shape argument claims 2048 elements; the buffers hold 1000.
    args = [memory.allocate("a", small), 2048, 1, memory.allocate("b", small), 2048, 1,
            memory.allocate("c", small), 2048, 1]
    with pytest.raises(MemoryAccessError) as caught:
        run_grid(entry, args, memory, (2, 1, 1))
    assert caught.value.op == "load_view_tko"
    assert "vadd.rs:21:40" in str(caught.value)
    assert "past the end of `a`" in str(caught.value)


def test_a_broken_assumption_is_reported() -> None:
    entry = parse_tileir((SAMPLES / "vadd.tileir").read_text()).entry()
    memory = Memory()
    buf = np.zeros(1000, np.float32)
    args = [memory.allocate("a", buf), 1000, 1, memory.allocate("b", buf), 1000, 1,
            memory.allocate("c", buf), 1000, 1]
    with pytest.raises(AssumptionError, match="div_by<16>"):
        run_grid(entry, args, memory, (1, 1, 1))


LAST_WRITER_WINS = """entry @k(%arg0: tile<ptr<i32>>) {
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %t = store_ptr_tko weak %arg0, %bx : tile<ptr<i32>>, tile<i32> -> token
  return
}
"""


def test_a_block_order_dependent_kernel_is_reported() -> None:
    entry = parse_tileir(LAST_WRITER_WINS).entry()
    side = TileIrSide("kernel", entry, BindingPlan("kernel", (Slot("base", "out"),)))
    arrays = {"out": np.zeros(1, np.int32)}
    case = LaunchCase("one", arrays, {}, (8, 1, 1), layout_of(arrays))
    in_order = {"out": arrays["out"].copy()}
    side.run(LogicalArrays(in_order, {}), case.grid)
    assert in_order["out"].tolist() == [7]
    found = order_dependence(side, case, in_order, False, 3)
    assert found is not None and "depends on the order" in found


def test_shuffled_order_is_deterministic_and_complete() -> None:
    grid = (3, 2, 2)
    assert block_order(grid, 5) == block_order(grid, 5)
    assert sorted(block_order(grid, 5)) == sorted(block_order(grid))


def test_op_table_covers_the_golden_and_pointer_ops() -> None:
    ops = {line.split("=", 1)[-1].split()[0] for sample in SAMPLES.glob("*.tileir")
           for line in sample.read_text().splitlines()
           if line.strip() and not line.startswith(("#", "entry", "}", " ("))
           and not line.strip().startswith(("(", "}", "#"))}
    assert ops <= set(OP_TABLE), sorted(ops - set(OP_TABLE))
    triton_ops = {"offset", "load_ptr_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko",
                  "iota", "broadcast", "reshape", "permute", "cat", "extract", "select", "cmpi",
                  "cmpf", "divi", "remi", "exti", "trunci", "itof", "ftoi", "ftof", "maxf",
                  "minf", "mmaf", "mmai", "reduce", "scan", "for", "if", "loop", "break",
                  "continue", "assume", "make_token", "join_tokens", "print", "assert"}
    assert triton_ops <= set(OP_TABLE), sorted(triton_ops - set(OP_TABLE))


def test_approximate_division_is_a_product_with_the_reciprocal() -> None:
    """The approximate reciprocal is not correctly rounded: 1/3 rounded toward zero (the
    correctly rounded 1/3 rounds up), so even `1 / 3` differs from the exact quotient."""
    x = np.array([1, 2, 5, 7, 10, 11, 13, 100], dtype=np.float32)
    three = "  %d = constant <f32: 3.000000e+00> : tile<8xf32>\n"
    approx = _run_unary(three + "  %y = divf %x, %d rounding<approx> : tile<8xf32>", x,
                        "f32", "f32", np.float32)
    full = _run_unary(three + "  %y = divf %x, %d : tile<8xf32>", x, "f32", "f32", np.float32)
    assert np.array_equal(full, x / np.float32(3))
    below = np.nextafter(np.float32(1) / np.float32(3), np.float32(0))
    assert np.array_equal(approx, x * below)
    assert approx[0] != full[0]
    ulps = np.abs(approx.view(np.int32) - full.view(np.int32))
    assert ulps.max() <= 2


def test_approximate_tanh_keeps_twelve_significant_bits() -> None:
    """`tanh.approx.f32`'s relative error is below 2^-10.987: the model's is that size."""
    x = np.array([0.1, 0.3, 0.5, 0.7, 1.0, -0.4, 2.0, -3.0], dtype=np.float32)
    approx = _run_unary("  %y = tanh %x rounding<approx> : tile<8xf32>", x, "f32", "f32",
                        np.float32)
    full = _run_unary("  %y = tanh %x : tile<8xf32>", x, "f32", "f32", np.float32)
    assert np.array_equal(full, np.tanh(x))
    relative = np.abs(approx.astype(np.float64) - full) / np.abs(full)
    assert relative.max() <= 2.0 ** -10.987 and (approx != full).any()
    assert np.all(np.abs(approx) <= np.abs(full))


def test_a_pointer_load_with_a_padding_and_no_mask_loads_every_lane() -> None:
    """cuTile Python's gathers with `check_bounds=False` give a padding but no mask."""
    x = np.arange(8, dtype=np.float32) + 1
    kernel = _unary_kernel("  %y = negf %x : tile<8xf32>", "f32", "f32").replace(
        "%x, %t = load_ptr_tko weak %ptrs : tile<8xptr<f32>> -> tile<8xf32>, token",
        "%zero = constant <f32: 0.0> : tile<8xf32>\n"
        "  %x, %t = load_ptr_tko weak %ptrs, %zero : tile<8xptr<f32>>, tile<8xf32> -> "
        "tile<8xf32>, token")
    entry = parse_tileir(kernel).entry()
    memory = Memory()
    out = np.zeros(8, dtype=np.float32)
    run_grid(entry, [memory.allocate("x", x), memory.allocate("y", out)], memory, (1, 1, 1))
    assert memory.read_back("y", out).tolist() == (-x).tolist()
    # with a mask, masked-off lanes take the padding
    masked = kernel.replace("%x, %t = load_ptr_tko weak %ptrs, %zero : tile<8xptr<f32>>, ",
                            "%lim = constant <i32: 4> : tile<8xi32>\n"
                            "  %m = cmpi less_than %iota, %lim, signed : tile<8xi32> -> "
                            "tile<8xi1>\n"
                            "  %x, %t = load_ptr_tko weak %ptrs, %m, %zero : "
                            "tile<8xptr<f32>>, tile<8xi1>, ")
    memory = Memory()
    run_grid(parse_tileir(masked).entry(), [memory.allocate("x", x),
                                            memory.allocate("y", out)], memory, (1, 1, 1))
    assert memory.read_back("y", out).tolist() == [-1.0, -2.0, -3.0, -4.0, -0.0, -0.0, -0.0,
                                                   -0.0]
