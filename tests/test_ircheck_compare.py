"""Tests for transpiler.ircheck.canonicalize and compare on hand-written and sample Tile IR.

The `SCALE_PY` text is cuda-tile's output for `scale` in ircheck_kernels/base.py (TILE=256);
`SCALE_RS` is the same kernel written the way cuTile Rust builds it (a token per array,
every argument assumed, a splat constant, a repeated get_tile_block_id, a dead constant,
explicit identity dim_map), so every accepted-noise rule has to fire for it to PASS.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.ircheck.canonicalize import RULE_NAMES, RULES, canonical_text, canonicalize
from transpiler.ircheck.compare import (
    FAIL,
    PASS,
    PASS_WITH_NOTES,
    Verdict,
    compare_modules,
    format_verdict,
)
from transpiler.ircheck.parse import parse_tileir

SAMPLES = Path(__file__).parent / "ircheck_kernels" / "samples"

SCALE_PY = """\
entry @scale_Kt2_A1f32_1i16t1_p16_A1f32_1i16t1_p16_I256(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg1 : tile<i32>
  %assume_1 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_2 = assume div_by<16>, %arg4 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_assume_assume], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_assume_4 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_5 = assume div_by<16>, %assume_assume_4 : tile<i32>
  %tview_6 = make_tensor_view %assume_1, shape = [%assume_assume_assume_5], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<256xf32>
  %1 = mulf %tile, %bcast  : tile<256xf32>
  %pview_7 = make_partition_view %tview_6 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %1, %pview_7[%blockId_x] token = %0 : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""  # noqa: E501 - printer output, kept verbatim

SCALE_RS = """\
cuda_tile.module @module {
  entry @scale(%x_ptr: tile<ptr<f32>>, %x_dim_0: tile<i32>, %x_stride_0: tile<i32>, %y_ptr: tile<ptr<f32>>, %y_dim_0: tile<i32>, %y_stride_0: tile<i32>) {
    %0 = assume bounded<0, ?>, %x_dim_0 : tile<i32>
    %1 = assume div_by<16>, %0 : tile<i32>
    %2 = make_token : token
    %3 = assume div_by<16>, %x_ptr : tile<ptr<f32>>
    %4 = make_tensor_view %3, shape = [%1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %5 = assume bounded<0, ?>, %y_dim_0 : tile<i32>
    %6 = assume div_by<16>, %5 : tile<i32>
    %7 = make_token : token
    %8 = assume div_by<16>, %y_ptr : tile<ptr<f32>>
    %9 = make_tensor_view %8, shape = [%6], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %10, %11, %12 = get_tile_block_id : tile<i32>
    %13 = assume bounded<0, ?>, %10 : tile<i32>
    %unused = constant <i32: 7> : tile<i32>
    %14 = make_partition_view %4 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>, dim_map=[0]>
    %15, %16 = load_view_tko weak %14[%13] token = %2 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>, dim_map=[0]>, tile<i32> -> tile<256xf32>, token
    %17 = constant <f32: 2.000000e+00> : tile<256xf32>
    %18 = mulf %17, %15 : tile<256xf32>
    %19, %20, %21 = get_tile_block_id : tile<i32>
    %22 = make_partition_view %9 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>, dim_map=[0]>
    %23 = store_view_tko weak %18, %22[%19] token = %7 : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>, dim_map=[0]>, tile<i32> -> token
    return
  }
}
"""  # noqa: E501 - printer output, kept verbatim

