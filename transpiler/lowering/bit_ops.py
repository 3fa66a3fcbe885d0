"""Lowering rules of bit-level integer operations (`mulhi`, `bitcast`).

Takes the typed operations a front end produces for integer hashing and random numbers
(Triton's `tl.umulhi` and its Philox generator): `mulhi` on integer tiles (the high half of
the product, signedness from the element type) and `bitcast` of a tile to another element
type of the same width. Gives cuTile Rust `mulhii(a, b)` and a typed
`let bits: Tile<T, S> = bitcast(x)` (the crate infers the target type from the binding).
The rules register in `lower.RULES` when this module is imported.
"""

from __future__ import annotations

from rust_emit import tree as t
from transpiler.lowering.lower import KernelLowerer, rule
from transpiler.model import TExpr, TileType


@rule("mulhi")
def lower_mulhi(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    return t.Call("mulhii", (left, right))


@rule("bitcast")
def lower_bitcast(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    assert isinstance(e.type, TileType)
    source = lw.expr(e.args[0], ctx)
    ty = lw.rust_type(e.type, e.span)
    assert ty is not None
    return lw.let(ctx, "bits", t.Call("bitcast", (source,)), ty)  # type: ignore[arg-type]
