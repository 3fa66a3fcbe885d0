"""Triton's tensor descriptors (`tl.make_tensor_descriptor`, host-made `TensorDescriptor`
arguments, `desc.load`, `desc.store`) on the pointer-tile path: the analyzer's typing rules
for them.

Takes `tl.make_tensor_descriptor(base, shape, strides, block_shape)` (a pointer parameter,
runtime or constant extents and strides, a compile-time block shape); gives a compile-time
`Descriptor` value that `desc.load(offsets)` / `desc.store(offsets, value)` turn into the
model's pointer operations, with Triton's semantics: the block at element `offsets`, each
element read through `base + sum(index_d * stride_d)`, the elements outside `[0, shape_d)`
read as zero (the descriptor's zero padding) and not written. A padding other than zero is
a diagnostic.

A host-made descriptor argument `X` (a parameter the kernel calls `.load` / `.store` on) is
the same `Descriptor` over the Rust entry's pointer `X` and runtime `i32` parameters
`X_shape_d` (every dimension) and `X_stride_d` (every dimension but the last, whose stride
Triton requires to be 1): the host glue passes the descriptor's base, shape and strides. Its
block shape is a host fact (`host_descriptors.py`), evaluated over the kernel's constexprs
and recorded on the parameter (`KernelParam.block`, the manifest's `block`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from transpiler.frontend.triton.dtypes import I32
from transpiler.frontend.triton.host_descriptors import block_shapes
from transpiler.model import (
    ConstType,
    DimExpr,
    DimSym,
    KernelParam,
    ListType,
    PointerType,
    ScalarType,
    TExpr,
    TileType,
)
from transpiler.model.consts import condition_tree, const


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


@dataclass(frozen=True)
class DescriptorType:
    """`desc.type` (`part` "type": its `.block_type`) or `desc.type.block_type` (`part`
    "block": its `.element_ty` and `.shape`), compile-time facts of a descriptor."""

    desc: Descriptor
    part: str


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
    fresh: Callable
    source: object
    kernel: object
    scope: object
    extent_params: list
    stride_params: list

    def bind_host_descriptor(self, name: str, param: KernelParam) -> None:
        """The host-made descriptor parameter `name` (its pointer `param`, bound already) as
        a `Descriptor` of the runtime extents and strides it adds to the entry."""
        shapes = block_shapes(self.source, self.kernel)  # type: ignore[arg-type]
        where = self.kernel.node.name  # type: ignore[attr-defined]
        if shapes.conflicting(name):
            raise self.error("E0121", f"the host-made tensor descriptor `{name}` is given "
                             "different block shapes (by a condition in an autotune "
                             "`pre_hook`, or by two launches): one entry per block shape is "
                             "not translated", where)
        exprs = shapes.get(name)
        if exprs is None:
            raise self.error("E0121", f"`{name}` is a host-made tensor descriptor whose block "
                             "shape this file does not set where the translator reads it (an "
                             f"autotune `pre_hook` setting `nargs[\"{name}\"].block_shape`, or "
                             "a launch passing a `TensorDescriptor` built with a literal block "
                             "shape)", where)
        block = tuple(self.block_dim(name, e, where) for e in exprs)
        rank = len(block)
        extents, strides = [], []
        for d in range(rank):
            extents.append(self.descriptor_scalar(f"{name}_shape_{d}", name, d,
                                                  self.extent_params))
            strides.append(self.descriptor_scalar(f"{name}_stride_{d}", name, d,
                                                  self.stride_params)
                           if d < rank - 1 else const(1))
        param.block = tuple(condition_tree(b) for b in block)
        base = TExpr("ptr_param", [], param.type, param.span, {"name": name})
        self.scope.names[name] = const(  # type: ignore[attr-defined]
            Descriptor(base, tuple(extents), tuple(strides), block), param.span)

    def block_dim(self, name: str, expr: cst.BaseExpression, where: cst.CSTNode) -> object:
        value = self.expr(expr)
        dim = value.type.value if isinstance(value.type, ConstType) else None
        if isinstance(dim, DimSym | DimExpr) or isinstance(dim, int) and not isinstance(
                dim, bool) and dim > 0:
            return dim
        raise self.error("E0121", f"the block shape of the host-made tensor descriptor "
                         f"`{name}` is not a positive compile-time int", where)

    def descriptor_scalar(self, rust: str, tensor: str, dim: int,
                          into: list[tuple[str, str, int]]) -> TExpr:
        unique = self.fresh(rust)
        into.append((unique, tensor, dim))
        # A runtime parameter of the entry, as the raising pass reads one.
        return TExpr("var", [], ScalarType(I32), None, {"name": unique, "param": unique})

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

    def descriptor_attribute(self, desc: Descriptor | DescriptorType, attr: str,
                             node: cst.CSTNode) -> TExpr:
        """`desc.dtype` (its element type), `desc.block_shape`, `desc.type.block_type`'s
        `element_ty` and `shape` (compile-time)."""
        if isinstance(desc, DescriptorType):
            if desc.part == "type" and attr == "block_type":
                return const(DescriptorType(desc.desc, "block"), self.span(node))
            if desc.part == "block" and attr in ("element_ty", "shape"):
                return self.descriptor_attribute(desc.desc, "dtype" if attr == "element_ty"
                                                 else "block_shape", node)
            raise self.error("E0107", f"`.{attr}` of a tensor descriptor's type is not "
                             "translated (`.type.block_type.element_ty` and `.shape` are)",
                             node)
        if attr == "type":
            return const(DescriptorType(desc, "type"), self.span(node))
        if attr == "dtype":
            assert isinstance(desc.base.type, PointerType)
            return const(self.find(desc.base.type.dtype), self.span(node))
        if attr == "block_shape":
            return const(tuple(desc.block), self.span(node))
        raise self.error("E0107", f"`.{attr}` of a tensor descriptor is not translated "
                         "(`.dtype` and `.block_shape` are)", node)

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

