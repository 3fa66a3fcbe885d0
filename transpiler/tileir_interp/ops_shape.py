"""Ops that make or rearrange tiles: constants, iota, reshape, broadcast, permute, cat,
extract, and the ops that pass values through (assume, tokens, block ids, print, assert).

Takes an op and its operand tiles; gives its results. `assume` checks its predicate on the
values (a violated assumption is an input the program was not compiled for, and is reported).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from transpiler.ircheck.parse import Item, Operation
from transpiler.tileir_interp.elements import ElementType, to_float, wrap_int
from transpiler.tileir_interp.errors import AssumptionError, InterpError, UnsupportedOpError
from transpiler.tileir_interp.ops_arith import Handler, operand_element, result_element
from transpiler.tileir_interp.values import TOKEN, tile_type


def scalar_literal(text: str, etype: ElementType) -> np.ndarray:
    """One element written as Tile IR prints it: `1.5e+00`, `0xFF800000` (bits), `true`."""
    text = text.strip()
    if text in ("true", "false"):
        return np.asarray(text == "true").astype(etype.dtype)
    if text.lower().startswith("0x"):
        bits = int(text, 16)
        if etype.kind == "float":
            width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[etype.dtype.itemsize]
            return np.asarray(bits, dtype=np.uint64).astype(width).view(etype.dtype)
        return wrap_int(np.asarray(bits, dtype=np.uint64).view(np.int64), etype)
    if etype.kind == "float":
        return to_float(np.asarray(float(text), dtype=np.float64), etype)
    return wrap_int(np.asarray(int(text), dtype=np.int64), etype)


_LITERAL = re.compile(r"<\s*[A-Za-z0-9_]+\s*:\s*(.*)>\s*$", re.S)


def _constant(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return m.remembered(op, lambda: _constant_values(op))


def _constant_values(op: Operation) -> list[Any]:
    ttype = tile_type(op.result_types[0])
    text = op.attributes.get("value", "")
    match = _LITERAL.match(text)
    if match is None:
        raise UnsupportedOpError(f"constant `{text}`")
    body = match.group(1).strip()
    if body.startswith("["):
        parts = [p for p in re.split(r"[\s,\[\]]+", body) if p]
        values = np.array([scalar_literal(p, ttype.element) for p in parts])
        return [values.reshape(ttype.shape).astype(ttype.element.dtype)]
    return [np.full(ttype.shape, scalar_literal(body, ttype.element), ttype.element.dtype)]


def _iota(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    ttype = tile_type(op.result_types[0])
    return [wrap_int(np.arange(ttype.shape[0], dtype=np.int64), ttype.element)]


def _reshape(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(args[0]).reshape(tile_type(op.result_types[0]).shape)]


def _broadcast(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.broadcast_to(args[0], tile_type(op.result_types[0]).shape)]


def _int_list(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?[0-9]+", text)]


def _bracket_after_operands(op: Operation) -> list[int]:
    for item in op.items:
        if item.kind == "bracket_group" and all(c.kind in ("INT", "COMMA") for c in item.children):
            return _int_list(item.text)
    return []


def _permute(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    order = _bracket_after_operands(op) or _int_list(op.attributes.get("permutation", ""))
    return [np.transpose(args[0], order)]


def _dim(op: Operation) -> int:
    text = op.attributes.get("dim")
    if text is None:
        raise UnsupportedOpError("missing `dim`")
    return int(text)


def _cat(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.concatenate([np.asarray(a) for a in args], axis=_dim(op))]


def _extract(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    source = np.asarray(args[0])
    shape = tile_type(op.result_types[0]).shape
    index = [int(i) for i in args[1:]]
    slices = tuple(slice(i * s, (i + 1) * s) for i, s in zip(index, shape, strict=True))
    if any(sl.stop > n or sl.start < 0 for sl, n in zip(slices, source.shape, strict=True)):
        raise InterpError(f"extract of tile {index} of shape {shape} from {source.shape}")
    return [source[slices]]


# ---- pass-through --------------------------------------------------------------------------


def _predicate_items(op: Operation) -> tuple[str, list[Item]]:
    for i, item in enumerate(op.items):
        if item.kind == "NAME" and i + 1 < len(op.items) and op.items[i + 1].kind == "angle_group":
            return item.text, list(op.items[i + 1].children)
    return "", []


def _assume(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    """An `assume` is a claim about its operand, checked on every value the interpreter
    meets (a pointer's address in bytes, an int's value): one the input breaks is an error
    naming the op, and a predicate the interpreter cannot check is an error too, never an
    assumption accepted unchecked."""
    value = np.asarray(args[0])
    name, items = _predicate_items(op)
    numbers = [x.text for x in items if x.kind in ("INT", "QMARK")]
    if name == "div_by" and numbers and len(items) == 1:
        divisor = int(numbers[0])
        wide = value.astype(np.int64)
        if np.any(wide % divisor != 0):
            bad = int(wide.reshape(-1)[np.argmax(wide.reshape(-1) % divisor != 0)])
            raise AssumptionError(f"the input breaks `assume div_by<{divisor}>`: "
                                  f"{bad} is not a multiple")
    elif name == "div_by" and len(numbers) == 3 and \
            [x.text for x in items if x.kind == "NAME"] == ["every", "along"]:
        # `div_by<D, every E along A>`: the elements at multiples of E along axis A
        divisor, every, axis = (int(n) for n in numbers)
        wide = value.astype(np.int64)
        if axis >= wide.ndim or every < 1:
            raise UnsupportedOpError(f"`assume div_by<{divisor}, every {every} along "
                                     f"{axis}>` on a tile of rank {wide.ndim}")
        picked = np.take(wide, range(0, wide.shape[axis], every), axis=axis)
        if np.any(picked % divisor != 0):
            raise AssumptionError(f"the input breaks `assume div_by<{divisor}, every {every} "
                                  f"along {axis}>`")
    elif name == "bounded" and len(numbers) == 2:
        wide = value.astype(np.int64)
        lo, hi = numbers
        if (lo != "?" and np.any(wide < int(lo))) or (hi != "?" and np.any(wide > int(hi))):
            raise AssumptionError(f"the input breaks `assume bounded<{lo}, {hi}>`: "
                                  f"value {int(wide.min())}..{int(wide.max())}")
    else:
        shown = " ".join(x.text for x in items)
        raise UnsupportedOpError(f"`assume {name or '?'}<{shown}>`: the interpreter cannot "
                                 "check this predicate, and does not take it unchecked")
    return [args[0]]


def _make_token(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [TOKEN]


def _block_id(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(v, dtype=np.int32) for v in m.block_id]


def _num_blocks(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(v, dtype=np.int32) for v in m.grid]


def _print(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    m.printed.append((op.attributes.get("str", op.text), [np.asarray(a) for a in args
                                                           if a is not TOKEN]))
    return [TOKEN] * len(op.results)


def _assert(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    if not np.all(np.asarray(args[0])):
        message = next((i.text for i in op.items if i.kind == "STRING"), '""')
        raise InterpError(f"assertion failed: {message}")
    return []


SHAPE_OPS: dict[str, Handler] = {
    "constant": _constant, "iota": _iota, "reshape": _reshape, "broadcast": _broadcast,
    "permute": _permute, "cat": _cat, "extract": _extract,
}

PASS_OPS: dict[str, Handler] = {
    "assume": _assume, "make_token": _make_token, "join_tokens": _make_token,
    "get_tile_block_id": _block_id, "get_num_tile_blocks": _num_blocks,
    "print": _print, "print_tko": _print, "assert": _assert,
}

__all__ = ["PASS_OPS", "SHAPE_OPS", "operand_element", "result_element", "scalar_literal"]
