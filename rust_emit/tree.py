"""The Rust syntax tree the lowering pass builds and the printer prints.

Takes nothing; gives small immutable node types covering the part of Rust that cuTile Rust
kernels use: items (module, use, fn, const), statements (let, expression, for, if),
expressions (paths, calls, method calls, binary/unary ops, literals, blocks, tuples, fields,
casts, macros with token text) and types. Comments ride on items and statements so the
printer can place them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

# ---- types ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RType:
    """A type written as text (`Tile<E, { [1, TILE_N] }>`, `i32`, `&Tensor<E, { [-1] }>`)."""

    text: str


# ---- expressions ---------------------------------------------------------------------------


class Expr:
    """Base of expression nodes."""


@dataclass(frozen=True)
class Path(Expr):
    text: str


@dataclass(frozen=True)
class Lit(Expr):
    text: str


@dataclass(frozen=True)
class Call(Expr):
    func: str
    args: tuple[Expr, ...]
    turbofish: tuple[str, ...] = ()


@dataclass(frozen=True)
class MethodCall(Expr):
    receiver: Expr
    method: str
    args: tuple[Expr, ...]
    turbofish: tuple[str, ...] = ()


@dataclass(frozen=True)
class Field(Expr):
    base: Expr
    name: str


@dataclass(frozen=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True)
class Cast(Expr):
    expr: Expr
    ty: str


@dataclass(frozen=True)
class Ref(Expr):
    expr: Expr
    mutable: bool = False


@dataclass(frozen=True)
class TupleExpr(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class ArrayExpr(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class StructLit(Expr):
    """`Path { field: value, .. }` (e.g. `Shape::<{ [-1] }> { dims: &[n] }`)."""

    path: str
    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class MacroCall(Expr):
    """`name![args]` with the arguments as expressions (e.g. `const_shape![TILE, 1]`)."""

    name: str
    args: tuple[Expr, ...]
    delimiter: str = "["


@dataclass(frozen=True)
class Range(Expr):
    start: Expr
    end: Expr


@dataclass(frozen=True)
class BlockExpr(Expr):
    """`{ stmts; tail }`, optionally `unsafe`."""

    stmts: tuple[Stmt, ...]
    tail: Expr | None = None
    unsafe: bool = False


@dataclass(frozen=True)
class IfExpr(Expr):
    cond: Expr
    then: BlockExpr
    orelse: BlockExpr | IfExpr | None = None


# ---- statements ----------------------------------------------------------------------------


class Stmt:
    """Base of statement nodes."""


@dataclass(frozen=True)
class Let(Stmt):
    pattern: str
    value: Expr | None
    ty: RType | None = None
    mutable: bool = False
    comment: str | None = None


@dataclass(frozen=True)
class Assign(Stmt):
    target: str
    value: Expr
    comment: str | None = None


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr
    semicolon: bool = True
    comment: str | None = None


@dataclass(frozen=True)
class ForLoop(Stmt):
    var: str
    iterable: Expr
    body: BlockExpr
    comment: str | None = None


@dataclass(frozen=True)
class WhileLoop(Stmt):
    """`while cond { body }`, or `loop { body }` when `cond` is None."""

    cond: Expr | None
    body: BlockExpr
    comment: str | None = None


@dataclass(frozen=True)
class Jump(Stmt):
    """`break;` or `continue;`."""

    kind: str


@dataclass(frozen=True)
class Comment(Stmt):
    text: str


# ---- items ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    ty: RType


@dataclass(frozen=True)
class GenericParam:
    """`E: ElementType` or `const TILE: i32`."""

    text: str


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple[Param, ...]
    body: BlockExpr
    generics: tuple[GenericParam, ...] = ()
    ret: RType | None = None
    attributes: tuple[str, ...] = ()
    doc: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()
    unsafe: bool = False
    public: bool = False


@dataclass(frozen=True)
class Use:
    path: str


@dataclass(frozen=True)
class Module:
    name: str
    items: tuple[Use | Function, ...]
    attributes: tuple[str, ...] = ()
    doc: tuple[str, ...] = ()
    public: bool = True


@dataclass(frozen=True)
class SourceFile:
    header: tuple[str, ...]
    modules: tuple[Module, ...]
    inner_attributes: tuple[str, ...] = field(default=())


def replace_node(node: object, target: Expr, new: Expr) -> tuple[object, int]:
    """`node` (an expression, a statement, or a tuple of them) with every occurrence of the
    object `target` (by identity, not by value) replaced by `new`, and how many there were."""
    if node is target:
        return new, 1
    if isinstance(node, tuple):
        items, count = [], 0
        for item in node:
            item, found = replace_node(item, target, new)
            items.append(item)
            count += found
        return (tuple(items), count) if count else (node, 0)
    if not isinstance(node, Expr | Stmt):
        return node, 0
    changes, count = {}, 0
    for f in fields(node):  # type: ignore[arg-type]
        value, found = replace_node(getattr(node, f.name), target, new)
        if found:
            changes[f.name] = value
            count += found
    return (replace(node, **changes), count) if count else (node, 0)  # type: ignore[type-var]


def is_operation(e: Expr) -> bool:
    """Worth a `let` of its own: it computes something (a name, a literal, a shape does not)."""
    if isinstance(e, MethodCall):
        return e.method != "shape"
    if isinstance(e, Unary):
        return not isinstance(e.operand, Lit)  # `-1i32` is a literal, spelled with a sign
    return isinstance(e, Call | Binary | Field)
