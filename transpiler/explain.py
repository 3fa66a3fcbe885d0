"""`--explain NAME`: the long text of a diagnostic code or of an IR-check accepted-noise rule.

Takes a name (`E0100`, `e0100`, `dead-code`); gives the text to print (None for an unknown
name): for a code, its one-line meaning and `diagnostics.EXPLANATIONS`; for a rule, what a
note of it says to a kernel author (`ircheck.notes`) and its full reason
(`ircheck.canonicalize.RULES`).
"""

from __future__ import annotations

import textwrap

from transpiler.diagnostics import CODES, EXPLANATIONS
from transpiler.ircheck.canonicalize import RULES
from transpiler.ircheck.notes import RULE_SUMMARIES


def explanation(name: str) -> str | None:
    code = name.strip().upper()
    if code in CODES:
        return f"{code}: {CODES[code]}\n\n{EXPLANATIONS[code]}"
    rule = next((r for r in RULES if r.name == name.strip().lower()), None)
    if rule is None:
        return None
    what, why = RULE_SUMMARIES[rule.name]
    return (f"{rule.name} (IR-check rule: an accepted difference, noted in PASS_WITH_NOTES)\n\n"
            f"What differs: {what}.\nWhy it is harmless: {why}.\n\n"
            + textwrap.fill(rule.reason, width=92))
