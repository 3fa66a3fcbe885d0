"""Typing rules of the API table: one function per cuda.tile function.

Takes the analyzer and a call's arguments bound to the function's signature; gives the typed
expression (`TExpr`) with the operation the Rust lowering will emit, its evaluated
compile-time attributes (shapes, axes, modes) and its result type. Rules reject what cuTile
Python would reject (rank or shape mismatches) and what the Rust side cannot express, with a
diagnostic at the call.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from transpiler.diagnostics import TranslationError
from transpiler.frontend.splits import (
    ATOMIC_DTYPE,
    NARROWING_STORE,
    ConstDependentError,
    note_static_dtype_pin,
    rank_conflict,
    split_per_static_outcome,
    static_dtype_conflict,
    static_pin_split,
)
from transpiler.model import (
    ArrayType,
    ConstType,
    Dim,
    DimExpr,
    DimSym,
    DType,
    DTypeVar,
    ElemType,
    EnumValue,
    ListType,
    ScalarType,
    Shape,
    TExpr,
    TileType,
    dim_op,
)
from transpiler.model.consts import NEGATED as _NEGATED
from transpiler.model.consts import params_in as _params_in

if TYPE_CHECKING:
    from transpiler.analysis import KernelAnalyzer

Values = dict[str, TExpr]
Typer = Callable[["KernelAnalyzer", Values, set[str], cst.Call], TExpr]

I32 = DType("int32")
F32 = DType("float32")
BOOL = DType("bool_")

TYPERS: dict[str, Typer] = {}


def rule(*names: str) -> Callable[[Typer], Typer]:
    def register(fn: Typer) -> Typer:
        for name in names:
            TYPERS[name] = fn
        return fn

    return register


def _const(an: KernelAnalyzer, value: TExpr) -> object:
    return value.type.value if isinstance(value.type, ConstType) else None


def _is_const(value: TExpr) -> bool:
    return isinstance(value.type, ConstType)


def _array(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode) -> TExpr:
    """An array operand: a kernel parameter, or a slice of one bound to a Rust local."""
    if not isinstance(value.type, ArrayType):
        raise an.error("E0107", "expected an array parameter of the kernel", node)
    return an.materialize_slice(value)


def _tile(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode) -> TExpr:
    if isinstance(value.type, TileType):
        return value
    if isinstance(value.type, ScalarType):
        return TExpr("scalar_to_tile", [value], TileType(value.type.dtype, ()), value.span)
    raise an.error("E0107", "expected a tile", node)


def _axis(an: KernelAnalyzer, value: TExpr, rank: int, node: cst.CSTNode) -> int:
    axis = an.const_int(value, node, "`axis`")
    if not -rank <= axis < max(rank, 1):
        raise an.error("E0108", f"axis {axis} is out of range for a rank-{rank} tile", node)
    return axis % rank if rank else 0


def _flag(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode, what: str) -> object:
    """A compile-time option's value. One that depends on `ct.Constant` parameters decides
    which code exists: the kernel is translated once per value (ConstDependentError)."""
    v = an.const_value(value, node, what)
    params = _params_in(v)
    if not params:
        return v
    # A comparison (`N % TILE != 0`) is decided per variant: one per outcome.
    is_comparison = getattr(v, "op", None) in _NEGATED
    if is_comparison:
        known = an.known_condition(v)
        if known is not None:
            return known
    raise ConstDependentError(params, f"{what} depends on compile-time constants",
                              an.span(node), v if is_comparison else None)


def _index_scalars(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode) -> list[TExpr]:
    if isinstance(value.type, ConstType):
        v = value.type.value
        items = list(v) if isinstance(v, tuple) else [v]
        return [an.to_scalar(TExpr("const", [], ConstType(i), value.span), node) for i in items]
    items = value.args if value.op == "tuple" else [value]
    return [_index_i32(an, an.to_scalar(i, node), node) for i in items]


def _index_i32(an: KernelAnalyzer, index: TExpr, node: cst.CSTNode) -> TExpr:
    """Tile indices are i32 in cuTile Rust: a value of a launch-time element type used as an
    index fixes that type to int32 (the launcher checks it); another integer is converted."""
    dtype = an.find(index.type.dtype) if isinstance(index.type, ScalarType) else None
    if isinstance(dtype, DTypeVar):
        an.unify(dtype, I32, node)
        return index
    if isinstance(dtype, DType) and dtype != I32 and dtype.is_int:
        return an.cast_scalar(index, I32, node)
    return index


def _note_rank(an: KernelAnalyzer, array: TExpr, rank: int, node: cst.CSTNode) -> None:
    name = array.type.param
    an.array_tensors.setdefault(name, set()).add(str(array.attrs.get("name", name)))
    if name not in an.array_ranks:
        an.array_ranks[name] = rank
        an.array_rank_conditions[name] = list(an.static_conditions)
    known = an.array_ranks[name]
    if known != rank:
        rank_conflict(an, name, an.span(node))
        raise an.error("E0108", f"array `{name}` is used with rank {known} and rank {rank}",
                       node)


def _mode(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode, enum: str) -> str | None:
    v = _const(an, value)
    if v is None:
        if not _is_const(value):
            raise an.error("E0103", f"the {enum} must be a compile-time constant", node)
        return None
    if isinstance(v, EnumValue) and v.enum == enum:
        return v.member
    raise an.error("E0111", f"expected a {enum} value", node)


# ---- grid ----------------------------------------------------------------------------------


@rule("bid", "num_blocks")
def grid_index(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    axis = an.const_int(v["axis"], node, "`axis`")
    if axis not in (0, 1, 2):
        raise an.error("E0108", "the grid axis must be 0, 1 or 2", node)
    op = "bid" if node.func and _callee(node) == "bid" else "num_blocks"
    return TExpr(op, [], ScalarType(I32), an.span(node), {"axis": axis})


def _callee(node: cst.Call) -> str:
    func = node.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")


@rule("num_tiles")
def num_tiles(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    array = _array(an, v["array"], node)
    shape = an.const_shape(v["shape"], node)
    _note_rank(an, array, len(shape), node)
    axis = _axis(an, v["axis"], len(shape), node)
    order = _order(an, v["order"], len(shape), node)
    return TExpr("num_tiles", [array], ScalarType(I32), an.span(node),
                 {"axis": axis, "shape": shape, "order": order})


@rule("cdiv")
def cdiv(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x, y = v["x"], v["y"]
    if _is_const(x) and _is_const(y):
        a, b = x.type.value, y.type.value
        if isinstance(a, int) and isinstance(b, int):
            return TExpr("const", [], ConstType(-(-a // b)), an.span(node))
        if isinstance(a, int | DimSym | DimExpr) and isinstance(b, int | DimSym | DimExpr):
            folded = dim_op("//", dim_op("-", dim_op("+", a, b), 1), b)
            return TExpr("const", [], ConstType(folded), an.span(node))
    if isinstance(x.type, TileType) or isinstance(y.type, TileType):
        dtype = an._result_dtype("//", x, y, node)
        x, y, shape = an.harmonize(x, y, dtype, node)
        return TExpr("cdiv_tile", [x, y], TileType(dtype, shape or ()), an.span(node))
    xs, ys = an.to_scalar(x, node), an.to_scalar(y, node)
    return TExpr("cdiv", [xs, an.cast_scalar(ys, xs.type.dtype, node)], ScalarType(
        xs.type.dtype), an.span(node))


# ---- memory --------------------------------------------------------------------------------


def _order(an: KernelAnalyzer, value: TExpr, rank: int, node: cst.CSTNode) -> tuple[int, ...]:
    v = _const(an, value)
    if v == "C" or v is None:
        return tuple(range(rank))
    if v == "F":
        return tuple(reversed(range(rank)))
    if isinstance(v, tuple) and sorted(v) == list(range(rank)):
        return tuple(int(i) for i in v)
    raise an.error("E0111", f"`order` must be 'C', 'F' or a permutation of 0..{rank - 1}", node)


def _latency(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode) -> object:
    v = _const(an, value)
    if v is None or isinstance(v, int | DimSym):
        return v
    raise an.error("E0103", "`latency` must be a compile-time integer", node)


@rule("load")
def load(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    array = _array(an, v["array"], node)
    shape = an.const_shape(v["shape"], node, "the load shape")
    index = _index_scalars(an, v["index"], node)
    scalar = not shape and len(index) > 0
    if scalar:
        # `shape=()` with a full index reads one element: a (1, ..., 1) tile, reshaped to
        # 0-d (as cuTile Python lowers it).
        shape = (1,) * len(index)
    if len(index) != len(shape):
        raise an.error("E0108", f"the index has {len(index)} coordinates but the shape has "
                       f"{len(shape)} dimensions", node)
    _note_rank(an, array, len(shape), node)
    order = _order(an, v["order"], len(shape), node)
    if not _flag(an, v["check_bounds"], node, "`check_bounds`"):
        raise an.error("E0110", "`check_bounds=False` has no cuTile Rust form", node,
                       "kwarg:check_bounds")
    memory_order = _mode(an, v["memory_order"], node, "MemoryOrder")
    if memory_order not in (None, "WEAK"):
        raise an.error("E0101", "load `memory_order` other than WEAK is not lowered yet", node,
                       "kwarg:memory_order")
    padding = _mode(an, v["padding_mode"], node, "PaddingMode")
    # With `order`, `shape` and `index` are already in the tile's axis order: the result
    # has exactly `shape`.
    result_shape = shape
    attrs = {
        "shape": shape, "padding": padding, "latency": _latency(an, v["latency"], node),
        "allow_tma": _flag(an, v["allow_tma"], node, "`allow_tma`"), "order": order,
    }
    loaded = TExpr("load", [array, *index], TileType(array.type.dtype, result_shape),
                   an.span(node), attrs)
    return an.reshape(loaded, (), node) if scalar else loaded


@rule("store")
def store(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    array = _array(an, v["array"], node)
    index = _index_scalars(an, v["index"], node)
    value = v["tile"]
    if isinstance(value.type, ScalarType):
        # A scalar is stored as a one-element tile of its own type (cuTile Python makes it
        # a 0-d tile, reshaped below to the index's rank).
        value = an.to_tile(value, value.type.dtype, (), node)
    elif not isinstance(value.type, TileType):
        if not isinstance(value.type, ConstType) or not isinstance(value.type.value,
                                                                   bool | int | float):
            raise an.error("E0107", "the stored value must be a tile or a number", node)
        # A number is a constant tile of the index's rank.
        value = an.to_tile(value, an.find(array.type.dtype), (1,) * len(index), node)
    tile = value
    if tile.type.rank != len(index):
        if tile.type.rank < len(index):
            tile = an.reshape(tile, (1,) * (len(index) - tile.type.rank) + tile.type.shape,
                              node)
        else:
            raise an.error("E0108", "the tile has more dimensions than the index", node)
    _note_rank(an, array, len(index), node)
    order = _order(an, v["order"], len(index), node)
    if not _flag(an, v["check_bounds"], node, "`check_bounds`"):
        raise an.error("E0110", "`check_bounds=False` has no cuTile Rust form", node,
                       "kwarg:check_bounds")
    memory_order = _mode(an, v["memory_order"], node, "MemoryOrder")
    if memory_order not in (None, "WEAK"):
        raise an.error("E0101", "store `memory_order` other than WEAK is not lowered yet",
                       node, "kwarg:memory_order")
    array_dtype = an.find(array.type.dtype)
    tile_dtype = an.find(tile.type.dtype)
    if array_dtype != tile_dtype:
        if isinstance(array_dtype, DType) and isinstance(tile_dtype, DType):
            # An element type that a store under a static `if` implied, contradicted here:
            # Python compiles one arm only, so the kernel is translated per outcome.
            static_dtype_conflict(an, array.type.param, node)
            if array.type.param in an.param_dtypes:
                _check_store_widens(an, tile_dtype, array_dtype, array.type.param, node)
            tile = an.convert(tile, array_dtype, node)
        else:
            if isinstance(array_dtype, DTypeVar) and isinstance(tile_dtype, DType):
                static_pin_split(an, array.type.param, node)
                if tile_dtype.name in WIDENED_STORE_DTYPES:
                    # cuTile Python stores a 16-bit (or 8-bit) float tile into an array
                    # of any wider float type, converting it: which one is the launch's.
                    an.dtype_dependent(array_dtype, node, "a store that cuTile Python "
                                       "widens to the array's element type")
                note_static_dtype_pin(an, array.type.param)
            an.unify(array_dtype, tile_dtype, node)
    attrs = {"shape": tile.type.shape, "latency": _latency(an, v["latency"], node),
             "allow_tma": _flag(an, v["allow_tma"], node, "`allow_tma`"), "order": order}
    an.written_arrays.add(array.type.param)
    return TExpr("store", [array, *index, tile], ConstType(None), an.span(node), attrs)


#: Float tiles a store may widen: storing one into a wider float array converts it.
WIDENED_STORE_DTYPES = frozenset({"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"})


def _check_store_widens(an: KernelAnalyzer, tile: DType, array: DType, name: str,
                        node: cst.CSTNode) -> None:
    """cuTile Python converts a stored tile only to an element type that holds all its
    values (promoting the two gives the array's type); a variant of the kernel whose array
    type is narrower is no launch cuTile Python compiles."""
    try:
        widened = an.promote(tile, array, node)
    except TranslationError:
        widened = None
    if widened != array:
        # Under a compile-time `if`: only the launches taking this arm are refused.
        split_per_static_outcome(an, f"array `{name}` cannot take a `{tile}` tile under this "
                                 "compile-time condition", node)
        raise an.error("E0108", f"a `{tile}` tile cannot be stored into `{array.name}` array "
                       f"`{name}` (cuTile Python converts only to a wider type)", node,
                       NARROWING_STORE)


def _index_tiles(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode) -> list[TExpr]:
    items = value.args if value.op == "tuple" else [value]
    if isinstance(value.type, ConstType) and isinstance(value.type.value, tuple):
        items = [TExpr("const", [], ConstType(v), value.span) for v in value.type.value]
    out = []
    for item in items:
        if isinstance(item.type, ConstType):
            item = an.to_scalar(item, node)
        if isinstance(item.type, ScalarType):
            item = TExpr("scalar_to_tile", [item], TileType(item.type.dtype, ()), item.span)
        if not isinstance(item.type, TileType):
            raise an.error("E0107", "gather/scatter indices must be integer tiles", node)
        dtype = an.find(item.type.dtype)
        if not isinstance(dtype, DType):
            # An index tile loaded from a launch-time-typed array: indices are int32.
            dtype = an.unify(dtype, I32, node)
            an.notes.append("an array read as gather/scatter indices is taken to be int32")
        if not dtype.is_int:
            raise an.error("E0107", "gather/scatter indices must be integer tiles", node)
        out.append(item)
    return out


def _pointer_access(an: KernelAnalyzer, v: Values, node: cst.Call,
                    value: TExpr | None) -> tuple[TExpr, list[TExpr], TExpr | None, tuple]:
    array = _array(an, v["array"], node)
    indices = _index_tiles(an, v["indices"], node)
    if not indices:
        raise an.error("E0101", "a pointer access with the empty index `()` (a 0-d array) "
                       "is not lowered yet", node, "gather_scatter:0d")
    _note_rank(an, array, len(indices), node)
    shapes = [i.type.shape for i in indices]
    mask = v.get("mask")
    if mask is not None and not (isinstance(mask.type, ConstType) and mask.type.value is None):
        if not isinstance(mask.type, TileType):
            raise an.error("E0107", "`mask` must be a boolean tile", node)
        shapes.append(mask.type.shape)
    else:
        mask = None
    if value is not None and isinstance(value.type, TileType):
        shapes.append(value.type.shape)
    shape = an.broadcast_shapes(shapes, node)
    # Indices keep their own shapes: cuTile Python widens each to 64 bits before it
    # reshapes and broadcasts it (the lowering does the same).
    if mask is not None:
        mask = an.broadcast_to(an.convert(mask, BOOL, node), shape, node)
    return array, indices, mask, shape


@rule("gather")
def gather(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    array, indices, mask, shape = _pointer_access(an, v, node, None)
    check = bool(_flag(an, v["check_bounds"], node, "`check_bounds`"))
    written = an.const_value(v["padding_value"], node, "`padding_value`")
    _pin_to_restricted_padding(an, array, written, node)
    padding = written
    if not isinstance(padding, int | float) or isinstance(padding, bool):
        padding = getattr(padding, "value", padding)
    if not _convertible_padding(written):
        # The padding is a scalar of the array's element type, which Rust can only write
        # for a concrete type: a launch-time element type is translated per dtype.
        an.require_concrete(array.type.dtype, node, "the padding value of `ct.gather`")
    args = [array, *indices] + ([mask] if mask is not None else [])
    attrs = {"check_bounds": check, "padding": padding, "has_mask": mask is not None,
             "latency": _latency(an, v["latency"], node), "shape": shape,
             "strides": _stride_params(an, array, len(indices))}
    return TExpr("gather", args, TileType(array.type.dtype, shape), an.span(node), attrs)


#: Float types that cuTile Python never converts to or from implicitly (its "restricted"
#: floats): a value typed with one meets only arrays of that very type.
RESTRICTED_FLOAT_DTYPES = frozenset({"float8_e4m3fn", "float8_e5m2"})


def _pin_to_restricted_padding(an: KernelAnalyzer, array: TExpr, padding: object,
                               node: cst.CSTNode) -> None:
    """`padding_value=ct.float8_e4m3fn(0.0)` on an array whose type the launch decides:
    cuTile Python casts the padding to the array's type implicitly, which it allows for a
    restricted float only when the two types are the same, so the kernel names the array's
    element type (every launch it compiles has it)."""
    dtype = getattr(padding, "dtype", None)
    if isinstance(dtype, DType) and dtype.name in RESTRICTED_FLOAT_DTYPES and isinstance(
            an.find(array.type.dtype), DTypeVar):
        an.unify(array.type.dtype, dtype, node)


def _convertible_padding(padding: object) -> bool:
    """A finite float padding written as a plain number (not typed, as
    `ct.float16(0.1)` is, whose value is rounded first): Rust writes it for any element
    type, generic too, as an `f32` constant converted to the array's type (the IR check's
    constant-conversion rule relates it to cuTile Python's constant of that type)."""
    return isinstance(padding, float) and math.isfinite(padding)


def _stride_params(an: KernelAnalyzer, array: TExpr, rank: int) -> list[str | None]:
    """The Rust parameters carrying the array's strides for dims 0..rank-2 (the last stride
    is 1, as the specialization assumes): a cuTile Rust kernel cannot read a tensor's
    strides, so the launcher passes them."""
    return [an.stride_param(array.type.param, d) for d in range(rank - 1)] + [None]


@rule("scatter")
def scatter(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    value = v["value"]
    array, indices, mask, shape = _pointer_access(an, v, node, value)
    check = bool(_flag(an, v["check_bounds"], node, "`check_bounds`"))
    _check_scatter_widens(an, array, value, node)
    tile = an.to_tile(value, an.find(array.type.dtype), shape, node)
    args = [array, *indices, tile] + ([mask] if mask is not None else [])
    attrs = {"check_bounds": check, "has_mask": mask is not None,
             "latency": _latency(an, v["latency"], node), "shape": shape,
             "strides": _stride_params(an, array, len(indices))}
    an.written_arrays.add(array.type.param)
    return TExpr("scatter", args, ConstType(None), an.span(node), attrs)


def _check_scatter_widens(an: KernelAnalyzer, array: TExpr, value: TExpr,
                          node: cst.CSTNode) -> None:
    """cuTile Python converts a scattered tile as it converts a stored one (only to a wider
    type): a variant whose array type is narrower than the tile's is refused the same way."""
    array_dtype = an.find(array.type.dtype)
    value_dtype = an.find(value.type.dtype) if isinstance(value.type, TileType) else None
    if isinstance(array_dtype, DType) and isinstance(value_dtype, DType) and \
            array_dtype != value_dtype and array.type.param in an.param_dtypes:
        _check_store_widens(an, value_dtype, array_dtype, array.type.param, node)


@dataclass(frozen=True)
class AtomicRmw:
    """One `ct.atomic_*` read-modify-write function, as cuTile Python 1.7.0's
    `_ATOMIC_RMW_SPECS` defines it: the cuTile Rust `atomic::` mode per class of element type
    (signed integer, unsigned integer, float; None where cuTile Python rejects the class),
    whether the update must have the array's exact type (bitwise ops), and the element
    types cuTile Python accepts."""

    signed: str | None
    unsigned: str | None
    floating: str | None
    bitwise: bool
    dtypes: frozenset[str]

    def mode(self, dtype: DType) -> str | None:
        if dtype.is_float:
            return self.floating
        return self.unsigned if dtype.name.startswith("uint") else self.signed

    def modes(self) -> set[str | None]:
        return {self.signed, self.unsigned, self.floating} - {None}


_INT_32_64 = frozenset({"int32", "int64", "uint32", "uint64"})
_INT_FLOAT_32_64 = _INT_32_64 | {"float32", "float64"}
ATOMIC_RMW: dict[str, AtomicRmw] = {
    "atomic_xchg": AtomicRmw("Xchg", "Xchg", "Xchg", False, _INT_FLOAT_32_64),
    "atomic_add": AtomicRmw("Add", "Add", "AddF", False,
                            _INT_FLOAT_32_64 | {"float16", "bfloat16"}),
    "atomic_max": AtomicRmw("Max", "Umax", None, False, _INT_32_64),
    "atomic_min": AtomicRmw("Min", "Umin", None, False, _INT_32_64),
    "atomic_and": AtomicRmw("And", "And", None, True, _INT_32_64),
    "atomic_or": AtomicRmw("Or", "Or", None, True, _INT_32_64),
    "atomic_xor": AtomicRmw("Xor", "Xor", None, True, _INT_32_64),
}
#: cuTile Python memory orders and scopes of an atomic, and their cuTile Rust types. Every
#: order is lowered: cuTile Python orders an acquiring or releasing atomic against every
#: memory access of the block (all arrays), and a kernel with one has all its memory accesses
#: in one token chain (`lowering/lower.py`, `shared_chain_needed`).
ATOMIC_ORDERS = {"RELAXED": "Relaxed", "ACQUIRE": "Acquire", "RELEASE": "Release",
                 "ACQ_REL": "AcqRel"}
ATOMIC_SCOPES = {"BLOCK": "TileBlock", "DEVICE": "Device", "SYS": "System"}
#: Element types `ct.atomic_cas` takes (cuTile Python 1.7.0's `int_float_32_64_dtypes`).
ATOMIC_CAS_DTYPES = _INT_FLOAT_32_64


def _atomic_rmw(name: str) -> Typer:
    spec = ATOMIC_RMW[name]

    def typer(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
        update = v["update"]
        array, indices, _mask, shape = _pointer_access(an, v, node, update)
        check = bool(_flag(an, v["check_bounds"], node, "`check_bounds`"))
        order, scope = _atomic_memory_model(an, v, node, name)
        update_dtype = update.type.dtype if isinstance(update.type, TileType) else None
        update = _atomic_update(an, spec, update, array, shape, node)
        an.deferred_checks.append(lambda: _check_atomic_dtype(an, spec, array, node, name))
        if update_dtype is not None:
            an.deferred_checks.append(lambda: _check_update_widens(
                an, an.find(update_dtype), an.find(array.type.dtype), node))
        args = [array, *indices, update]
        attrs = {"check_bounds": check, "has_mask": False, "shape": shape, "latency": None,
                 "strides": _stride_params(an, array, len(indices)), "function": name,
                 "order": ATOMIC_ORDERS[order], "scope": ATOMIC_SCOPES[scope]}
        an.written_arrays.add(array.type.param)
        return TExpr("atomic", args, TileType(array.type.dtype, shape), an.span(node), attrs)

    return typer


def _atomic_memory_model(an: KernelAnalyzer, v: Values, node: cst.Call,
                         name: str) -> tuple[str, str]:
    """The memory order and scope of an atomic (cuTile Python's defaults: ACQ_REL,
    DEVICE); a pair cuTile Python rejects is a diagnostic."""
    order = _mode(an, v["memory_order"], node, "MemoryOrder")
    scope = _mode(an, v["memory_scope"], node, "MemoryScope")
    if order not in ATOMIC_ORDERS or scope not in ATOMIC_SCOPES:
        raise an.error("E0111", f"`ct.{name}` takes no memory order `{order}` with scope "
                       f"`{scope}` (cuTile Python rejects it too)", node)
    return order, scope


def _check_atomic_dtype(an: KernelAnalyzer, spec: AtomicRmw, array: TExpr, node: cst.Call,
                        name: str) -> None:
    """Refuse an element type cuTile Python refuses; the Rust mode depends on the element
    type's class where the function has several (a launch-time type: one entry per dtype)."""
    dtype = an.find(array.type.dtype)
    if isinstance(dtype, DType):
        if dtype.name not in spec.dtypes:
            raise an.error("E0108", f"`ct.{name}` does not take `{dtype.name}` arrays "
                           f"(cuTile Python accepts {', '.join(sorted(spec.dtypes))})", node,
                           ATOMIC_DTYPE)
    elif len(spec.modes()) > 1:
        an.require_concrete(array.type.dtype, node, f"the mode of `ct.{name}` (by element "
                            "type)")


def _atomic_update(an: KernelAnalyzer, spec: AtomicRmw, update: TExpr, array: TExpr,
                   shape: Shape, node: cst.Call) -> TExpr:
    """The update tile: broadcast to the index shape, then converted to the array's element
    type (cuTile Python's order); a bitwise op takes no conversion of a tile."""
    dtype = array.type.dtype
    if not isinstance(update.type, TileType):
        return an.to_tile(update, dtype, shape, node)
    if spec.bitwise and an.find(update.type.dtype) != an.find(dtype):
        if isinstance(an.find(dtype), DTypeVar) or isinstance(an.find(update.type.dtype),
                                                              DTypeVar):
            an.unify(update.type.dtype, dtype, node)
        else:
            raise an.error("E0108", "a bitwise atomic needs an update of the array's element "
                           "type", node)
    return an.convert(an.broadcast_to(update, shape, node), dtype, node)


def _check_update_widens(an: KernelAnalyzer, update: ElemType, array: ElemType,
                         node: cst.Call) -> None:
    """cuTile Python converts an atomic's update tile only to a type that holds all its
    values (promoting the two gives the array's type); a variant of the kernel with a
    narrower array type is no launch cuTile Python compiles."""
    if not (isinstance(update, DType) and isinstance(array, DType)) or update == array:
        return
    try:
        widened = an.promote(update, array, node)
    except TranslationError:
        widened = None
    if widened != array:
        raise an.error("E0108", f"an atomic cannot take a `{update.name}` update into a "
                       f"`{array.name}` array (cuTile Python converts only to a wider type)",
                       node, ATOMIC_DTYPE)


for _name in ATOMIC_RMW:
    TYPERS[_name] = _atomic_rmw(_name)


@rule("atomic_cas")
def atomic_cas(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    """`ct.atomic_cas(array, indices, expected, desired)`: the old values; `expected` and
    `desired` are converted to the array's element type (only widening, as a scattered
    value) and broadcast to the index shape. Typed as an `atomic` whose `function` is
    `atomic_cas`, with the two value tiles as its last operands."""
    expected, desired = v["expected"], v["desired"]
    array, indices, _mask, shape = _pointer_access(an, v, node, expected)
    if isinstance(desired.type, TileType):
        shape = an.broadcast_shapes([shape, desired.type.shape], node)
    check = bool(_flag(an, v["check_bounds"], node, "`check_bounds`"))
    order, scope = _atomic_memory_model(an, v, node, "atomic_cas")
    dtype = an.find(array.type.dtype)
    values = []
    for value in (expected, desired):
        _check_scatter_widens(an, array, value, node)
        values.append(an.to_tile(value, dtype, shape, node))

    def check_dtype() -> None:
        # A launch-time element type is translated per dtype, so that the types cuTile
        # Python refuses get no entry.
        found = an.find(array.type.dtype)
        if not isinstance(found, DType):
            an.require_concrete(array.type.dtype, node, "the element types `ct.atomic_cas` "
                                "takes")
        elif found.name not in ATOMIC_CAS_DTYPES:
            raise an.error("E0108", f"`ct.atomic_cas` does not take `{found.name}` arrays "
                           f"(cuTile Python accepts {', '.join(sorted(ATOMIC_CAS_DTYPES))})",
                           node, ATOMIC_DTYPE)

    an.deferred_checks.append(check_dtype)
    attrs = {"check_bounds": check, "has_mask": False, "shape": shape, "latency": None,
             "strides": _stride_params(an, array, len(indices)), "function": "atomic_cas",
             "order": ATOMIC_ORDERS[order], "scope": ATOMIC_SCOPES[scope]}
    an.written_arrays.add(array.type.param)
    return TExpr("atomic", [array, *indices, *values], TileType(array.type.dtype, shape),
                 an.span(node), attrs)


# ---- array views ---------------------------------------------------------------------------


@rule("Array.slice")
def array_slice(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    """`x.slice(axis, start, stop)`: a view of `x` whose dimension `axis` runs over
    [start, stop). Its extent is a compile-time size when both bounds are compile-time."""
    array = _array(an, v["array"], node)
    assert isinstance(array.type, ArrayType)
    param = array.type.param
    axis = _slice_axis(an, array.type, v["axis"], node)
    start = _slice_bound(an, v["start"], node, "start")
    stop = _slice_bound(an, v["stop"], node, "stop")
    extent = _static_extent(an, v["start"], v["stop"], node)
    static = {a: d for a, d in array.type.static_dims if a != axis}
    if extent is not None:
        static[axis] = extent
    an.shape_ranks[param] = max(an.shape_ranks.get(param, 0), axis + 1)
    an.sliced_arrays.setdefault(param, node)
    result = ArrayType(array.type.dtype, array.type.ndim, param, tuple(sorted(static.items())))
    return TExpr("array_slice", [array, start, stop], result, an.span(node),
                 {"axis": axis, "extent": extent})


def _slice_axis(an: KernelAnalyzer, array: ArrayType, value: TExpr,
                node: cst.CSTNode) -> int:
    """The sliced axis, a compile-time integer; a negative one counts from the last
    dimension, so it needs the array's rank (known once a memory operation used it)."""
    axis = an.const_int(value, node, "the slice `axis`")
    rank = an.array_ranks.get(array.param)
    if axis < 0:
        if rank is None:
            raise an.error("E0108", f"a negative slice axis needs the rank of `{array.param}`, "
                           "which no earlier load or store gives", node)
        axis += rank
    if axis < 0 or (rank is not None and axis >= rank):
        raise an.error("E0108", f"slice axis {axis} is out of range for array "
                       f"`{array.param}`", node)
    return axis


def _slice_bound(an: KernelAnalyzer, value: TExpr, node: cst.CSTNode, what: str) -> TExpr:
    """A slice bound as an `i32` scalar (cuTile Python requires a signed integer, and its
    arrays index with int32)."""
    number = _const(an, value)
    if isinstance(number, int) and not isinstance(number, bool) and number < 0:
        raise an.error("E0108", f"the slice {what} must be non-negative", node)
    scalar = an.to_scalar(value, node)
    dtype = an.find(scalar.type.dtype)
    if isinstance(dtype, DTypeVar):
        an.unify(dtype, I32, node)
        return scalar
    if not (isinstance(dtype, DType) and dtype.is_int and dtype.name.startswith("int")):
        raise an.error("E0107", f"the slice {what} must be a signed integer", node)
    if dtype != I32:
        raise an.error("E0101", f"a slice {what} of type {dtype} is not lowered yet (the "
                       "Rust computes slice offsets in int32)", node, "call:ct.Array.slice_int")
    return scalar


def _static_extent(an: KernelAnalyzer, start: TExpr, stop: TExpr,
                   node: cst.CSTNode) -> Dim | None:
    """`stop - start` when both bounds are compile-time integers, else None."""
    low, high = _const(an, start), _const(an, stop)
    dims = (int, DimSym, DimExpr)
    if not (isinstance(low, dims) and isinstance(high, dims)) or isinstance(
            low, bool) or isinstance(high, bool):
        return None
    extent = dim_difference(high, low)
    terms = _linear(extent)
    if all(coef <= 0 for coef in terms.values()) and any(terms.values()):
        # Negative for every value of the (non-negative) constants.
        raise an.error("E0108", "the slice stop must not be below its start", node)
    return extent


def dim_difference(left: Dim, right: Dim) -> Dim:
    """`left - right`, simplified as a sum of integer multiples of the symbolic terms
    (`2 * N - N` is `N`), so that a size written two ways gets one const generic."""
    terms = _linear(left)
    for term, coef in _linear(right).items():
        terms[term] = terms.get(term, 0) - coef
    constant = terms.pop(1, 0)
    result: Dim | None = None
    for term, coef in terms.items():
        if coef == 0:
            continue
        part = term if abs(coef) == 1 else dim_op("*", abs(coef), term)
        if result is None:
            result = part if coef > 0 else dim_op("-", 0, part)
        else:
            result = dim_op("+" if coef > 0 else "-", result, part)
    if result is None:
        return constant
    if constant:
        result = dim_op("+" if constant > 0 else "-", result, abs(constant))
    return result


def _linear(d: Dim) -> dict[object, int]:
    """`d` as {term: integer coefficient}, the key 1 holding the constant; a product of
    two symbolic terms, a quotient or a remainder is one opaque term."""
    if isinstance(d, int):
        return {1: d}
    if isinstance(d, DimExpr) and d.op in ("+", "-"):
        out = _linear(d.left)
        sign = 1 if d.op == "+" else -1
        for term, coef in _linear(d.right).items():
            out[term] = out.get(term, 0) + sign * coef
        return out
    if isinstance(d, DimExpr) and d.op == "*" and (isinstance(d.left, int) or
                                                   isinstance(d.right, int)):
        factor, other = (d.left, d.right) if isinstance(d.left, int) else (d.right, d.left)
        assert isinstance(factor, int)
        return {term: factor * coef for term, coef in _linear(other).items()}
    return {d: 1}


# ---- creation ------------------------------------------------------------------------------


@rule("arange")
def arange(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    size = an.const_value(v["size"], node, "the arange size")
    dtype = an.const_dtype(v["dtype"], node)
    start, step = _const(an, v["start"]), _const(an, v["step"])
    if not isinstance(size, int | DimSym | DimExpr):
        raise an.error("E0103", "the arange size must be a compile-time integer", node)
    result = TExpr("arange", [], TileType(I32, (size,)), an.span(node), {"size": size})
    if step != 1 or start != 0:
        raise an.error("E0101", "`ct.arange` with start/step is not lowered yet", node,
                       "call:ct.arange_start_step")
    return an.convert(result, dtype, node)


@rule("full", "zeros", "ones")
def full(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    shape = an.const_shape(v["shape"], node)
    dtype = an.const_dtype(v["dtype"], node)
    if "fill_value" in v:
        fill = v["fill_value"]
    else:
        fill = TExpr("const", [], ConstType(1 if _callee(node) == "ones" else 0))
    return an.to_tile(fill, dtype, shape, node)


@rule("astype")
def astype(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = v["x"]
    dtype = an.const_dtype(v["dtype"], node)
    rounding = _mode(an, v["rounding_mode"], node, "RoundingMode")
    if isinstance(x.type, ScalarType):
        return an.cast_scalar(x, dtype, node)
    if _is_const(x):
        return an.to_scalar(x, node) if False else TExpr("const", [], x.type, x.span)
    return an.convert(_tile(an, x, node), dtype, node, rounding)


# ---- shape ---------------------------------------------------------------------------------


@rule("reshape")
def reshape(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    shape = an.const_shape(v["shape"], node)
    if any(d == -1 for d in shape):
        shape = _infer_minus_one(an, x.type.shape, shape, node)
    return an.reshape(x, shape, node)


def _infer_minus_one(an: KernelAnalyzer, src: Shape, shape: Shape, node: cst.CSTNode) -> Shape:
    total: Dim = 1
    for d in src:
        total = dim_op("*", total, d)
    known: Dim = 1
    for d in shape:
        if d != -1:
            known = dim_op("*", known, d)
    return tuple(dim_op("//", total, known) if d == -1 else d for d in shape)


@rule("expand_dims")
def expand_dims(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    rank = x.type.rank + 1
    axis = _axis(an, v["axis"], rank, node)
    shape = list(x.type.shape)
    shape.insert(axis, 1)
    return an.reshape(x, tuple(shape), node)


@rule("broadcast_to")
def broadcast_to(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    return an.broadcast_to(x, an.const_shape(v["shape"], node), node)


@rule("permute")
def permute(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    axes = an.const_value(v["axes"], node, "`axes`")
    if not isinstance(axes, tuple) or sorted(axes) != list(range(x.type.rank)):
        raise an.error("E0108", "`axes` must be a permutation of the tile's dimensions", node)
    return _permute(an, x, tuple(axes), node)


def _permute(an: KernelAnalyzer, x: TExpr, axes: tuple[int, ...], node: cst.CSTNode) -> TExpr:
    if axes == tuple(range(len(axes))):
        return x
    shape = tuple(x.type.shape[a] for a in axes)
    return TExpr("permute", [x], TileType(x.type.dtype, shape), an.span(node), {"axes": axes})


@rule("transpose")
def transpose(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    rank = x.type.rank
    a0, a1 = _const(an, v["axis0"]), _const(an, v["axis1"])
    if a0 is None and a1 is None:
        if rank != 2:
            raise an.error("E0108", "transpose without axes needs a rank-2 tile", node)
        a0, a1 = 0, 1
    if not (isinstance(a0, int) and isinstance(a1, int)):
        raise an.error("E0103", "transpose axes must be compile-time integers", node)
    axes = list(range(rank))
    axes[a0 % rank], axes[a1 % rank] = axes[a1 % rank], axes[a0 % rank]
    return _permute(an, x, tuple(axes), node)


@rule("extract")
def extract(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    shape = an.const_shape(v["shape"], node, "the extract shape")
    index = _index_scalars(an, v["index"], node)
    if len(shape) != x.type.rank or len(index) != x.type.rank:
        raise an.error("E0108", "`ct.extract` needs an index and a shape per tile dimension",
                       node)
    return TExpr("extract", [x, *index], TileType(x.type.dtype, shape), an.span(node))


@rule("cat")
def cat(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    """`ct.cat((a, b), axis)`: one tile, or two of one rank and dtype that agree off `axis`,
    into a tile whose dimensions are powers of two (cuTile Python's rules)."""
    tiles = v["tiles"]
    if not isinstance(tiles.type, ListType):
        raise an.error("E0107", "`ct.cat` takes a tuple of tiles", node)
    items = [_tile(an, t, node) for t in tiles.args]
    if not 1 <= len(items) <= 2:
        raise an.error("E0108", f"`ct.cat` joins one or two tiles, got {len(items)}", node)
    if len(items) == 1:
        return items[0]
    first, second = items
    rank = first.type.rank
    axis = _axis(an, v["axis"], rank, node)
    if second.type.rank != rank:
        raise an.error("E0108", "`ct.cat` needs tiles of one rank", node)
    if an.find(first.type.dtype) != an.find(second.type.dtype):
        raise an.error("E0108", "`ct.cat` needs tiles of one element type", node)
    shape = list(first.type.shape)
    for i, (a, b) in enumerate(zip(first.type.shape, second.type.shape, strict=True)):
        if i != axis and a != b:
            raise an.error("E0108", "`ct.cat` needs tiles whose shapes agree off the axis",
                           node)
    shape[axis] = dim_op("+", first.type.shape[axis], second.type.shape[axis])
    # (A dimension over `ct.Constant`s is checked when cuTile Python compiles the launch.)
    if not all(d > 0 and d & (d - 1) == 0 for d in shape if isinstance(d, int)):
        raise an.error("E0108", f"`ct.cat` gives shape {tuple(shape)}, which is not made of "
                       "powers of two", node)
    return TExpr("cat", [first, second], TileType(first.type.dtype, tuple(shape)),
                 an.span(node), {"axis": axis})


@rule("item")
def item(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    if any(d != 1 for d in x.type.shape):
        raise an.error("E0108", "`.item()` needs a tile with one element", node)
    flat = an.reshape(x, (), node)
    return TExpr("tile_to_scalar", [flat], ScalarType(x.type.dtype), an.span(node))


# ---- math ----------------------------------------------------------------------------------

_UNARY = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh",
          "tanh", "floor", "ceil", "abs", "negative", "isnan", "bitwise_not")
_FLOAT_ONLY = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh",
               "cosh", "tanh", "floor", "ceil", "isnan"}


@rule(*_UNARY)
def unary(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    name = _callee(node)
    x = v["x"]
    if _is_const(x):
        x = an.to_tile(x, F32, (), node)
    x = _tile(an, x, node)
    attrs: dict[str, object] = {"fn": name}
    if "rounding_mode" in v:
        attrs["rounding"] = _mode(an, v["rounding_mode"], node, "RoundingMode")
    if "flush_to_zero" in v:
        attrs["ftz"] = bool(_flag(an, v["flush_to_zero"], node, "`flush_to_zero`"))
    dtype = an.find(x.type.dtype)
    if name in _FLOAT_ONLY and isinstance(dtype, DType) and not dtype.is_float:
        x = an.convert(x, F32, node)
    rtype = TileType(BOOL, x.type.shape) if name == "isnan" else x.type
    return TExpr("unary", [x], rtype, an.span(node), attrs)


_BINARY_FUNCS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
                 "mod": "%", "pow": "**", "bitwise_and": "&", "bitwise_or": "|",
                 "bitwise_xor": "^", "bitwise_lshift": "<<", "bitwise_rshift": ">>"}


@rule(*_BINARY_FUNCS)
def binary_fn(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    name = _callee(node)
    attrs: dict[str, object] = {}
    if "rounding_mode" in v:
        attrs["rounding"] = _mode(an, v["rounding_mode"], node, "RoundingMode")
    if "flush_to_zero" in v:
        attrs["ftz"] = bool(_flag(an, v["flush_to_zero"], node, "`flush_to_zero`"))
    return an.binary(_BINARY_FUNCS[name], v["x"], v["y"], node, attrs=attrs)


@rule("maximum", "minimum")
def minmax(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    attrs = {"ftz": bool(_flag(an, v["flush_to_zero"], node, "`flush_to_zero`")),
             "nan": bool(_flag(an, v["propagate_nan"], node, "`propagate_nan`"))}
    result = an.binary(_callee(node), v["x"], v["y"], node, attrs=attrs)
    return result


_COMPARE_FUNCS = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=",
                  "equal": "==", "not_equal": "!="}


@rule(*_COMPARE_FUNCS)
def compare_fn(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    return an.compare(_COMPARE_FUNCS[_callee(node)], v["x"], v["y"], node)


@rule("where")
def where(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    return an.where(v["cond"], v["x"], v["y"], node)


# ---- reductions ----------------------------------------------------------------------------


@rule("sum", "max", "min", "prod")
def reduce(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    kind = _callee(node)
    x = _tile(an, v["x"], node)
    rank = x.type.rank
    axis_value = _const(an, v["axis"])
    if axis_value is None:
        axes = tuple(range(rank))
    elif isinstance(axis_value, tuple):
        axes = tuple(sorted(_axis(an, TExpr("const", [], ConstType(a)), rank, node)
                            for a in axis_value))
    else:
        axes = (_axis(an, v["axis"], rank, node),)
    keepdims = bool(_flag(an, v["keepdims"], node, "`keepdims`"))
    for flag in ("flush_to_zero", "propagate_nan"):
        if flag in v and an.const_value(v[flag], node, f"`{flag}`"):
            raise an.error("E0110", f"`{flag}=True` on a reduction has no cuTile Rust form",
                           node, f"kwarg:{flag}")
    if "rounding_mode" in v and _mode(an, v["rounding_mode"], node, "RoundingMode"):
        raise an.error("E0110", "`rounding_mode` on a reduction has no cuTile Rust form",
                       node, "kwarg:rounding_mode")
    dtype = an.find(x.type.dtype)
    if kind in ("sum", "prod") and isinstance(dtype, DType) and dtype.is_bool:
        x = an.convert(x, I32, node)
    result = x
    # A full reduction (no `axis`) reduces dimension 0 again and again, as cuTile Python does.
    order = [0] * rank if axis_value is None else sorted(axes, reverse=True)
    for axis in order:
        shape = tuple(d for i, d in enumerate(result.type.shape) if i != axis)
        result = TExpr("reduce", [result], TileType(result.type.dtype, shape), an.span(node),
                       {"kind": kind, "axis": axis})
    if keepdims:
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.type.shape))
        result = an.reshape(result, kept, node)
    return result


@rule("cumsum")
def cumsum(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    x = _tile(an, v["x"], node)
    axis = _axis(an, v["axis"], x.type.rank, node)
    reverse = bool(_flag(an, v["reverse"], node, "`reverse`"))
    if v["flush_to_zero"] and an.const_value(v["flush_to_zero"], node, "`flush_to_zero`"):
        raise an.error("E0110", "`flush_to_zero=True` on a scan has no cuTile Rust form", node,
                       "kwarg:flush_to_zero")
    if _mode(an, v["rounding_mode"], node, "RoundingMode"):
        raise an.error("E0110", "`rounding_mode` on a scan has no cuTile Rust form", node,
                       "kwarg:rounding_mode")
    return TExpr("scan", [x], x.type, an.span(node), {"axis": axis, "reverse": reverse})


# ---- matrix multiply -----------------------------------------------------------------------

_MMA_ACC = {"float8_e4m3fn": ("float16", "float32"), "float8_e5m2": ("float16", "float32"),
            "float16": ("float16", "float32"), "bfloat16": ("float32",),
            "float32": ("float32",), "tfloat32": ("float32",), "float64": ("float64",),
            "int8": ("int32",), "uint8": ("int32",)}


@rule("mma")
def mma(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    a, b, acc = (_tile(an, v[k], node) for k in ("x", "y", "acc"))
    if an.const_value(v["use_fast_acc"], node, "`use_fast_acc`"):
        raise an.error("E0110", "`use_fast_acc=True` has no safe cuTile Rust form", node,
                       "kwarg:use_fast_acc")
    _check_mma_shapes(an, a, b, acc, node)
    an.unify(a.type.dtype, b.type.dtype, node)
    return TExpr("mma", [a, b, acc], acc.type, an.span(node))


def _check_mma_shapes(an: KernelAnalyzer, a: TExpr, b: TExpr, acc: TExpr,
                      node: cst.CSTNode) -> None:
    sa, sb, sc = a.type.shape, b.type.shape, acc.type.shape
    if len(sa) not in (2, 3) or len(sa) != len(sb) or len(sa) != len(sc):
        raise an.error("E0108", "mma operands must all be rank 2 or all rank 3", node)
    if sa[-1] != sb[-2] or sa[-2] != sc[-2] or sb[-1] != sc[-1]:
        raise an.error("E0108", f"mma shapes do not agree: {sa} x {sb} -> {sc}", node)


@rule("matmul")
def matmul_rule(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    return matmul(an, v["x"], v["y"], node)


def matmul(an: KernelAnalyzer, x: TExpr, y: TExpr, node: cst.CSTNode) -> TExpr:
    a, b = _tile(an, x, node), _tile(an, y, node)
    dtype = an.unify(a.type.dtype, b.type.dtype, node)
    # The accumulator type of `@` follows the operand dtype (f16 accumulates in f16).
    an.dtype_dependent(dtype, node, "the accumulator type of `@`")
    assert isinstance(dtype, DType)
    acc_dtype = DType(_MMA_ACC.get(dtype.name, ("float32",))[0])
    if len(a.type.shape) == len(b.type.shape) == 3 and a.type.shape[0] != b.type.shape[0]:
        # cuTile Python broadcasts the batch dimensions of the two operands (a batch of 1
        # meets any); Tile IR's `mma` takes equal batches.
        batch = an.broadcast_shapes([a.type.shape[:1], b.type.shape[:1]], node)
        a = an.broadcast_to(a, (*batch, *a.type.shape[1:]), node)
        b = an.broadcast_to(b, (*batch, *b.type.shape[1:]), node)
    shape = (*a.type.shape[:-1], b.type.shape[-1])
    zero = an.to_tile(TExpr("const", [], ConstType(0)), acc_dtype, shape, node)
    _check_mma_shapes(an, a, b, zero, node)
    product = TExpr("mma", [a, b, zero], zero.type, an.span(node))
    return an.convert(product, dtype, node)


# ---- compile-time checks -------------------------------------------------------------------


@rule("static_assert")
def static_assert(an: KernelAnalyzer, v: Values, explicit: set[str], node: cst.Call) -> TExpr:
    cond = v["condition"]
    if not _is_const(cond):
        raise an.error("E0103", "`ct.static_assert` needs a compile-time condition", node)
    value = cond.type.value
    if value is False:
        raise an.error("E0103", "`ct.static_assert` fails for this kernel", node)
    if value is not True:
        an.notes.append("a `ct.static_assert` on launch-time constants is checked by cuTile "
                        "Python at compile time; the Rust translation does not repeat it")
    return TExpr("const", [], ConstType(None))


@rule("assume_divisible_by")
def assume_divisible_by(an: KernelAnalyzer, v: Values, explicit: set[str],
                        node: cst.Call) -> TExpr:
    x = an.to_scalar(v["x"], node)
    divisor = an.const_value(v["divisor"], node, "the divisor")
    return TExpr("assume_div", [x], x.type, an.span(node), {"divisor": divisor})
