"""`Array.slice`: typing (extents, shape queries, diagnostics) and its Rust form.

The IR of a translated slice is checked against cuTile Python's by the golden
`segment_glu` (tests/test_golden_ircheck.py) and by tests/test_ircheck_compare.py.
"""

from __future__ import annotations

from transpiler.driver import translate_text
from transpiler.lowering.typing_rules import dim_difference
from transpiler.model import DimExpr, DimSym

HEADER = "import cuda.tile as ct\n\n\n@ct.kernel\n"


def _rust(body: str) -> str:
    result = translate_text(HEADER + body, "slice_test.py")
    assert result.rust is not None, [d.message for d in result.all_diagnostics()]
    return result.rust


def test_static_extents_are_simplified() -> None:
    n = DimSym("N")
    assert dim_difference(DimExpr("*", 2, n), n) == n
    assert dim_difference(n, 0) == n
    assert dim_difference(12, 4) == 8
    assert dim_difference(DimExpr("+", n, 3), n) == 3


def test_a_slice_between_runtime_bounds_is_a_tensor_view() -> None:
    rust = _rust(
        "def k(x, y, a: int, b: int, T: ct.Constant[int]):\n"
        "    t = ct.load(x.slice(axis=0, start=a, stop=b), index=(ct.bid(0), 0), shape=(T, T))\n"
        "    ct.store(y, index=(ct.bid(0), 0), tile=t)\n")
    assert "let x_slice_2_offset_1: i32 = a * x_stride_0;" in rust
    assert "get_tensor_base(x).offset_tile(" in rust
    assert "assume_bounds_lower::<_, 0>(" in rust
    assert "Array::<{ [-1, 1] }> {" in rust
    assert "let x_slice_2: Tensor<ET, { [-1, -1] }> =" in rust
    assert "&x_slice_2," in rust  # the view over the local tensor takes a reference


def test_a_slice_between_compile_time_bounds_has_a_static_extent() -> None:
    rust = _rust(
        "def k(x, y, T: ct.Constant[int], N: ct.Constant[int]):\n"
        "    up = x.slice(axis=1, start=N, stop=2 * N)\n"
        "    for j in range(ct.cdiv(up.shape[1], T)):\n"
        "        t = ct.load(up, index=(ct.bid(0), j), shape=(T, T))\n"
        "        ct.store(y, index=(ct.bid(0), j), tile=t)\n")
    assert "let up: Tensor<ET, { [-1, N] }> =" in rust
    assert "let up_offset_1: i32 = N * 1i32;" in rust  # the last axis' stride is 1
    assert "get_shape_dim(up.shape(), 1i32)" not in rust  # `up.shape[1]` is N


def test_a_slice_passed_to_a_helper_is_bound_once() -> None:
    rust = _rust(
        "def k(x, y, a: int, T: ct.Constant[int]):\n"
        "    copy(x.slice(axis=0, start=a, stop=a + T), y, T)\n\n\n"
        "def copy(src, dst, T):\n"
        "    ct.store(dst, index=(0, 0), tile=ct.load(src, index=(0, 0), shape=(T, T)))\n"
        "    ct.store(dst, index=(1, 0), tile=ct.load(src, index=(1, 0), shape=(T, T)))\n")
    assert rust.count("make_tensor_view(") == 1


def test_writes_through_two_slices_of_one_array_are_noted() -> None:
    result = translate_text(HEADER + (
        "def k(x, T: ct.Constant[int]):\n"
        "    left = x.slice(axis=1, start=0, stop=T)\n"
        "    right = x.slice(axis=1, start=T, stop=2 * T)\n"
        "    ct.store(right, index=(ct.bid(0), 0), tile=ct.load(left, index=(ct.bid(0), 0),\n"
        "                                                       shape=(T, T)))\n"), "t.py")
    assert result.rust is not None
    assert "`x` is written and accessed through 2 tensors (`left`, `right`)" in result.rust


TWO_HALVES = (
    "def k(x, y, T: ct.Constant[int]):\n"
    "    t = ct.load(y, index=(ct.bid(0), 0), shape=(T, T))\n"
    "    left = x.slice(axis=1, start=0, stop=T)\n"
    "    right = x.slice(axis=1, start=T, stop=2 * T)\n"
    "    ct.store(left, index=(ct.bid(0), 0), tile=t)\n"
    "    ct.store(right, index=(ct.bid(0), 0), tile=t)\n"
    "{tail}")


def test_a_store_through_another_slice_waits_on_the_store_before_it() -> None:
    # cuTile Python orders the accesses to one array through one token whichever slice
    # they go through: the second store is a raw store that takes the first one's token.
    rust = _rust(TWO_HALVES.format(tail=""))
    assert "let token_" in rust and "= get_partition_token_mut(&left_out_" in rust
    raw = rust[rust.index("store_view_raw("):]
    assert "&right_out_" in raw and "Some(token_" in raw and "[false, false]," in raw
    assert rust.count("store_view_tko_mut(") == 1


def test_a_later_load_through_a_slice_waits_on_the_array_s_last_store() -> None:
    rust = _rust(TWO_HALVES.format(
        tail="    ct.store(y, index=(ct.bid(0), 0),\n"
             "             tile=ct.load(left, index=(ct.bid(0), 0), shape=(T, T)))\n"))
    load = rust[rust.index("load_view_raw("):]
    assert "&left_view_" in load and "Some(token_" in load
    call = load[:load.index("};")]
    assert call.rstrip().endswith("[false, false],\n                const_shape![T, T],\n"
                                  "            )")


def test_stores_through_one_tensor_keep_the_plain_store() -> None:
    rust = _rust(
        "def k(x, T: ct.Constant[int]):\n"
        "    left = x.slice(axis=1, start=0, stop=T)\n"
        "    ct.store(left, index=(ct.bid(0), 0), tile=ct.zeros((T, T), dtype=ct.float32))\n"
        "    ct.store(left, index=(ct.bid(0), 1), tile=ct.ones((T, T), dtype=ct.float32))\n")
    assert "store_view_raw" not in rust and "get_partition_token_mut" not in rust
