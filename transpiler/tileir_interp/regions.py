"""Ops with regions and the terminators: `for`, `loop`, `if`, `reduce`, `scan`, `yield`,
`continue`, `break`, `return`.

Takes an op and its operands (for `for`: lower bound, upper bound, step, initial iteration
values); gives its results. A `continue` or `break` that ends an `if` region passes through the
`if` to the loop around it. `reduce` combines along its dimension as a balanced tree (pairs of
halves, identity filling an odd count); `scan` as a doubling prefix (Hillis-Steele), each
step running the combiner region once over whole tiles. Both orders are fixed, so the two
sides of a check see the same rounding for the same program.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from transpiler.ircheck.parse import Operation
from transpiler.tileir_interp.errors import InterpError
from transpiler.tileir_interp.machine import Handler, Machine, Terminator
from transpiler.tileir_interp.ops_shape import scalar_literal
from transpiler.tileir_interp.values import tile_type

#: the most iterations a `loop` may run before the interpreter calls it non-terminating
LOOP_LIMIT = 1 << 20


def _terminator(kind: str) -> Handler:
    def handler(m: Machine, op: Operation, args: list[Any]) -> Terminator:
        return Terminator(kind, list(args))
    return handler


def _for(m: Machine, op: Operation, args: list[Any]) -> list[Any] | Terminator:
    lower, upper, step = (int(a) for a in args[:3])
    values = list(args[3:])
    if step <= 0:
        raise InterpError(f"`for` with step {step}")
    region = op.regions[0]
    iv_dtype = np.asarray(args[0]).dtype
    for i in range(lower, upper, step):
        end = m.run_region(region, [np.asarray(i, dtype=iv_dtype), *values])
        if end.kind == "return":
            return end
        values = end.values
        if end.kind == "break":
            break
    return values


def _loop(m: Machine, op: Operation, args: list[Any]) -> list[Any] | Terminator:
    values = list(args)
    region = op.regions[0]
    for _ in range(LOOP_LIMIT):
        end = m.run_region(region, values)
        if end.kind in ("return", "break"):
            return end if end.kind == "return" else end.values
        values = end.values
    raise InterpError(f"`loop` ran {LOOP_LIMIT} iterations without a `break`")


def _if(m: Machine, op: Operation, args: list[Any]) -> list[Any] | Terminator:
    taken = bool(np.asarray(args[0]))
    if not taken and len(op.regions) < 2:
        return []
    end = m.run_region(op.regions[0] if taken else op.regions[1], [])
    if end.kind != "yield":
        return end
    return end.values


# ---- reduce / scan -------------------------------------------------------------------------

_IDENTITY = re.compile(r"([^\s,\[\]]+)\s*:\s*([A-Za-z0-9_]+)")


def _identities(op: Operation) -> list[str]:
    return [m.group(1) for m in _IDENTITY.finditer(op.attributes.get("identities", ""))]


def _combine(m: Machine, op: Operation, lhs: list[np.ndarray], rhs: list[np.ndarray]
             ) -> list[np.ndarray]:
    end = m.run_region(op.regions[0], [*lhs, *rhs])
    if end.kind != "yield":
        raise InterpError(f"combiner region ended by `{end.kind}`")
    return [np.asarray(v) for v in end.values]


def _reduce(m: Machine, op: Operation, args: list[Any]) -> list[Any]:
    dim = int(op.attributes["dim"])
    tiles = [np.moveaxis(np.asarray(a), dim, 0) for a in args]
    identities = _identities(op)
    while tiles[0].shape[0] > 1:
        if tiles[0].shape[0] % 2:
            pads = []
            for tile, ident, t in zip(tiles, identities, op.signature_types, strict=False):
                value = scalar_literal(ident, tile_type(t).element)
                pads.append(np.concatenate([tile, np.full((1, *tile.shape[1:]), value,
                                                          dtype=tile.dtype)]))
            tiles = pads
        half = tiles[0].shape[0] // 2
        tiles = _combine(m, op, [t[:half] for t in tiles], [t[half:] for t in tiles])
    return [np.asarray(t[0]).reshape(tile_type(rt).shape).astype(t.dtype)
            for t, rt in zip(tiles, op.result_types, strict=True)]


def _scan(m: Machine, op: Operation, args: list[Any]) -> list[Any]:
    dim = int(op.attributes["dim"])
    reverse = op.attributes.get("reverse", "false") == "true"
    tiles = [np.moveaxis(np.asarray(a), dim, 0) for a in args]
    if reverse:
        tiles = [t[::-1] for t in tiles]
    n = tiles[0].shape[0]
    shift = 1
    while shift < n:
        combined = _combine(m, op, [t[:-shift] for t in tiles], [t[shift:] for t in tiles])
        tiles = [np.concatenate([t[:shift], c.astype(t.dtype)]) for t, c in
                 zip(tiles, combined, strict=True)]
        shift *= 2
    if reverse:
        tiles = [t[::-1] for t in tiles]
    return [np.ascontiguousarray(np.moveaxis(t, 0, dim)) for t in tiles]


REGION_OPS: dict[str, Handler] = {
    "for": _for, "loop": _loop, "if": _if, "reduce": _reduce, "scan": _scan,
    "yield": _terminator("yield"), "continue": _terminator("continue"),
    "break": _terminator("break"), "return": _terminator("return"),
}
