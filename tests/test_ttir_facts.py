"""The TTIR fact oracle: facts read from Triton's own TTIR, checked against hand-written Tile IR
that must agree, and against edits of it that must be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.frontend.triton_host import read_host
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.ttir_check import RULES, check_facts
from transpiler.ircheck.ttir_facts import (
    TritonFacts,
    TtirError,
    compile_ttir,
    read_facts,
    request_for,
)

HERE = Path(__file__).parent / "triton_facts"
KERNELS = HERE / "kernels.py"
LAUNCHES = {
    "add_kernel": ({"BLOCK": 1024}, {"x_ptr": "float32", "y_ptr": "float32",
                                     "out_ptr": "float32"}, {"n": 5000}),
    "row_max_kernel": ({"BLOCK": 64}, {"x_ptr": "float32", "out_ptr": "float32"},
                       {"n_rows": 5, "n_cols": 50, "stride": 50}),
    "dot_kernel": ({"BLOCK": 16}, {"a_ptr": "float32", "b_ptr": "float32",
                                   "c_ptr": "float32"}, {}),
}
TILEIR = {"add_kernel": "vadd_ptr.tileir", "row_max_kernel": "row_max_ptr.tileir",
          "dot_kernel": "dot_tf32.tileir"}


@pytest.fixture(scope="module")
def facts() -> dict[str, TritonFacts]:
    kernels = read_host(KERNELS.read_text()).kernels
    out = {}
    for name, (consts, pointers, scalars) in LAUNCHES.items():
        request = request_for(kernels[name].params, consts, pointers, scalars)
        out[name] = read_facts(compile_ttir(KERNELS, name, request))
    return out


def _check(facts: TritonFacts, kernel: str, edit: tuple[str, str] | None = None):
    text = (HERE / TILEIR[kernel]).read_text()
    if edit is not None:
        assert edit[0] in text, edit[0]
        text = text.replace(edit[0], edit[1], 1)
    return check_facts(facts, parse_tileir(text).entries[0])


def test_facts_read_from_ttir(facts: dict[str, TritonFacts]) -> None:
    add = facts["add_kernel"]
    assert add.params == [("!tt.ptr<f32>", True)] * 3 + [("i32", False)]
    assert [(m.kind, m.shape, m.mask, m.other) for m in add.memory] == [
        ("load", (1024,), True, None), ("load", (1024,), True, None),
        ("store", (1024,), True, None)]
    row = facts["row_max_kernel"]
    assert row.memory[0].other == "-inf" and row.memory[0].shape == (2, 64)
    assert [(r.kind, r.axis, r.combiner) for r in row.reductions] == [
        ("reduce", 1, ("maxnumf",))]
    dot = facts["dot_kernel"].dots[0]
    assert (dot.a, dot.acc, dot.precision) == ("f32", "f32", "tf32")


def test_specialization_keys_reach_the_signature() -> None:
    kernels = read_host(KERNELS.read_text()).kernels
    request = request_for(kernels["row_max_kernel"].params, {"BLOCK": 64},
                          {"x_ptr": "float16", "out_ptr": "float16"},
                          {"n_rows": 1, "n_cols": 64, "stride": 17})
    found = read_facts(compile_ttir(KERNELS, "row_max_kernel", request))
    # n_rows == 1 is a constexpr (gone from the signature), 64 is divisible by 16, 17 is not
    assert found.params == [("!tt.ptr<f16>", True), ("!tt.ptr<f16>", True), ("i32", True),
                            ("i32", False)]
    assert found.memory[0].element == "f16"


@pytest.mark.parametrize("kernel", sorted(TILEIR))
def test_agreeing_translations_pass(facts: dict[str, TritonFacts], kernel: str) -> None:
    verdict = _check(facts[kernel], kernel)
    assert verdict.status in ("PASS", "PASS_WITH_NOTES"), verdict.text()
    assert all(rule in RULES for rule, _ in verdict.notes)


@pytest.mark.parametrize(("kernel", "edit", "what"), [
    ("add_kernel", ("load_ptr_tko weak %4, %3 : tile<1024xptr<f32>>, tile<1024xi1> ->",
                    "load_ptr_tko weak %4 : tile<1024xptr<f32>> ->"), "mask dropped"),
    ("add_kernel", ("%8 = store_ptr_tko weak %7, %6, %3 : tile<1024xptr<f32>>, tile<1024xf32>,"
                    " tile<1024xi1> -> token", "%8 = store_ptr_tko weak %7, %6 : "
                    "tile<1024xptr<f32>>, tile<1024xf32> -> token"), "mask dropped"),
    ("add_kernel", ("-> tile<1024xf32>, token\n  %reshape_7",
                    "-> tile<1024xf16>, token\n  %reshape_7"), "element type"),
    ("add_kernel", ("%assume_2 = assume div_by<16>, %arg2 : tile<ptr<f32>>",
                    "%assume_2 = assume div_by<16>, %arg3 : tile<i32>"),
     "divisibility assumed without Triton's fact"),
    ("add_kernel", ("%arg2: tile<ptr<f32>>", "%arg2: tile<ptr<f16>>"), "pointer parameters"),
    ("row_max_kernel", ("constant <f32: 0xFF800000>", "constant <f32: 0.000000e+00>"),
     "padding (Triton's `other`)"),
    ("row_max_kernel", ("reduce %x dim=1", "reduce %x dim=0"), "reduce axis"),
    ("row_max_kernel", ("%7 = maxf %reduce_lhs", "%7 = addf %reduce_lhs"), "reduce combiner"),
    ("row_max_kernel", ("%7 = maxf %reduce_lhs, %reduce_rhs :",
                        "%7 = maxf %reduce_lhs, %reduce_rhs propagate_nan :"),
     "reduce NaN rule"),
    ("row_max_kernel", ("%x = reshape %result : tile<128xf32> -> tile<2x64xf32>",
                        "%x = reshape %result : tile<128xf32> -> tile<4x32xf32>"), "shape"),
    ("dot_kernel", ("%c = mmaf %a32, %b32, %cst_0 : tile<16x16xtf32>, tile<16x16xtf32>",
                    "%c = mmaf %a, %b, %cst_0 : tile<16x16xf32>, tile<16x16xf32>"),
     "dot operand types"),
    ("dot_kernel", ("%t2 = store_ptr_tko weak %pc, %c : tile<16x16xptr<f32>>, tile<16x16xf32>",
                    "%t2 = store_ptr_tko weak %pc, %c, %m : tile<16x16xptr<f32>>, "
                    "tile<16x16xf32>, tile<16x16xi1>"), "mask added to an unmasked access"),
])
def test_divergences_are_reported(facts: dict[str, TritonFacts], kernel: str,
                                  edit: tuple[str, str], what: str) -> None:
    verdict = _check(facts[kernel], kernel, edit)
    assert verdict.status == "FAIL", verdict.text()
    assert what in [d.what for d in verdict.differences], verdict.text()


def test_a_missing_memory_op_is_reported(facts: dict[str, TritonFacts]) -> None:
    text = (HERE / TILEIR["add_kernel"]).read_text()
    start = text.index("  %reshape_7")
    end = text.index("  %6 = addf")
    edited = text[:start] + text[end:].replace("%result_9", "%result")
    verdict = check_facts(facts["add_kernel"], parse_tileir(edited).entries[0])
    assert "number of load ops" in [d.what for d in verdict.differences]


def test_padding_chosen_for_an_undefined_other_is_a_note(
        facts: dict[str, TritonFacts]) -> None:
    text = (HERE / TILEIR["add_kernel"]).read_text().replace(
        "  %result, %result_token = load_ptr_tko weak %4, %3 : tile<1024xptr<f32>>, "
        "tile<1024xi1> -> tile<1024xf32>, token",
        "  %z = constant <f32: 0.000000e+00> : tile<1024xf32>\n"
        "  %result, %result_token = load_ptr_tko weak %4, %3, %z : tile<1024xptr<f32>>, "
        "tile<1024xi1>, tile<1024xf32> -> tile<1024xf32>, token")
    verdict = check_facts(facts["add_kernel"], parse_tileir(text).entries[0])
    assert verdict.status == "PASS_WITH_NOTES"
    assert ("undetermined-other" in [r for r, _ in verdict.notes]), verdict.text()


def test_view_translation_of_masked_accesses_is_noted(facts: dict[str, TritonFacts]) -> None:
    # The project's own view-based vector add (views with padding zero, a store through a
    # view), against Triton's masked pointer accesses.
    sample = Path(__file__).parent / "ircheck_kernels" / "samples" / "vadd_rust.tileir"
    entry = parse_tileir(sample.read_text()).entries[0]
    verdict = check_facts(facts["add_kernel"], entry)
    rules = {r for r, _ in verdict.notes}
    assert {"mask-as-view-bounds", "undetermined-other", "extra-scalar-parameters"} <= rules


def test_triton_errors_are_reported() -> None:
    with pytest.raises(TtirError, match="no @triton.jit kernel"):
        compile_ttir(KERNELS, "no_such_kernel", request_for((), {}, {}, {}))