ORDERED_PY = """\
entry @ordered(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {
  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %one = constant <f32: 1.000000e+00> : tile<16xf32>
  %t1 = store_view_tko weak %one, %pv[%bx] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %tile, %t2 = load_view_tko weak %pv[%bx] token = %t1 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
  %t3 = store_view_tko weak %tile, %pv[%by] token = %t2 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""  # noqa: E501 - printer output, kept verbatim


def _sample(name: str) -> str:
    return (SAMPLES / f"{name}.tileir").read_text()


def _verdict(reference: str, generated: str) -> Verdict:
    return compare_modules(parse_tileir(reference), parse_tileir(generated))


def _fails_with(verdict: Verdict, kind: str) -> None:
    assert verdict.status == FAIL, format_verdict(verdict)
    assert kind in verdict.kinds, format_verdict(verdict)


@pytest.mark.parametrize("name", ["vadd", "softmax_rows", "matmul"])
def test_a_sample_equals_itself(name: str) -> None:
    text = _sample(name)
    verdict = _verdict(text, text)
    assert verdict.status == PASS, format_verdict(verdict)
    assert verdict.notes == [] and verdict.differences == []


def test_rust_style_ir_passes_with_a_note_per_rule() -> None:
    verdict = _verdict(SCALE_PY, SCALE_RS)
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    rules = {note.rule for note in verdict.notes}
    assert {"token-threading", "merge-duplicates", "assume-bounded-redundant", "dead-code",
            "constant-splat", "identity-dim-map", "assume-chain"} <= rules
    assert rules <= RULE_NAMES


def test_every_rule_has_a_reason() -> None:
    assert len(RULE_NAMES) == len(RULES)
    assert all(len(rule.reason) > 40 for rule in RULES)


def test_renamed_values_and_reordered_statements_pass() -> None:
    text = _sample("vadd")
    renamed = text.replace("%tile_14", "%rhs").replace("%tile,", "%lhs,").replace(
        "%tile, %rhs", "%lhs, %rhs")
    lines = renamed.splitlines()
    load_b = [i for i, line in enumerate(lines) if "%pview_13" in line]
    load_a = [i for i, line in enumerate(lines) if line.strip().startswith(("%pview =", "%lhs,"))]
    block = [lines[i] for i in load_b] + [lines[i] for i in load_a]
    start = min(load_a)
    lines[start:start + 4] = block
    reordered = "\n".join(lines) + "\n"
    assert reordered != text
    verdict = _verdict(text, reordered)
    assert verdict.status == PASS, format_verdict(verdict)


def test_swapped_operands_of_a_commutative_op_pass() -> None:
    text = _sample("vadd")
    swapped = text.replace("addf %tile, %tile_14", "addf %tile_14, %tile")
    assert _verdict(text, swapped).passed


def test_swapped_operands_of_subtraction_fail() -> None:
    text = _sample("softmax_rows")
    swapped = text.replace("subf %1, %bcast ", "subf %bcast, %1 ")
    assert swapped != text
    _fails_with(_verdict(text, swapped), "operand-order")


def test_ceil_division_matches_get_index_space_shape() -> None:
    text = _sample("matmul")
    explicit = text.replace(
        "%1:2 = get_index_space_shape %pview : partition_view<tile=(128x64), "
        "tensor_view<?x?xbf16, strides=[?,1]>> -> tile<i32>",
        "%c64 = constant <i32: 64> : tile<i32>\n"
        "  %tiles = divi %assume_assume_assume_11, %c64 signed rounding<positive_inf> : "
        "tile<i32>").replace("%1#1", "%tiles")
    assert explicit != text
    verdict = _verdict(text, explicit)
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert "index-space-ceildiv" in {n.rule for n in verdict.notes}
    wrong = explicit.replace("<i32: 64>", "<i32: 32>")
    _fails_with(_verdict(text, wrong), "loop-bounds")


def test_ceil_division_of_the_wrong_extent_fails() -> None:
    text = _sample("matmul")
    explicit = text.replace(
        "%1:2 = get_index_space_shape %pview : partition_view<tile=(128x64), "
        "tensor_view<?x?xbf16, strides=[?,1]>> -> tile<i32>",
        "%c64 = constant <i32: 64> : tile<i32>\n"
        "  %tiles = divi %assume_assume_assume, %c64 signed rounding<positive_inf> : "
        "tile<i32>").replace("%1#1", "%tiles")
    _fails_with(_verdict(text, explicit), "loop-bounds")


def test_lost_token_order_between_store_and_load_fails() -> None:
    unordered = ORDERED_PY.replace("[%bx] token = %t1", "[%bx] token = %0")
    verdict = _verdict(ORDERED_PY, unordered)
    _fails_with(verdict, "memory-ordering")
    assert _verdict(ORDERED_PY, ORDERED_PY).status == PASS


def test_entry_optimization_hints_are_compared() -> None:
    text = _sample("vadd")
    hinted = text.replace("optimization_hints=<default = {}>",
                          "optimization_hints=<default = {occupancy = 2}>")
    _fails_with(_verdict(text, hinted), "optimization-hints")


def test_an_empty_default_beside_target_hints_is_no_difference() -> None:
    text = _sample("vadd")
    with_default = text.replace("optimization_hints=<default = {}>",
                                "optimization_hints=<default = {}, sm_100 = {occupancy = 2}>")
    without = text.replace("optimization_hints=<default = {}>",
                           "optimization_hints=<sm_100 = {occupancy = 2}>")
    verdict = _verdict(with_default, without)
    # Accepted, and said: rule empty-hint-entry.
    assert verdict.passed and all(n.rule == "empty-hint-entry" for n in verdict.notes), \
        format_verdict(verdict)
    other = text.replace("optimization_hints=<default = {}>",
                         "optimization_hints=<sm_100 = {occupancy = 4}>")
    _fails_with(_verdict(with_default, other), "optimization-hints")
    filled = text.replace("optimization_hints=<default = {}>",
                          "optimization_hints=<default = {occupancy = 1}, sm_100 = "
                          "{occupancy = 2}>")
    _fails_with(_verdict(filled, without), "optimization-hints")


def test_a_loop_jump_inside_an_if_passes_its_values_to_the_loop() -> None:
    # cuTile Rust yields the loop's values through an `if` whose other branch `continue`s;
    # cuTile Python's `if` has no results (rule if-passthrough).
    reference, generated = _sample("while_search.python"), _sample("while_search.rust")
    assert _verdict(reference, generated).status == PASS_WITH_NOTES
    # The `continue` must still pass the incremented counter, not the old one.
    stale = generated.replace("continue %arg12, %5 :", "continue %arg12, %arg13 :")
    assert stale != generated
    assert _verdict(reference, stale).status == FAIL


def test_load_latency_hint_is_compared() -> None:
    text = _sample("vadd")
    hinted = text.replace("[%blockId_x] token = %0 :",
                          "[%blockId_x] token = %0 optimization_hints = "
                          "<default = {latency = 3}> :", 1)
    _fails_with(_verdict(text, hinted), "memory-hints")


def test_tensor_view_strides_are_compared() -> None:
    text = _sample("vadd")
    strided = text.replace("strides = [1]", "strides = [2]").replace("strides=[1]", "strides=[2]")
    _fails_with(_verdict(text, strided), "tensor-view-strides")


def test_padding_where_the_reference_leaves_it_undetermined_is_a_note() -> None:
    text = _sample("vadd")
    padded = text.replace("partition_view<tile=(1024), tensor_view",
                          "partition_view<tile=(1024), padding_value = zero, tensor_view")
    verdict = _verdict(text, padded)
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert {n.rule for n in verdict.notes} == {"padding-refinement"}
    _fails_with(_verdict(padded, text), "padding-value")


def test_a_dropped_alignment_assumption_fails() -> None:
    text = _sample("vadd")
    dropped = text.replace("%assume_1 = assume div_by<16>, %arg3 : tile<ptr<f32>>",
                           "%assume_1 = assume bounded<0, ?>, %arg3 : tile<ptr<f32>>")
    verdict = _verdict(text, dropped)
    _fails_with(verdict, "assumption")
    assert "view1.base" in format_verdict(verdict)


def test_changed_combiner_and_identity_fail() -> None:
    text = _sample("softmax_rows")
    changed = text.replace("maxf %reduce_lhs", "minf %reduce_lhs")
    _fails_with(_verdict(text, changed), "reduce-combiner")
    identity = text.replace("0xFF800000", "0x7F800000")
    _fails_with(_verdict(text, identity), "reduce-identity")


def test_differences_carry_both_op_texts_and_locations() -> None:
    text = _sample("softmax_rows")
    changed = text.replace("%3 = exp %2", "%3 = exp2 %2")
    verdict = _verdict(text, changed)
    diff = next(d for d in verdict.differences if d.kind == "operation")
    assert diff.reference == "%3 = exp %2 : tile<1x4096xf32>"
    assert diff.generated == "%3 = exp2 %2 : tile<1x4096xf32>"
    assert "[operation]" in format_verdict(verdict)


def test_canonical_text_is_independent_of_value_names() -> None:
    text = _sample("softmax_rows")
    renamed = text.replace("%reduce", "%r").replace("%bcast", "%b").replace("%tile", "%t")
    first = canonical_text(canonicalize(parse_tileir(text).entry()))
    second = canonical_text(canonicalize(parse_tileir(renamed).entry()))
    assert first == second
    assert "%view0.shape[0]" in first and "assume" not in first


def test_two_entries_are_refused() -> None:
    text = _sample("vadd")
    with pytest.raises(ValueError):
        compare_modules(parse_tileir(text + text), parse_tileir(text))


LOOP_CARRY = """entry @k(%arg0: tile<i32>, %arg1: tile<f32>) {
  %c0 = constant <i32: 0> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %c5 = constant <f32: 5.0> : tile<f32>
  %for:2 = for %i in (%c0 to %arg0, step %c1) : tile<i32> iter_values(%a = %arg1, %b = %c5) -> (tile<f32>, tile<f32>) {
    %s = addf %a, %b : tile<f32>
    continue %s, %b : tile<f32>, tile<f32>
  }
  %t = mulf %for#0, %for#1 : tile<f32>
  print "%f", %t : tile<f32>
  return
}
"""  # noqa: E501 - printer-style text

LOOP_NO_CARRY = """entry @k(%arg0: tile<i32>, %arg1: tile<f32>) {
  %c0 = constant <i32: 0> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %c5 = constant <f32: 5.0> : tile<f32>
  %for = for %i in (%c0 to %arg0, step %c1) : tile<i32> iter_values(%a = %arg1) -> (tile<f32>) {
    %s = addf %a, %c5 : tile<f32>
    continue %s : tile<f32>
  }
  %t = mulf %for, %c5 : tile<f32>
  print "%f", %t : tile<f32>
  return
}
"""  # noqa: E501 - printer-style text


def test_a_loop_value_passed_through_unchanged_is_its_initial_value() -> None:
    verdict = _verdict(LOOP_CARRY, LOOP_NO_CARRY)
    assert verdict.passed, format_verdict(verdict)
    changed = LOOP_CARRY.replace("continue %s, %b", "continue %s, %s")
    assert not _verdict(changed, LOOP_NO_CARRY).passed


def test_an_early_exit_matches_its_guarded_form() -> None:
    # cuTile Python: `if c { A; return } else { yield }` then B; the translation (cuTile
    # Rust has no `return` below the function body): `if c { A } else { B }`.
    verdict = _verdict(_sample("early_exit"), _sample("early_exit_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert any("early-exit" in note for note in map(str, verdict.notes)), format_verdict(verdict)


def test_code_after_an_early_exit_that_always_runs_fails() -> None:
    # The same kernel with B after the `if` (it would also run when `c` holds).
    verdict = _verdict(_sample("early_exit"), _sample("early_exit_rust_unguarded"))
    assert verdict.status == FAIL, format_verdict(verdict)


def test_a_scan_between_axis_swaps_is_the_scan_along_that_axis() -> None:
    # cuTile Rust 0.5.0 scans along dimension 0 only: the translation swaps the axis to the
    # front and back around it.
    verdict = _verdict(_sample("cumsum_axis1_python"), _sample("cumsum_axis1_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert any("scan-axis-swap" in str(note) for note in verdict.notes), format_verdict(verdict)


def test_a_scan_rust_compiles_along_dimension_zero_fails() -> None:
    # `scan_sum(t, 1i32, ..)` written directly: cuTile Rust 0.5.0 emits dim=0 for it.
    verdict = _verdict(_sample("cumsum_axis1_python"), _sample("cumsum_axis1_rust_direct"))
    _fails_with(verdict, "reduce-axis")


def test_a_gather_flattened_to_rank_one_is_the_shaped_gather() -> None:
    # cuTile Rust 0.5.0 cannot pad a load of rank >= 2: the translation gathers the 64x64
    # tile flattened (pointers and mask reshaped to 4096) and reshapes the result back.
    verdict = _gather_rows_verdict(_sample("gather_rows_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert any("flattened-gather" in str(note) for note in verdict.notes), format_verdict(verdict)


@pytest.mark.parametrize(("old", "new"), [
    # another padding value
    ("%cst_0_f32 = constant <f32: 0.000000e+00>", "%cst_0_f32 = constant <f32: 1.000000e+00>"),
    # the flat tile given back another shape than the pointers had
    ("%reshape_113 = reshape %result_108 : tile<4096xf32> -> tile<64x64xf32>",
     "%reshape_113 = reshape %result_108 : tile<4096xf32> -> tile<32x128xf32>"),
])
def test_a_flattened_gather_that_differs_fails(old: str, new: str) -> None:
    generated = _sample("gather_rows_rust")
    assert old in generated
    assert not _gather_rows_verdict(generated.replace(old, new)).passed


def _gather_rows_verdict(generated: str) -> Verdict:
    # The launcher passes the two tables' row strides again as %arg13 and %arg14.
    return compare_modules(parse_tileir(_sample("gather_rows_python")), parse_tileir(generated),
                           arg_aliases={13: 6, 14: 11})


def test_a_generated_value_with_fewer_assumed_facts_is_a_note() -> None:
    text = _sample("vadd")
    stronger = text.replace("%assume_assume_assume = assume div_by<16>, %assume_assume :",
                            "%assume_assume_assume = assume div_by<32>, %assume_assume :", 1)
    assert stronger != text
    verdict = _verdict(stronger, text)
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert "assumption-weaker" in {n.rule for n in verdict.notes}
    # The other way round the generated side assumes a fact the reference does not: unsafe.
    _fails_with(_verdict(text, stronger), "assumption")


# A slice (`x.slice(axis=0, start, stop)`, ircheck_kernels/samples/slice_rows_*): the Rust
# entry's `x_stride_0` and `y_stride_0` (arguments 13 and 14) carry arguments 3 and 8.
SLICE_ALIASES = {13: 3, 14: 8}


def _slice_verdict(reference: str, generated: str) -> Verdict:
    return compare_modules(parse_tileir(reference), parse_tileir(generated), {}, SLICE_ALIASES)


def test_a_slice_matches_its_cutile_rust_form() -> None:
    verdict = _slice_verdict(_sample("slice_rows_python"), _sample("slice_rows_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert "derived-divisibility" in {n.rule for n in verdict.notes}, format_verdict(verdict)


def test_a_divisibility_the_ops_do_not_imply_is_not_derived() -> None:
    # The moved pointer is 16-byte aligned (a 16-aligned base plus start * stride elements,
    # the stride divisible by 16); nothing makes it 32-byte aligned, so derived-divisibility
    # does not drop the fact: the generated side just assumes less (assumption-weaker).
    stronger = _sample("slice_rows_python").replace(
        "%assume_18 = assume div_by<16>, %4", "%assume_18 = assume div_by<32>, %4")
    verdict = _slice_verdict(stronger, _sample("slice_rows_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    weaker = [n.message for n in verdict.notes if n.rule == "assumption-weaker"]
    assert any("div_by<32>" in m for m in weaker), format_verdict(verdict)


def test_a_slice_offset_by_the_wrong_stride_fails() -> None:
    # `start * y_stride_0` for a slice of `x`.
    wrong = _sample("slice_rows_rust").replace("%4 = muli %reshape, %assume_assume_3",
                                               "%4 = muli %reshape, %assume_assume_10")
    assert _slice_verdict(_sample("slice_rows_python"), wrong).status == FAIL


TWO_HALVES = """\
entry @two_halves(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>) {
  %0 = make_token : token
  %c0 = constant <i64: 0> : tile<i64>
  %c16 = constant <i64: 16> : tile<i64>
  %p0 = offset %arg0, %c0 : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
  %p1 = offset %arg0, %c16 : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
  %tv0 = make_tensor_view %p0, shape = [16], strides = [1] : tile<i32> -> tensor_view<16xf32, strides=[1]>
  %tv1 = make_tensor_view %p1, shape = [16], strides = [1] : tile<i32> -> tensor_view<16xf32, strides=[1]>
  %pv0 = make_partition_view %tv0 : partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>
  %pv1 = make_partition_view %tv1 : partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %one = constant <f32: 1.000000e+00> : tile<16xf32>
  %t1 = store_view_tko weak %one, %pv0[%bx] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>, tile<i32> -> token
  %t2 = store_view_tko weak %one, %pv1[%bx] token = %t1 : tile<16xf32>, partition_view<tile=(16), tensor_view<16xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""  # noqa: E501 - printer-style text


def test_stores_through_two_slices_of_one_array_keep_their_order() -> None:
    # Two views over the same argument's memory (two slices): the token order between the
    # stores is compared, as for stores through one view.
    unordered = TWO_HALVES.replace("[%bx] token = %t1", "[%bx] token = %0")
    _fails_with(_verdict(TWO_HALVES, unordered), "memory-ordering")
    assert _verdict(TWO_HALVES, TWO_HALVES).status == PASS


EXIT_EMPTY_ELSE = """\
entry @exit_empty_else(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>) {
  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %c = cmpi greater_than_or_equal %bx, %arg1, signed : tile<i32> -> tile<i1>
  if %c {
    return
  } else {
  }
  %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %one = constant <f32: 1.000000e+00> : tile<16xf32>
  %t1 = store_view_tko weak %one, %pv[%bx] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""  # noqa: E501 - printer-style text

EXIT_EMPTY_ELSE_GUARDED = """\
entry @exit_empty_else(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>) {
  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %c = cmpi greater_than_or_equal %bx, %arg1, signed : tile<i32> -> tile<i1>
  if %c {
  } else {
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %one = constant <f32: 1.000000e+00> : tile<16xf32>
    %t1 = store_view_tko weak %one, %pv[%bx] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  }
  return
}
"""  # noqa: E501 - printer-style text


def test_an_early_exit_with_an_empty_else_matches_its_guarded_form() -> None:
    # `if c { return } else { }` (no results: the exit touches no memory) then B.
    verdict = _verdict(EXIT_EMPTY_ELSE, EXIT_EMPTY_ELSE_GUARDED)
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)
    assert "early-exit" in {n.rule for n in verdict.notes}, format_verdict(verdict)
    # B after the `if` in the generated code would also run when `c` holds.
    unguarded = EXIT_EMPTY_ELSE.replace("    return\n  } else {\n  }", "  } else {\n  }")
    assert _verdict(EXIT_EMPTY_ELSE, unguarded).status == FAIL


# A loop whose step reads the tile the previous step stored (cuTile Python 1.7.0, `x[j] +=
# x[j - 1]` for j in 1..8): the loads wait on the store token the loop carries.
CARRIED_PY = """\
entry @prefix_chain_Kt2_A1f32_1i16t1_p16_I128(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg1 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_assume_assume], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  %cst_8_i32 = constant <i32: 8> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %pview_4 = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %pview_5 = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %for:2 = for %loopIdx in (%cst_1_i32_1 to %cst_8_i32, step %cst_1_i32_2) : tile<i32> iter_values(%iterArg0 = %0, %iterArg1 = %0) -> (token, token) {
    %1 = subi %loopIdx, %cst_1_i32_3 : tile<i32>
    %tile, %result_token = load_view_tko weak %pview[%1] token = %iterArg1 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %2 = join_tokens %iterArg0, %result_token : token
    %tile_6, %result_token_7 = load_view_tko weak %pview_4[%loopIdx] token = %iterArg1 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %3 = join_tokens %2, %result_token_7 : token
    %4 = addf %tile_6, %tile  : tile<128xf32>
    %5 = store_view_tko weak %4, %pview_5[%loopIdx] token = %3 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    continue %5, %5 : token, token
  }
  return
}
"""  # noqa: E501 - printer output, kept verbatim


def test_lost_loop_carried_order_fails() -> None:
    unordered = CARRIED_PY.replace("token = %iterArg1", "token = %0")
    assert unordered != CARRIED_PY
    _fails_with(_verdict(CARRIED_PY, unordered), "memory-ordering")
    assert _verdict(CARRIED_PY, CARRIED_PY).status == PASS


# Two relaxed atomics on one array (ircheck_kernels/samples/atomic_pair_*): `atomic_add`
# then `atomic_xor` at block scope, the second ordered after the first through its token.
def test_atomics_match_their_cutile_rust_form() -> None:
    verdict = _verdict(_sample("atomic_pair_python"), _sample("atomic_pair_rust"))
    assert verdict.status == PASS_WITH_NOTES, format_verdict(verdict)


def test_an_atomic_that_no_longer_waits_on_the_previous_one_fails() -> None:
    rust = _sample("atomic_pair_rust")
    unordered = rust.replace(" token=%result_token_16 :", " :")
    assert unordered != rust
    _fails_with(_verdict(_sample("atomic_pair_python"), unordered), "memory-ordering")


@pytest.mark.parametrize("old, new", [
    ("relaxed device", "acq_rel device"),  # memory order
    ("relaxed tl_blk", "relaxed device"),  # memory scope
    (", xor,", ", or,"),  # mode
])
def test_an_atomic_with_another_order_scope_or_mode_fails(old: str, new: str) -> None:
    rust = _sample("atomic_pair_rust")
    assert old in rust
    verdict = _verdict(_sample("atomic_pair_python"), rust.replace(old, new))
    assert verdict.status == FAIL, format_verdict(verdict)


_HALF_CONSTANT = """\
entry @half(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>) {
  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xbf16, strides=[1]>>
CONSTANT
  %t = store_view_tko weak %c, %pv[%bx] token = %0 : tile<16xbf16>, partition_view<tile=(16), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> token
  return
}
"""  # noqa: E501 - printer output form

_HALF_BITS = """\
  %b = constant <i16: BITS> : tile<i16>
  %h = bitcast %b : tile<i16> -> tile<bf16>
  %r = reshape %h : tile<bf16> -> tile<1xbf16>
  %c = broadcast %r : tile<1xbf16> -> tile<16xbf16>"""


@pytest.mark.parametrize(("value", "bits", "passes"), [
    ("5.000000e-01", "16128", True),     # 0x3F00
    ("-4.480000e+02", "-15392", True),   # 0xC3E0: a negative i16 literal
    ("5.000000e-01", "16256", False),    # 0x3F80 is 1.0
])
def test_a_bitcast_integer_constant_is_the_float_constant(value: str, bits: str,
                                                          passes: bool) -> None:
    python = _HALF_CONSTANT.replace(
        "CONSTANT", f"  %c = constant <bf16: {value}> : tile<16xbf16>")
    rust = _HALF_CONSTANT.replace("CONSTANT", _HALF_BITS.replace("BITS", bits))
    verdict = _verdict(python, rust)
    assert verdict.passed is passes, format_verdict(verdict)
    if passes:
        assert any("constant-bitcast" in str(note) for note in verdict.notes), \
            format_verdict(verdict)


_F32_BITS = """\
  %b = constant <i32: BITS> : tile<i32>
  %h = bitcast %b : tile<i32> -> tile<f32>
  %r = reshape %h : tile<f32> -> tile<1xf32>
  %c = broadcast %r : tile<1xf32> -> tile<16xf32>"""


@pytest.mark.parametrize(("value", "bits", "passes"), [
    ("9.99999974E-6", "925353388", True),   # 1e-5 rounded to f32: 0x3727C5AC
    ("9.99999974E-6", "933741996", False),  # 0x37A7C5AC is 2e-5
    ("-1.000000e+00", "-1082130432", True),  # 0xBF800000: a negative i32 literal
])
def test_float_constant_bits_generic_is_the_float_constant(value: str, bits: str,
                                                           passes: bool) -> None:
    # A `ct.Constant[float]` reaches a Rust entry as its f32 bits (an i32 const generic),
    # reinterpreted; cuTile Python writes the folded f32 constant.
    frame = _HALF_CONSTANT.replace("bf16", "f32")
    python = frame.replace("CONSTANT", f"  %c = constant <f32: {value}> : tile<16xf32>")
    rust = frame.replace("CONSTANT", _F32_BITS.replace("BITS", bits))
    verdict = _verdict(python, rust)
    assert verdict.passed is passes, format_verdict(verdict)
