"""Regression cases found by the fuzzing campaign (`bench/fuzz.py`), each minimized.

Every `tests/fuzz_cases/<id>.json` names its kernel (`<id>.py`), the specialization it was
checked with, what the campaign found (`found`) and the classes the kernel must now get
(`expect`: translated and proven, or a diagnostic instead of wrong code). A case whose bug
is still open carries the reason in `open` and is an expected failure (strict: the fix
flips it, and the record is then updated).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.fuzz import Checker

CASES = sorted((Path(__file__).resolve().parent / "fuzz_cases").glob("*.json"))


def _param(path: Path) -> Any:
    record = json.loads(path.read_text(encoding="utf-8"))
    marks = [pytest.mark.xfail(reason=record["open"], strict=True)] if record.get("open") \
        else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("case", [_param(p) for p in CASES])
def test_fuzz_case(case: Path, tmp_path: Path) -> None:
    record = json.loads(case.read_text(encoding="utf-8"))
    source = case.with_suffix(".py").read_text(encoding="utf-8")
    outcome = Checker(record["language"]).run(source, record["spec"], tmp_path)
    assert outcome.klass in record["expect"], (outcome.key, outcome.text[-3000:])


def test_every_case_has_its_kernel_and_a_reason() -> None:
    for path in CASES:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert path.with_suffix(".py").is_file(), path.name
        assert record["found"] and record["expect"], path.name
        assert record.get("open") or record.get("fixed"), path.name
