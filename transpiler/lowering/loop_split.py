"""Loop splitting: takes a typed `for` loop (`TFor`) and gives the two loops cuTile Python
compiles it to when its body branches on the induction variable against a loop-invariant
bound, or None.

cuTile Python rewrites `for j in range(a, b)` (step 1) whose body holds exactly one `if`
directly on `j >= s` (or `>`, `<`, `<=`, either operand order), `s` defined before the loop,
into `for j in range(a, min(b, s'))` keeping the arm that holds below the split, then
`for j in range(max(a, s'), b)` keeping the other arm, where `s'` is `s + 1` for `>` and
`<=`. The Rust is written the same way so that both sides give the same Tile IR (and the
same code: no branch per iteration).
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.model import (
    ScalarType,
    TAssign,
    TExpr,
    TFor,
    TIf,
    TileType,
    TStmt,
)
from transpiler.model.consts import I32

# `j OP s` with the loop variable on the left; `s OP j` is flipped first.
_FLIPPED = {">=": "<=", ">": "<", "<=": ">=", "<": ">"}
# Operators whose split point is `s + 1` (the first index where the comparison changes).
_PLUS_ONE = {">", "<="}
# Operators whose `then` arm holds on the first part of the range.
_THEN_FIRST = {"<", "<="}


@dataclass
class LoopSplit:
    """Where and how a loop splits: the `if` at `index` of the body, the split point."""

    index: int
    split_at: TExpr
    first_arm: str  # "then" or "orelse": the arm kept in the first loop
    # A compile-time condition `and`-ed with the comparison (`CAUSAL and j >= s`): cuTile
    # Python splits only the specializations where it holds.
    guard: TExpr | None = None


def find_split(loop: TFor) -> LoopSplit | None:
    if not (loop.step.op == "literal" and loop.step.attrs.get("value") == 1):
        return None
    assigned = _assigned(loop.body) | {loop.var}
    found: list[LoopSplit] = []
    for index, stmt in enumerate(loop.body):
        if not isinstance(stmt, TIf) or stmt.static:
            continue
        guard, cond = _peel_guard(stmt.cond)
        split = _split_of(cond, loop.var, assigned, index)
        if split is not None:
            split.guard = guard
            found.append(split)
    # Only a loop with exactly one such `if` is split.
    return found[0] if len(found) == 1 else None


def _peel_guard(cond: TExpr) -> tuple[TExpr | None, TExpr]:
    """(`G`, `c`) for `G and c` with `G` a compile-time condition; else (None, cond)."""
    if cond.op == "binary" and cond.attrs.get("op") == "&" and cond.attrs.get("logical"):
        left, right = cond.args
        if left.op in _STATIC_OPS:
            return left, right
        if right.op in _STATIC_OPS:
            return right, left
    return None, cond


_STATIC_OPS = {"const_param", "const_cond"}


def _split_of(cond: TExpr, var: str, assigned: set[str], index: int) -> LoopSplit | None:
    if cond.op != "compare" or cond.attrs.get("op") not in _FLIPPED:
        return None
    op = str(cond.attrs["op"])
    left, right = cond.args
    if _is_var(right, var) and not _is_var(left, var):
        left, right, op = right, left, _FLIPPED[op]
    if not _is_var(left, var) or not _is_invariant(right, assigned):
        return None
    split_at = right
    if op in _PLUS_ONE:
        one = TExpr("literal", [], ScalarType(I32), None, {"value": 1})
        split_at = TExpr("binary", [right, one], ScalarType(I32), right.span,
                         {"op": "+", "logical": False})
    return LoopSplit(index, split_at, "then" if op in _THEN_FIRST else "orelse")


def _is_var(expr: TExpr, name: str) -> bool:
    return expr.op == "var" and expr.attrs.get("name") == name


def _is_invariant(expr: TExpr, assigned: set[str]) -> bool:
    """A value defined before the loop: a variable the body never assigns, of type i32 (a
    0-d i32 tile read as a scalar counts: in Tile IR both are the same `tile<i32>`)."""
    if expr.op == "tile_to_scalar" and expr.args[0].type == TileType(I32, ()):
        expr = expr.args[0]
    elif expr.type != ScalarType(I32):
        return False
    return expr.op == "var" and expr.attrs.get("name") not in assigned


def _assigned(stmts: list[TStmt]) -> set[str]:
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, TAssign):
            names.add(stmt.name)
        elif isinstance(stmt, TIf):
            names |= {r[0] for r in stmt.results}
            names |= _assigned(stmt.then) | _assigned(stmt.orelse)
        elif isinstance(stmt, TFor):
            names |= {stmt.var, *stmt.carried} | _assigned(stmt.body)
    return names


def unsplit_body(loop: TFor, split: LoopSplit) -> list[TStmt]:
    """The body where the guard fails: the `if` is its `else` arm throughout."""
    return split_bodies(loop, LoopSplit(split.index, split.split_at, "orelse"))[0]


def split_bodies(loop: TFor, split: LoopSplit) -> tuple[list[TStmt], list[TStmt]]:
    """The bodies of the first and second loop: the `if` replaced by the arm each keeps,
    its results bound from that arm's names."""
    branch = loop.body[split.index]
    assert isinstance(branch, TIf)
    before, after = loop.body[:split.index], loop.body[split.index + 1:]
    bodies = []
    for arm in (split.first_arm, "orelse" if split.first_arm == "then" else "then"):
        kept = list(branch.then if arm == "then" else branch.orelse)
        for name, vtype, then_name, else_name, first in branch.results:
            source = then_name if arm == "then" else else_name
            value = TExpr("var", [], vtype, branch.span, {"name": source})
            kept.append(TAssign(name, value, branch.span, first=first,
                                mutable=branch.mutable))
        bodies.append([*before, *kept, *after])
    return bodies[0], bodies[1]
