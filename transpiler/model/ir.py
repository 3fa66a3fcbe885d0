"""The typed kernel model: what the analysis pass gives and every later pass reads.

Takes nothing; gives the data types of a kernel after name resolution and typing:
element types (concrete, or a variable that specialization turns into a generic), symbolic
shapes (integers, integer constant parameters' names, and arithmetic on them), value types (tile,
scalar, array, compile-time Python value), typed expressions and statements that keep their
source span, and `KernelModel` itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from transpiler.diagnostics import Span
from transpiler.model.elements import FLOAT_DTYPES, INT_DTYPES

# ---- element types -------------------------------------------------------------------------


@dataclass(frozen=True)
class DType:
    """A concrete element type, by its model name (`float32`, `bfloat16`; a row of
    `model.elements.ELEMENTS`)."""

    name: str

    @property
    def is_float(self) -> bool:
        return self.name in FLOAT_DTYPES

    @property
    def is_int(self) -> bool:
        return self.name in INT_DTYPES

    @property
    def is_bool(self) -> bool:
        return self.name == "bool_"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DTypeVar:
    """An element type decided at launch: the dtype of one or more array parameters.

    `key` identifies the equivalence class (after unification every member points at one
    representative); specialization names it (`E`, `EX`, ...) or fixes it.
    """

    key: int

    @property
    def is_float(self) -> bool:
        return False

    @property
    def is_int(self) -> bool:
        return False

    @property
    def is_bool(self) -> bool:
        return False


ElemType = DType | DTypeVar

# ---- symbolic dimensions -------------------------------------------------------------------


@dataclass(frozen=True)
class DimSym:
    """An integer constant parameter used as a dimension (a const generic of the target)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DimExpr:
    """Arithmetic on dimensions (`2 * BM`, `D // 8`)."""

    op: str
    left: Dim
    right: Dim

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


Dim = int | DimSym | DimExpr
Shape = tuple[Dim, ...]


def dim_op(op: str, left: Dim, right: Dim) -> Dim:
    """Fold arithmetic on dimensions where both sides are known integers."""
    if isinstance(left, int) and isinstance(right, int):
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "//":
            return left // right
        if op == "%":
            return left % right
    if op == "*" and right == 1:
        return left
    if op == "*" and left == 1:
        return right
    if op == "//" and right == 1:
        return left
    return DimExpr(op, left, right)


# ---- value types ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TileType:
    dtype: ElemType
    shape: Shape

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class ScalarType:
    """A runtime scalar (a 0-d value that is not a compile-time constant)."""

    dtype: ElemType


@dataclass(frozen=True)
class ArrayType:
    """An array in global memory: a kernel's array parameter, or a view of one
    (`Array.slice`), which keeps the parameter it views as `param`.

    `static_dims` lists the (axis, size) pairs of the dimensions known at compile time (a
    slice between compile-time bounds); every other dimension is a runtime value.
    """

    dtype: ElemType
    ndim: int
    param: str
    static_dims: tuple[tuple[int, Dim], ...] = ()

    def static_dim(self, axis: int) -> Dim | None:
        """The compile-time size of dimension `axis`, or None when it is a runtime value."""
        return dict(self.static_dims).get(axis)


@dataclass(frozen=True)
class ConstType:
    """A compile-time Python value: int, float, bool, None, str, dtype, enum member, tuple.

    `value` holds the Python value, a `DimSym`/`DimExpr` for symbolic ints, a `DType`/
    `DTypeVar` for dtypes, or an `EnumValue`.
    """

    value: object


@dataclass(frozen=True)
class EnumValue:
    """A member of a cuda.tile enum (`PaddingMode.ZERO`, `RoundingMode.APPROX`)."""

    enum: str
    member: str


@dataclass(frozen=True)
class ListType:
    """A Python list/tuple of runtime values (e.g. a tuple returned by a helper)."""

    items: tuple[ValueType, ...]


