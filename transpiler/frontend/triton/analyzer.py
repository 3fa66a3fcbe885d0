"""Triton front end, part 2: one `@triton.jit` kernel -> typed `KernelModel` (Triton semantics).

Takes a `TritonSource` and one of its kernels, with the decisions the variant loop
(`frontend/triton/__init__.py`) made: which parameters are pointers or floats, which element
types are fixed. Gives the typed model: helpers inlined, `tl.constexpr` parameters as
constants (`DimSym` / `BoolSym`), module constants folded, `tl.static_range` with known
bounds unrolled, an early `return` turned into an `if` holding the rest of the kernel, and
every operation typed by Triton's rules (`dtypes.computation_type`, C-style integer `//`
and `%`, int `/` int in f32, i32 `tl.arange`, `tl.dot` in tf32 for f32 inputs unless
`input_precision` says otherwise, `tl.max`/`tl.min` ignoring NaN). Pointer arithmetic
becomes the model's pointer operations (`model.POINTER_OPS`). Raises `TranslationError`
(a diagnostic at the construct) for anything it cannot translate, and the variant loop's
requests (`NeedsKind`, `dtypes.DtypeDependent`) when a decision it was given is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from transpiler.analysis import rust_ident
from transpiler.diagnostics import Diagnostic, Span, TranslationError
from transpiler.frontend.cutile_py import dotted_name
from transpiler.frontend.triton import dtypes
from transpiler.frontend.triton.api import (
    API,
    LIBDEVICE,
    LIBDEVICE_AS_LANGUAGE,
    METHODS,
    ApiEntry,
    bind,
)
from transpiler.frontend.triton.choices import (
    BoolSym,
    FloatSym,
    NeedsChoice,
    Outcome,
    condition_text,
    condition_tree,
    host_report,
    launch_values,
    reads_float,
)
from transpiler.frontend.triton.descriptors import Descriptor, DescriptorRules, DescriptorType
from transpiler.frontend.triton.dtypes import BOOL, F32, I32, DtypeDependent
from transpiler.frontend.triton.jit_keys import jit_keys
from transpiler.frontend.triton.philox import PhiloxRules
from transpiler.frontend.triton.source import TritonKernel, TritonSource
from transpiler.lowering.pointer_ops import ATOMIC_MODES, ATOMIC_ORDERINGS, ATOMIC_SCOPES
from transpiler.model import (
    ConstType,
    Dim,
    DimExpr,
    DimSym,
    DType,
    DTypeVar,
    ElemType,
    KernelModel,
    KernelParam,
    ListType,
    PointerType,
    ScalarType,
    Shape,
    TAssign,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TJump,
    TStmt,
    TWhile,
    ValueType,
    dim_op,
)
from transpiler.model.consts import ConstParam, evaluate_condition, is_equality_pin


class NeedsKind(Exception):
    """A parameter is not what the variant loop assumed: `kind` is "pointer", "float",
    "descriptor" (a host-made tensor descriptor) or "float_const" (a `tl.constexpr` that
    holds a float)."""

    def __init__(self, param: str, kind: str) -> None:
        super().__init__(f"{param}: {kind}")
        self.param = param
        self.kind = kind


_PY_FOLD: dict[str, Callable[[object, object], object]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}
_BINOPS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/",
           cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**", cst.BitAnd: "&",
           cst.BitOr: "|", cst.BitXor: "^", cst.LeftShift: "<<", cst.RightShift: ">>"}
_AUGOPS = {cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*",
           cst.DivideAssign: "/", cst.FloorDivideAssign: "//", cst.ModuloAssign: "%",
           cst.BitAndAssign: "&", cst.BitOrAssign: "|", cst.BitXorAssign: "^",
           cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>"}
_CMPOPS = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
           cst.GreaterThanEqual: ">=", cst.Equal: "==", cst.NotEqual: "!="}
_SYMBOLIC = (DimSym, DimExpr, BoolSym)
#: `DimExpr` operators whose result is a number (the others are comparisons: truth values).
_ARITHMETIC_DIM_OPS = frozenset({"+", "-", "*", "//", "%"})
# Python's `math` functions folded on compile-time numbers (module constants).
_PYTHON_MATH: dict[str, Callable[..., float]] = {
    "math.log": math.log, "math.log2": math.log2, "math.exp": math.exp,
    "math.sqrt": math.sqrt, "math.pow": math.pow,
}
# Tensor methods that take a shape or axes as separate arguments too.
_SHAPE_METHODS = ("reshape", "view", "permute", "trans", "broadcast_to")
# `tl.PropagateNan` members, as the strings `tl.maximum` reads.
_PROPAGATE_NAN = {"PropagateNan.ALL": "ALL", "PropagateNan.NONE": "NONE"}
# `tl.dot` input precisions that round f32 inputs to tf32 (None: Triton's default).
_TF32_PRECISIONS = ("tf32", None)


@dataclass
class _Scope:
    names: dict[str, TExpr]
    prefix: str = ""


@dataclass
class Decisions:
    """What the variant loop decided before this analysis."""

    pointers: set[str] = field(default_factory=set)
    floats: set[str] = field(default_factory=set)
    descriptors: set[str] = field(default_factory=set)
    fixed: dict[str, DType] = field(default_factory=dict)
    # The parameters of `fixed` whose type was chosen among float types (arithmetic), not
    # among the types an atomic or an index allows.
    float_chosen: set[str] = field(default_factory=set)
    # `tl.constexpr` parameter -> the launch value this entry is translated for.
    values: dict[str, object] = field(default_factory=dict)
    # Condition over constexprs (text) -> its outcome in this entry.
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    # Pointer parameters tested against None (`if MASK is not None`) that this entry takes
    # as tensors; an entry that takes one as None holds it in `values`.
    present: set[str] = field(default_factory=set)
    # `tl.constexpr` parameters that hold a float (`FloatSym`: the entry takes f32 bits).
    float_consts: set[str] = field(default_factory=set)

    def copy(self, **changes: object) -> Decisions:
        fields = {"pointers": set(self.pointers), "floats": set(self.floats),
                  "descriptors": set(self.descriptors),
                  "fixed": dict(self.fixed), "float_chosen": set(self.float_chosen),
                  "values": dict(self.values),
                  "outcomes": dict(self.outcomes), "present": set(self.present),
                  "float_consts": set(self.float_consts)}
        fields.update(changes)
        return Decisions(**fields)  # type: ignore[arg-type]


def const(value: object, span: Span | None = None) -> TExpr:
    return TExpr("const", [], ConstType(value), span)


def is_const(e: TExpr) -> bool:
    return isinstance(e.type, ConstType)


def _has_runtime_form(e: TExpr) -> bool:
    """A runtime value, or a compile-time number (which has a runtime form)."""
    return not is_const(e) or _is_number(e.type.value)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | FloatSym) or isinstance(value, _SYMBOLIC)


class Analyzer(PhiloxRules, DescriptorRules):
    """Abstract interpretation of one Triton kernel body (helpers inlined; the random
    functions' rules in `philox.py`, tensor descriptors' in `descriptors.py`)."""

    def __init__(self, source: TritonSource, kernel: TritonKernel, decisions: Decisions,
                 bool_constexprs: set[str]) -> None:
        self.source = source
        self.kernel = kernel
        self.decisions = decisions
        self.bool_constexprs = bool_constexprs
        # Parameters the kernel uses as a tile's extent (read on first need).
        self.extent_names: set[str] | None = None
        self.out: list[TStmt] = []
        self.scope = _Scope({})
        self.used: dict[str, int] = {}
        self.parent: dict[int, ElemType] = {}
        self.params: list[KernelParam] = []
        self.notes: list[str] = []
        self.helper_stack: list[str] = []
        self.carried_stack: list[set[str]] = []
        # Arms of constexpr `if`s being read: Triton types only the arm a launch takes.
        self.static_arms = 0
        self.float_uses: set[str] = set()
        self.int_uses: set[str] = set()
        # The kinds ("for", "while") of the loops around the statement being analyzed.
        self.loop_kinds: list[str] = []
        # Whether the block being analyzed ends the kernel (its top level, or the arms of
        # an early exit there).
        self.kernel_tail = False
        # Host-made descriptor parameters, bound once every parameter is (their block
        # shapes read the constexprs); the runtime extents and strides they add.
        self.pending_descriptors: list[tuple[str, KernelParam]] = []
        self.extent_params: list[tuple[str, str, int]] = []
        self.stride_params: list[tuple[str, str, int]] = []

    # ---- diagnostics -------------------------------------------------------------------

    def span(self, node: cst.CSTNode) -> Span | None:
        return self.source.span(node)

    def error(self, code: str, message: str, node: cst.CSTNode | None,
              notes: Sequence[str] = ()) -> TranslationError:
        return TranslationError(Diagnostic(code, message, self.source.path,
                                           self.span(node) if node is not None else None,
                                           notes=list(notes), kernel=self.kernel.name))

    # ---- element types -----------------------------------------------------------------

    def find(self, dtype: ElemType) -> ElemType:
        while isinstance(dtype, DTypeVar) and dtype.key in self.parent:
            dtype = self.parent[dtype.key]
        return dtype

    def unify(self, a: ElemType, b: ElemType) -> ElemType:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if isinstance(a, DTypeVar) and isinstance(b, DTypeVar):
            self.parent[max(a.key, b.key)] = DTypeVar(min(a.key, b.key))
            return self.find(a)
        raise AssertionError("unify only launch-time element types")

    # ---- kernel ------------------------------------------------------------------------

    def run(self) -> KernelModel:
        fn = self.kernel.node
        for index, param in enumerate(fn.params.params):
            self.bind_param(index, param)
            # A local rebinding a parameter's name (`X += row * stride`) gets its own name.
            self.used[rust_ident(param.name.value)] = 1
        for name, param in self.pending_descriptors:
            self.bind_host_descriptor(name, param)
        for name, expr in self.kernel.heuristics.items():
            if name not in self.scope.names:
                raise self.error("E0123", f"`@triton.heuristics` sets `{name}`, which is not a "
                                 "parameter of the kernel", expr)
            self.notes.append(f"`{name}` is computed at launch by `@triton.heuristics`: "
                              f"{self.source.module.code_for_node(expr)}")
        if self.kernel.autotune is not None:
            key = self.kernel.autotune.get("key")
            self.notes.append("`@triton.autotune` chooses the constexpr values at launch" + (
                f" (key {self.source.module.code_for_node(key)})" if key is not None else ""))
        body = list(fn.body.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        self.kernel_tail = True
        self.block(body)
        model = KernelModel(self.kernel.name, self.params, self.out, _docstring(fn),
                            self.span(fn.name), notes=self.notes)
        model.split_loops = False
        model.extent_params = self.extent_params
        model.stride_params = self.stride_params
        model.dtype_variant = {p: d.name for p, d in sorted(self.decisions.fixed.items())}
        model.const_variant = dict(sorted(self.decisions.values.items()))
        model.cond_variant = {o.text: {"tree": o.tree, "value": o.value}
                              for o in self.decisions.outcomes.values()}
        self.resolve(model)
        return model

    def bind_param(self, index: int, param: cst.Param) -> None:
        name = param.name.value
        span = self.span(param)
        annotation = dotted_name(param.annotation.annotation) if param.annotation else None
        constexpr = annotation is not None and self.source.language_attr(
            param.annotation.annotation) == "constexpr" or name in self.kernel.heuristics
        default = param.default
        if name in self.decisions.values and (constexpr or self.decisions.values[name] is None):
            # A constexpr's launch value, or None for a pointer (Triton compiles a None
            # argument as a constexpr).
            fixed = self.decisions.values[name]
            kind = "bool" if isinstance(fixed, bool) else "int" if isinstance(
                fixed, int) else "value"
            self.params.append(KernelParam(name, "const", ConstType(fixed), kind, span,
                                           fixed=fixed))
            self.scope.names[name] = const(fixed, span)
            return
        if constexpr:
            kind = self.constexpr_kind(name, default)
            if kind == "float":
                self.params.append(KernelParam(name, "const", ConstType(ConstParam(
                    name, "float")), "float", span))
                self.scope.names[name] = const(FloatSym(name), span)
                return
            value: object = BoolSym(name) if kind == "bool" else DimSym(name)
            self.params.append(KernelParam(name, "const", ConstType(value), kind, span))
            self.scope.names[name] = const(value, span)
            return
        if name in self.decisions.descriptors:
            dtype = self.decisions.fixed.get(name) or DTypeVar(index)
            described = KernelParam(name, "pointer", PointerType(dtype, (), name), None, span)
            self.params.append(described)
            self.pending_descriptors.append((name, described))
            return
        if name in self.decisions.pointers:
            dtype: ElemType = self.decisions.fixed.get(name) or DTypeVar(index)
            ptype = PointerType(dtype, (), name)
            self.params.append(KernelParam(name, "pointer", ptype, None, span,
                                           jit=self.jit_keys("pointer", name, index)))
            self.scope.names[name] = TExpr("ptr_param", [], ptype, span,
                                           {"name": rust_ident(name)})
            return
        scalar = F32 if name in self.decisions.floats or _float_default(default) else I32
        if annotation is not None:
            member = self.source.language_attr(param.annotation.annotation)
            if member in dtypes.TRITON_DTYPES:
                scalar = DType(dtypes.TRITON_DTYPES[member])
        keys = self.jit_keys("int", name, index) if dtypes.is_int(scalar) else ()
        self.params.append(KernelParam(name, "scalar", ScalarType(scalar), None, span,
                                       jit=keys))
        self.scope.names[name] = TExpr("var", [], ScalarType(scalar), span,
                                       {"name": rust_ident(name), "param": name})

    def jit_keys(self, kind: str, name: str, index: int) -> tuple[tuple[str, object, str], ...]:
        """Triton's JIT specializations of this argument, less those `@triton.jit(...)`
        turns off."""
        lists = {}
        for option in ("do_not_specialize", "do_not_specialize_on_alignment"):
            node = self.kernel.options.get(option)
            value = self.const_value(node) if node is not None else ()
            lists[option] = set(value if isinstance(value, tuple) else (value,))
        return jit_keys(kind, name, index, lists["do_not_specialize"],
                        lists["do_not_specialize_on_alignment"])

    def constexpr_kind(self, name: str, default: cst.BaseExpression | None) -> str:
        if name in self.bool_constexprs:
            return "bool"
        if name in self.decisions.float_consts:
            return "float"
        if default is not None:
            value = self.const_value(default)
            if isinstance(value, bool):
                return "bool"
            if isinstance(value, int):
                return "int"
            if isinstance(value, float):
                return "float"
            # A string, dtype or None: its launch values decide the kernel.
            raise NeedsChoice(param=name)
        return "int"

    def const_value(self, node: cst.BaseExpression) -> object:
        value = self.expr(node)
        if not is_const(value):
            raise self.error("E0103", "a compile-time constant is required here", node)
        return value.type.value

    # ---- statements --------------------------------------------------------------------

    def block(self, stmts: list[cst.BaseStatement]) -> None:
        """The statements of a block. A kernel's `return` ends the block; an `if` that
        holds one (at any depth: `if MASK is not None: ... if skip: return`) takes the rest
        of the block into each of its arms, so that the exit skips it whichever way the
        `if` goes (a folded `if` keeps one arm)."""
        tail, self.kernel_tail = self.kernel_tail, False
        try:
            for index, stmt in enumerate(stmts):
                if isinstance(stmt, cst.If) and index + 1 < len(stmts) and \
                        not self.helper_stack and _holds_return(stmt):
                    if self.loop_kinds:
                        raise self.error("E0104", "a `return` inside a loop cannot be "
                                         "translated", stmt)
                    rest = list(stmts[index + 1:])
                    self.kernel_tail = tail
                    self.if_statement(stmt, list(stmt.body.body) + rest,
                                      _else_body(stmt) + rest)
                    if tail and self.out and isinstance(self.out[-1], TIf):
                        # Both arms end the kernel: no value comes out of the `if` (a
                        # pointer moved in both has no placeholder to start from).
                        self.out[-1].results = []
                    return
                try:
                    self.statement(stmt)
                except _KernelExit:
                    return
        finally:
            self.kernel_tail = tail

    def statement(self, stmt: cst.BaseStatement) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small_statement(small, stmt)
        elif isinstance(stmt, cst.If):
            body = list(stmt.body.body)
            if _ends_with_return(body) and stmt.orelse is None:
                body = body[:-1]
            self.if_statement(stmt, body, _else_body(stmt))
        elif isinstance(stmt, cst.For):
            self.for_loop(stmt)
        elif isinstance(stmt, cst.While):
            self.while_loop(stmt)
        else:
            raise self.error("E0104", f"`{type(stmt).__name__}` is not allowed in a kernel",
                             stmt)

    def small_statement(self, small: cst.BaseSmallStatement, line: cst.CSTNode) -> None:
        if isinstance(small, cst.Expr):
            if isinstance(small.value, cst.SimpleString | cst.ConcatenatedString):
                return
            value = self.expr(small.value)
            if value.op in ("atomic_ptr", "atomic_cas_ptr"):
                value.attrs["keep_old"] = False
            if not is_const(value) and value.op not in ("var", "ptr_param"):
                self.out.append(TEffect(value, self.span(small)))
        elif isinstance(small, cst.Assign):
            value = self.expr(small.value)
            for target in small.targets:
                self.assign(target.target, value, small)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.assign(small.target, self.expr(small.value), small)
        elif isinstance(small, cst.AugAssign):
            op = _AUGOPS.get(type(small.operator))
            if op is None:
                raise self.error("E0104", "this augmented assignment is not supported", small)
            current = self.expr(small.target)
            value = self.binary(op, current, self.expr(small.value), small)
            self.assign(small.target, value, small)
        elif isinstance(small, cst.Return):
            if small.value is not None or self.helper_stack:
                raise self.error("E0104", "a `return` here cannot be translated (only an early "
                                 "exit of the kernel or a helper's last statement)", small)
            if self.loop_kinds:
                raise self.error("E0104", "a `return` inside a loop cannot be translated",
                                 small)
            raise _KernelExit
        elif isinstance(small, cst.Pass):
            return
        elif isinstance(small, cst.Break | cst.Continue):
            self.jump(small)
        elif isinstance(small, cst.Assert):
            return
        else:
            raise self.error("E0104", f"`{type(small).__name__}` is not allowed in a kernel",
                             small)

    def assign(self, target: cst.BaseExpression, value: TExpr, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            items = self.unpack(value, len(target.elements), node)
            for element, item in zip(target.elements, items, strict=True):
                self.assign(element.value, item, node)
            return
        if not isinstance(target, cst.Name):
            raise self.error("E0104", "only plain names can be assigned in a kernel", target)
        self.bind_name(target.value, value, self.span(node))

    def unpack(self, value: TExpr, count: int, node: cst.CSTNode) -> list[TExpr]:
        if value.op == "pytuple" and len(value.args) == count:
            return list(value.args)
        if is_const(value) and isinstance(value.type.value, tuple) and len(
                value.type.value) == count:
            return [const(v, value.span) for v in value.type.value]
        raise self.error("E0107", f"cannot unpack this value into {count} names", node)

    def bind_name(self, name: str, value: TExpr, span: Span | None) -> None:
        if is_const(value) or value.op == "pytuple":
            self.scope.names[name] = value
            return
        previous = self.scope.names.get(name)
        carried = self.carried_stack[-1] if self.carried_stack else set()
        if name in carried and previous is not None and previous.op == "var":
            if not _same_type(previous.type, value.type):
                self.refuse_element_change(name, previous.type, value.type, span)
                value = self.coerce(value, previous.type, span)
            rust = previous.attrs["name"]
            stmt = TAssign(rust, value, span, first=False)
            self.out.append(stmt)
            self.scope.names[name] = TExpr("var", [], previous.type, span,
                                           {**previous.attrs})
            return
        rust = self.fresh(name)
        stmt = TAssign(rust, value, span)
        self.out.append(stmt)
        self.scope.names[name] = TExpr("var", [], value.type, span,
                                       {"name": rust, "binding": stmt,
                                        "root": value.attrs.get("root") or (
                                            value.attrs.get("param") if value.op == "var"
                                            else None)})

    def let_value(self, hint: str, value: TExpr) -> TExpr:
        """`value` bound to a fresh local, as the variable that names it."""
        rust = self.fresh(hint)
        self.out.append(TAssign(rust, value, value.span))
        return TExpr("var", [], value.type, value.span, {"name": rust})

    def fresh(self, name: str) -> str:
        base = rust_ident(f"{self.scope.prefix}{name}")
        count = self.used.get(base, 0)
        self.used[base] = count + 1
        return base if count == 0 else f"{base}_{count + 1}"

    def element_changes(self, a: ValueType, b: ValueType, concrete: bool = True) -> bool:
        """Whether two runtime values' element types differ (after unification): with
        `concrete`, only two different concrete types (Triton types them differently,
        whatever the launch); else also a launch-time type beside another (they may)."""
        ea, eb = (self.find(t.dtype) if isinstance(t, TileType | ScalarType) else None
                  for t in (a, b))
        if ea is None or eb is None or ea == eb:
            return False
        return not concrete or (isinstance(ea, DType) and isinstance(eb, DType))

    def refuse_element_change(self, name: str, before: ValueType, after: ValueType,
                              span: Span | None) -> None:
        """E0108 where a loop-carried or runtime-merged variable changes element type
        (an f16 sum made f32 by an f32 term): Triton's compiler refuses it ("Loop-carried
        variable ... is re-assigned to ..."; "Mismatched type ... between then block and
        else block"); converting it back would compute what Triton never does."""
        if self.element_changes(before, after):
            raise TranslationError(Diagnostic(
                "E0108", f"`{name}` changes element type in a loop or runtime `if` "
                f"({_describe(after)} instead of {_describe(before)}); Triton refuses this "
                "too: convert it explicitly (`.to(...)`)", self.source.path, span,
                kernel=self.kernel.name))

    def coerce(self, value: TExpr, target: ValueType, span: Span | None) -> TExpr:
        """`value` as a loop-carried or merged variable of type `target`."""
        if isinstance(target, TileType) and isinstance(value.type, TileType | ScalarType):
            return self.cast(self.broadcast(value, target.shape, None), target.dtype)
        if isinstance(target, ScalarType) and isinstance(value.type, TileType) and \
                not value.type.shape:
            # A 0-d tensor (`tl.sum(x, axis=0)`) is Triton's scalar.
            value = TExpr("tile_to_scalar", [value], ScalarType(value.type.dtype), value.span)
        if isinstance(target, ScalarType) and isinstance(value.type, ScalarType):
            return self.cast(value, target.dtype)
        if isinstance(target, PointerType) and isinstance(value.type, PointerType) and \
                self.find(value.type.dtype) == self.find(target.dtype):
            return self.broadcast(value, target.shape, None)
        raise TranslationError(Diagnostic(
            "E0108", f"a value changes type in a loop or branch ({_describe(value.type)} "
            f"instead of {_describe(target)}); Triton refuses this too", self.source.path,
            span, kernel=self.kernel.name))

    def materialize(self, name: str, node: cst.CSTNode) -> None:
        """A name holding a number or a non-variable value before a loop or `if` that
        reassigns it becomes a runtime variable first (`let mut`)."""
        value = self.scope.names.get(name)
        if value is None or value.op == "var":
            return
        if is_const(value):
            if not _is_number(value.type.value):
                return
            value = self.runtime(value)
        self.bind_name(name, value, self.span(node))

    def for_loop(self, node: cst.For) -> None:
        if node.orelse is not None or not isinstance(node.target, cst.Name):
            raise self.error("E0104", "only `for name in range(...)` loops are translated",
                             node)
        it = node.iter
        what = self.range_kind(it)
        if what is None:
            raise self.error("E0104", "kernel loops must iterate over `range`, `tl.range` or "
                             "`tl.static_range`", it)
        assert isinstance(it, cst.Call)
        bounds = [self.expr(a.value) for a in it.args if a.keyword is None]
        for arg in it.args:
            if arg.keyword is not None and arg.keyword.value not in (
                    "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten",
                    "warp_specialize", "disable_licm"):
                raise self.error("E0111", f"`{arg.keyword.value}=` of a loop is not supported",
                                 arg)
        if not 1 <= len(bounds) <= 3:
            raise self.error("E0102", "range takes 1 to 3 arguments", it)
        start, stop, step = (const(0), bounds[0], const(1)) if len(bounds) == 1 else (
            bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else const(1))
        if what == "static_range" and all(is_const(b) and isinstance(b.type.value, int)
                                          for b in (start, stop, step)):
            for value in range(start.type.value, stop.type.value, step.type.value):
                self.scope.names[node.target.value] = const(value, self.span(node.target))
                self.block(list(node.body.body))
            return
        descent = None
        if is_const(step) and self.counts_down(step.type.value):
            # cuTile Rust's `for` counts up: `for t in range(a, b, -s)` runs a counter `i`
            # over `range(0, max(0, (a - b + s - 1) // s))` and binds `t = a - i * s` at the
            # top of each iteration: Python's values, in Python's order (Triton's compiler
            # normalizes a negative constexpr step the same way).
            start, stop, descent = self.descending_bounds(start, stop, step.type.value, it)
            step = const(1)
        if is_const(step) and isinstance(step.type.value, int) and step.type.value == 0:
            raise self.error("E0104", "a loop step must not be zero", it)
        if not is_const(step):
            self.notes.append(f"the loop at line {(self.span(node) or Span(0, 0)).line} "
                              "steps by a runtime value, assumed positive (as Triton's own "
                              "loop lowering assumes)")
        for bound in (start, stop):
            self.note_int_use(bound)
        start, stop = self.scalar_int(start, it), self.scalar_int(stop, it)
        step_e = self.scalar_int(step, it)
        # The induction variable has the bounds' common type (Triton promotes them).
        index = self.elem(start)
        for bound in (stop, step_e):
            index = dtypes.computation_type(index, False, self.elem(bound), False, False)
        # A wide index with a runtime step has no `for` form: cuTile Rust 0.5.0's `step_by`
        # takes a usize, and its compiler casts only i32 to usize (`Expr::Cast`).
        counted = index != I32 and step_e.op != "literal"
        if counted and node.target.value in _assigned_names(node.body.body):
            raise self.error("E0110", f"a loop over {index} bounds with a runtime step whose "
                             "body assigns the loop variable has no cuTile Rust 0.5.0 form "
                             "(its `step_by` takes an i32 step only)", it)
        start, stop, step_e = (
            TExpr("literal", [], ScalarType(index), b.span, dict(b.attrs))
            if b.op == "literal" and dtypes.is_int(self.elem(b)) else self.cast(b, index)
            for b in (start, stop, step_e))
        if counted:
            # Evaluated once, before the loop, as Triton's `scf.for` takes its bounds.
            stop, step_e = (b if b.op in ("var", "literal") else self.let_value(hint, b)
                            for b, hint in ((stop, "stop"), (step_e, "step")))
        assigned = _assigned_names(node.body.body)
        for name in sorted(assigned):
            if name in self.scope.names:
                self.materialize(name, node)
        before = dict(self.scope.names)
        carried = {n for n in assigned if n in before and before[n].op == "var"}
        for name in carried:
            binding = before[name].attrs.get("binding")
            if isinstance(binding, TAssign | TIf):
                binding.mutable = True
        saved, self.out = self.out, []
        # A count-down loop's counter is not the source's variable (that is made of it).
        loop_var = self.fresh(node.target.value + ("_index" if descent else ""))
        counter = TExpr("var", [], ScalarType(start.type.dtype), self.span(node.target),
                        {"name": loop_var})
        self.scope.names[node.target.value] = counter
        self.carried_stack.append(carried)
        self.loop_kinds.append("for")
        try:
            if counted:
                self.out.append(TIf(self.compare("<", counter, stop, it), [],
                                    [TJump("break", self.span(it))], [], self.span(it)))
            if descent is not None:
                first, down = descent
                offset = self.binary("*", counter, const(down), node.target)
                self.scope.names[node.target.value] = self.binary("-", first, offset,
                                                                  node.target)
            self.block(list(node.body.body))
        finally:
            self.carried_stack.pop()
            self.loop_kinds.pop()
        body, self.out = self.out, saved
        self.restore_after_loop(before)
        names = sorted(before[n].attrs["name"] for n in carried)
        if counted:
            self.counted_loop(loop_var, counter, start, step_e, body, names, node)
            return
        self.out.append(TFor(loop_var, start, stop, step_e, body, names, self.span(node)))

    def counted_loop(self, loop_var: str, counter: TExpr, start: TExpr, step: TExpr,
                     body: list[TStmt], carried: list[str], node: cst.For) -> None:
        """`for i in range(a, b, s)` over a wide (i64) index with a runtime step, as cuTile
        Rust 0.5.0 can write it: `let mut i = a; loop { if i < b {} else { break }; body;
        i = i + s; }` (`body` starts with the exit test). Triton's kernels have no
        `continue`, so every iteration reaches the increment; the step is assumed
        positive, as for a `for` loop."""
        span = self.span(node)
        self.out.append(TAssign(loop_var, start, span, mutable=True))
        body.append(TAssign(loop_var, self.binary("+", counter, step, node), span,
                            first=False))
        self.out.append(TWhile(None, body, sorted([*carried, loop_var]), span))

    def counts_down(self, step: object) -> bool:
        """Whether a constexpr loop step is negative: a number's sign, or, for a step
        over constexpr parameters (`-BLOCK`), the outcome of `step < 0` in this entry (one
        entry per outcome, as Triton compiles each value)."""
        if isinstance(step, int) and not isinstance(step, bool):
            return step < 0
        if isinstance(step, DimSym) and self.is_tile_extent(step):
            return False
        if isinstance(step, DimExpr) and step.op == "-" and step.left == 0:
            if isinstance(step.right, DimSym) and self.is_tile_extent(step.right):
                return True
            return self.choose(DimExpr(">", step.right, 0))
        if isinstance(step, DimSym | DimExpr):
            return self.choose(DimExpr("<", step, 0))
        return False

    def is_tile_extent(self, sym: DimSym) -> bool:
        """Whether a constexpr is the extent of a tile (a tile in scope has it, or the
        kernel names it as `tl.arange(0, BLOCK)`'s end or in a `tl.zeros`/`tl.full` shape):
        Triton requires tile extents to be powers of two, so it is positive."""
        if any(isinstance(v.type, TileType | PointerType) and sym in v.type.shape
               for v in self.scope.names.values()):
            return True
        if self.extent_names is None:
            self.extent_names = _tile_extent_names(self.source, self.kernel.node)
        return sym.name in self.extent_names

    def descending_bounds(self, start: TExpr, stop: TExpr, step: object,
                          node: cst.CSTNode) -> tuple[TExpr, TExpr, tuple[TExpr, object]]:
        """The counting-up bounds `0, max(0, (a - b + s - 1) // s)` of `range(a, b, -s)`
        (`step` is -s, a negative number or a negative expression over constexprs) and
        what the loop variable is made of (`a`, `s`)."""
        first, last = self.scalar_int(start, node), self.scalar_int(stop, node)
        dtype = dtypes.computation_type(self.elem(first), False, self.elem(last), False,
                                        False)
        first, last = self.cast(first, dtype), self.cast(last, dtype)
        if isinstance(step, int):
            down: object = -step
        elif isinstance(step, DimExpr) and step.op == "-" and step.left == 0:
            down = step.right  # `-BLOCK`
        else:
            down = DimExpr("-", 0, step)
        less = down - 1 if isinstance(down, int) else DimExpr("-", down, 1)
        width = self.binary("+", self.binary("-", first, last, node), const(less), node)
        trips = self.binary("//", width, const(down), node)
        zero = self.runtime(const(0), dtype)
        trips = TExpr("scalar_minmax", [trips, zero], trips.type, self.span(node),
                      {"which": "max"})
        return self.runtime(const(0), dtype), trips, (first, down)

    def restore_after_loop(self, before: dict[str, TExpr]) -> None:
        """The scope after a loop: as before it (carried names keep their variables), plus
        the compile-time values the body bound."""
        after = self.scope.names
        self.scope.names = dict(before)
        for name, value in after.items():
            if name not in before and is_const(value):
                self.scope.names[name] = value

    def while_loop(self, node: cst.While) -> None:
        """`while cond:` -> `TWhile`. A condition that needs statements of its own (a load,
        an atomic) is computed at the top of a `loop` that breaks when it is false, so it
        runs before each iteration, as Triton evaluates it."""
        if node.orelse is not None:
            raise self.error("E0104", "`while ... else` is not allowed in a kernel", node)
        assigned = _assigned_names(node.body.body)
        for name in sorted(assigned):
            if name in self.scope.names:
                self.materialize(name, node)
        before = dict(self.scope.names)
        carried = {n for n in assigned if n in before and before[n].op == "var"}
        for name in carried:
            binding = before[name].attrs.get("binding")
            if isinstance(binding, TAssign | TIf):
                binding.mutable = True
        saved, self.out = self.out, []
        self.carried_stack.append(carried)
        self.loop_kinds.append("while")
        try:
            cond = self.while_condition(node)
            head, self.out = self.out, []
            if head or (cond is not None and not _inline_condition(cond)):
                # `if cond {} else { break }`: the cuTile Rust compiler has no `!` on a
                # scalar bool.
                exit_if = TIf(cond, [], [TJump("break", self.span(node.test))], [],
                              self.span(node.test))
                self.out = [*head, exit_if]
                cond = None
            self.block(list(node.body.body))
        finally:
            self.carried_stack.pop()
            self.loop_kinds.pop()
        body, self.out = self.out, saved
        self.restore_after_loop(before)
        self.out.append(TWhile(cond, body, sorted(before[n].attrs["name"] for n in carried),
                               self.span(node)))

    def while_condition(self, node: cst.While) -> TExpr | None:
        """The loop's condition as a runtime bool, None for one that is always true."""
        cond = self.expr(node.test)
        if is_const(cond) and not isinstance(cond.type.value, _SYMBOLIC):
            if cond.type.value:
                return None
            raise self.error("E0110", "a `while` whose condition is always false never runs; "
                             "remove it", node.test)
        if is_const(cond):
            raise self.error("E0103", "a `while` condition on a `tl.constexpr` has no cuTile "
                             "Rust form; test it with `if`", node.test)
        return self.truth(cond, node.test)

    def jump(self, node: cst.Break | cst.Continue) -> None:
        kind = "break" if isinstance(node, cst.Break) else "continue"
        if not self.loop_kinds:
            raise self.error("E0104", f"`{kind}` outside a loop", node)
        # Triton 3.9's compiler has no `break` / `continue` (its code generator rejects the
        # AST node; only its interpreter runs them): not a kernel Triton compiles.
        raise self.error("E0104", f"`{kind}` in a `@triton.jit` function: Triton's compiler "
                         "rejects it (only its interpreter runs it); carry a flag in the loop "
                         "condition instead", node)

    def range_kind(self, it: cst.BaseExpression) -> str | None:
        if not isinstance(it, cst.Call):
            return None
        if isinstance(it.func, cst.Name) and it.func.value == "range":
            return "range"
        member = self.source.language_attr(it.func)
        return member if member in ("range", "static_range") else None

    def if_statement(self, node: cst.If, then: list[cst.BaseStatement],
                     orelse: list[cst.BaseStatement]) -> None:
        cond = self.const_truth(self.expr(node.test), node.test)
        if is_const(cond):
            value = cond.type.value
            if isinstance(value, FloatSym) or reads_float(value) or (
                    isinstance(value, DimExpr) and self.decided(value) is not None):
                # Decided per entry (a float's comparison always; any other once a merge
                # needed it), as Triton's compiler folds a test of constexprs.
                value = self.choose(value)
            if not isinstance(value, _SYMBOLIC):
                self.block(then if value else orelse)
                return
            self.region_if(node, TExpr("const_cond", [], ScalarType(BOOL), cond.span,
                                       {"value": value}), then, orelse, static=True)
            return
        cond = self.truth(cond, node.test)
        self.region_if(node, cond, then, orelse, static=False)

    def const_truth(self, cond: TExpr, node: cst.CSTNode) -> TExpr:
        """An `if` on an int constexpr (or arithmetic of them) is `value != 0`, Python's
        truth of an int; anything else unchanged."""
        value = cond.type.value if is_const(cond) else None
        if isinstance(value, DimSym) or (isinstance(value, DimExpr)
                                         and value.op in _ARITHMETIC_DIM_OPS):
            return self.fold("!=", cond, const(0, cond.span), node)
        return cond

    def truth(self, cond: TExpr, node: cst.CSTNode) -> TExpr:
        """A runtime `if` condition as a scalar bool."""
        if isinstance(cond.type, TileType) and cond.type.rank == 0:
            if cond.op != "var":
                # Named first: the cuTile Rust compiler panics on `tile_to_scalar` of a bool
                # tile operation written inline.
                cond = self.let_value("cond", cond)
            cond = TExpr("tile_to_scalar", [cond], ScalarType(cond.type.dtype), cond.span)
        if not isinstance(cond.type, ScalarType):
            raise self.error("E0107", "an `if` condition must be a scalar", node)
        if self.find(cond.type.dtype) != BOOL:
            cond = self.compare("!=", cond, const(0), node)
        return cond

    def region_if(self, node: cst.If, cond: TExpr, then: list[cst.BaseStatement],
                  orelse: list[cst.BaseStatement], static: bool) -> None:
        assigned = _assigned_names(then) | _assigned_names(orelse)
        for name in sorted(assigned):
            if name in self.scope.names and not is_const(self.scope.names[name]):
                self.materialize(name, node)
        before = dict(self.scope.names)
        saved = self.out
        self.carried_stack.append(set())
        self.static_arms += static
        try:
            self.out = []
            self.block(then)
            then_body, then_names = self.out, dict(self.scope.names)
            self.scope.names = dict(before)
            self.out = []
            self.block(orelse)
            else_body, else_names = self.out, dict(self.scope.names)
        finally:
            self.carried_stack.pop()
            self.static_arms -= static
            self.out = saved
        self.scope.names = dict(before)
        stmt = TIf(cond, then_body, else_body, [], self.span(node), static)
        carried = self.carried_stack[-1] if self.carried_stack else set()
        for name in sorted(assigned):
            t_val, e_val = then_names.get(name), else_names.get(name)
            if (t_val is None) != (e_val is None) and static:
                # Defined on one outcome of a constexpr test only: a later read needs the
                # outcome fixed (one entry per value), as Triton's compiler folds the test.
                self.scope.names[name] = TExpr("one_arm", [], ConstType(None), cond.span,
                                               {"cond": cond.attrs["value"]})
                continue
            if t_val is None or e_val is None:
                continue
            if is_const(t_val) and is_const(e_val) and t_val.type == e_val.type:
                self.scope.names[name] = t_val
                continue
            if static and not (_has_runtime_form(t_val) and _has_runtime_form(e_val)):
                # A compile-time value in one arm (None, a dtype, a tuple) that no runtime
                # merge can carry: one entry per outcome, as Triton's compiler folds it.
                self.choose(cond.attrs["value"])
            if static and None not in (self.merge_elem(t_val), self.merge_elem(e_val)) and \
                    self.merge_elem(t_val) != self.merge_elem(e_val):
                # Another element type per outcome (a bool tile / `0.0`): Triton's compiler
                # types each outcome on its own; a merge would convert one arm's value.
                self.choose(cond.attrs["value"])
            target = t_val.type if not is_const(t_val) else e_val.type
            if not (is_const(t_val) or is_const(e_val)):
                if static and self.element_changes(t_val.type, e_val.type, concrete=False):
                    # Triton folds a constexpr test: the variable has the type of the arm
                    # this entry's outcome takes (the other arm is dead here).
                    target = t_val.type if self.choose(cond.attrs["value"]) else e_val.type
                else:
                    self.refuse_element_change(name, t_val.type, e_val.type,
                                               self.span(node))
            if static and isinstance(target, ConstType) and is_const(e_val):
                # Two compile-time values (`False` / a constexpr): folded per outcome.
                self.choose(cond.attrs["value"])
            if isinstance(target, ConstType) and is_const(e_val):
                raise self.error("E0108", f"`{name}` gets a different compile-time value in "
                                 "each branch of a runtime `if`", node)
            t_name = self.arm_value(name, t_val, target, then_body, node)
            e_name = self.arm_value(name, e_val, target, else_body, node)
            prev = before.get(name)
            if prev is not None and prev.op == "var" and t_name == e_name == prev.attrs["name"]:
                continue
            if name in carried and prev is not None and prev.op == "var":
                rust, first = prev.attrs["name"], False
            else:
                rust, first = self.fresh(name), True
            stmt.results.append((rust, target, t_name, e_name, first))
            # The parameter both arms' values derive from (a pointer moved in one arm is
            # still that pointer: the variant loop learns its kind from a later access).
            roots = {r for r in (_root(t_val), _root(e_val)) if r}
            self.scope.names[name] = TExpr("var", [], target, self.span(node),
                                           {"name": rust, "binding": stmt,
                                            "root": roots.pop() if len(roots) == 1 else None})
        self.out.append(stmt)

    def merge_elem(self, value: TExpr) -> ElemType | None:
        """The element type a merged value has (a number's literal type), None for other
        kinds of values."""
        if is_const(value):
            return self.elem(value) if _is_number(value.type.value) else None
        return self.find(value.type.dtype) if isinstance(value.type, TileType | ScalarType) \
            else None

    def arm_value(self, name: str, value: TExpr, target: ValueType, arm: list[TStmt],
                  node: cst.CSTNode) -> str:
        if value.op == "var" and _same_type(value.type, target):
            return value.attrs["name"]
        converted = self.coerce(self.runtime(value) if is_const(value) else value, target,
                                self.span(node))
        rust = self.fresh(name)
        arm.append(TAssign(rust, converted, self.span(node)))
        return rust

    # ---- expressions -------------------------------------------------------------------

    def expr(self, node: cst.BaseExpression) -> TExpr:
        span = self.span(node)
        if isinstance(node, cst.Integer | cst.Float):
            return const(node.evaluated_value, span)
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            return const(node.evaluated_value, span)
        if isinstance(node, cst.Name):
            return self.name(node)
        if isinstance(node, cst.Attribute):
            return self.attribute(node)
        if isinstance(node, cst.BinaryOperation):
            op = _BINOPS.get(type(node.operator))
            if op is None:
                raise self.error("E0104", "this operator is not supported", node)
            return self.binary(op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, cst.UnaryOperation):
            return self.unary(node)
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.BooleanOperation):
            op = "&" if isinstance(node.operator, cst.And) else "|"
            left, right = self.expr(node.left), self.expr(node.right)
            if is_const(left) and not isinstance(left.type.value, _SYMBOLIC):
                return (right if left.type.value else left) if op == "&" else (
                    left if left.type.value else right)
            return self.binary(op, left, right, node)
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node)
        if isinstance(node, cst.Tuple | cst.List):
            items = [self.expr(e.value) for e in node.elements]
            if all(is_const(i) for i in items):
                return const(tuple(i.type.value for i in items), span)
            return TExpr("pytuple", items, ListType(tuple(i.type for i in items)), span)
        if isinstance(node, cst.IfExp):
            cond = self.expr(node.test)
            if is_const(cond) and not isinstance(cond.type.value, _SYMBOLIC):
                return self.expr(node.body if cond.type.value else node.orelse)
            if is_const(cond):
                # A test over constexprs: Triton's compiler folds it (one entry per
                # outcome).
                return self.expr(node.body if self.choose(cond.type.value) else node.orelse)
            body, orelse = self.expr(node.body), self.expr(node.orelse)
            return self.where(cond, body, orelse, node)
        raise self.error("E0104", f"`{type(node).__name__}` is not supported in a kernel",
                         node)

    def choose(self, cond: object) -> bool:
        """The outcome, in this entry, of a compile-time choice on constexprs: a bool or
        int parameter's value is fixed per entry, any other condition's outcome is."""
        if isinstance(cond, BoolSym | DimSym):
            raise NeedsChoice(param=cond.name, truth=True)
        if isinstance(cond, FloatSym):
            cond = DimExpr("!=", cond, 0.0)
        outcome = self.decided(cond)
        if outcome is None:
            raise NeedsChoice(condition=cond)
        return outcome

    def decided(self, cond: object) -> bool | None:
        """The outcome of a condition over constexprs in this entry, None when the entry
        does not decide it: a decided condition, or one every constexpr of which a decided
        `P == c` pins (no new entries)."""
        outcome = self.decisions.outcomes.get(condition_text(cond))
        if outcome is not None:
            return outcome.value
        try:
            return bool(evaluate_condition(condition_tree(cond), self.pinned_values()))
        except (KeyError, TypeError):
            return None

    def pinned_values(self) -> dict[str, object]:
        """The constexprs this entry's decided conditions fix (`P == c` holding, `P != c`
        failing)."""
        return {o.tree[1][1]: o.tree[2] for o in self.decisions.outcomes.values()
                if is_equality_pin(o.tree, o.value)}

    def name(self, node: cst.Name) -> TExpr:
        value = self.scope.names.get(node.value)
        if value is not None and value.op == "one_arm":
            self.choose(value.attrs["cond"])
            raise self.error("E0109", f"`{node.value}` is defined on one outcome of a "
                             "compile-time test only", node)
        if value is not None:
            return value
        if node.value in ("True", "False", "None"):
            return const({"True": True, "False": False, "None": None}[node.value],
                         self.span(node))
        if node.value in self.source.constants:
            return self.module_constant(node.value)
        raise self.error("E0109", f"`{node.value}` is not defined in the kernel or the module",
                         node)

    def module_constant(self, name: str) -> TExpr:
        saved = self.scope
        self.scope = _Scope({})
        try:
            value = self.expr(self.source.constants[name])
        finally:
            self.scope = saved
        if not is_const(value):
            raise self.error("E0103", f"the module-level `{name}` is not a compile-time "
                             "constant", self.source.constants[name])
        return value

    def attribute(self, node: cst.Attribute) -> TExpr:
        member = self.source.language_attr(node)
        if member is not None:
            if member in dtypes.TRITON_DTYPES:
                return const(DType(dtypes.TRITON_DTYPES[member]), self.span(node))
            if member in _PROPAGATE_NAN:
                return const(_PROPAGATE_NAN[member], self.span(node))
            raise self.error("E0122", f"`triton.language.{member}` is not a value the "
                             "translator knows", node)
        if node.attr.value == "block_type" and isinstance(node.value, cst.Attribute) and \
                node.value.attr.value == "type":
            # `X.type.block_type`: only a tensor descriptor's type has a block type.
            described = self.expr(node.value.value)
            param = described.attrs.get("param") or described.attrs.get("root")
            if isinstance(described.type, ScalarType) and param is not None and \
                    param not in self.decisions.descriptors:
                raise NeedsKind(str(param), "descriptor")
        if node.attr.value == "element_ty":
            self.element_type_owner(node.value)
        base = self.expr(node.value)
        attr = node.attr.value
        if is_const(base) and isinstance(base.type.value, Descriptor | DescriptorType):
            return self.descriptor_attribute(base.type.value, attr, node)
        if attr == "dtype" and not is_const(base):
            if isinstance(base.type, PointerType):
                return const(("pointer", self.find(base.type.dtype)), self.span(node))
            if base.attrs.get("param") is not None:
                return const(("scalar", base.attrs["param"]), self.span(node))
            return const(self.find(base.type.dtype), self.span(node))
        if attr == "element_ty" and is_const(base) and isinstance(base.type.value, tuple) \
                and base.type.value[:1] == ("pointer",):
            return const(base.type.value[1], self.span(node))
        if attr == "element_ty" and is_const(base) and isinstance(base.type.value, tuple) \
                and base.type.value[:1] == ("scalar",):
            raise NeedsKind(str(base.type.value[1]), "pointer")
        if attr == "shape" and isinstance(base.type, TileType):
            return const(tuple(base.type.shape), self.span(node))
        if attr == "T" and isinstance(base.type, TileType) and base.type.rank == 2:
            return self.permute(base, (1, 0), node)
        raise self.error("E0107", f"`.{attr}` is not supported on this value", node)

    def element_type_owner(self, node: cst.BaseExpression) -> None:
        """`X.dtype.element_ty` names the element type of a pointer: a local `X` made of
        a parameter the analysis still takes as an integer (`row = p + pid * stride`)
        makes that parameter a pointer."""
        if not (isinstance(node, cst.Attribute) and node.attr.value == "dtype"
                and isinstance(node.value, cst.Name)):
            return
        owner = self.scope.names.get(node.value.value)
        root = owner.attrs.get("root") if owner is not None else None
        param = self.params_by_name.get(str(root))
        if param is not None and param.kind == "scalar" and \
                not isinstance(owner.type, PointerType):
            raise NeedsKind(param.name, "pointer")

    def unary(self, node: cst.UnaryOperation) -> TExpr:
        x = self.expr(node.expression)
        op = node.operator
        if is_const(x) and isinstance(x.type.value, FloatSym):
            if isinstance(op, cst.Not):
                return self.fold("==", x, const(0.0, x.span), node)
            x = self.runtime(x)
        if is_const(x) and not isinstance(x.type.value, _SYMBOLIC):
            value = x.type.value
            if isinstance(op, cst.Minus):
                return const(-value, x.span)
            if isinstance(op, cst.Plus):
                return x
            if isinstance(op, cst.Not):
                return const(not value, x.span)
            return const(~value, x.span)
        if isinstance(op, cst.Plus):
            return x
        if isinstance(op, cst.Minus):
            if is_const(x):
                return const(dim_op("-", 0, x.type.value), x.span)
            return TExpr("neg", [x], x.type, self.span(node))
        if is_const(x) and isinstance(x.type.value, BoolSym | DimSym) and isinstance(
                op, cst.Not):
            # The cuTile Rust compiler has no `!` on a const generic: one entry per value.
            raise NeedsChoice(param=x.type.value.name, truth=True)
        if is_const(x) and isinstance(op, cst.Not):
            # `not P` of a launch-time constexpr is `P == False` (`P == 0` for an int),
            # which stays a compile-time condition decided per launch value.
            zero = False if isinstance(x.type.value, BoolSym) else 0
            return self.fold("==", x, const(zero, x.span), node)
        if is_const(x):
            raise self.error("E0107", "`~` of a compile-time parameter: compare it "
                             "instead", node)
        if isinstance(op, cst.Not):
            return TExpr("not", [self.truth(x, node)], ScalarType(BOOL), self.span(node))
        if isinstance(x.type, TileType):
            # Triton's `~` is a xor with all ones (`true` for a bool tile); cuTile Rust
            # 0.5.0 declares `noti`, but its compiler has no `cuda_tile.noti` op.
            if dtypes.is_float(self.elem(x)) and not isinstance(self.find(self.elem(x)),
                                                                 DTypeVar):
                raise self.error("E0107", "`~` of a float tensor", node)
            ones: object = True if self.elem(x) == BOOL else -1
            return self.binary("^", x, const(ones, x.span), node)
        return TExpr("not", [x], x.type, self.span(node))

    def comparison(self, node: cst.Comparison) -> TExpr:
        left = self.expr(node.left)
        result: TExpr | None = None
        if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator,
                                                     cst.Is | cst.IsNot):
            return self.none_test(node.left, node.comparisons[0])
        for target in node.comparisons:
            op = _CMPOPS.get(type(target.operator))
            if op is None:
                raise self.error("E0104", "this comparison is not supported", target)
            right = self.expr(target.comparator)
            part = self.compare(op, left, right, node)
            result = part if result is None else self.binary("&", result, part, node)
            left = right
        assert result is not None
        return result

    def none_test(self, left: cst.BaseExpression, target: cst.ComparisonTarget) -> TExpr:
        """`X is None` / `X is not None`, folded as Triton's compiler folds it: X a
        compile-time value, or a pointer parameter (one entry takes it as None, another as
        a tensor)."""
        if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
            raise self.error("E0104", "`is` compares with `None` only in a kernel", target)
        value = self.expr(left)
        binding = value.attrs.get("binding")
        if value.op == "var" and isinstance(binding, TAssign) and binding.value.op == "ptr_param":
            # A pointer parameter bound to a local before an `if` that moves it.
            value = binding.value
        if is_const(value) and not isinstance(value.type.value, _SYMBOLIC):
            absent = value.type.value is None
        elif value.op == "ptr_param" or value.op == "var" and (
                value.attrs.get("param") or isinstance(value.type, PointerType)
                and value.attrs.get("root")):
            # A parameter (a pointer, or one not yet known to be: its first use decides),
            # or a local holding a pointer made of one (a pointer parameter bound to a
            # variable before an `if` that moves it).
            name = str(value.type.param if value.op == "ptr_param" else
                       value.attrs.get("param") or value.attrs["root"])
            if name not in self.decisions.present:
                raise NeedsChoice(param=name, nullable=True)
            absent = False
        else:
            raise self.error("E0104", "only a compile-time value or a pointer parameter can "
                             "be tested against `None`", left)
        return const(absent == isinstance(target.operator, cst.Is), self.span(left))

    # ---- typing helpers ----------------------------------------------------------------

    def runtime(self, e: TExpr, dtype: ElemType | None = None) -> TExpr:
        """A compile-time number as a runtime scalar (of `dtype`, else Triton's literal
        type)."""
        if not is_const(e):
            return e
        value = e.type.value
        if isinstance(value, BoolSym):
            return TExpr("const_cond", [], ScalarType(BOOL), e.span, {"value": value})
        if isinstance(value, FloatSym):
            # The f32 the entry makes of the constexpr's bits (`float_constant_lets`).
            scalar = TExpr("var", [], ScalarType(F32), e.span, {"name": rust_ident(
                value.name)})
            return scalar if dtype is None or dtype == F32 else self.cast(scalar, dtype)
        if isinstance(value, DimSym | DimExpr):
            scalar = TExpr("dim", [], ScalarType(I32), e.span, {"value": value})
            return scalar if dtype is None or dtype == I32 else self.cast(scalar, dtype)
        if not isinstance(value, int | float | bool):
            raise TranslationError(Diagnostic(
                "E0107", f"the compile-time value {value!r} has no runtime form",
                self.source.path, e.span, kernel=self.kernel.name))
        dtype = dtype or dtypes.literal_dtype(value)
        if isinstance(dtype, DTypeVar) or dtype.name in ("float16", "bfloat16") or (
                dtypes.is_float(dtype) and isinstance(value, float) and not math.isfinite(
                    value)):
            tile = TExpr("full", [], TileType(dtype, ()), e.span, {"value": value, "shape": ()})
            return TExpr("tile_to_scalar", [tile], ScalarType(dtype), e.span)
        if dtypes.is_int(dtype) and isinstance(value, float):
            value = int(value)
        return TExpr("literal", [], ScalarType(dtype), e.span, {"value": value})

    def scalar_int(self, e: TExpr, node: cst.CSTNode) -> TExpr:
        value = self.runtime(e)
        if isinstance(value.type, TileType) and not value.type.shape:
            # A 0-d tile (`tl.load` of one element) is Triton's scalar.
            value = TExpr("tile_to_scalar", [value], ScalarType(value.type.dtype), value.span)
        if isinstance(value.type, ScalarType) and isinstance(self.find(value.type.dtype),
                                                             DTypeVar):
            # A value loaded through a pointer of a launch-time element type (a loop bound
            # read from memory): one entry per integer type, as for bit operations.
            raise DtypeDependent(self.find(value.type.dtype), (dtypes.INDEX_VARIANTS,))
        if not isinstance(value.type, ScalarType) or not dtypes.is_int(self.find(
                value.type.dtype)):
            raise self.error("E0107", "an integer scalar is required here", node)
        return value

    def elem(self, e: TExpr) -> ElemType:
        if is_const(e):
            value = e.type.value
            if isinstance(value, BoolSym):
                return BOOL
            if isinstance(value, FloatSym):
                return F32
            if isinstance(value, DimSym | DimExpr):
                return I32
            if not isinstance(value, int | float | bool):
                raise TranslationError(Diagnostic(
                    "E0107", f"the compile-time value {_const_text(value)} cannot be an "
                    "operand here", self.source.path, e.span, kernel=self.kernel.name))
            return dtypes.literal_dtype(value)
        return self.find(e.type.dtype)

    def shape_of(self, e: TExpr) -> Shape:
        return tuple(e.type.shape) if isinstance(e.type, TileType | PointerType) else ()

    def broadcast_shapes(self, a: Shape, b: Shape, node: cst.CSTNode | None) -> Shape:
        rank = max(len(a), len(b))
        a = (1,) * (rank - len(a)) + tuple(a)
        b = (1,) * (rank - len(b)) + tuple(b)
        out: list[Dim] = []
        for x, y in zip(a, b, strict=True):
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            else:
                raise TranslationError(Diagnostic(
                    "E0108", f"shapes {_shape_text(a)} and {_shape_text(b)} do not broadcast",
                    self.source.path, self.span(node) if node else None,
                    kernel=self.kernel.name))
        return tuple(out)

    def broadcast(self, e: TExpr, shape: Shape, node: cst.CSTNode | None) -> TExpr:
        """`e` (a number, scalar, tile or pointer tile) spread to `shape`."""
        if is_const(e):
            e = self.runtime(e)
        if isinstance(e.type, ScalarType):
            if not shape:
                return e
            if self.find(e.type.dtype) == BOOL or e.op == "tile_to_scalar":
                tile = TExpr("scalar_to_tile", [e], TileType(e.type.dtype, ()), e.span)
                return self.broadcast(tile, shape, node)
            return TExpr("splat", [e], TileType(e.type.dtype, tuple(shape)), e.span,
                         {"shape": tuple(shape)})
        current = self.shape_of(e)
        if tuple(current) == tuple(shape):
            return e
        def make(new: Shape) -> ValueType:
            return replace(e.type, shape=new)

        prefix = "ptr_" if isinstance(e.type, PointerType) else ""
        if len(current) < len(shape):
            lifted = (1,) * (len(shape) - len(current)) + tuple(current)
            e = TExpr(prefix + "reshape", [e], make(lifted), e.span, {"shape": lifted})
            if lifted == tuple(shape):
                return e
        return TExpr(prefix + "broadcast", [e], make(tuple(shape)), e.span,
                     {"shape": tuple(shape)})

    def cast(self, e: TExpr, dtype: ElemType) -> TExpr:
        if is_const(e):
            return self.runtime(e, dtype)
        source = self.find(e.type.dtype)
        if source == self.find(dtype):
            return e
        if dtype == BOOL:
            # Triton's cast to int1 is `x != 0`.
            return self.compare("!=", e, const(0), None)
        if source == BOOL:
            # A bool is 0 or 1 in any type (never the -1 of a sign-extended i1).
            if isinstance(e.type, ScalarType) and isinstance(dtype, DTypeVar):
                # To a launch-time type: on 0-d tiles (the compiler has no scalar of a
                # generic type), as a launch-time-typed scalar is converted.
                flag = self.let_value("flag", TExpr("scalar_to_tile", [e], TileType(
                    BOOL, ()), e.span))
                one, zero = (TExpr("full", [], TileType(dtype, ()), e.span,
                                   {"value": v, "shape": ()}) for v in (1, 0))
                return TExpr("where", [flag, one, zero], TileType(dtype, ()), e.span)
            if isinstance(e.type, ScalarType):
                return TExpr("select_scalar", [e, self.runtime(const(1), dtype),
                                               self.runtime(const(0), dtype)],
                             ScalarType(dtype), e.span)
            shape = tuple(e.type.shape)
            if not shape:
                # A 0-d bool tensor: `select` takes 0-d tiles, never scalars.
                one, zero = (TExpr("full", [], TileType(dtype, ()), None,
                                   {"value": v, "shape": ()}) for v in (1, 0))
                return TExpr("where", [e, one, zero], TileType(dtype, ()), e.span)
            return TExpr("where", [e, self.operand(const(1), dtype, shape, None),
                                   self.operand(const(0), dtype, shape, None)],
                         TileType(dtype, shape), e.span)
        if isinstance(e.type, ScalarType):
            if isinstance(self.find(e.type.dtype), DTypeVar) or isinstance(dtype, DTypeVar):
                # The compiler converts a scalar of a launch-time type only as a 0-d tile.
                tile = self.let_value("as_tile", TExpr("scalar_to_tile", [e], TileType(
                    e.type.dtype, ()), e.span))
                converted = self.let_value("converted", TExpr("convert", [tile], TileType(
                    dtype, ()), e.span, {"dtype": dtype}))
                if isinstance(dtype, DTypeVar):
                    return converted
                return TExpr("tile_to_scalar", [converted], ScalarType(dtype), e.span)
            return TExpr("convert_scalar", [e], ScalarType(dtype), e.span)
        return TExpr("convert", [e], replace(e.type, dtype=dtype), e.span,
                     {"dtype": dtype})

    def operand(self, e: TExpr, dtype: ElemType, shape: Shape,
                node: cst.CSTNode | None) -> TExpr:
        """`e` as an operand of an element-wise operation computed in `dtype` at `shape`
        (a number of a launch-time type is a 0-d tile even in a 0-d operation: the cuTile
        Rust compiler has no scalar of a generic type)."""
        if is_const(e) and (shape or isinstance(self.find(dtype), DTypeVar)):
            value = e.type.value
            if isinstance(value, int | float | bool) and not isinstance(value, _SYMBOLIC):
                return TExpr("full", [], TileType(dtype, tuple(shape)), e.span,
                             {"value": value, "shape": tuple(shape)})
        return self.broadcast(self.cast(e, dtype), shape, node)

    def note_int_use(self, e: TExpr) -> None:
        param = e.attrs.get("param")
        if param is not None:
            self.int_uses.add(param)

    def note_uses(self, a: TExpr, b: TExpr) -> None:
        """Record how scalar parameters mix with other values (the variant loop makes a
        parameter only ever mixed with floats an f32)."""
        for x, y in ((a, b), (b, a)):
            param = x.attrs.get("param")
            if param is None:
                continue
            if is_const(y) or isinstance(self.elem(y), DTypeVar):
                # A number, or a value of a type the launch decides, says nothing.
                continue
            if dtypes.is_float(self.elem(y)):
                self.float_uses.add(param)
            else:
                self.int_uses.add(param)

    # ---- arithmetic --------------------------------------------------------------------

    def binary(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        if is_const(a) and is_const(b):
            return self.fold(op, a, b, node)
        if isinstance(a.type, PointerType) or isinstance(b.type, PointerType):
            return self.pointer_arith(op, a, b, node)
        self.note_uses(a, b)
        ea, eb = self.elem(a), self.elem(b)
        if isinstance(ea, DTypeVar) and isinstance(eb, DTypeVar) and ea != eb:
            self.unify(ea, eb)
        ea, eb = self.elem(a), self.elem(b)
        a_num, b_num = is_const(a), is_const(b)
        try:
            dtype = dtypes.computation_type(ea, a_num, eb, b_num, op in ("/", "%", "//"))
        except TypeError as err:
            raise self.error("E0108", f"Triton refuses `{op}` here: {err}", node) from None
        shape = self.broadcast_shapes(self.shape_of(a), self.shape_of(b), node)
        if op == "/":
            if dtypes.is_int(dtype) or dtype == BOOL:
                dtype = F32
            return self.element_op("binary", {"op": "/"}, dtype, dtype, [a, b], shape, node)
        if op in ("//", "%"):
            if not dtypes.is_int(dtype):
                raise self.error("E0121", f"`{op}` of floats is not translated yet", node)
            return self.element_op("div_trunc" if op == "//" else "rem_trunc", {}, dtype,
                                   dtype, [a, b], shape, node)
        if op in ("&", "|", "^", "<<", ">>") and isinstance(self.find(dtype), DTypeVar):
            # Bit operations on a launch-time element type: one entry per integer type.
            raise DtypeDependent(self.find(dtype), (dtypes.INDEX_VARIANTS,))
        if op in ("&", "|", "^", "<<", ">>") and not (dtypes.is_int(dtype) or dtype == BOOL):
            raise self.error("E0108", f"`{op}` needs integer or bool operands", node)
        if op == "**":
            raise self.error("E0121", "`**` is not translated yet", node)
        result = self.element_op("binary", {"op": op}, dtype, dtype, [a, b], shape, node)
        if op in ("+", "-"):
            # The parameter an address is based on, if this turns out to be one.
            result.attrs["root"] = _root(a) or (_root(b) if op == "+" else None)
        return result

    def element_op(self, op: str, attrs: dict[str, object], compute: ElemType,
                   result: ElemType, args: list[TExpr], shape: Shape,
                   node: cst.CSTNode | None) -> TExpr:
        operands = [self.operand(x, compute, shape, node) for x in args]
        span = self.span(node) if node is not None else None
        if not shape and all(isinstance(x.type, ScalarType) for x in operands):
            return TExpr(op, operands, ScalarType(result), span, attrs)
        if not shape:
            operands = [TExpr("scalar_to_tile", [x], TileType(x.type.dtype, ()), x.span)
                        if isinstance(x.type, ScalarType) else x for x in operands]
        operands = [self.broadcast(x, shape, node) for x in operands]
        return TExpr(op, operands, TileType(result, tuple(shape)), span, attrs)

    def compare(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        if is_const(a) and is_const(b):
            return self.fold(op, a, b, node)
        self.note_uses(a, b)
        ea, eb = self.elem(a), self.elem(b)
        if isinstance(ea, DTypeVar) and isinstance(eb, DTypeVar) and ea != eb:
            self.unify(ea, eb)
            ea, eb = self.elem(a), self.elem(b)
        dtype = dtypes.computation_type(ea, is_const(a), eb, is_const(b), False)
        shape = self.broadcast_shapes(self.shape_of(a), self.shape_of(b), node)
        return self.element_op("compare", {"op": op}, dtype, BOOL, [a, b], shape, node)

    def fold(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        x, y = a.type.value, b.type.value
        span = self.span(node)
        if isinstance(x, FloatSym) or isinstance(y, FloatSym):
            return self.fold_float(op, a, b, node)
        if isinstance(x, _SYMBOLIC) or isinstance(y, _SYMBOLIC):
            other = y if isinstance(x, _SYMBOLIC) else x
            sym = x if isinstance(x, _SYMBOLIC) else y
            if isinstance(other, float) and isinstance(sym, DimSym) and \
                    self.params_by_name.get(sym.name) is not None:
                # A constexpr compared or combined with a float holds a float.
                raise NeedsKind(sym.name, "float_const")
            if not isinstance(other, (int, *_SYMBOLIC)):
                # `ACTIVATION == "relu"`: the constexpr holds a string (or a dtype, None),
                # not an integer; its launch values decide the kernel.
                sym = x if isinstance(x, _SYMBOLIC) else y
                if isinstance(sym, DimSym | BoolSym):
                    raise NeedsChoice(param=sym.name)
                raise self.error("E0123", f"this `tl.constexpr` expression is compared with "
                                 f"{_const_text(other)}; only a parameter itself can be "
                                 "compared with a string, dtype or None", node)
            if op in ("+", "-", "*", "//", "%"):
                return const(dim_op(op, x, y), span)
            if op in _PY_FOLD and op not in ("/", "**", "<<", ">>"):
                return const(DimExpr(op, x, y), span)
            raise self.error("E0103", f"`{op}` of compile-time parameters cannot be folded",
                             node)
        try:
            return const(_PY_FOLD[op](x, y), span)
        except (TypeError, ZeroDivisionError, KeyError) as err:
            raise self.error("E0103", f"cannot fold `{op}` of compile-time values: {err}",
                             node) from None

    def fold_float(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        """`op` of compile-time values one of which is a float constexpr: a comparison with
        a number gets an entry per launch value, or, when no launch names one, stays a
        condition (decided per entry, as Triton's compiler folds it);
        arithmetic is computed at run time on the entry's f32 (Triton folds it in Python's
        f64 and rounds once, so a result may differ from it in the last bit)."""
        x, y = a.type.value, b.type.value
        numbers = all(isinstance(v, int | float | FloatSym) and not isinstance(v, bool)
                      for v in (x, y))
        if op in ("<", "<=", ">", ">=", "==", "!=") and numbers:
            for sym in (x, y):
                if isinstance(sym, FloatSym) and launch_values(host_report(
                        self.source.text, self.source.path), self.kernel.name, sym.name):
                    # The launches name its values: one entry per value, folded.
                    raise NeedsChoice(param=sym.name)
            return const(DimExpr(op, x, y), self.span(node))
        if op in ("<", "<=", ">", ">=", "==", "!="):
            raise self.error("E0123", f"a float `tl.constexpr` is compared with "
                             f"{_const_text(y if isinstance(x, FloatSym) else x)}", node)
        note = (f"`{self.source.module.code_for_node(node)}` at line "
                f"{(self.span(node) or Span(0, 0)).line} is computed in f32 at run time "
                "(Triton folds it in f64, then rounds)")
        if note not in self.notes:
            self.notes.append(note)
        return self.binary(op, self.runtime(a), self.runtime(b), node)

    def pointer_arith(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        pointer, offset = (a, b) if isinstance(a.type, PointerType) else (b, a)
        if op not in ("+", "-") or isinstance(offset.type, PointerType) or (
                op == "-" and pointer is b):
            raise self.error("E0108", f"`{op}` on pointers: only pointer + integer offsets "
                             "are translated", node)
        assert isinstance(pointer.type, PointerType)
        self.note_int_use(offset)
        if isinstance(self.elem(offset), DTypeVar):
            # An offset loaded from memory: the kernel is translated per index type.
            raise DtypeDependent(self.elem(offset), (dtypes.INDEX_VARIANTS,))
        if not dtypes.is_int(self.elem(offset)):
            raise self.error("E0108", "a pointer offset must be an integer", node)
        if op == "-":
            offset = self.binary("-", const(0), offset, node)
        shape = self.broadcast_shapes(pointer.type.shape, self.shape_of(offset), node)
        pointers = self.broadcast(pointer, shape, node)
        offsets = self.broadcast(self.runtime(offset), shape, node)
        if isinstance(offsets.type, ScalarType):
            offsets = TExpr("scalar_to_tile", [offsets], TileType(offsets.type.dtype, ()),
                            offsets.span)
        ptype = PointerType(pointer.type.dtype, tuple(shape), pointer.type.param)
        return TExpr("ptr_offset", [pointers, offsets], ptype, self.span(node),
                     {"root": pointer.type.param})

    def where(self, cond: TExpr, x: TExpr, y: TExpr, node: cst.CSTNode) -> TExpr:
        if is_const(cond) and isinstance(cond.type.value, _SYMBOLIC):
            # A test over constexprs: its outcome per entry, as Triton's compiler folds it.
            cond = const(self.choose(cond.type.value), cond.span)
        ex, ey = self.elem(x), self.elem(y)
        if isinstance(ex, DTypeVar) and isinstance(ey, DTypeVar) and ex != ey:
            self.unify(ex, ey)
            ex, ey = self.elem(x), self.elem(y)
        dtype = dtypes.computation_type(ex, is_const(x), ey, is_const(y), False)
        shape = self.broadcast_shapes(self.shape_of(cond), self.broadcast_shapes(
            self.shape_of(x), self.shape_of(y), node), node)
        if not shape:
            c = self.truth(self.runtime(cond), node)
            return TExpr("select_scalar", [c, self.cast(self.runtime(x), dtype),
                                           self.cast(self.runtime(y), dtype)],
                         ScalarType(dtype), self.span(node))
        c = self.broadcast(self.runtime(cond), shape, node)
        if self.elem(c) != BOOL:
            c = self.compare("!=", c, const(0), node)
        return TExpr("where", [c, self.operand(x, dtype, shape, node),
                               self.operand(y, dtype, shape, node)],
                     TileType(dtype, tuple(shape)), self.span(node))

    def permute(self, x: TExpr, axes: tuple[int, ...], node: cst.CSTNode) -> TExpr:
        assert isinstance(x.type, TileType)
        shape = tuple(x.type.shape[a] for a in axes)
        return TExpr("permute", [x], TileType(x.type.dtype, shape), self.span(node),
                     {"axes": axes})

    def subscript(self, node: cst.Subscript) -> TExpr:
        base = self.expr(node.value)
        if is_const(base):
            index = self.const_value(node.slice[0].slice.value) if isinstance(
                node.slice[0].slice, cst.Index) else None
            if isinstance(base.type.value, tuple) and isinstance(index, int):
                return const(base.type.value[index], self.span(node))
            raise self.error("E0103", "this subscript of a constant cannot be folded", node)
        if not isinstance(base.type, TileType | PointerType):
            raise self.error("E0107", "only tiles can be indexed with `[:, None]`", node)
        shape: list[Dim] = []
        axis = 0
        for element in node.slice:
            item = element.slice
            if isinstance(item, cst.Index) and isinstance(item.value, cst.Name) and \
                    item.value.value == "None":
                shape.append(1)
            elif isinstance(item, cst.Slice) and item.lower is None and item.upper is None \
                    and item.step is None:
                if axis >= len(base.type.shape):
                    raise self.error("E0108", "more `:` than the tile has dimensions", node)
                shape.append(base.type.shape[axis])
                axis += 1
            else:
                raise self.error("E0121", "only `:` and `None` subscripts of tiles are "
                                 "translated", node)
        shape.extend(base.type.shape[axis:])
        prefix = "ptr_" if isinstance(base.type, PointerType) else ""
        return TExpr(prefix + "reshape", [base], replace(base.type, shape=tuple(shape)),
                     self.span(node), {"shape": tuple(shape)})

    # ---- calls -------------------------------------------------------------------------

    def call(self, node: cst.Call) -> TExpr:
        func = node.func
        member = self.source.language_attr(func)
        libdevice = self.source.libdevice_attr(func)
        if libdevice is not None and (member is None or member not in API):
            return self.libdevice_call(libdevice, node)
        if member is not None:
            entry = API.get(member)
            if entry is None and member in dtypes.TRITON_DTYPES:
                raise self.error("E0122", f"`tl.{member}(...)` calls an element type, which "
                                 "Triton 3.9.0 rejects too (\"'dtype' object is not "
                                 f"callable\"); write the value with `.to(tl.{member})` or "
                                 f"`tl.full((), ..., tl.{member})`", func)
            if entry is None:
                raise self.error("E0122", f"`triton.language` has no function `{member}` the "
                                 "translator knows", func)
            return self.api_call(member, entry, node)
        triton = self.source.triton_attr(func)
        if triton == "cdiv":
            return self.api_call("cdiv", API["cdiv"], node)
        python_math = _PYTHON_MATH.get(dotted_name(func) or "")
        if python_math is not None:
            # `math.log(2)` in a module constant: folded at compile time, as Python does.
            values = [self.const_value(a.value) for a in node.args]
            if not all(isinstance(v, int | float) and not isinstance(v, bool)
                       for v in values):
                raise self.error("E0103", f"`{dotted_name(func)}` of a value that is not "
                                 "a compile-time number", node)
            return const(python_math(*values), self.span(node))
        if isinstance(func, cst.Attribute):
            return self.method_call(func, node)
        if isinstance(func, cst.Name):
            if func.value in self.source.jit_functions:
                return self.inline(func.value, node)
            if func.value in ("min", "max"):
                return self.builtin_minmax(func.value, node)
            if func.value == "isinstance":
                return self.isinstance_check(node)
            if func.value in ("int", "float", "bool", "len"):
                value = self.const_value(node.args[0].value)
                fold = {"int": int, "float": float, "bool": bool, "len": len}[func.value]
                return const(fold(value), self.span(node))
            if func.value in self.source.functions:
                raise self.error("E0105", f"`{func.value}` is not a `@triton.jit` function, so "
                                 "a kernel cannot call it", func)
        raise self.error("E0105", f"a call to `{dotted_name(func) or 'this'}`, which is not a "
                         "Triton function or a `@triton.jit` helper of this file", func)

    def bound(self, name: str, entry: ApiEntry, node: cst.Call
              ) -> dict[str, cst.BaseExpression | None]:
        try:
            return bind(entry, node)
        except ValueError as err:
            raise self.error("E0102", f"`tl.{name}` {err}", node) from None

    def api_call(self, name: str, entry: ApiEntry, node: cst.Call) -> TExpr:
        if entry.status != "lowered":
            raise self.error(entry.status, entry.reason, node)
        args = self.bound(name, entry, node)
        rule = getattr(self, f"rule_{entry.rule}")
        return rule(name, args, node)

    def method_call(self, func: cst.Attribute, node: cst.Call) -> TExpr:
        receiver = self.expr(func.value)
        method = func.attr.value
        if method == "to":
            args = self.bound("to", ApiEntry(("dtype", "fp_downcast_rounding=None",
                                              "bitcast=False"), "", ""), node)
            return self.convert(receiver, args, node)
        if is_const(receiver) and isinstance(receiver.type.value, Descriptor):
            return self.descriptor_method(receiver.type.value, method, node)
        described = receiver.attrs.get("param") or receiver.attrs.get("root")
        if receiver.op == "ptr_param" and isinstance(receiver.type, PointerType):
            # Taken for a pointer by `X.dtype` under `isinstance(X, tl.tensor_descriptor)`.
            described = receiver.type.param
        if method in ("load", "store") and described is not None and isinstance(
                receiver.type, ScalarType | PointerType) and \
                described not in self.decisions.descriptors:
            # Only a tensor descriptor has `.load` / `.store`: a host-made one.
            raise NeedsKind(str(described), "descriptor")
        name = METHODS.get(method)
        if name is None or is_const(receiver):
            raise self.error("E0107", f"`.{method}(...)` is not supported on this value", func)
        entry = API[name]
        call_args = list(node.args)
        if method in _SHAPE_METHODS and len(call_args) > 1 and all(
                a.keyword is None and not a.star for a in call_args):
            # `x.reshape(M, N)`: the shape given as separate arguments.
            call_args = [cst.Arg(cst.Tuple([cst.Element(a.value) for a in call_args]))]
        shifted = cst.Call(func=node.func, args=[cst.Arg(func.value), *call_args])
        try:
            args = bind(entry, shifted)
        except ValueError as err:
            raise self.error("E0102", f"`.{method}(...)` {err}", node) from None
        first = entry.signature[0].split("=")[0]
        self.pre_evaluated = {first: receiver}
        try:
            return getattr(self, f"rule_{entry.rule}")(name, args, node)
        finally:
            self.pre_evaluated = {}

    pre_evaluated: dict[str, TExpr] = {}

    def arg(self, args: dict[str, cst.BaseExpression | None], name: str) -> TExpr | None:
        if name in self.pre_evaluated:
            return self.pre_evaluated[name]
        node = args.get(name)
        return None if node is None else self.expr(node)

    def const_arg(self, args: dict[str, cst.BaseExpression | None], name: str,
                  default: object = None) -> object:
        node = args.get(name)
        return default if node is None else self.const_value(node)

    def tile_arg(self, args: dict[str, cst.BaseExpression | None], name: str,
                 node: cst.CSTNode) -> TExpr:
        value = self.arg(args, name)
        if value is None or not isinstance(value.type, TileType | ScalarType):
            raise self.error("E0107", f"`{name}` must be a tensor", node)
        return value

    def inline(self, name: str, node: cst.Call) -> TExpr:
        if name in self.helper_stack:
            raise self.error("E0106", f"`{name}` calls itself", node)
        fn = self.source.functions[name]
        params = fn.params.params
        values: dict[str, TExpr] = {}
        positional = [a for a in node.args if a.keyword is None]
        for param, arg in zip(params, positional, strict=False):
            values[param.name.value] = self.expr(arg.value)
        for arg in node.args:
            if arg.keyword is not None:
                values[arg.keyword.value] = self.expr(arg.value)
        for param in params:
            if param.name.value not in values:
                if param.default is None:
                    raise self.error("E0102", f"`{name}` needs `{param.name.value}`", node)
                values[param.name.value] = self.expr(param.default)
        # A computed argument is evaluated once, as Python evaluates it, however often the
        # helper reads its parameter (a scan or a load passed in is not repeated).
        values = {p: self.bound_argument(name, p, v) for p, v in values.items()}
        body = list(fn.body.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        saved = self.scope
        self.scope = _Scope(dict(values), f"{name.strip('_')}_")
        try:
            body = self.static_tail(body)
        finally:
            self.scope = saved
        result: cst.BaseExpression | None = None
        if body and isinstance(body[-1], cst.SimpleStatementLine) and isinstance(
                body[-1].body[-1], cst.Return):
            result = body[-1].body[-1].value
            body = [*body[:-1]] + ([cst.SimpleStatementLine(list(body[-1].body[:-1]))]
                                   if len(body[-1].body) > 1 else [])
        saved = self.scope
        self.scope = _Scope(dict(values), f"{name.strip('_')}_")
        self.helper_stack.append(name)
        try:
            self.block(body)
            value = self.expr(result) if result is not None else const(None)
        finally:
            self.helper_stack.pop()
            self.scope = saved
        return value

    def bound_argument(self, helper: str, param: str, value: TExpr) -> TExpr:
        """`value` bound to a local when it is a computed tile or scalar (pointers and
        compile-time values stay as they are: the passes after typing read pointer
        arithmetic and constants where they are used)."""
        if value.op == "var" or is_const(value) or not isinstance(value.type,
                                                                  TileType | ScalarType):
            return value
        return self.let_value(f"{helper.strip('_')}_{param}", value)

    def isinstance_check(self, node: cst.Call) -> TExpr:
        """`isinstance(x, tl.tensor_descriptor)`, decided at compile time as Triton's JIT
        decides it: true for a descriptor (made in the kernel or by the host), false for a
        pointer or a number."""
        if len(node.args) != 2 or self.source.language_attr(
                node.args[1].value) != "tensor_descriptor":
            raise self.error("E0105", "`isinstance` in a kernel is translated only as "
                             "`isinstance(x, tl.tensor_descriptor)`", node)
        value = self.expr(node.args[0].value)
        if is_const(value) and isinstance(value.type.value, Descriptor):
            return const(True, self.span(node))
        if isinstance(value.type, PointerType | ScalarType | TileType) or is_const(value):
            return const(False, self.span(node))
        raise self.error("E0107", "`isinstance` of this value cannot be decided", node)

    def static_tail(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """A helper body ending in `if C: ... return a` / `else: ... return b` on a
        compile-time `C` (`isinstance(x, tl.tensor_descriptor)`, a constexpr flag with a
        known value): the chosen arm's statements in place of the `if`, as Triton's
        compiler folds it; any other body as it is."""
        while body and isinstance(body[-1], cst.If) and _returns_value(body[-1].body.body) \
                and body[-1].orelse is not None and _returns_value(_else_body(body[-1])):
            last = body[-1]
            mark = len(self.out)
            cond = self.expr(last.test)
            if not is_const(cond) or isinstance(cond.type.value, _SYMBOLIC):
                del self.out[mark:]  # a runtime test: the body stays as it is
                break
            body = body[:-1] + list(last.body.body if cond.type.value else _else_body(last))
        return body

    def builtin_minmax(self, which: str, node: cst.Call) -> TExpr:
        values = [self.expr(a.value) for a in node.args]
        if all(is_const(v) and not isinstance(v.type.value, _SYMBOLIC) for v in values):
            fold = min if which == "min" else max
            return const(fold(v.type.value for v in values), self.span(node))
        if len(values) != 2:
            raise self.error("E0102", f"`{which}` of runtime values takes two arguments", node)
        a, b = values
        dtype = dtypes.computation_type(self.elem(a), is_const(a), self.elem(b), is_const(b),
                                        False)
        return TExpr("scalar_minmax", [self.cast(self.runtime(a), dtype),
                                       self.cast(self.runtime(b), dtype)],
                     ScalarType(dtype), self.span(node), {"which": which})

    def libdevice_call(self, name: str, node: cst.Call) -> TExpr:
        if name in LIBDEVICE_AS_LANGUAGE:
            # libdevice's `fma` is `tl.fma` (one rounding), with its typing.
            member = LIBDEVICE_AS_LANGUAGE[name]
            return self.api_call(member, API[member], node)
        if name not in LIBDEVICE:
            raise self.error("E0122", f"libdevice function `{name}` is not known to the "
                             "translator", node.func)
        fn = LIBDEVICE[name]
        if fn is None:
            raise self.error("E0120", f"libdevice `{name}` has no cuTile Rust 0.5.0 "
                             "counterpart (the crate's math functions: exp, exp2, log, log2, "
                             "sqrt, rsqrt, tanh, sin, cos, tan, sinh, cosh, floor, ceil, abs)",
                             node.func)
        if len(node.args) != 1:
            raise self.error("E0102", f"libdevice `{name}` takes one argument", node)
        return self.math(fn, self.expr(node.args[0].value), node)

    def math(self, fn: str, x: TExpr, node: cst.CSTNode) -> TExpr:
        if is_const(x):
            x = self.runtime(x)
        dtype = self.elem(x)
        if fn == "abs" and not dtypes.is_float(dtype):
            return TExpr("unary", [x], x.type, self.span(node), {"fn": "abs"})
        if not dtypes.is_float(dtype):
            x = self.cast(x, F32)
        if isinstance(x.type, ScalarType):
            # Named first: the cuTile Rust compiler cannot type a generic call's argument
            # that is itself a generic call.
            tile = self.let_value("operand", TExpr("scalar_to_tile", [x],
                                                   TileType(x.type.dtype, ()), x.span))
            result = TExpr("unary", [tile], tile.type, self.span(node), {"fn": fn})
            return TExpr("tile_to_scalar", [result], x.type, self.span(node))
        return TExpr("unary", [x], x.type, self.span(node), {"fn": fn})

    # ---- typing rules of the API table (`api.API[...].rule`) ---------------------------

    def rule_unsupported(self, name: str, args: dict, node: cst.Call) -> TExpr:
        raise self.error("E0121", f"`tl.{name}` is not translated", node)

    def rule_program_id(self, name: str, args: dict, node: cst.Call) -> TExpr:
        axis = self.const_arg(args, "axis")
        if axis not in (0, 1, 2):
            raise self.error("E0102", f"`tl.{name}` takes axis 0, 1 or 2", node)
        op = "bid" if name == "program_id" else "num_blocks"
        return TExpr(op, [], ScalarType(I32), self.span(node), {"axis": axis})

    rule_num_programs = rule_program_id

    def rule_arange(self, name: str, args: dict, node: cst.Call) -> TExpr:
        start, end = self.const_arg(args, "start"), self.const_arg(args, "end")
        size = end if start == 0 else dim_op("-", end, start)
        iota = TExpr("arange", [], TileType(I32, (size,)), self.span(node), {"size": size})
        if start == 0:
            return iota
        return self.binary("+", iota, const(start), node)

    def shape_arg(self, args: dict, name: str, node: cst.CSTNode) -> Shape:
        value = self.const_arg(args, name)
        shape = value if isinstance(value, tuple) else (value,)
        if not all(isinstance(d, int | DimSym | DimExpr) for d in shape):
            raise self.error("E0103", "a shape must be compile-time integers", node)
        return tuple(shape)

    def dtype_arg(self, args: dict, name: str, node: cst.CSTNode,
                  default: ElemType | None = None) -> ElemType:
        value = self.const_arg(args, name, default)
        if isinstance(value, DimSym):
            # A `tl.constexpr` used as an element type: one entry per value.
            raise NeedsChoice(param=value.name, dtype=True)
        if isinstance(value, str) and value in dtypes.TRITON_DTYPES:
            # A constexpr's launch value (`X_dtype=tl.float16`, read as its name).
            value = DType(dtypes.TRITON_DTYPES[value])
        if not isinstance(value, DType | DTypeVar):
            raise self.error("E0107", f"`{name}` must be a Triton dtype", node)
        return self.find(value)

    def rule_zeros(self, name: str, args: dict, node: cst.Call) -> TExpr:
        shape = self.shape_arg(args, "shape", node)
        dtype = self.dtype_arg(args, "dtype", node)
        given = self.arg(args, "value") if name == "full" else None
        value = given.type.value if given is not None and is_const(given) else (
            0 if given is None else None)
        if not isinstance(value, int | float | bool):
            scalar = self.cast(self.runtime(given), dtype)
            return self.broadcast(scalar, shape, node)
        return TExpr("full", [], TileType(dtype, shape), self.span(node),
                     {"value": value, "shape": shape})

    rule_full = rule_zeros

    def rule_zeros_like(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        return TExpr("full", [], TileType(self.elem(x), self.shape_of(x)), self.span(node),
                     {"value": 0, "shape": self.shape_of(x)})

    def pointer_arg(self, args: dict, node: cst.Call) -> TExpr:
        pointer = self.arg(args, "pointer")
        assert pointer is not None
        if isinstance(pointer.type, PointerType):
            return pointer
        root = pointer.attrs.get("root") or pointer.attrs.get("param")
        if root is not None and root not in self.decisions.pointers:
            raise NeedsKind(root, "pointer")
        raise self.error("E0107", "the address of a load or store must be a pointer or a "
                         "tile of pointers", args["pointer"] or node)

    def memory_common(self, args: dict, node: cst.Call, ignored: tuple[str, ...]
                      ) -> tuple[TExpr, TExpr | None]:
        for key in ignored:
            value = args.get(key)
            if value is not None:
                self.notes.append(f"`{key}=` of a memory access at line "
                                  f"{(self.span(node) or Span(0, 0)).line} is a cache or "
                                  "scheduling hint; it is dropped")
        pointer = self.pointer_arg(args, node)
        mask = self.arg(args, "mask")
        if mask is not None and is_const(mask) and mask.type.value is None:
            mask = None
        if mask is not None:
            shape = self.broadcast_shapes(pointer.type.shape, self.shape_of(mask), node)
            pointer = self.broadcast(pointer, shape, node)
            mask = self.broadcast(self.runtime(mask), shape, node)
            if isinstance(mask.type, ScalarType):
                mask = TExpr("scalar_to_tile", [mask], TileType(BOOL, ()), mask.span)
            if self.elem(mask) != BOOL:
                raise self.error("E0108", "a mask must be a bool tensor", node)
        return pointer, mask

    def rule_load(self, name: str, args: dict, node: cst.Call) -> TExpr:
        if args.get("boundary_check") is not None or args.get("padding_option") is not None:
            raise self.error("E0120", "`boundary_check` / `padding_option` belong to block "
                             "pointers, which have no cuTile Rust form", node)
        pointer, mask = self.memory_common(args, node, ("cache_modifier", "eviction_policy",
                                                        "volatile"))
        return self.load_through(pointer, mask, self.arg(args, "other"), node)

    def load_through(self, pointer: TExpr, mask: TExpr | None, other: TExpr | None,
                     node: cst.CSTNode) -> TExpr:
        """A load through a pointer tile, its masked lanes `other` (a literal padding where
        the crate takes one, else a tile operand)."""
        assert isinstance(pointer.type, PointerType)
        dtype = self.find(pointer.type.dtype)
        shape = tuple(pointer.type.shape)
        attrs: dict[str, object] = {"has_mask": mask is not None, "param": pointer.type.param}
        operands = [pointer] + ([mask] if mask is not None else [])
        if mask is not None and other is not None and not (is_const(other) and
                                                           other.type.value is None):
            if is_const(other) and _literal_padding(other.type.value, dtype):
                attrs["padding"] = other.type.value
            else:
                attrs["other_tile"] = True
                operands.append(self.operand(other, dtype, shape, node) if shape else
                                TExpr("scalar_to_tile", [self.cast(self.runtime(other),
                                                                   dtype)],
                                      TileType(dtype, ()), other.span))
        loaded = TExpr("load_ptr", operands, TileType(dtype, shape), self.span(node), attrs)
        if shape or isinstance(dtype, DTypeVar):
            # A launch-time element type stays a 0-d tile: cuTile Rust 0.5.0 cannot take
            # it back to a scalar.
            return loaded
        return TExpr("tile_to_scalar", [loaded], ScalarType(dtype), self.span(node))

    def stored_value(self, args: dict, key: str, pointer: TExpr, node: cst.CSTNode) -> TExpr:
        value = self.arg(args, key)
        assert value is not None and isinstance(pointer.type, PointerType)
        dtype = self.find(pointer.type.dtype)
        if not is_const(value):
            ev = self.elem(value)
            if isinstance(ev, DTypeVar) and isinstance(dtype, DTypeVar) and ev != dtype:
                self.unify(ev, dtype)
                dtype = self.find(dtype)
        shape = tuple(pointer.type.shape)
        if not is_const(value) and len(self.shape_of(value)) > len(shape):
            raise self.error("E0108", "the stored value has more dimensions than the pointer "
                             "tile", node)
        if not shape and is_const(value) and isinstance(value.type.value, int | float) and \
                isinstance(dtype, DTypeVar):
            # A number stored through one pointer of a launch-time type: the 0-d tile
            # itself (the cuTile Rust compiler has no `tile_to_scalar` of a generic type).
            return TExpr("full", [], TileType(dtype, ()), value.span,
                         {"value": value.type.value, "shape": ()})
        stored = self.operand(value, dtype, shape, node)
        if not shape:
            stored = TExpr("scalar_to_tile", [stored], TileType(dtype, ()), stored.span) \
                if isinstance(stored.type, ScalarType) else stored
        return stored

    def rule_store(self, name: str, args: dict, node: cst.Call) -> TExpr:
        if args.get("boundary_check") is not None:
            raise self.error("E0120", "`boundary_check` belongs to block pointers", node)
        pointer, mask = self.memory_common(args, node, ("cache_modifier", "eviction_policy"))
        value = self.stored_value(args, "value", pointer, node)
        if mask is None and self.shape_of(value) != tuple(pointer.type.shape):
            pointer = self.broadcast(pointer, self.shape_of(value), node)
        self.params_by_name[pointer.type.param].written = True
        operands = [pointer, value] + ([mask] if mask is not None else [])
        return TExpr("store_ptr", operands, ListType(()), self.span(node),
                     {"has_mask": mask is not None, "param": pointer.type.param})

    @property
    def params_by_name(self) -> dict[str, KernelParam]:
        return {p.name: p for p in self.params}

    def rule_atomic(self, name: str, args: dict, node: cst.Call) -> TExpr:
        pointer, mask = self.memory_common(args, node, ())
        value = self.stored_value(args, "val", pointer, node)
        assert isinstance(pointer.type, PointerType)
        dtype = self.find(pointer.type.dtype)
        if isinstance(dtype, DTypeVar):
            # The atomic mode depends on the element type: one entry per type.
            raise DtypeDependent(dtype, (dtypes.ATOMIC_VARIANTS,))
        kind = "float" if dtypes.is_float(dtype) else ("uint" if dtypes.kind(dtype) <= 1
                                                       else "int")
        function = name.removeprefix("atomic_")
        mode = ATOMIC_MODES.get((function, kind))
        if mode is None:
            raise self.error("E0120", f"`tl.{name}` on {kind} elements has no atomic mode in "
                             "cuTile Rust 0.5.0", node)
        ordering, scope = self.atomic_order(args, node)
        self.params_by_name[pointer.type.param].written = True
        operands = [pointer, value] + ([mask] if mask is not None else [])
        return TExpr("atomic_ptr", operands, TileType(dtype, tuple(pointer.type.shape)),
                     self.span(node), {"has_mask": mask is not None, "mode": mode,
                                       "ordering": ordering, "scope": scope,
                                       "param": pointer.type.param, "function": function})

    def atomic_order(self, args: dict, node: cst.Call) -> tuple[str, str]:
        sem = self.const_arg(args, "sem", "acq_rel") or "acq_rel"
        scope = self.const_arg(args, "scope", "gpu") or "gpu"
        if sem not in ATOMIC_ORDERINGS or scope not in ATOMIC_SCOPES:
            raise self.error("E0111", f"`sem={sem!r}` / `scope={scope!r}` is not a Triton "
                             "atomic ordering and scope", node)
        return ATOMIC_ORDERINGS[sem], ATOMIC_SCOPES[scope]

    def rule_atomic_cas(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`tl.atomic_cas(pointer, cmp, val)`: the old values, bit-compared (Triton's
        default `acq_rel` / `gpu`)."""
        pointer, _ = self.memory_common(args, node, ())
        cmp = self.stored_value(args, "cmp", pointer, node)
        value = self.stored_value(args, "val", pointer, node)
        assert isinstance(pointer.type, PointerType)
        dtype = self.find(pointer.type.dtype)
        if isinstance(dtype, DTypeVar):
            raise DtypeDependent(dtype, (dtypes.CAS_VARIANTS,))
        if dtype.name not in dtypes.CAS_VARIANTS and dtype.name not in ("uint32", "uint64",
                                                                       "float64"):
            raise self.error("E0120", f"`tl.atomic_cas` on {dtype.name}: Tile IR's "
                             "compare-and-swap takes 32- and 64-bit elements only", node)
        ordering, scope = self.atomic_order(args, node)
        self.params_by_name[pointer.type.param].written = True
        return TExpr("atomic_cas_ptr", [pointer, cmp, value],
                     TileType(self.find(pointer.type.dtype), tuple(pointer.type.shape)),
                     self.span(node), {"ordering": ordering, "scope": scope,
                                       "param": pointer.type.param})

    def rule_where(self, name: str, args: dict, node: cst.Call) -> TExpr:
        cond, x, y = (self.arg(args, k) for k in ("condition", "x", "y"))
        assert cond is not None and x is not None and y is not None
        return self.where(cond, x, y, node)

    def reduce_axis(self, x: TExpr, args: dict, node: cst.CSTNode) -> tuple[TExpr, int]:
        axis = self.const_arg(args, "axis")
        if not isinstance(x.type, TileType) or x.type.rank == 0:
            raise self.error("E0107", "a reduction needs a tensor", node)
        if axis is None:
            if args.get("keep_dims") is not None and x.type.rank != 1:
                raise self.error("E0121", "`keep_dims=True` of a reduction over all axes is "
                                 "not translated yet", node)
            if x.type.rank != 1:
                size = x.type.shape[0]
                for d in x.type.shape[1:]:
                    size = dim_op("*", size, d)
                x = TExpr("reshape", [x], TileType(x.type.dtype, (size,)), x.span,
                          {"shape": (size,)})
            axis = 0
        if not isinstance(axis, int) or not -x.type.rank <= axis < x.type.rank:
            raise self.error("E0102", "a reduction axis must be a dimension of the tensor",
                             node)
        return x, axis % x.type.rank

    def reduced(self, kind: str, x: TExpr, axis: int, keep: object, node: cst.CSTNode,
                dtype: ElemType | None = None) -> TExpr:
        assert isinstance(x.type, TileType)
        shape = tuple(d for i, d in enumerate(x.type.shape) if i != axis)
        result = TExpr("reduce", [x], TileType(dtype or x.type.dtype, shape), self.span(node),
                       {"kind": kind, "axis": axis})
        if keep:
            kept = tuple(1 if i == axis else d for i, d in enumerate(x.type.shape))
            return TExpr("reshape", [result], TileType(result.type.dtype, kept), result.span,
                         {"shape": kept})
        if not shape and not isinstance(result.type.dtype, DTypeVar):
            return TExpr("tile_to_scalar", [result], ScalarType(result.type.dtype),
                         result.span)
        return result

    def rule_sum(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        x, axis = self.reduce_axis(x, args, node)
        dtype = self.const_arg(args, "dtype") or dtypes.sum_dtype(self.elem(x))
        x = self.cast(x, dtype)
        if isinstance(self.elem(x), DTypeVar):
            self.notes.append("a `tl.sum` over a launch-time element type accumulates in "
                              "that type (Triton widens integers narrower than 32 bits)")
        return self.reduced("sum", x, axis, self.const_arg(args, "keep_dims"), node)

    def rule_max(self, name: str, args: dict, node: cst.Call) -> TExpr:
        if self.const_arg(args, "return_indices"):
            raise self.error("E0121", f"`tl.{name}(..., return_indices=True)` is not "
                             "translated yet (use `tl.arg{name}`)", node)
        x = self.tile_arg(args, "input", node)
        x, axis = self.reduce_axis(x, args, node)
        x = self.cast(x, dtypes.extreme_dtype(self.elem(x)))
        return self.reduced(name, x, axis, self.const_arg(args, "keep_dims"), node)

    rule_min = rule_max

    def rule_argmax(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """The first index of the maximum (minimum): the extreme, then the smallest index
        whose element equals it (Triton's tie-break to the left)."""
        x = self.tile_arg(args, "input", node)
        x, axis = self.reduce_axis(x, args, node)
        assert isinstance(x.type, TileType)
        extreme = self.reduced("max" if name == "argmax" else "min", x, axis, True, node)
        hit = self.compare("==", x, extreme, node)
        index = TExpr("arange", [], TileType(I32, (x.type.shape[axis],)), self.span(node),
                      {"size": x.type.shape[axis]})
        lifted = tuple(d if i == axis else 1 for i, d in enumerate(x.type.shape))
        index = self.broadcast(TExpr("reshape", [index], TileType(I32, lifted), index.span,
                                     {"shape": lifted}), x.type.shape, node)
        candidates = self.where(hit, index, const(2**31 - 1), node)
        return self.reduced("min", candidates, axis, self.const_arg(args, "keep_dims"), node)

    rule_argmin = rule_argmax

    def rule_cumsum(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        axis = self.const_arg(args, "axis", 0)
        if not isinstance(x.type, TileType) or not isinstance(axis, int):
            raise self.error("E0107", "`tl.cumsum` needs a tensor and an axis", node)
        dtype = self.const_arg(args, "dtype") or dtypes.sum_dtype(self.elem(x))
        x = self.cast(x, dtype)
        return TExpr("scan", [x], x.type, self.span(node),
                     {"axis": axis % x.type.rank,
                      "reverse": bool(self.const_arg(args, "reverse", False))})

    def rule_maximum(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x, y = self.arg(args, "x"), self.arg(args, "y")
        assert x is not None and y is not None
        return self.minmax(name, x, y, self.propagates_nan(args), node)

    rule_minimum = rule_maximum

    def rule_clamp(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`tl.clamp(x, min, max)`: `minimum(maximum(x, min), max)`, as Triton's
        interpreter computes it (`fmin(fmax(..))`: a NaN x gives `min` unless
        `propagate_nan=ALL`, which keeps NaN)."""
        x, low, high = self.arg(args, "x"), self.arg(args, "min"), self.arg(args, "max")
        assert x is not None and low is not None and high is not None
        propagate = self.propagates_nan(args)
        return self.minmax("minimum", self.minmax("maximum", x, low, propagate, node), high,
                           propagate, node)

    def propagates_nan(self, args: dict) -> bool:
        """`tl.PropagateNan.ALL` asks for NaN propagation; the default ignores NaN."""
        return self.const_arg(args, "propagate_nan") not in (None, "none", "NONE")

    def minmax(self, which: str, x: TExpr, y: TExpr, propagate: bool,
               node: cst.CSTNode) -> TExpr:
        result = self.binary("+", x, y, node)  # types and shapes as Triton computes them
        assert result.op == "binary"
        if isinstance(result.type, ScalarType):
            return TExpr("scalar_minmax", result.args, result.type, self.span(node),
                         {"which": which[:3]})
        result.attrs = {"op": which, "nan": propagate}
        return result

    def rule_dot(self, name: str, args: dict, node: cst.Call) -> TExpr:
        a, b = self.tile_arg(args, "input", node), self.tile_arg(args, "other", node)
        if not (isinstance(a.type, TileType) and isinstance(b.type, TileType) and
                a.type.rank == b.type.rank == 2):
            raise self.error("E0108", "`tl.dot` takes two 2-D tensors here", node)
        ea, eb = self.elem(a), self.elem(b)
        if isinstance(ea, DTypeVar) and isinstance(eb, DTypeVar) and ea != eb:
            self.unify(ea, eb)
            ea, eb = self.elem(a), self.elem(b)
        if isinstance(ea, DTypeVar):
            raise DtypeDependent(ea)
        if isinstance(eb, DTypeVar):
            raise DtypeDependent(eb)
        if ea != eb:
            raise self.error("E0108", f"`tl.dot` of {ea} and {eb}: both inputs must have one "
                             "element type", node)
        precision = self.const_arg(args, "input_precision")
        allow_tf32 = self.const_arg(args, "allow_tf32")
        if precision is None and allow_tf32 is False:
            precision = "ieee"
        if precision not in ("tf32", "ieee", None):
            raise self.error("E0121", f"`input_precision={precision!r}` is not translated",
                             node)
        out = self.const_arg(args, "out_dtype")
        acc_type: ElemType = DType("int32") if dtypes.is_int(ea) else F32
        if out is not None:
            acc_type = out
        m, n = a.type.shape[0], b.type.shape[1]
        acc = self.arg(args, "acc")
        if acc is None:
            acc = TExpr("full", [], TileType(acc_type, (m, n)), self.span(node),
                        {"value": 0, "shape": (m, n)})
        elif self.elem(acc) != acc_type:
            acc_type = self.elem(acc)
        if ea == F32 and precision in _TF32_PRECISIONS:
            tf32 = DType("tfloat32")
            a, b = self.cast(a, tf32), self.cast(b, tf32)
        return TExpr("mma", [a, b, acc], TileType(acc_type, (m, n)), self.span(node))

    def check_math_dtype(self, name: str, x: TExpr, node: cst.CSTNode) -> None:
        """E0108 where Triton 3.9 refuses `tl.<name>` of a tensor of this element type
        (`triton.language.math._check_dtype`: exp, log, sqrt and the others take fp32 or
        fp64 tensors only, no f16, bf16 or integer). A launch-time type is left to the
        launch (the f32 one compiles), and so is an arm of a constexpr `if` (Triton types
        only the arm a launch takes; the translation reads both)."""
        if self.static_arms:
            return
        allowed = dtypes.MATH_DTYPES.get(name)
        dtype = self.find(self.elem(x)) if not is_const(x) else None
        if allowed and isinstance(dtype, DType) and dtype.name not in allowed:
            raise self.error("E0108", f"Triton refuses `tl.{name}` of a {dtype} tensor "
                             f"(it takes {' or '.join(allowed)}: convert with "
                             "`.to(tl.float32)`)", node)

    def unary_rule(fn: str) -> Callable[[Analyzer, str, dict, cst.Call], TExpr]:
        def typed(self: Analyzer, name: str, args: dict, node: cst.Call) -> TExpr:
            x = self.arg(args, "x")
            assert x is not None
            self.check_math_dtype(name, x, node)
            return self.math(fn, x, node)

        return typed

    rule_math_exp = unary_rule("exp")
    rule_math_exp2 = unary_rule("exp2")
    rule_math_log = unary_rule("log")
    rule_math_log2 = unary_rule("log2")
    rule_math_sin = unary_rule("sin")
    rule_math_cos = unary_rule("cos")
    rule_math_sqrt = unary_rule("sqrt")
    rule_math_rsqrt = unary_rule("rsqrt")
    rule_math_abs = unary_rule("abs")
    rule_math_floor = unary_rule("floor")
    rule_math_ceil = unary_rule("ceil")

    def rule_sigmoid(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`1 / (1 + exp(-x))`, as Triton's own `tl.sigmoid` computes it."""
        x = self.arg(args, "x")
        assert x is not None
        # Triton's own `tl.sigmoid` calls `tl.exp`, with exp's element types.
        self.check_math_dtype("exp", x, node)
        negated = self.binary("-", const(0.0), x, node)
        return self.binary("/", const(1.0), self.binary("+", const(1.0),
                                                        self.math("exp", negated, node),
                                                        node), node)

    def rule_fma(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x, y, z = (self.arg(args, k) for k in ("x", "y", "z"))
        assert x is not None and y is not None and z is not None
        product = self.binary("*", x, y, node)
        total = self.binary("+", product, z, node)
        if total.op != "binary" or not isinstance(total.type, TileType):
            return total
        a, b = total.args[0].args if total.args[0].op == "binary" else (None, None)
        if a is None:
            return total
        return TExpr("fma", [a, b, total.args[1]], total.type, self.span(node), {})

    def rule_fdiv(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x, y = self.arg(args, "x"), self.arg(args, "y")
        assert x is not None and y is not None
        return self.binary("/", x, y, node)

    def rule_cdiv(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x, y = self.arg(args, "x"), self.arg(args, "div")
        assert x is not None and y is not None
        return self.binary("//", self.binary("-", self.binary("+", x, y, node), const(1),
                                             node), y, node)

    def rule_expand_dims(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        axis = self.const_arg(args, "axis")
        shape = list(self.shape_of(x))
        axes = axis if isinstance(axis, tuple) else (axis,)
        for a in sorted(a % (len(shape) + len(axes)) for a in axes):
            shape.insert(a, 1)
        return TExpr("reshape", [x], replace(x.type, shape=tuple(shape)) if isinstance(
            x.type, TileType) else TileType(x.type.dtype, tuple(shape)), self.span(node),
            {"shape": tuple(shape)})

    def rule_reshape(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        shape = self.shape_arg(args, "shape", node)
        return TExpr("reshape", [x], TileType(self.elem(x), shape), self.span(node),
                     {"shape": shape})

    def rule_broadcast_to(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        shape = self.shape_arg(args, "shape", node)
        return self.broadcast(x, shape, node)

    def rule_trans(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.tile_arg(args, "input", node)
        dims = self.const_arg(args, "dims")
        assert isinstance(x.type, TileType)
        axes = tuple(dims) if dims else tuple(reversed(range(x.type.rank)))
        return self.permute(x, axes, node)

    def rule_split(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`tl.split(a)`: the two halves of a last dimension of size 2, each an `extract`
        of the sub-tile at index 0 or 1 of that dimension, reshaped without it."""
        a = self.tile_arg(args, "a", node)
        assert isinstance(a.type, TileType)
        if not a.type.shape or a.type.shape[-1] != 2:
            raise self.error("E0108", "`tl.split` needs a last dimension of size 2", node)
        part = (*a.type.shape[:-1], 1)
        halves = []
        for k in (0, 1):
            indices = [self.runtime(const(0)) for _ in part[:-1]] + [self.runtime(const(k))]
            piece = TExpr("extract", [a, *indices], TileType(a.type.dtype, part),
                          self.span(node))
            halves.append(TExpr("reshape", [piece], TileType(a.type.dtype, part[:-1]),
                                self.span(node), {"shape": part[:-1]}))
        return TExpr("pytuple", halves, ListType(tuple(h.type for h in halves)),
                     self.span(node))

    def rule_join(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`tl.join(a, b)`: a new last dimension of size 2 holding `a` then `b` (a `cat` of
        both, each given a last dimension of size 1)."""
        a, b = self.tile_arg(args, "a", node), self.tile_arg(args, "b", node)
        if self.elem(a) != self.elem(b):
            raise self.error("E0108", "`tl.join` takes two tensors of one element type", node)
        shape = self.broadcast_shapes(self.shape_of(a), self.shape_of(b), node)
        lifted = (*shape, 1)
        parts = [TExpr("reshape", [self.broadcast(x, shape, node)],
                       TileType(self.elem(x), lifted), self.span(node), {"shape": lifted})
                 for x in (a, b)]
        return TExpr("cat", parts, TileType(self.elem(a), (*shape, 2)), self.span(node),
                     {"axis": len(shape)})

    def convert(self, x: TExpr, args: dict, node: cst.Call) -> TExpr:
        dtype = self.dtype_arg(args, "dtype", node)
        if self.const_arg(args, "bitcast"):
            raise self.error("E0121", "bitcasts are not translated yet", node)
        if self.const_arg(args, "fp_downcast_rounding") not in (None, "rtne"):
            raise self.error("E0121", "a rounding other than `rtne` is not translated", node)
        return self.cast(self.runtime(x) if is_const(x) else x, dtype)

    def rule_cast(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.arg(args, "input")
        assert x is not None
        return self.convert(x, args, node)

    def rule_hint(self, name: str, args: dict, node: cst.Call) -> TExpr:
        x = self.arg(args, "input")
        assert x is not None
        return x

    def rule_assume(self, name: str, args: dict, node: cst.Call) -> TExpr:
        return const(None, self.span(node))

    rule_ignored = rule_assume

    def rule_static_assert(self, name: str, args: dict, node: cst.Call) -> TExpr:
        cond = self.arg(args, "cond")
        if cond is not None and is_const(cond) and not isinstance(cond.type.value, _SYMBOLIC) \
                and not cond.type.value:
            raise self.error("E0103", "`tl.static_assert` fails for this kernel", node)
        return const(None, self.span(node))

    def rule_constexpr(self, name: str, args: dict, node: cst.Call) -> TExpr:
        """`tl.constexpr(v)`: the compile-time value itself."""
        return const(self.const_arg(args, "value"), self.span(node))

    def rule_debug_barrier(self, name: str, args: dict, node: cst.Call) -> TExpr:
        return TExpr("barrier", [], ListType(()), self.span(node))

    # ---- final types -------------------------------------------------------------------

    def resolve(self, model: KernelModel) -> None:
        """Every element type as its class representative (the specialization names one
        generic per class)."""
        def fix(vtype: object) -> object:
            if isinstance(vtype, TileType | ScalarType | PointerType):
                return replace(vtype, dtype=self.find(vtype.dtype))
            if isinstance(vtype, ConstType) and isinstance(vtype.value, DTypeVar):
                return ConstType(self.find(vtype.value))
            return vtype

        def walk(e: TExpr) -> None:
            e.type = fix(e.type)  # type: ignore[assignment]
            if "dtype" in e.attrs and isinstance(e.attrs["dtype"], DTypeVar):
                e.attrs["dtype"] = self.find(e.attrs["dtype"])
            for a in e.args:
                walk(a)

        def walk_stmts(stmts: list[TStmt]) -> None:
            for s in stmts:
                if isinstance(s, TAssign | TEffect):
                    walk(s.value)
                elif isinstance(s, TFor):
                    for e in (s.start, s.stop, s.step):
                        walk(e)
                    walk_stmts(s.body)
                elif isinstance(s, TWhile):
                    if s.cond is not None:
                        walk(s.cond)
                    walk_stmts(s.body)
                elif isinstance(s, TIf):
                    walk(s.cond)
                    walk_stmts(s.then)
                    walk_stmts(s.orelse)
                    s.results = [(r[0], fix(r[1]), r[2], r[3], r[4]) for r in s.results]

        walk_stmts(model.body)
        for p in model.params:
            p.type = fix(p.type)  # type: ignore[assignment]


# Operations a `while` condition may hold and still be tested in Rust's `while` header: the
# lowering writes each of them inline, where other operations (a load, a reduction) need
# statements of their own, which must run inside the loop before each test.
_INLINE_CONDITION_OPS = frozenset({"var", "literal", "dim", "const_cond", "not", "compare",
                                   "binary"})


def _inline_condition(e: TExpr) -> bool:
    return isinstance(e.type, ScalarType) and e.op in _INLINE_CONDITION_OPS and all(
        _inline_condition(a) for a in e.args)


def _const_text(value: object) -> str:
    if isinstance(value, DType):
        return f"`{value.name}` (a dtype)"
    if isinstance(value, tuple):
        return "(a tuple)"
    return repr(value)


def _root(e: TExpr) -> str | None:
    return e.attrs.get("root") or e.attrs.get("param")


def _literal_padding(value: object, dtype: ElemType) -> bool:
    """Whether a number is a scalar padding the crate's `load_ptr_tko` takes as written."""
    if isinstance(dtype, DTypeVar) or isinstance(value, bool) or not isinstance(
            value, int | float):
        return False
    if dtype.name in ("float32", "float64"):
        return math.isfinite(float(value))
    return dtypes.is_int(dtype) and float(value).is_integer()


def _float_default(default: cst.BaseExpression | None) -> bool:
    return isinstance(default, cst.Float)


def _same_type(a: ValueType, b: ValueType) -> bool:
    return a == b


def _describe(vtype: object) -> str:
    if isinstance(vtype, TileType):
        return f"a {vtype.dtype} tile of shape {_shape_text(vtype.shape)}"
    if isinstance(vtype, ScalarType):
        return f"a {vtype.dtype} scalar"
    if isinstance(vtype, PointerType):
        return f"pointers of shape {_shape_text(vtype.shape)}"
    return "a compile-time value"


def _shape_text(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(
        stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString)


def _docstring(fn: cst.FunctionDef) -> str | None:
    body = fn.body.body
    if body and _is_docstring(body[0]):
        value = body[0].body[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _KernelExit(Exception):
    """A kernel's `return` was reached: the rest of the block does not run."""


class _ReturnFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Return(self, node: cst.Return) -> None:
        self.found = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _holds_return(node: cst.If) -> bool:
    """Whether a `return` is somewhere inside the `if` (its arms, nested blocks)."""
    finder = _ReturnFinder()
    node.visit(finder)
    return finder.found


def _ends_with_return(body: Sequence[cst.BaseStatement]) -> bool:
    if not body:
        return False
    last = body[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(
        last.body[-1], cst.Return) and last.body[-1].value is None


def _returns_value(body: Sequence[cst.BaseStatement]) -> bool:
    """Whether a block ends with `return VALUE` (or an `if`/`else` whose arms both do)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.If):
        return last.orelse is not None and _returns_value(last.body.body) and \
            _returns_value(_else_body(last))
    return isinstance(last, cst.SimpleStatementLine) and isinstance(
        last.body[-1], cst.Return) and last.body[-1].value is not None


def _else_body(node: cst.If) -> list[cst.BaseStatement]:
    if node.orelse is None:
        return []
    if isinstance(node.orelse, cst.If):
        return [node.orelse]
    return list(node.orelse.body.body)


_SHAPED_CREATIONS = frozenset({"zeros", "full", "empty"})


def _tile_extent_names(source: TritonSource, fn: cst.FunctionDef) -> set[str]:
    """The parameters of `fn` it names as a tile's extent, never reassigning them:
    `tl.arange(0, B)`'s end, an element of a `tl.zeros((A, B))` / `tl.full` shape."""
    found: set[str] = set()

    def names(node: cst.BaseExpression) -> list[str]:
        if isinstance(node, cst.Name):
            return [node.value]
        if isinstance(node, cst.Tuple | cst.List):
            return [e.value.value for e in node.elements if isinstance(e.value, cst.Name)]
        return []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            member = source.language_attr(node.func)
            args = [a.value for a in node.args if a.keyword is None]
            if member == "arange" and len(args) == 2 and isinstance(args[0], cst.Integer) \
                    and args[0].evaluated_value == 0:
                found.update(names(args[1]))
            elif member in _SHAPED_CREATIONS and args:
                found.update(names(args[0]))

    fn.body.visit(Finder())
    params = {p.name.value for p in fn.params.params}
    return (found & params) - _assigned_names(fn.body.body)


def _assigned_names(stmts: Sequence[cst.CSTNode]) -> set[str]:
    names: set[str] = set()

    class Finder(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            _collect(node.target, names)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            _collect(node.target, names)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            _collect(node.target, names)

    for stmt in stmts:
        stmt.visit(Finder())
    return names


def _collect(target: cst.BaseExpression, names: set[str]) -> None:
    if isinstance(target, cst.Name):
        names.add(target.value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _collect(element.value, names)

