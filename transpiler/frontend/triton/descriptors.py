"""Triton's device-side tensor descriptors (`tl.make_tensor_descriptor`, `desc.load`,
`desc.store`) on the pointer-tile path: the analyzer's typing rules for them.

Takes `tl.make_tensor_descriptor(base, shape, strides, block_shape)` (a pointer parameter,
runtime or constant extents and strides, a compile-time block shape); gives a compile-time
`Descriptor` value that `desc.load(offsets)` / `desc.store(offsets, value)` turn into the
model's pointer operations, with Triton's semantics: the block at element `offsets`, each
element read through `base + sum(index_d * stride_d)`, the elements outside `[0, shape_d)`
read as zero (the descriptor's zero padding) and not written. Host-made descriptors
(`TensorDescriptor` arguments) are not translated (their block shape is a launch-site
fact); a padding other than zero is a diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from transpiler.frontend.triton.dtypes import I32
from transpiler.model import ConstType, ListType, PointerType, TExpr, TileType
from transpiler.model.consts import const


@dataclass(frozen=True)
class Descriptor:
    """A device-side tensor descriptor: its base pointer, per-dimension extent and stride
    (runtime or compile-time values) and block shape."""

    base: TExpr
    shape: tuple[TExpr, ...]
    strides: tuple[TExpr, ...]
    block: tuple[object, ...]

    def __hash__(self) -> int:
        return id(self)


class DescriptorRules:
    """Typing rules of tensor descriptors, mixed into the analyzer (which supplies `arg`,
    `const_arg`, `binary`, `compare`, `broadcast`, `error`, `expr`, `span`, the memory
    rules' helpers and `params_by_name`)."""

    arg: Callable
    const_arg: Callable
    binary: Callable
    compare: Callable
    error: Callable
    expr: Callable
    span: Callable
    runtime: Callable
    stored_value: Callable
    shape_of: Callable
    pointer_arg: Callable
    find: Callable
    load_through: Callable
    broadcast: Callable
    params_by_name: dict

    def rule_make_tensor_descriptor(self, name: str, args: dict, node: cst.Call) -> TExpr:
        base = self.pointer_arg({"pointer": args["base"]}, node)
        if base.type.shape:
            raise self.error("E0107", "a tensor descriptor's base must be a pointer", node)
        shape = self.items(args, "shape", node)
        strides = self.items(args, "strides", node)
        block = self.const_arg(args, "block_shape")
        block = block if isinstance(block, tuple) else (block,)
        if not len(shape) == len(strides) == len(block):
            raise self.error("E0102", "a tensor descriptor's shape, strides and block shape "
                             "need one entry per dimension", node)
        padding = self.const_arg(args, "padding_option", "zero")
        if padding not in ("zero", None):
            raise self.error("E0121", f"a descriptor padding {padding!r} is not translated "
                             "(zero padding is)", node)
        return const(Descriptor(base, shape, strides, block), self.span(node))

    def items(self, args: dict, key: str, node: cst.Call) -> tuple[TExpr, ...]:
        value = self.arg(args, key)
        if value is None:
            raise self.error("E0102", f"`tl.make_tensor_descriptor` needs `{key}`", node)
        if value.op == "pytuple":
            return tuple(value.args)
        if isinstance(value.type, ConstType) and isinstance(value.type.value, tuple):
            return tuple(const(v, value.span) for v in value.type.value)
        raise self.error("E0107", f"`{key}` of a tensor descriptor must be a list", node)

    def descriptor_method(self, desc: Descriptor, method: str, node: cst.Call) -> TExpr:
        args = [a for a in node.args if a.keyword is None]
        if method not in ("load", "store") or len(args) != (1 if method == "load" else 2):
            raise self.error("E0107", f"`.{method}(...)` of a tensor descriptor is not "
                             "translated (`load(offsets)` and `store(offsets, value)` are)",
                             node)
        offsets = self.expr(args[0].value)
        items = offsets.args if offsets.op == "pytuple" else (
            [const(v, offsets.span) for v in offsets.type.value]
            if isinstance(offsets.type, ConstType) and isinstance(offsets.type.value, tuple)
            else None)
        if items is None or len(items) != len(desc.block):
            raise self.error("E0102", "a descriptor access takes one offset per dimension",
                             node)
        pointers, mask = self.block_addresses(desc, list(items), node)
        if method == "load":
            return self.load_through(pointers, mask, const(0), node)
        value = self.stored_value({"value": args[1].value}, "value", pointers, node)
        self.params_by_name[pointers.type.param].written = True
        return TExpr("store_ptr", [pointers, value, mask], ListType(()), self.span(node),
                     {"has_mask": True, "param": pointers.type.param})

    def block_addresses(self, desc: Descriptor, offsets: list[TExpr],
                        node: cst.Call) -> tuple[TExpr, TExpr]:
        """The block's pointer tile and its in-bounds mask."""
        rank = len(desc.block)
        pointers: TExpr = desc.base
        mask: TExpr | None = None
        for d, (offset, extent, stride, size) in enumerate(zip(
                offsets, desc.shape, desc.strides, desc.block, strict=True)):
            lifted = tuple(size if i == d else 1 for i in range(rank))
            iota = TExpr("arange", [], TileType(I32, (size,)), self.span(node), {"size": size})
            index = self.binary("+", TExpr("reshape", [iota], TileType(I32, lifted), iota.span,
                                           {"shape": lifted}), offset, node)
            pointers = self.binary("+", pointers, self.binary("*", index, stride, node), node)
            inside = self.binary("&", self.compare(">=", index, const(0), node),
                                 self.compare("<", index, extent, node), node)
            mask = inside if mask is None else self.binary("&", mask, inside, node)
        assert mask is not None and isinstance(pointers.type, PointerType)
        full = tuple(desc.block)
        return self.broadcast(pointers, full, node), self.broadcast(mask, full, node)

