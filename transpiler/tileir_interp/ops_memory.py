"""Memory ops: tensor and partition views, view loads and stores, pointer tiles (`offset`,
`load_ptr_tko`, `store_ptr_tko`) and atomics.

Takes an op, its operands and the machine's `Memory`; gives the loaded tiles (and tokens).
A view load fills the positions outside the tensor with the view's `padding_value` (an
undetermined value, `elements.undefined_fill`, when it has none); a view store drops them, as
a tiled store does. A pointer load or store touches only the elements its mask selects, and
every touched address must lie inside a buffer. Atomics are applied element by element in
row-major order of the tile (`Memory.rounds`), blocks one after another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from transpiler.ircheck.parse import Operation
from transpiler.tileir_interp.elements import (
    COMPUTE_DTYPE,
    ElementType,
    as_unsigned,
    element,
    padding_value,
    pointee,
    to_float,
    undefined_fill,
    wrap_int,
)
from transpiler.tileir_interp.errors import InterpError, UnsupportedOpError
from transpiler.tileir_interp.ops_arith import Handler, operand_element, result_element
from transpiler.tileir_interp.values import (
    TOKEN,
    PartitionView,
    TensorView,
    partition_layout,
    tile_type,
)


def _split(op: Operation, args: list[Any]) -> tuple[list[Any], list[Any], Any]:
    """(plain operands, index operands, token or None) by where the header puts them."""
    plain, index, token = [], [], None
    for label, value in zip(op.operand_labels, args, strict=True):
        if label == "index":
            index.append(value)
        elif label == "token":
            token = value
        else:
            plain.append(value)
    return plain, index, token


# ---- views ---------------------------------------------------------------------------------


def _bracket_values(op: Operation, key: str, args: list[Any], cursor: list[int]
                    ) -> list[int] | None:
    items = op.items
    for i, item in enumerate(items):
        if (item.kind == "NAME" and item.text == key and i + 2 < len(items)
                and items[i + 1].kind == "EQUAL" and items[i + 2].kind == "bracket_group"):
            out = []
            for child in items[i + 2].children:
                if child.kind == "VALUE":
                    out.append(int(args[cursor[0]]))
                    cursor[0] += 1
                elif child.kind == "INT":
                    out.append(int(child.text))
            return out
    return None


def _make_tensor_view(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    view_type = op.result_types[0]
    cursor = [1]
    shape = _bracket_values(op, "shape", args, cursor)
    strides = _bracket_values(op, "strides", args, cursor)
    static_shape = tuple(d if d is not None else -1 for d in (view_type.shape or ()))
    shape = shape if shape is not None and len(shape) == len(static_shape) else list(
        static_shape)
    if strides is None:
        raise UnsupportedOpError("tensor view without strides")
    if any(d < 0 for d in shape):
        raise InterpError(f"tensor view of negative shape {shape}")
    etype = element(view_type.element or "")
    return [TensorView(int(args[0]), tuple(shape), tuple(strides), etype)]


def _make_partition_view(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    tensor = args[0]
    tile, dim_map, padding = partition_layout(op.result_types[0])
    if dim_map is None:
        dim_map = tuple(range(len(tile)))
    return [PartitionView(tensor, tile, dim_map, padding)]


def _index_space_shape(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(n, dtype=np.int32) for n in args[0].index_space()]


def _tensor_shape(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(n, dtype=np.int32) for n in args[0].shape]


def _load_view(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, index, _ = _split(op, args)
    view: PartitionView = plain[0]
    etype = view.tensor.element
    addresses, inside = view.positions(tuple(int(i) for i in index))
    shape = tile_type(op.result_types[0]).shape
    if inside is True:
        return [m.memory.gather(addresses, etype).reshape(shape), TOKEN]
    fill = (padding_value(view.padding, etype) if view.padding is not None
            else undefined_fill(etype))
    tile = np.full(view.tile, fill).astype(etype.dtype)
    tile[inside] = m.memory.gather(addresses[inside], etype)
    return [tile.reshape(shape), TOKEN]


def _store_view(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, index, _ = _split(op, args)
    values, view = np.asarray(plain[0]), plain[1]
    addresses, inside = view.positions(tuple(int(i) for i in index))
    tile = values.reshape(view.tile).astype(view.tensor.element.dtype)
    if inside is True:
        m.memory.scatter(addresses, tile, view.tensor.element)
    else:
        m.memory.scatter(addresses[inside], tile[inside], view.tensor.element)
    return [TOKEN]


# ---- pointer tiles -------------------------------------------------------------------------


def _offset(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    target = pointee(op.signature_types[0].element or "")
    steps = np.asarray(args[1]).astype(np.int64)
    return [(np.asarray(args[0]).astype(np.int64) + steps * target.size)]


def _load_ptr(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, _, _ = _split(op, args)
    etype = result_element(op)
    pointers = np.asarray(plain[0])
    shape = tile_type(op.result_types[0]).shape
    pointers = np.broadcast_to(pointers, shape)
    if len(plain) == 1:
        return [m.memory.gather(pointers, etype), TOKEN]
    # The optional operands are told apart by type: the mask is i1, the padding has the
    # loaded element type (a load may give a padding without a mask: every lane loads).
    optional = list(zip(plain[1:], op.signature_types[1:len(plain)], strict=False))
    masks = [value for value, ty in optional if ty.element == "i1"]
    paddings = [value for value, ty in optional if ty.element != "i1"]
    if not masks:
        return [m.memory.gather(pointers, etype), TOKEN]
    mask = np.broadcast_to(np.asarray(masks[0], dtype=bool), shape)
    if paddings:
        tile = np.array(np.broadcast_to(paddings[0], shape), dtype=etype.dtype)
    else:
        tile = np.full(shape, undefined_fill(etype)).astype(etype.dtype)
    tile[mask] = m.memory.gather(pointers[mask], etype)
    return [tile, TOKEN]


def _store_ptr(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, _, _ = _split(op, args)
    pointers = np.asarray(plain[0])
    etype = pointee(op.signature_types[0].element or "")
    values = np.broadcast_to(plain[1], pointers.shape)
    if len(plain) > 2:
        mask = np.broadcast_to(np.asarray(plain[2], dtype=bool), pointers.shape)
        pointers, values = pointers[mask], values[mask]
    m.memory.scatter(pointers, values, etype)
    return [TOKEN]


# ---- atomics -------------------------------------------------------------------------------


def _combine_float(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def combine(old: np.ndarray, new: np.ndarray, etype: ElementType) -> np.ndarray:
        wide = COMPUTE_DTYPE[etype.name]
        return to_float(np.asarray(fn(old.astype(wide), new.astype(wide))), etype)
    return combine


def _combine_int(fn: Callable[..., np.ndarray], unsigned: bool = False
                 ) -> Callable[..., np.ndarray]:
    def combine(old: np.ndarray, new: np.ndarray, etype: ElementType) -> np.ndarray:
        if unsigned:
            return fn(as_unsigned(old, etype), as_unsigned(new, etype)).view(etype.dtype)
        return wrap_int(fn(old.astype(np.int64), new.astype(np.int64)), etype)
    return combine


def _exchange(old: np.ndarray, new: np.ndarray, etype: ElementType) -> np.ndarray:
    return new.astype(etype.dtype)


ATOMIC_MODES: dict[str, Callable[..., np.ndarray]] = {
    "add": _combine_int(np.add), "addf": _combine_float(np.add),
    "max": _combine_int(np.maximum), "min": _combine_int(np.minimum),
    "umax": _combine_int(np.maximum, unsigned=True),
    "umin": _combine_int(np.minimum, unsigned=True),
    "and": _combine_int(np.bitwise_and), "or": _combine_int(np.bitwise_or),
    "xor": _combine_int(np.bitwise_xor), "xchg": _exchange,
}


def _mode(op: Operation) -> Callable[..., np.ndarray]:
    for item in op.items:
        if item.kind == "NAME" and item.text in ATOMIC_MODES:
            return ATOMIC_MODES[item.text]
    raise UnsupportedOpError("atomic without a known mode")


def apply_atomic(m: Any, addresses: np.ndarray, operands: np.ndarray, etype: ElementType,
                 update: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
                 ) -> np.ndarray:
    """Read-modify-write at each address, element by element in row-major order; gives the
    value each element read. `update(old, operand_positions, old)` returns the new values."""
    flat = addresses.reshape(-1)
    old = np.zeros(flat.size, dtype=etype.dtype)
    for positions in m.memory.rounds(flat):
        current = m.memory.gather(flat[positions], etype)
        m.memory.scatter(flat[positions], update(current, positions, operands), etype)
        old[positions] = current
    return old.reshape(addresses.shape)


def _atomic_rmw(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, _, _ = _split(op, args)
    etype = result_element(op)
    combine = _mode(op)
    pointers = np.asarray(plain[0])
    values = np.broadcast_to(plain[1], pointers.shape).reshape(-1)
    mask = (np.broadcast_to(np.asarray(plain[2], dtype=bool), pointers.shape).reshape(-1)
            if len(plain) > 2 else np.ones(pointers.size, dtype=bool))
    active = np.flatnonzero(mask)
    result = np.full(pointers.size, undefined_fill(etype)).astype(etype.dtype)
    result[active] = apply_atomic(
        m, pointers.reshape(-1)[active], values[active], etype,
        lambda old, pos, ops: combine(old, ops[pos], etype))
    return [result.reshape(pointers.shape), TOKEN]


def _atomic_cas(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, _, _ = _split(op, args)
    etype = result_element(op)
    pointers = np.asarray(plain[0])
    expected = np.broadcast_to(plain[1], pointers.shape).reshape(-1).astype(etype.dtype)
    desired = np.broadcast_to(plain[2], pointers.shape).reshape(-1).astype(etype.dtype)
    mask = (np.broadcast_to(np.asarray(plain[3], dtype=bool), pointers.shape).reshape(-1)
            if len(plain) > 3 else np.ones(pointers.size, dtype=bool))
    active = np.flatnonzero(mask)
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[etype.dtype.itemsize]

    def swap(old: np.ndarray, pos: np.ndarray, _: np.ndarray) -> np.ndarray:
        hit = old.view(bits) == expected[active][pos].view(bits)
        return np.where(hit, desired[active][pos], old)

    result = np.full(pointers.size, undefined_fill(etype)).astype(etype.dtype)
    result[active] = apply_atomic(m, pointers.reshape(-1)[active], expected[active], etype,
                                  swap)
    return [result.reshape(pointers.shape), TOKEN]


def _atomic_red_view(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    plain, index, _ = _split(op, args)
    view: PartitionView = plain[0]
    etype = view.tensor.element
    combine = _mode(op)
    addresses, where = view.positions(tuple(int(i) for i in index))
    inside = np.ones(view.tile, dtype=bool) if where is True else where
    values = np.asarray(plain[1]).reshape(view.tile)[inside]
    apply_atomic(m, addresses[inside], values, etype,
                 lambda old, pos, ops: combine(old, ops[pos], etype))
    return [TOKEN]


MEMORY_OPS: dict[str, Handler] = {
    "make_tensor_view": _make_tensor_view, "make_partition_view": _make_partition_view,
    "get_index_space_shape": _index_space_shape, "get_tensor_shape": _tensor_shape,
    "load_view_tko": _load_view, "store_view_tko": _store_view,
    "offset": _offset, "load_ptr_tko": _load_ptr, "store_ptr_tko": _store_ptr,
    "atomic_rmw_tko": _atomic_rmw, "atomic_cas_tko": _atomic_cas,
    "atomic_red_view_tko": _atomic_red_view,
}

__all__ = ["MEMORY_OPS", "TensorView", "operand_element"]
