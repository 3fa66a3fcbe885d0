"""optimization_hints in the IR check: spellings that ask for the same compilation are accepted
with a note naming the rule; every other difference, above all a non-empty entry one side
lacks, is a FAIL. (cuTile Python writes `<default = {}, sm_100 = {...}>` for
`ct.kernel(num_ctas=ct.ByTarget(sm_100=2))`, cuTile Rust `<sm_100 = {...}>`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.ircheck.compare import FAIL, PASS, PASS_WITH_NOTES, compare_modules, format_verdict
from transpiler.ircheck.hints import normal_hints, parse_hints
from transpiler.ircheck.parse import parse_tileir

SAMPLE = (Path(__file__).parent / "ircheck_kernels" / "samples" / "vadd.tileir").read_text()
ENTRY_HINTS = "optimization_hints=<default = {}>"
LOAD = "[%blockId_x] token = %0 :"
CGA = "sm_100 = {num_cta_in_cga = 2}"


def _with_entry_hints(hints: str) -> str:
    assert ENTRY_HINTS in SAMPLE
    return SAMPLE.replace(ENTRY_HINTS, f"optimization_hints={hints}" if hints else "")


def _with_load_hints(hints: str) -> str:
    assert LOAD in SAMPLE
    return SAMPLE.replace(LOAD, f"[%blockId_x] token = %0 optimization_hints = {hints} :", 1)


def _status(reference: str, generated: str) -> tuple[str, str]:
    verdict = compare_modules(parse_tileir(reference), parse_tileir(generated))
    return verdict.status, format_verdict(verdict)


@pytest.mark.parametrize(("reference", "generated"), [
    (f"<default = {{}}, {CGA}>", f"<{CGA}>"),
    (f"<{CGA}, default = {{}}>", f"<{CGA}>"),
    (f"<{CGA}, sm_120 = {{occupancy = 2}}>", f"<sm_120 = {{occupancy = 2}}, {CGA}>"),
    ("<sm_90 = {occupancy = 2}>", "<default = {occupancy = 2}>"),
])
def test_entry_hints_that_ask_for_the_same_compilation_pass(reference: str,
                                                            generated: str) -> None:
    status, text = _status(_with_entry_hints(reference), _with_entry_hints(generated))
    assert status in (PASS, PASS_WITH_NOTES), text


def test_the_empty_default_entry_is_a_note_naming_its_rule() -> None:
    status, text = _status(_with_entry_hints(f"<default = {{}}, {CGA}>"),
                           _with_entry_hints(f"<{CGA}>"))
    assert status == PASS_WITH_NOTES, text
    assert "note [empty-hint-entry]" in text


@pytest.mark.parametrize(("reference", "generated"), [
    # A non-empty default the other side lacks: it applies on every other target.
    (f"<default = {{occupancy = 2}}, {CGA}>", f"<{CGA}>"),
    (f"<default = {{}}, {CGA}>", "<sm_100 = {num_cta_in_cga = 4}>"),
    (f"<default = {{}}, {CGA}>", ""),
    ("", f"<{CGA}>"),
    # Keyed by the check's target next to a default: not the same as the default alone.
    ("<sm_90 = {occupancy = 2}, default = {occupancy = 1}>", "<default = {occupancy = 2}>"),
    ("<sm_100 = {occupancy = 2}>", "<default = {occupancy = 2}>"),
])
def test_entry_hints_that_differ_fail(reference: str, generated: str) -> None:
    status, text = _status(_with_entry_hints(reference), _with_entry_hints(generated))
    assert status == FAIL, text
    assert "optimization-hints" in text


def test_op_hints_with_an_empty_default_entry_pass() -> None:
    status, text = _status(_with_load_hints("<default = {}, sm_100 = {latency = 3}>"),
                           _with_load_hints("<sm_100 = {latency = 3}>"))
    assert status in (PASS, PASS_WITH_NOTES), text


@pytest.mark.parametrize("generated", ["<sm_100 = {latency = 3}>",
                                       "<default = {latency = 2}, sm_100 = {latency = 4}>"])
def test_op_hints_with_a_non_empty_default_that_differs_fail(generated: str) -> None:
    status, text = _status(_with_load_hints("<default = {latency = 2}, sm_100 = {latency = 3}>"),
                           _with_load_hints(generated))
    assert status == FAIL, text
    assert "memory-hints" in text


def test_parse_and_normal_form() -> None:
    assert parse_hints("<default = {}, sm_100 = {a = 1, b = <x, y>}>") == [
        ("default", "{}"), ("sm_100", "{a = 1, b = <x, y>}")]
    assert parse_hints("not hints") is None
    assert normal_hints("<default = {}>").empty
    assert normal_hints("<sm_90 = {a = 1}>").text() == "<default = {a = 1}>"
    assert normal_hints("weird").text() == "weird"