@dataclass(frozen=True)
class PointerType:
    """A pointer into global memory, or a tile of them (Triton's `x_ptr + offs`).

    `param` is the pointer parameter every pointer of the tile is derived from (memory order
    is kept per parameter); `shape` is `()` for one pointer (the parameter itself, or it
    moved by a scalar offset).
    """

    dtype: ElemType
    shape: Shape
    param: str

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class TokenType:
    """A memory-ordering token: a memory operation waits on one and gives one."""


ValueType = TileType | ScalarType | ArrayType | ConstType | ListType | PointerType | TokenType

# Pointer operations of the model (a front end with pointer parameters produces them; the
# lowering rules are in `lowering/pointer_ops.py`). Each memory operation's attrs carry its
# token discipline: `wait` (token variable it waits on, or None) and `record` (pairs
# (token variable, "set" | "join") updated from the operation's own token afterwards).
POINTER_OPS: dict[str, str] = {
    "ptr_param": "a pointer parameter as a 0-d pointer tile",
    "ptr_reshape": "pointer tile reshaped (attrs shape)",
    "ptr_broadcast": "pointer tile broadcast (attrs shape)",
    "ptr_offset": "pointer tile moved by an integer tile of the same shape (element units)",
    "load_ptr": "gather through a pointer tile: args (pointers[, mask][, other])",
    "store_ptr": "scatter through a pointer tile: args (pointers, value[, mask])",
    "atomic_ptr": "read-modify-write through a pointer tile: args (pointers, value[, mask])",
    "atomic_cas_ptr": "compare-and-swap through a pointer tile: args (pointers, cmp, value)",
    "make_token": "a fresh token that orders nothing",
    "load_ptr_view": "a raised load (`lowering/raise_pointers`): args (base pointer, extents, "
                     "strides, tile index); attrs rank, tile, view_padding, unit_strides",
    "store_ptr_view": "a raised store: args (base pointer, extents, strides, tile index, value)",
}


# ---- typed expressions ---------------------------------------------------------------------


@dataclass
class TExpr:
    """A typed expression node.

    `op` names the operation: an entry of the lowering table (`load`, `exp2`, `add`, ...),
    or one of the structural kinds `var`, `const`, `tuple`, `item` (tuple element).
    `args` are operands; `attrs` hold compile-time arguments already evaluated (shapes,
    axes, modes, keyword flags); `type` is the result type.
    """

    op: str
    args: list[TExpr]
    type: ValueType
    span: Span | None = None
    attrs: dict[str, object] = field(default_factory=dict)


# ---- typed statements ----------------------------------------------------------------------


@dataclass
class TAssign:
    """`name = value`; `first` tells whether this binding introduces the name."""

    name: str
    value: TExpr
    span: Span | None = None
    first: bool = True
    mutable: bool = False


@dataclass
class TEffect:
    """An expression evaluated for its effect (a store, a scatter, an atomic)."""

    value: TExpr
    span: Span | None = None


@dataclass
class TFor:
    var: str
    start: TExpr
    stop: TExpr
    step: TExpr
    body: list[TStmt]
    carried: list[str]
    span: Span | None = None


@dataclass
class TWhile:
    """`while cond { body }`, or `loop { body }` when `cond` is None (`while True:`); the
    condition is evaluated inside the loop, before each iteration."""

    cond: TExpr | None
    body: list[TStmt]
    carried: list[str]
    span: Span | None = None


@dataclass
class TJump:
    """`break` or `continue` of the innermost loop."""

    kind: str
    span: Span | None = None


@dataclass
class TIf:
    """`if cond {then} else {orelse}`; `results` are the values the if gives to names used
    after it: (rust name, type, then-arm name, else-arm name, first binding?)."""

    cond: TExpr
    then: list[TStmt]
    orelse: list[TStmt]
    merged: list[str]
    span: Span | None = None
    static: bool = False
    results: list[tuple[str, object, str, str, bool]] = field(default_factory=list)
    mutable: bool = False
    # Result names whose declaration shadows an earlier binding of the same Rust name and
    # type: declared before the `if`, they start from that value.
    inherits: set[str] = field(default_factory=set)


@dataclass
class TDeclare:
    """A name assigned in a branch or loop body and used after it: declared before it."""

    name: str
    type: ValueType
    span: Span | None = None


