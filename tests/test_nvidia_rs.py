"""`bench/nvidia_rs.py`'s report logic (no harness): every difference is matched to a written
finding or listed as unexplained, and the table says which operators diverge."""

from __future__ import annotations

from pathlib import Path

from bench.nvidia_rs import FINDINGS, MATCHERS, OPS, REPO, explain, markdown, portable


def _difference(kind: str, message: str) -> dict:
    return {"kind": kind, "message": message, "reference": "r", "generated": "g"}


def test_differences_are_matched_or_left_unexplained() -> None:
    assert explain("silu_and_mul", _difference(
        "constant", "operand 0 of `divf`: reference uses <f32: 1.0>")) == "sigmoid-form"
    assert explain("matmul", _difference("rounding", "`divi` rounding: reference "
                                         "<negative_inf>, generated absent")) == "trunc-div"
    # an operator-specific explanation does not cover another operator
    assert explain("matmul", _difference("flush-to-zero", "`addf` flush_to_zero: generated "
                                         "only")) == "unexplained"
    assert explain("swiglu", _difference("operation", "reference has `exp` where generated "
                                         "has `exp2`")) == "unexplained"
    assert {m[4] for m in MATCHERS} <= set(FINDINGS)
    assert {f.verdict for f in FINDINGS.values()} <= {"divergence", "equivalent", "hint",
                                                      "unsupported", "unanalysed"}


def test_markdown_lists_divergences_and_unexplained_differences() -> None:
    outcome = {"specialization": "k[x:float32/2]", "verdict": "FAIL", "error": None,
               "differences": [dict(_difference("flush-to-zero", "`mulf` flush_to_zero"),
                                    finding="ftz"),
                               dict(_difference("operation", "odd"), finding="unexplained")]}
    results = [{"op": "silu_and_mul", "rustc_errors": [], "outcomes": [outcome],
                "numeric": [{"specialization": "k[x:float32/2]", "verdict": "FAIL",
                             "reason": "R=16: output[0, 1] differs"}], "error": None},
               {"op": "swiglu", "rustc_errors": [], "outcomes": [], "numeric": [],
                "error": "cannot bind"}]
    text = markdown(results, {"silu_and_mul": {"float32": [
        {"a": 100.0, "python": 100.0, "nvidia": float("nan")}]}}, "python -m bench.nvidia_rs")
    assert "| silu_and_mul | clean | FAIL | FAIL | ftz, unexplained |" in text
    assert "| swiglu | clean | ERROR | - | none |" in text
    assert "-> **unexplained**" in text and "reference: r" in text
    assert "| 100 | 100 | nan |" in text
    assert "verify could not run: cannot bind" in text
    assert len(OPS) == 5


def test_the_report_names_no_local_folder(tmp_path: Path) -> None:
    text = f"{tmp_path}/cutile/op.py:3:1 and {REPO}/bench/x.json"
    assert portable(text, tmp_path) == "tilegym/ops/cutile/op.py:3:1 and bench/x.json"
