"""Lowering rules of C-style integer division and remainder (`div_trunc`, `rem_trunc`).

Takes the typed operations a front end with C integer semantics produces (Triton: `a // b`
and `a % b` on integers round toward zero, as C does, unlike Python); gives cuTile Rust: on
scalars Rust's own `/` and `%` (which truncate), on tiles `divi(.., rounding::Zero)` and
`remi`. The rules register in `lower.RULES` when this module is imported.
"""

from __future__ import annotations

from rust_emit import tree as t
from transpiler.lowering.lower import KernelLowerer, rule
from transpiler.model import ScalarType, TExpr


@rule("div_trunc")
def lower_div_trunc(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    if isinstance(e.type, ScalarType):
        return t.Binary("/", left, right)
    return t.Call("divi", (left, right, t.Path("rounding::Zero")))


@rule("rem_trunc")
def lower_rem_trunc(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    if isinstance(e.type, ScalarType):
        return t.Binary("%", left, right)
    return t.Call("remi", (left, right))