@dataclass
class TReturn:
    span: Span | None = None


@dataclass
class TComment:
    text: str


TStmt = TAssign | TEffect | TFor | TWhile | TIf | TDeclare | TReturn | TComment | TJump


def walk_statements(stmts: list[TStmt]) -> Iterator[TStmt]:
    """Every statement, nested blocks included, in program order (a loop or an `if`
    before the statements of its blocks)."""
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, TFor | TWhile):
            yield from walk_statements(stmt.body)
        elif isinstance(stmt, TIf):
            yield from walk_statements(stmt.then)
            yield from walk_statements(stmt.orelse)


def statement_exprs(stmts: list[TStmt]) -> Iterator[TExpr]:
    """The expressions the statements evaluate, nested blocks included, in program order
    (a loop's bounds before its body, an `if`'s condition before its arms)."""
    for stmt in stmts:
        if isinstance(stmt, TAssign | TEffect):
            yield stmt.value
        elif isinstance(stmt, TFor):
            yield from (stmt.start, stmt.stop, stmt.step)
            yield from statement_exprs(stmt.body)
        elif isinstance(stmt, TWhile):
            if stmt.cond is not None:
                yield stmt.cond
            yield from statement_exprs(stmt.body)
        elif isinstance(stmt, TIf):
            yield stmt.cond
            yield from statement_exprs(stmt.then)
            yield from statement_exprs(stmt.orelse)


# ---- kernels -------------------------------------------------------------------------------


@dataclass
class KernelParam:
    """A kernel parameter and what it is: `array`, `pointer`, `scalar` or `const`."""

    name: str
    kind: str
    type: ValueType
    const_kind: str | None = None  # "int", "bool", "float" for a constant parameter
    span: Span | None = None
    written: bool = False  # an array the kernel stores to
    fixed: object = None  # a float constant folded to the value every launch passes
    # Specializations the source language's JIT makes on this runtime argument:
    # (key, condition tree over ["arg"], fact) (Triton: `frontend/triton/jit_keys.py`).
    jit: tuple[tuple[str, object, str], ...] = ()
    # A pointer that a host-made tensor descriptor carries (Triton): the descriptor's block
    # shape, one condition tree (`consts.condition_tree`) per dimension.
    block: tuple[object, ...] | None = None


@dataclass
class KernelModel:
    name: str
    params: list[KernelParam]
    body: list[TStmt]
    docstring: str | None
    span: Span | None
    hints: dict[str, object] = field(default_factory=dict)
    # Union-find over dtype variables: class representative per variable key.
    dtype_classes: dict[int, int] = field(default_factory=dict)
    # Which concrete dtype, if any, the body forces on a dtype class.
    forced_dtypes: dict[int, DType] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Extra runtime f32 parameters standing for folded float expressions: (name, tree).
    derived_params: list[tuple[str, object]] = field(default_factory=list)
    # Extra runtime i32 parameters carrying array strides: (name, array, dim).
    stride_params: list[tuple[str, str, int]] = field(default_factory=list)
    # Extra runtime i32 parameters carrying a tensor's extent: (name, tensor, dim).
    extent_params: list[tuple[str, str, int]] = field(default_factory=list)
    # Constant parameter -> the value this variant is translated for.
    const_variant: dict[str, object] = field(default_factory=dict)
    # Condition over constants (Rust text) -> {"tree": JSON condition, "value": outcome}.
    cond_variant: dict[str, dict[str, object]] = field(default_factory=dict)
    # Array parameter -> model dtype this variant is translated for (empty: generic).
    dtype_variant: dict[str, str] = field(default_factory=dict)
    # The JIT facts this entry is translated under, (parameter, key of its `jit`), and the
    # suffix of its name (empty: the general entry, correct for every argument).
    jit_facts: tuple[tuple[str, str], ...] = ()
    jit_suffix: str = ""
    # Whether lowering may split a loop that branches on its index (a habit of cuTile
    # Python's compiler, reproduced for its kernels; the front end's pass profile decides).
    split_loops: bool = True
