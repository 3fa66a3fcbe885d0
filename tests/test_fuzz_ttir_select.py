"""The TTIR facts check reads a masked load's `other` through the conversions of a
constant (fuzz O2): `other=1` on a load whose element type is a generic `E` is the f32
constant 1.0 converted to `E` (`ftoi` for i32) before the `select` that replaces masked-off
lanes. That form must PASS (rule other-as-select), and the same Tile IR with another
`other` value, or a conversion that is not exact, must FAIL. The Tile IR is the harness's
for `other_convert.py` launched with an int32 `x_ptr` (kept: the check's input, fixed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.frontend.triton_host import read_host
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.ttir_check import check_facts
from transpiler.ircheck.ttir_facts import TritonFacts, compile_ttir, read_facts, request_for

HERE = Path(__file__).parent / "fuzz_facts"
KERNEL = HERE / "other_convert.py"
TILEIR = (HERE / "other_convert_i32.tileir").read_text(encoding="utf-8")
ONE = "%cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>"


@pytest.fixture(scope="module")
def facts() -> TritonFacts:
    params = read_host(KERNEL.read_text(encoding="utf-8")).kernels["other_kernel"].params
    request = request_for(params, {"BLOCK": 64}, {"x_ptr": "int32", "y_ptr": "float32"},
                          {"n": 1000})
    return read_facts(compile_ttir(KERNEL, "other_kernel", request))


def _verdict(facts: TritonFacts, old: str = "", new: str = ""):
    assert old in TILEIR
    return check_facts(facts, parse_tileir(TILEIR.replace(old, new, 1)).entries[0])


def test_the_converted_constant_is_triton_s_other(facts: TritonFacts) -> None:
    assert [m.other for m in facts.memory if m.kind == "load"] == ["1.0"]
    assert ONE in TILEIR and "ftoi %cst_1_f32" in TILEIR
    verdict = _verdict(facts)
    assert verdict.status != "FAIL", verdict.text()
    assert "other-as-select" in {rule for rule, _where in verdict.notes}


def test_a_constant_that_converts_to_the_same_value_passes(facts: TritonFacts) -> None:
    # `ftoi` rounds toward zero: 1.9 is 1 in every lane, Triton's `other` (which Triton
    # itself casts to the element type the same way).
    verdict = _verdict(facts, ONE, ONE.replace("1.000000e+00", "1.900000e+00"))
    assert verdict.status != "FAIL", verdict.text()


@pytest.mark.parametrize("value", ["2.000000e+00", "0.000000e+00", "-1.000000e+00",
                                   "0x7F800000", "0x7FC00000"])
def test_another_other_fails(facts: TritonFacts, value: str) -> None:
    verdict = _verdict(facts, ONE, ONE.replace("1.000000e+00", value))
    assert verdict.status == "FAIL"
    assert "padding (Triton's `other`)" in [d.what for d in verdict.differences]


def test_an_unsigned_reading_of_a_negative_constant_fails(facts: TritonFacts) -> None:
    edited = TILEIR.replace(ONE, ONE.replace("1.000000e+00", "-1.000000e+00"), 1)
    edited = edited.replace("ftoi %cst_1_f32 signed", "ftoi %cst_1_f32 unsigned", 1)
    verdict = check_facts(facts, parse_tileir(edited).entries[0])
    assert verdict.status == "FAIL"


LOAD = ("%result, %result_token = load_ptr_tko weak %4, %3 : tile<64xptr<i32>>, tile<64xi1> "
        "-> tile<64xi32>, token")


def test_a_load_triton_dropped_as_dead_is_a_note(facts: TritonFacts) -> None:
    # Triton folds `tl.where(c, a, a)` to `a`, and the load feeding `c` goes; the
    # translation keeps it (found by the campaign: fuzz case triton_1_6).
    assert LOAD in TILEIR
    extra = LOAD.replace("%result,", "%unused,").replace("%result_token ", "%unused_token ")
    verdict = _verdict(facts, LOAD, f"{extra}\n  {LOAD}")
    assert verdict.status != "FAIL", verdict.text()
    assert [w for rule, w in verdict.notes if rule == "dead-load"] == [extra]


def test_a_kept_load_of_another_type_still_fails(facts: TritonFacts) -> None:
    # The dead load goes; the one left must still be Triton's (here of another type).
    wrong = LOAD.replace("xi32>, token", "xi16>, token")
    extra = LOAD.replace("%result,", "%unused,").replace("%result_token ", "%unused_token ")
    verdict = _verdict(facts, LOAD, f"{extra}\n  {wrong}")
    assert verdict.status == "FAIL"
    assert "element type" in [d.what for d in verdict.differences]


def test_an_extra_load_whose_value_is_read_fails(facts: TritonFacts) -> None:
    extra = LOAD.replace("%result,", "%unused,").replace("%result_token ", "%unused_token ")
    select = "select %3, %result, %bcast_22"
    assert select in TILEIR
    edited = TILEIR.replace(LOAD, f"{extra}\n  {LOAD}", 1).replace(
        select, "select %3, %result, %unused", 1)
    verdict = check_facts(facts, parse_tileir(edited).entries[0])
    assert verdict.status == "FAIL"
    assert "number of load ops" in [d.what for d in verdict.differences]


F16_TILEIR = (HERE / "other_convert_f16.tileir").read_text(encoding="utf-8")
F16_ONE = ("%cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>\n"
           "  %5 = ftof %cst_1_f32  : tile<f32> -> tile<f16>")


@pytest.fixture(scope="module")
def f16_facts() -> TritonFacts:
    params = read_host(KERNEL.read_text(encoding="utf-8")).kernels["other_kernel"].params
    request = request_for(params, {"BLOCK": 64}, {"x_ptr": "float16", "y_ptr": "float32"},
                          {"n": 1000})
    return read_facts(compile_ttir(KERNEL, "other_kernel", request))


def _bits(pattern: int) -> str:
    # A concrete f16 constant is written as its bit pattern, an i16 constant bitcast
    # (found by the campaign: `other=-1.0` of an f16 load, 0xBC00).
    return (f"%cst_bits = constant <i16: {pattern}> : tile<i16>\n"
            "  %5 = bitcast %cst_bits : tile<i16> -> tile<f16>")


@pytest.mark.parametrize(("pattern", "passes"), [(0x3C00, True), (0x4000, False),
                                                 (-0x4400, False), (0x7E00, False)])
def test_an_f16_other_written_as_bits(f16_facts: TritonFacts, pattern: int,
                                      passes: bool) -> None:
    assert F16_ONE in F16_TILEIR
    # -0x4400 is 0xBC00 as a signed i16: -1.0; 0x7E00 is a NaN.
    edited = F16_TILEIR.replace(F16_ONE, _bits(pattern), 1)
    verdict = check_facts(f16_facts, parse_tileir(edited).entries[0])
    assert (verdict.status != "FAIL") is passes, verdict.text()
    assert passes or "padding (Triton's `other`)" in [d.what for d in verdict.differences]
