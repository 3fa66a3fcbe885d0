"""Entry names made from constant values and conditions are Rust identifiers, and distinct
values give distinct names (a negative constant, a float, a condition on a negative
number, a condition whose left side is an expression)."""

from __future__ import annotations

import re

from specialization.plan import _slug, _value_text

IDENT_PART = re.compile(r"^[A-Za-z0-9_]+$")


def test_constant_values_name_entries_as_identifier_parts() -> None:
    values = [-1, 1, 0, 0.5, -0.5, 1e-06, -0.0, True, None, "relu"]
    texts = [_value_text(v) for v in values]
    assert all(IDENT_PART.match(t) for t in texts), texts
    assert len(set(texts)) == len(texts), texts
    assert _value_text(-1) == "m1" and _value_text(0.5) == "0p5"


def test_conditions_on_negative_numbers_keep_the_sign() -> None:
    assert _slug("(mode == -1)") == "mode_eq_m1"
    assert _slug("(mode == -1)") != _slug("(mode == 1)")
    assert _slug("((n - 1) == 2)") == "n_minus_1_eq_2"
