"""Reference producers and their rule sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.ircheck.canonicalize import RULE_NAMES
from transpiler.ircheck.check import check_file
from transpiler.ircheck.rules import CUTILE_PY, PRODUCERS, RULE_SETS
from transpiler.ircheck.spec import ArraySpec, KernelSpec

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def test_every_producer_has_a_rule_set_of_known_rules() -> None:
    assert set(PRODUCERS) == set(RULE_SETS)
    for name, producer in PRODUCERS.items():
        assert producer.name == name
        assert RULE_SETS[name] and RULE_SETS[name] <= RULE_NAMES
        assert producer.rejections


@pytest.mark.parametrize("kernel", ["no_such_kernel"])
def test_a_rejected_specialization_is_an_outcome_not_an_exception(kernel: str) -> None:
    spec = KernelSpec(kernel, (("x", ArraySpec("float32", 1)),))
    source = GOLDEN / "softmax_rows.py"
    with pytest.raises(CUTILE_PY.rejections):
        CUTILE_PY.reference_ir(source, spec)
    [outcome] = check_file(source, GOLDEN / "softmax_rows.rs", {}, {kernel: [spec]})
    assert outcome.verdict == "ERROR" and outcome.reference_rejected
