"""The TTIR facts check and a reduction the translation repeats (found by the fuzzing
campaign, O6: case triton_4_30). The kernel sums `tl.where(mask, v1, 0)` twice; Triton's
compiler merges the two `tt.reduce`s (common-subexpression elimination), the translation
keeps both. The repeat is a note (rule duplicate-reduce); a third reduction of another
operand, or a repeat whose operand differs in one constant, must still FAIL. The Tile IR is
the harness's for the case's launch (int32 `x0_ptr`, float16 `x1_ptr`), kept fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.frontend.triton_host import read_host
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.ttir_check import check_facts
from transpiler.ircheck.ttir_facts import TritonFacts, compile_ttir, read_facts, request_for

HERE = Path(__file__).parent / "fuzz_facts"
KERNEL = Path(__file__).parent / "fuzz_cases" / "triton_4_30.py"
TILEIR = (HERE / "duplicate_reduce_f32.tileir").read_text(encoding="utf-8")
#: The second sum's zero (the `0` of its `tl.where`), and the select that reads it.
ZERO = "%cst_0_f32_43 = constant <f32: 0.000000e+00> : tile<64xf32>"
SELECT = "%19 = select %5, %11, %cst_0_f32_43 : tile<64xi1>, tile<64xf32>"


@pytest.fixture(scope="module")
def facts() -> TritonFacts:
    params = read_host(KERNEL.read_text(encoding="utf-8")).kernels["fuzz_kernel"].params
    request = request_for(params, {"BLOCK": 64, "FLAG": True},
                          {"x0_ptr": "int32", "x1_ptr": "float16", "y_ptr": "float32",
                           "z_ptr": "int32"}, {"n": 1000})
    return read_facts(compile_ttir(KERNEL, "fuzz_kernel", request))


def _verdict(facts: TritonFacts, old: str = "", new: str = ""):
    assert old in TILEIR
    return check_facts(facts, parse_tileir(TILEIR.replace(old, new, 1)).entries[0])


def test_a_repeated_sum_is_a_note(facts: TritonFacts) -> None:
    assert len([r for r in facts.reductions if r.kind == "reduce"]) == 2
    verdict = _verdict(facts)
    assert verdict.status != "FAIL", verdict.text()
    assert [rule for rule, _ in verdict.notes].count("duplicate-reduce") == 1


@pytest.mark.parametrize("edit", [
    (ZERO, ZERO.replace("0.000000e+00", "1.000000e+00")),  # where(mask, v1, 1)
    (SELECT, SELECT.replace("%5, %11,", "%5, %10,")),  # another operand
    (SELECT, SELECT.replace("select %5, %11, %cst_0_f32_43", "select %5, %cst_0_f32_43, %11")),
], ids=["other-constant", "other-operand", "swapped-arms"])
def test_a_sum_of_something_else_still_counts(facts: TritonFacts, edit: tuple[str, str]
                                              ) -> None:
    verdict = _verdict(facts, *edit)
    assert verdict.status == "FAIL", verdict.text()
    assert "number of reduce ops" in [d.what for d in verdict.differences]
