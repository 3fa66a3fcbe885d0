"""Analysis pass: `SourceModule` + one kernel -> typed `KernelModel`.

Takes the indexed syntax of a cuTile Python file and one of its kernels; gives the kernel's
typed model: every value's kind (tile, scalar, array, compile-time constant), element type
(concrete or a dtype variable unified across the arrays that must share it) and symbolic
tile shape. It evaluates compile-time Python (constants, `ct.Constant` parameters, dtypes,
enum members, shape tuples) as it goes, inlines helper functions, and makes every implicit
broadcast and dtype promotion of cuTile Python explicit as `broadcast`/`reshape`/`convert`
nodes, because cuTile Rust has none of them implicitly. Anything it cannot type raises a
`TranslationError` with the construct's span. Code that types differently per launch-time
element type or `ct.Constant` value stops the analysis with a split request
(`frontend/splits.py`); `frontend/variants.py` then analyzes each variant it asks for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from transpiler import region_holes
from transpiler.diagnostics import Diagnostic, Span, TranslationError, UnhandledConstruct
from transpiler.frontend.cutile_py import (
    KernelDef,
    SourceModule,
    dotted_name,
    sibling,
    tile_attr,
)
from transpiler.frontend.host_values import launch_constants
from transpiler.frontend.splits import (
    ConstDependentError,
    DtypeDependentError,
    DtypeSplit,
    SplitNeeded,
    SplitRequest,
    innermost_condition,
    static_pin_split,
)
from transpiler.frontend.syntax_facts import SyntaxFacts
from transpiler.lowering import signatures
from transpiler.lowering.fma import contract_fma
from transpiler.lowering.rust_names import rust_ident
from transpiler.model import (
    ALL_DTYPES,
    ArrayType,
    ConstType,
    Dim,
    DimExpr,
    DimSym,
    DType,
    DTypeVar,
    ElemType,
    EnumValue,
    KernelModel,
    KernelParam,
    ListType,
    ScalarType,
    Shape,
    TAssign,
    TDeclare,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TJump,
    TReturn,
    TStmt,
    TWhile,
    ValueType,
    dim_op,
    statement_exprs,
    walk_statements,
)
from transpiler.model.consts import (
    BOOL,
    F32,
    I32,
    NEGATED,
    PY_OPS,
    ConstExpr,
    ConstParam,
    TypedConst,
    const,
    expression_tree,
    first_param,
    is_bool_expression,
    is_concrete,
    is_const,
    is_equality_pin,
    is_float_const,
    is_float_expression,
    params_in,
)
from transpiler.model.consts import evaluate_condition as evaluate_condition  # re-exported
from transpiler.model.consts import evaluate_expression as evaluate_expression  # re-exported

# Earlier names of the compile-time value helpers (now public in `transpiler.model.consts`).
_ConstParam = ConstParam
_Deferred = ConstExpr
_TypedConst = TypedConst
_PY_OPS = PY_OPS
_NEGATED = NEGATED
_is_equality_pin = is_equality_pin
_params_in = params_in
_float_expression = is_float_expression
_bool_expression = is_bool_expression
_expression_tree = expression_tree
_first_param = first_param
_concrete = is_concrete
_is_float_const = is_float_const
_ENUMS = {"PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope"}
_DTYPE_ALIASES = {"float": "float32", "int": "int32", "bool": "bool_"}
_NP_TORCH_DTYPES = {name: name for name in ALL_DTYPES} | {"bool": "bool_", "half": "float16",
                                                          "float": "float32"}
# numpy's float constants a kernel may read (`-np.inf` as a reduction's start value).
_NUMPY_CONSTANTS = {"inf": math.inf, "pi": math.pi, "e": math.e, "nan": math.nan}
_MAX_HELPER_DEPTH = 32
# cuTile Python 1.7.0 unrolls at most this many `ct.static_iter` items
# (`_STATIC_ITER_MAX_ITERATIONS` in cuda/tile/_ir/static_eval_ops.py).
_STATIC_ITER_MAX = 1000
# `@ct.kernel` options cuTile Python hands to tileiras only (`-O{opt_level}` in
# cuda/tile/_compile.py): the Tile IR does not depend on them.
_TILEIRAS_OPTIONS = frozenset({"opt_level"})
# Operations evaluated for their effect on memory.
_EFFECT_OPS = {"store", "scatter", "atomic", "view_atomic", "print"}
_MATH_FUNCS = {"log", "log2", "log10", "exp", "exp2", "sqrt", "sin", "cos", "tan", "tanh",
               "pow", "floor", "ceil", "fabs", "isqrt", "log1p", "expm1", "erf"}

_BINOPS = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/",
    cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**", cst.BitAnd: "&",
    cst.BitOr: "|", cst.BitXor: "^", cst.LeftShift: "<<", cst.RightShift: ">>",
    cst.MatrixMultiply: "@",
}
_AUGOPS = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*",
    cst.DivideAssign: "/", cst.FloorDivideAssign: "//", cst.ModuloAssign: "%",
    cst.BitAndAssign: "&", cst.BitOrAssign: "|", cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>", cst.PowerAssign: "**",
}
_CMPOPS = {
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=", cst.Equal: "==", cst.NotEqual: "!=",
}


# Python type of a launched value -> the kind of a bare `ct.Constant` parameter it fixes.
_BARE_CONST_KINDS: dict[type, str] = {bool: "bool", int: "int", float: "float"}
# Annotations that make a parameter an array whatever the kernel does with it.
_ARRAY_ANNOTATIONS = frozenset({"Array", "Tensor"})


@dataclass
class _Scope:
    names: dict[str, TExpr]
    rename: dict[str, str]
    # A helper's parameters, with the caller's values they were bound to (see
    # `_own_helper_params`).
    params: dict[str, TExpr] = field(default_factory=dict)


class KernelAnalyzer:
    """Abstract interpretation of one kernel body (helpers inlined) into typed statements."""

    def __init__(self, source: SourceModule, kernel: KernelDef,
                 allow_holes: bool = False,
                 launch_values: dict[str, object] | None = None,
                 param_dtypes: dict[str, DType] | None = None,
                 const_values: dict[str, object] | None = None,
                 cond_values: dict[str, bool] | None = None,
                 facts: SyntaxFacts | None = None) -> None:
        self.source = source
        # What the syntax alone says, shared by the analyses of every variant.
        self.facts = facts or SyntaxFacts(source)
        self.kernel = kernel
        self.launch_values = launch_values or {}
        # Arrays whose element type is fixed for this variant of the kernel (see
        # `analyze_kernel_variants`).
        self.param_dtypes = param_dtypes or {}
        # `ct.Constant` parameters fixed for this variant of the kernel, and outcomes of
        # conditions on them (by `condition_key`) it is translated for.
        self.const_values = const_values or {}
        self.cond_values = cond_values or {}
        self.path = source.path
        self.dtype_parent: dict[int, int] = {}
        self.forced: dict[int, DType] = {}
        self.params: list[KernelParam] = []
        self.scope = _Scope({}, {})
        self.out: list[TStmt] = []
        self.helper_stack: list[str] = []
        self.used_names: set[str] = set()
        self.notes: list[str] = []
        self.module_cache: dict[tuple[str, str], TExpr] = {}  # (file, name) -> value
        self.array_ranks: dict[str, int] = {}
        # The compile-time conditions of the static `if`s around the statement being
        # analyzed (innermost last), and those around each array's first ranked use.
        self.static_conditions: list[object] = []
        self.array_rank_conditions: dict[str, list[object]] = {}
        # Names that only one arm of a static `if` defines: the condition (a use after the
        # `if` exists in Python only for the outcome that defines them).
        self.arm_only_names: dict[str, object] = {}
        # Arrays whose launch-time element type a store under a static `if` fixed: the
        # condition (see `static_dtype_conflict`).
        self.static_dtype_pins: dict[str, object] = {}
        # Array parameters whose `.dtype` the kernel body reads: code written for more than
        # one element type of that array (see `static_pin_split`).
        self.dtype_read_arrays: frozenset[str] = self.facts.dtype_read_arrays(kernel.node)
        self.shape_ranks: dict[str, int] = {}
        # Float expressions over `ct.Constant[float]` parameters passed as extra parameters.
        self.derived_params: list[tuple[str, object]] = []
        self.concrete_required: list[tuple[ElemType, cst.CSTNode, str]] = []
        # Checks of element types run when the body is done (later code may fix them).
        self.deferred_checks: list[Callable[[], None]] = []
        # Extra `i32` parameters for array strides a gather/scatter needs: (name, array, dim).
        self.stride_params: list[tuple[str, str, int]] = []
        # Python names that are loop-carried in the innermost region (None: not in a loop).
        self.carried_stack: list[set[str]] = []
        self.loop_kinds: list[str] = []  # `for` / `while`, innermost last
        self.written_arrays: set[str] = set()
        # Arrays that `Array.slice` views (parameter -> the first such call): the view keeps
        # the array's strides, which the launcher passes (see `_register_slice_strides`).
        self.sliced_arrays: dict[str, cst.CSTNode] = {}
        # The Rust tensors (the parameter, its slices) each array is accessed through.
        self.array_tensors: dict[str, set[str]] = {}
        # LLM fallback (llm_fallback/): turn element-wise calls the passes cannot lower into
        # typed `hole` nodes instead of errors. Off by default: the deterministic path.
        self.allow_holes = allow_holes
        self.hole_count = 0
        # How many `ct.static_iter` loops and comprehensions are being unrolled around the
        # statement (see `_fresh`).
        self.static_depth = 0
        # Whether the kernel (this variant's path through it) prints already.
        self.printed = False

    # ---- errors ------------------------------------------------------------------------

    def span(self, node: cst.CSTNode) -> Span | None:
        return self.source.span(node)

    def error(self, code: str, message: str, node: cst.CSTNode | None,
              construct: str | None = None, notes: list[str] | None = None) -> TranslationError:
        span = self.span(node) if node is not None else None
        diag = Diagnostic(code, message, self.path, span, notes=notes or [],
                          kernel=self.kernel.name)
        unhandled = None
        if construct is not None:
            text = self.source.module.code_for_node(node) if node is not None else ""
            context = {name: _describe(v.type) for name, v in self.scope.names.items()}
            unhandled = UnhandledConstruct(self.kernel.name, construct, code, message, span,
                                           text, context)
        return TranslationError(diag, unhandled)

    # ---- dtype unification -------------------------------------------------------------

    def new_dtype_var(self) -> DTypeVar:
        key = len(self.dtype_parent)
        self.dtype_parent[key] = key
        return DTypeVar(key)

    def find(self, dtype: ElemType) -> ElemType:
        if isinstance(dtype, DTypeVar):
            key = dtype.key
            while self.dtype_parent[key] != key:
                key = self.dtype_parent[key]
            if key in self.forced:
                return self.forced[key]
            return DTypeVar(key)
        return dtype

    def unify(self, a: ElemType, b: ElemType, node: cst.CSTNode) -> ElemType:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if isinstance(a, DTypeVar) and isinstance(b, DTypeVar):
            self.dtype_parent[b.key] = a.key
            return a
        if isinstance(a, DTypeVar):
            assert isinstance(b, DType)
            self.forced[a.key] = b
            return b
        if isinstance(b, DTypeVar):
            self.forced[b.key] = a
            return a
        raise self.error("E0108", f"element types `{a}` and `{b}` do not agree", node)

    # ---- entry -------------------------------------------------------------------------

    def run(self) -> KernelModel | SplitRequest:
        """This variant's typed model, or the split that stops its analysis (the variant
        loop analyzes the variants it asks for instead)."""
        try:
            model = self._typed_model()
        except SplitNeeded as stop:
            return stop.request
        split = self._fma_split(contract_fma(model))
        return model if split is None else split

    def _typed_model(self) -> KernelModel:
        fn = self.kernel.node
        self._bind_params(fn)
        body = list(fn.body.body)
        doc = _docstring(body)
        if doc is not None:
            body = body[1:]
        self.block(body, top_level=True)
        self._register_slice_strides()
        for check in self.deferred_checks:
            check()
        for option in sorted(set(self.kernel.options) & _TILEIRAS_OPTIONS):
            self.notes.append(f"`@ct.kernel({option}=...)` is an option of tileiras (the "
                              "Tile IR compiler), not part of the Tile IR: pass it where the "
                              "Rust kernel's Tile IR is compiled")
        for dtype, node, what in self.concrete_required:
            self.dtype_dependent(dtype, node, what)
        model = KernelModel(
            derived_params=list(self.derived_params),
            stride_params=list(self.stride_params),
            name=self.kernel.name,
            params=self.params,
            body=self.out,
            docstring=doc,
            span=self.span(fn.name),
            hints={k: self._eval_const_node(v) for k, v in self.kernel.options.items()
                   if k not in _TILEIRAS_OPTIONS},
            dtype_classes={k: self._root(k) for k in self.dtype_parent},
            forced_dtypes={self._root(k): v for k, v in self.forced.items()},
            notes=self.notes,
        )
        _resolve_types(model, self)
        _prune_unused_if_results(model.body)
        return model

    def _fma_split(self, undecided: list[object]) -> DtypeSplit | None:
        """The split for the first multiply-add whose contraction `contract_fma` left
        undecided that still depends on a launch-time element type (one this variant
        fixed is decided), or None."""
        for dtype in undecided:
            found = self.find(dtype) if isinstance(dtype, DTypeVar) else dtype
            if not isinstance(found, DTypeVar):
                continue
            root = self._root(found.key)
            members = [p.name for p in self.params if isinstance(p.type, ArrayType)
                       and isinstance(p.type.dtype, DTypeVar)
                       and self._root(p.type.dtype.key) == root]
            return DtypeSplit(tuple(members), "a multiply-add across an element-type "
                              "conversion (cuTile Python fuses it when the conversion is "
                              "the identity)", self.span(self.kernel.node))
        return None

    def params_in(self, value: object) -> list[str]:
        """The `ct.Constant` parameters a compile-time value reads (for the split rules)."""
        return _params_in(value)

    def _root(self, key: int) -> int:
        while self.dtype_parent[key] != key:
            key = self.dtype_parent[key]
        return key

    def _bind_params(self, fn: cst.FunctionDef) -> None:
        params = fn.params
        if params.star_arg not in (cst.MaybeSentinel.DEFAULT, None) or params.star_kwarg:
            raise self.error("E0104", "a kernel cannot take *args or **kwargs", fn.params)
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = param.name.value
            kind, const_kind = self._param_kind(param)
            span = self.span(param)
            if kind == "const":
                value: object = DimSym(name) if const_kind == "int" else _ConstParam(name)
                if const_kind == "float":
                    value = _ConstParam(name, "float")
                    fixed = self.launch_values.get(name)
                    if isinstance(fixed, int | float) and not isinstance(fixed, bool):
                        # cuTile Rust has no float const generics: a value every launch
                        # site passes is folded, as cuTile Python folds it.
                        value = float(fixed)
                if const_kind == "bool":
                    value = _ConstParam(name, "bool")
                if name in self.const_values:
                    value = self.const_values[name]
                ptype: ValueType = ConstType(value)
                fixed = value if isinstance(value, bool | int | float) else None
                self.params.append(KernelParam(name, "const", ptype, const_kind, span,
                                               fixed=fixed))
                self.scope.names[name] = TExpr("const", [], ptype, span)
            elif kind == "scalar":
                dtype = {"float": F32, "bool": BOOL}.get(const_kind or "", I32)
                ptype = ScalarType(dtype)
                self.params.append(KernelParam(name, "scalar", ptype, const_kind, span))
                self.scope.names[name] = TExpr("var", [], ptype, span,
                                               {"name": rust_ident(name)})
            else:
                var = self.new_dtype_var()
                if name in self.param_dtypes:
                    self.forced[var.key] = self.param_dtypes[name]
                ptype = ArrayType(var, -1, name)
                self.params.append(KernelParam(name, "array", ptype, None, span))
                self.scope.names[name] = TExpr("array", [], ptype, span,
                                               {"name": rust_ident(name)})
            self.used_names.add(name)

    def _param_kind(self, param: cst.Param) -> tuple[str, str | None]:
        ann = param.annotation.annotation if param.annotation else None
        if ann is None:
            # cuTile Python types an unannotated parameter by what the launch passes: an
            # integer when the kernel only computes with it, else an array.
            if param.name.value in self.facts.integer_uses(self.kernel.node):
                return "scalar", "int"
            return "array", None
        resolved = self._annotation_text(ann)
        if resolved == "Constant":
            # A bare `ct.Constant`: the constant takes the type of the value launched.
            return "const", _BARE_CONST_KINDS.get(type(self.launch_values.get(
                param.name.value)), "int")
        if resolved.startswith("Constant["):
            inner = resolved[len("Constant["):-1]
            kinds = {"int": "int", "bool": "bool", "float": "float", "int32": "int",
                     "int64": "int", "bool_": "bool", "float32": "float"}
            if inner not in kinds:
                raise self.error("E0111", f"`Constant[{inner}]` parameters are not "
                                 "supported", param)
            return "const", kinds[inner]
        if resolved in ("int", "float", "bool"):
            return "scalar", resolved
        if resolved in ("int32", "int64"):
            return "scalar", "int"
        if resolved in ("float32", "float16"):
            return "scalar", "float"
        if resolved not in _ARRAY_ANNOTATIONS and param.name.value in self.facts.integer_uses(
                self.kernel.node):
            # An annotation that names no cuda.tile type (a host-side alias): typed by use,
            # as an unannotated parameter is.
            return "scalar", "int"
        return "array", None

    def _annotation_text(self, ann: cst.BaseExpression) -> str:
        if isinstance(ann, cst.Subscript):
            base = self._annotation_text(ann.value)
            inner = ann.slice[0].slice
            inner_text = self._annotation_text(inner.value) if isinstance(inner, cst.Index) else ""
            return f"{base}[{inner_text}]"
        name = tile_attr(self.source, ann)
        if name is not None:
            return name
        text = dotted_name(ann) or ""
        if text in self.source.constants and text not in ("int", "float", "bool"):
            return self._annotation_text(self.source.constants[text])
        if text.startswith("cuda.tile."):
            return text[len("cuda.tile."):]
        return text.split(".")[-1]

    # ---- statements --------------------------------------------------------------------

    def block(self, stmts: list[cst.BaseStatement], top_level: bool = False) -> None:
        """Analyze a statement list. `top_level`: nothing runs after it in the kernel (its
        body, or an arm of an `if` that ends such a list), so a `return` may end it."""
        for index, stmt in enumerate(stmts):
            last = index == len(stmts) - 1
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self.small_statement(small, last and top_level)
            elif isinstance(stmt, cst.If) and top_level and _is_early_exit(stmt) and not last:
                # cuTile Rust lowers no `return` below the function body (outside `loop`):
                # the code after an early exit becomes the `if`'s `else` arm. The IR check
                # undoes the same move on cuTile Python's side (rule early-exit).
                self.compound_statement(stmt, tail=True, rest=stmts[index + 1:])
                return
            elif isinstance(stmt, cst.If) and top_level and not last and \
                    _returns_inside(stmt):
                # An early exit nested in an arm of an `if` on compile-time constants
                # (`if HAS_MASK: m = ct.load(...); if m == 0: return`): cuTile Python
                # compiles only the taken arm, as if written in its place, so the arm and
                # the statements after it form one list (whose own early exit is handled
                # as above).
                self.block([*self._static_arm(stmt), *stmts[index + 1:]], top_level=True)
                return
            else:
                self.compound_statement(stmt, tail=last and top_level)

    def _static_arm(self, node: cst.If) -> list[cst.BaseStatement]:
        """The statements of the arm a compile-time `if` takes in this variant. An `if` on
        runtime values is refused (an exit below a runtime branch has no Rust form the
        translator emits), an undecided one on `ct.Constant`s splits the kernel per
        outcome."""
        cond = self.expr(node.test)
        if not is_const(cond):
            raise self.error("E0110", "an early `return` inside a runtime `if` that does not "
                             "itself end with it has no cuTile Rust form the translator "
                             "emits", node, "stmt:early_return")
        value = cond.type.value
        taken = self.known_condition(value)
        if isinstance(value, bool | int | float | type(None)) and not isinstance(
                value, DimSym | DimExpr):
            taken = bool(value)
        if taken is None or isinstance(taken, str):
            raise ConstDependentError(_params_in(value), "an early `return` under an `if` "
                                      "on compile-time constants", self.span(node), value)
        return list(node.body.body) if taken else list(_else_body(node))

    @region_holes.guarded
    def small_statement(self, node: cst.BaseSmallStatement, last: bool) -> None:
        if isinstance(node, cst.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target.target, value, node)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value), node)
        elif isinstance(node, cst.AugAssign):
            op = _AUGOPS[type(node.operator)]
            current = self.expr(node.target)
            value = self.binary(op, current, self.expr(node.value), node)
            self.assign(node.target, value, node)
        elif isinstance(node, cst.Expr):
            if isinstance(node.value, cst.SimpleString | cst.ConcatenatedString):
                return
            value = self.expr(node.value)
            if value.op in _EFFECT_OPS:
                self.out.append(TEffect(value, self.span(node)))
        elif isinstance(node, cst.Pass):
            return
        elif isinstance(node, cst.Return):
            if self.helper_stack:
                raise self.error("E0104", "`return` inside a helper body is only supported "
                                 "as its last statement", node, "stmt:return")
            if node.value is not None:
                raise self.error("E0104", "a kernel cannot return a value", node)
            if not last:
                raise self.error("E0110", "an early `return` in a kernel has no cuTile Rust "
                                 "form the translator emits", node, "stmt:early_return")
            self.out.append(TReturn(self.span(node)))
        elif isinstance(node, cst.Break | cst.Continue):
            self.jump(node)
        elif isinstance(node, cst.Assert):
            raise self.error("E0104", "`assert` in a kernel is not supported; use "
                             "ct.static_assert for compile-time checks", node, "stmt:assert")
        else:
            kind = type(node).__name__.lower()
            raise self.error("E0104", f"`{kind}` statements are not allowed in a kernel",
                             node, f"stmt:{kind}")

    @region_holes.guarded
    def compound_statement(self, node: cst.BaseCompoundStatement, tail: bool = False,
                           rest: Sequence[cst.BaseStatement] = ()) -> None:
        """`tail` and `rest`: see `if_statement`."""
        if isinstance(node, cst.For):
            self.for_loop(node)
        elif isinstance(node, cst.While):
            self.while_loop(node)
        elif isinstance(node, cst.If):
            self.if_statement(node, tail, rest)
        else:
            kind = {cst.While: "while", cst.Try: "try", cst.With: "with",
                    cst.FunctionDef: "def (a nested function or closure)",
                    cst.ClassDef: "class"}.get(type(node), type(node).__name__)
            raise self.error("E0104", f"`{kind}` is not allowed in a kernel", node,
                             f"stmt:{kind.split()[0]}")

    def assign(self, target: cst.BaseExpression, value: TExpr, node: cst.CSTNode) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            items = self._unpack(value, len(target.elements), node)
            for element, item in zip(target.elements, items, strict=False):
                self.assign(element.value, item, node)
            return
        if not isinstance(target, cst.Name):
            raise self.error("E0104", "only plain names can be assigned in a kernel", target,
                             "stmt:assign_target")
        self.bind_name(target.value, value, self.span(node))

    def bind_name(self, py_name: str, value: TExpr, span: Span | None) -> None:
        value = self.materialize_slice(value, py_name)
        if value.op == "tuple" and any(isinstance(i.type, TileType) and i.op != "var"
                                       for i in value.args):
            value = self._materialize_tiles(value, py_name)
        if is_const(value) or value.op == "array" or isinstance(value.type, ListType):
            self.scope.names[py_name] = value
            return
        previous = self.scope.names.get(py_name)
        carried = self.carried_stack[-1] if self.carried_stack else set()
        if py_name in carried and previous is not None and previous.op == "var":
            # A loop-carried name: reassign the `let mut` declared before the loop.
            rust_name = previous.attrs["name"]
            stmt = TAssign(rust_name, value, span, first=False)
            binding = previous.attrs.get("binding")
        else:
            rust_name = self._fresh(py_name)
            stmt = TAssign(rust_name, value, span)
            binding = stmt
        self.out.append(stmt)
        # `assigned_by`: the statement that gave the current value (for a loop-carried
        # name, a reassignment; its binding stays the `let mut`).
        self.scope.names[py_name] = TExpr("var", [], value.type, span,
                                          {"name": rust_name, "binding": binding,
                                           "assigned_by": stmt})

    def _materialize_tiles(self, value: TExpr, py_name: str) -> TExpr:
        """A tuple named by a variable with each computed tile in it bound to a Rust local:
        Python computes the item once however often the tuple is read (a tree would be
        recomputed per read, and fused differently)."""
        items = []
        self.static_depth += 1  # each item gets a name of its own
        try:
            for item in value.args:
                if isinstance(item.type, TileType) and item.op != "var":
                    name = self._fresh(f"{py_name}_item")
                    self.out.append(TAssign(name, item, item.span))
                    item = TExpr("var", [], item.type, item.span, {"name": name})
                items.append(item)
        finally:
            self.static_depth -= 1
        return _tuple_of(items, value.span)

    def _fresh(self, py_name: str) -> str:
        # Locals of an inlined helper carry the helper's name, so they never shadow the
        # caller's names (the innermost helper suffices: each helper's body is a block).
        prefix = self.helper_stack[-1].strip("_") if self.helper_stack else ""
        base = rust_ident(f"{prefix}_{py_name}" if prefix else py_name)
        if self.static_depth:
            # Unrolled code (`ct.static_iter`, comprehensions) can keep an earlier value in
            # a tuple: a new binding must not shadow the name that value is read by.
            k = 2
            while base in self.used_names:
                base = rust_ident(f"{prefix}_{py_name}_{k}" if prefix else f"{py_name}_{k}")
                k += 1
        self.scope.rename[py_name] = base
        self.used_names.add(base)
        return base

    def materialize_slice(self, value: TExpr, py_name: str | None = None) -> TExpr:
        """An array view (`Array.slice`) bound to a Rust local (named after `py_name`, or a
        fresh temporary), as the array value that names it; any other value unchanged."""
        if value.op != "array_slice":
            return value
        if py_name is not None:
            name = self._fresh(py_name)
        else:
            name = self._fresh_distinct(f"{value.type.param}_slice")
        self.out.append(TAssign(name, value, value.span))
        return TExpr("array", [], value.type, value.span, {"name": name, "slice": True})

    def _register_slice_strides(self) -> None:
        """A slice keeps the strides of the array it views, which a cuTile Rust kernel
        cannot read from the tensor: each one but the last (1, as the specialization
        assumes) becomes a parameter that the launcher fills."""
        for param, node in self.sliced_arrays.items():
            rank = self.array_ranks.get(param, self.shape_ranks.get(param, -1))
            if rank < 1:
                raise self.error("E0108", f"the rank of array `{param}` is not known: a "
                                 "slice needs a load, store or shape query that gives it",
                                 node)
            for dim in range(rank - 1):
                self.stride_param(param, dim)
            self._note_unordered_slices(param)

    def _note_unordered_slices(self, param: str) -> None:
        """A note when an array is written and accessed through several tensors (itself,
        its slices): cuTile Rust orders the accesses through one tensor only, cuTile Python
        all accesses to the array (the IR check compares that order)."""
        tensors = sorted(self.array_tensors.get(param, ()))
        if param in self.written_arrays and len(tensors) > 1:
            self.notes.append(
                f"`{param}` is written and accessed through {len(tensors)} tensors ("
                f"{', '.join(f'`{t}`' for t in tensors)}): cuTile Rust orders accesses "
                "per tensor, cuTile Python across them (overlapping slices would race)")

    def _fresh_distinct(self, py_name: str) -> str:
        """A Rust name for `py_name` that no binding of this kernel has used yet."""
        base = self._fresh(py_name)
        k = 2
        while f"{base}_{k}" in self.used_names:
            k += 1
        name = f"{base}_{k}"
        self.scope.rename[py_name] = name
        self.used_names.add(name)
        return name

    def _unpack(self, value: TExpr, count: int, node: cst.CSTNode) -> list[TExpr]:
        if isinstance(value.type, ListType):
            items = value.args
        elif is_const(value) and isinstance(value.type.value, tuple):
            items = [const(v, value.span) for v in value.type.value]
        else:
            raise self.error("E0107", "only tuples can be unpacked", node)
        if len(items) != count:
            raise self.error("E0107", f"cannot unpack {len(items)} values into {count} names",
                             node)
        return list(items)

    # ---- control flow ------------------------------------------------------------------

    def for_loop(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error("E0104", "`for ... else` is not allowed in a kernel", node,
                             "stmt:for_else")
        it = node.iter
        if isinstance(it, cst.Call) and tile_attr(self.source, it.func) == "static_iter":
            self.static_for(node, it)
            return
        if not isinstance(node.target, cst.Name):
            raise self.error("E0104", "a kernel loop variable must be a plain name", node.target)
        if not (isinstance(it, cst.Call) and dotted_name(it.func) == "range"):
            raise self.error("E0104", "kernel loops must iterate over `range(...)`", it,
                             "stmt:for_non_range")
        bounds = [self.to_scalar(self.expr(a.value), a) for a in it.args]
        if not 1 <= len(bounds) <= 3:
            raise self.error("E0102", "range takes 1 to 3 arguments", it)
        zero, one = self._int_scalar(0), self._int_scalar(1)
        start, stop, step = (zero, bounds[0], one) if len(bounds) == 1 else (
            bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else one)
        assigned = self._assigned_names(node.body.body)
        self._materialize_loop_constants(assigned, node)
        self._own_helper_params(assigned, node)
        before = dict(self.scope.names)
        carried = {n for n in assigned if n in before and before[n].op == "var"}
        saved_out = self.out
        self.out = []
        loop_var = self._fresh(node.target.value)
        self.scope.names[node.target.value] = TExpr("var", [], ScalarType(I32),
                                                    self.span(node.target), {"name": loop_var})
        self.carried_stack.append(carried)
        self.loop_kinds.append("for")
        try:
            self.block(list(node.body.body))
        finally:
            self.carried_stack.pop()
            self.loop_kinds.pop()
        body = self.out
        self.out = saved_out
        carried_out = self._finish_loop(carried, before, node)
        self.out.append(TFor(loop_var, start, stop, step, body, carried_out, self.span(node)))

    def static_for(self, node: cst.For, it: cst.Call) -> None:
        """`for t in ct.static_iter(items):` is unrolled, as cuTile Python unrolls it: the
        body once per item, with the target bound to it (no loop in the Tile IR)."""
        self.loop_kinds.append("static")
        self.static_depth += 1
        try:
            for item in self.static_items(it):
                self.assign(node.target, item, node)
                self.block(list(node.body.body))
        finally:
            self.loop_kinds.pop()
            self.static_depth -= 1

    def static_items(self, call: cst.Call) -> list[TExpr]:
        """The items of `ct.static_iter(iterable)`: a `range` of compile-time integers,
        `enumerate(...)` of such items, or a tuple (its items may be runtime values)."""
        if len(call.args) != 1 or call.args[0].keyword is not None:
            raise self.error("E0102", "`ct.static_iter` takes one iterable", call)
        return self._iter_items(call.args[0].value)

    def _iter_items(self, node: cst.BaseExpression) -> list[TExpr]:
        span = self.span(node)
        if isinstance(node, cst.Call) and dotted_name(node.func) == "zip" and \
                "zip" not in self.scope.names and node.args and \
                all(a.keyword is None and not a.star for a in node.args):
            columns = [self._iter_items(a.value) for a in node.args]
            return [_tuple_of(list(row), span) for row in zip(*columns, strict=False)]
        if isinstance(node, cst.Call) and dotted_name(node.func) in ("range", "enumerate") \
                and dotted_name(node.func) not in self.scope.names:
            if any(a.keyword is not None or a.star for a in node.args):
                raise self.error("E0102", "keyword arguments to `range`/`enumerate` inside "
                                 "`ct.static_iter` are not supported", node)
            if dotted_name(node.func) == "enumerate":
                if not 1 <= len(node.args) <= 2:
                    raise self.error("E0102", "enumerate takes 1 or 2 arguments", node)
                start = 0 if len(node.args) == 1 else self.const_int(
                    self.expr(node.args[1].value), node, "the start of `enumerate`")
                return [_tuple_of([const(start + i, span), item])
                        for i, item in enumerate(self._iter_items(node.args[0].value))]
            bounds = [self._unroll_bound(a.value) for a in node.args]
            if not 1 <= len(bounds) <= 3:
                raise self.error("E0102", "range takes 1 to 3 arguments", node)
            if len(bounds) == 3 and bounds[2] == 0:
                raise self.error("E0108", "a `range` step cannot be zero", node)
            items = range(*bounds)
            self._check_static_count(len(items), node)
            return [const(i, span) for i in items]
        tuple_items = self._tuple_items(self.expr(node))
        if tuple_items is None:
            raise self.error("E0103", "`ct.static_iter` iterates over a `range` of "
                             "compile-time integers, `enumerate` or a tuple", node)
        self._check_static_count(len(tuple_items), node)
        return tuple_items

    def _unroll_bound(self, node: cst.BaseExpression) -> int:
        """A `range` bound of an unrolled loop: a number; a `ct.Constant` translates the
        kernel once per launched value (the unrolled code differs per value)."""
        value = self.expr(node)
        if is_const(value) and not isinstance(value.type.value, bool | int):
            params = _params_in(value.type.value)
            if params:
                raise ConstDependentError(params, "a `ct.static_iter` range over "
                                          "`ct.Constant` values", self.span(node))
        return self.const_int(value, node, "a `ct.static_iter` range bound")

    def _check_static_count(self, count: int, node: cst.CSTNode) -> None:
        if count > _STATIC_ITER_MAX:
            raise self.error("E0108", f"`ct.static_iter` unrolls at most {_STATIC_ITER_MAX} "
                             f"iterations (cuTile Python's limit), this one {count}", node)

    def comprehension(self, node: cst.GeneratorExp | cst.ListComp) -> TExpr:
        """`tuple(e for t in ct.static_iter(items) if c ...)`: a tuple of `e` per item
        (cuTile Python unrolls it); the targets are local to the comprehension."""
        saved = dict(self.scope.names)
        values: list[TExpr] = []
        self.static_depth += 1
        try:
            self._comprehend(node.elt, node.for_in, values)
        finally:
            self.static_depth -= 1
            targets = self._assigned_names([node.for_in])
            for name in targets:
                if name in saved:
                    self.scope.names[name] = saved[name]
                else:
                    self.scope.names.pop(name, None)
        return _tuple_of(values)

    def _comprehend(self, elt: cst.BaseExpression, for_in: cst.CompFor,
                    out: list[TExpr]) -> None:
        it = for_in.iter
        if for_in.asynchronous is not None or not (
                isinstance(it, cst.Call) and tile_attr(self.source, it.func) == "static_iter"):
            raise self.error("E0104", "a comprehension in a kernel must iterate over "
                             "`ct.static_iter(...)`", it, "expr:generator")
        for item in self.static_items(it):
            self.assign(for_in.target, item, for_in)
            keep = True
            for cond in for_in.ifs:
                value = self.expr(cond.test)
                if not (is_const(value) and _concrete(value.type.value)):
                    raise self.error("E0103", "a comprehension's `if` must be a compile-time "
                                     "condition", cond)
                keep = keep and bool(value.type.value)
            if not keep:
                continue
            if for_in.inner_for_in is not None:
                self._comprehend(elt, for_in.inner_for_in, out)
                continue
            value = self.expr(elt)
            if not is_const(value) and value.op not in ("var", "array") and not isinstance(
                    value.type, ListType):
                # Evaluated once, where the comprehension runs (a later use reads it).
                name = self._fresh("item")
                self.out.append(TAssign(name, value, value.span))
                value = TExpr("var", [], value.type, value.span, {"name": name})
            out.append(value)

    def while_loop(self, node: cst.While) -> None:
        """`while cond:` -> Rust `while cond { .. }` (`loop { .. }` for `while True:`); both
        compile to a Tile IR `loop` that tests the condition first, as cuTile Python's does."""
        if node.orelse is not None:
            raise self.error("E0104", "`while ... else` is not allowed in a kernel", node,
                             "stmt:while_else")
        assigned = self._assigned_names(node.body.body)
        self._materialize_loop_constants(assigned, node)
        self._own_helper_params(assigned, node)
        before = dict(self.scope.names)
        carried = {n for n in assigned if n in before and before[n].op == "var"}
        saved_out = self.out
        self.out = []
        self.carried_stack.append(carried)
        self.loop_kinds.append("while")
        try:
            cond = self._while_condition(node)
            self.block(list(node.body.body))
        finally:
            self.carried_stack.pop()
            self.loop_kinds.pop()
        body = self.out
        self.out = saved_out
        carried_out = self._finish_loop(carried, before, node)
        self.out.append(TWhile(cond, body, carried_out, self.span(node)))

    def _finish_loop(self, carried: set[str], before: dict[str, TExpr],
                     node: cst.CSTNode) -> list[str]:
        """After a loop body: the carried Rust names; the scope as before the loop, each
        carried name now holding the loop's result (declared `mut`)."""
        carried_out = self._check_carried(carried, before, node)
        self._restore_after_region(before)
        for name in carried:
            # After the loop the name holds the loop's result, not what assigned it before.
            value = self.scope.names[name]
            self.scope.names[name] = TExpr(value.op, value.args, value.type, value.span,
                                           {**value.attrs, "assigned_by": None})
        for name in carried:
            binding = before[name].attrs.get("binding")
            if isinstance(binding, TAssign | TIf):
                binding.mutable = True
        return carried_out

    def _while_condition(self, node: cst.While) -> TExpr | None:
        """The loop's condition as a runtime boolean, or None for a condition that is
        always true."""
        cond = self.expr(node.test)
        if is_const(cond) and isinstance(cond.type.value, bool | int) and not isinstance(
                cond.type.value, DimSym | DimExpr):
            if cond.type.value:
                return None
            raise self.error("E0110", "a `while` whose condition is always false never runs; "
                             "remove it", node.test, "stmt:while_false")
        if is_const(cond):
            raise self.error("E0103", "a `while` condition on a compile-time constant has no "
                             "cuTile Rust form; test it with `if`", node.test,
                             "stmt:while_const")
        if self.out:
            raise self.error("E0110", "this `while` condition needs statements before each "
                             "test; compute it into a variable at the end of the body",
                             node.test, "stmt:while_cond")
        return self.to_scalar(cond, node.test)

    def jump(self, node: cst.Break | cst.Continue) -> None:
        kind = "break" if isinstance(node, cst.Break) else "continue"
        if not self.loop_kinds:
            raise self.error("E0104", f"`{kind}` outside a loop", node)
        if self.loop_kinds[-1] == "static":
            raise self.error("E0104", f"`{kind}` in a `ct.static_iter` loop is not allowed "
                             "(cuTile Python refuses it too)", node)
        if kind == "break" and self.loop_kinds[-1] == "for":
            # cutile-compiler 0.5.0, compile_block.rs: a `break` whose innermost loop is a
            # `for` is rejected (Tile IR `for` has no early exit).
            raise self.error("E0110", "`break` inside a `for` loop has no cuTile Rust 0.5.0 "
                             "form (Tile IR `for` cannot exit early); write the loop as "
                             "`while` with a counter", node, "stmt:break_in_for")
        self.out.append(TJump(kind, self.span(node)))

    def _materialize_loop_constants(self, assigned: set[str], node: cst.For) -> None:
        """A name holding a number before a loop that reassigns it (`cnt = 0` ... `cnt += 1`)
        is a loop-carried runtime value, as in cuTile Python, not the number."""
        for name in sorted(assigned):
            value = self.scope.names.get(name)
            if value is None or not is_const(value):
                continue
            number = value.type.value
            if isinstance(number, bool):
                dtype = BOOL
            elif isinstance(number, int):
                dtype = I32
            elif isinstance(number, float):
                dtype = F32
            else:
                continue
            self.bind_name(name, self.to_scalar(value, node, dtype), self.span(node))

    def _own_helper_params(self, assigned: set[str], node: cst.For) -> None:
        """A helper parameter that a loop in the helper reassigns, still holding the
        caller's value, becomes a local of the helper first (`let mut f_a = x;`).

        Python passes values: rebinding `a` inside `f` leaves the caller's `x` as it was.
        Carrying the caller's variable through the loop would overwrite `x` for the code
        after the call (and make every region around the loop yield it)."""
        for name in sorted(assigned & self.scope.params.keys()):
            value = self.scope.names.get(name)
            if value is not None and value is self.scope.params[name]:
                self.bind_name(name, value, self.span(node))

    def _check_carried(self, names: set[str], before: dict[str, TExpr],
                       node: cst.CSTNode) -> list[str]:
        carried: list[str] = []
        for name in sorted(names):
            previous = before.get(name)
            current = self.scope.names.get(name)
            if previous is None or current is None or previous.op != "var":
                continue
            if current.type != previous.type and not self._unifies(previous.type, current.type):
                raise self.error(
                    "E0108",
                    f"`{name}` changes type inside a loop or branch ({_describe(previous.type)}"
                    f" before, {_describe(current.type)} after); give the new value its own"
                    " name", node)
            carried.append(previous.attrs["name"])
        return carried

    def _restore_after_region(self, before: dict[str, TExpr]) -> None:
        after = self.scope.names
        self.scope.names = {}
        for name, value in before.items():
            self.scope.names[name] = value
        for name, value in after.items():
            if name not in before and is_const(value):
                self.scope.names[name] = value

    def if_statement(self, node: cst.If, tail: bool = False,
                     rest: Sequence[cst.BaseStatement] = ()) -> None:
        """`tail`: the `if` ends the kernel, so its arms may end with `return`; `rest`: the
        statements after an early-exit `if`, which run in its `else` arm."""
        cond = self.expr(node.test)
        orelse = [*_else_body(node), *rest]
        if is_const(cond):
            value = cond.type.value
            if isinstance(value, bool | int | float | type(None)) and not isinstance(
                    value, DimSym | DimExpr):
                self.block(list(node.body.body) if value else orelse, tail)
                return
            taken = self.known_condition(value)
            if taken is not None:
                # This variant of the kernel is translated for one outcome of the condition.
                self.block(list(node.body.body) if taken else orelse, tail)
                return
            self._static_if(node, cond, orelse, tail)
            return
        self._runtime_if(node, self.to_scalar(cond, node.test), orelse, tail)

    def _static_if(self, node: cst.If, cond: TExpr, orelse: list[cst.BaseStatement],
                   tail: bool = False) -> None:
        # A condition on a `ct.Constant` parameter: Python compiles only the taken branch;
        # the Rust keeps both arms under `if FLAG`, which the cuTile Rust compiler folds.
        # A `ct.Constant[float]` is a runtime value in Rust, which nothing folds: such a
        # condition is decided per variant of the kernel.
        value = cond.type.value
        floats = [p.name for p in self.params if p.const_kind == "float" and p.fixed is None]
        params = _params_in(value)
        if any(p in floats for p in params):
            raise ConstDependentError(params, "a condition on a `ct.Constant[float]`",
                                      self.span(node), value)
        self._region_if(node, TExpr("const_cond", [], ScalarType(BOOL), cond.span,
                                    {"value": cond.type.value}), orelse, static=True, tail=tail)

    def _runtime_if(self, node: cst.If, cond: TExpr, orelse: list[cst.BaseStatement],
                    tail: bool = False) -> None:
        self._region_if(node, cond, orelse, static=False, tail=tail)

    def _region_if(self, node: cst.If, cond: TExpr, orelse_nodes: list[cst.BaseStatement],
                   static: bool, tail: bool = False) -> None:
        # Each arm is its own block: names it assigns are fresh `let`s there, and the names
        # used after the `if` come out of it as the if-expression's value (Rust has no
        # deferred initialization in cuTile kernels, and this needs no `mut`).
        before = dict(self.scope.names)
        assigned = self._assigned_names(node.body.body) | self._assigned_names(orelse_nodes)
        saved_out = self.out
        self.carried_stack.append(set())
        if static:
            self.static_conditions.append(cond.attrs.get("value"))
        try:
            self.out = []
            self.block(list(node.body.body), tail)
            then_body, then_names = self.out, dict(self.scope.names)
            self.scope.names = dict(before)
            self.out = []
            self.block(orelse_nodes, tail)
            else_body, else_names = self.out, dict(self.scope.names)
        finally:
            self.carried_stack.pop()
            if static:
                self.static_conditions.pop()
            self.out = saved_out
        self.scope.names = dict(before)
        results: list[tuple[str, ValueType, str, str]] = []
        for name in sorted(assigned):
            t_val, e_val = then_names.get(name), else_names.get(name)
            if t_val is None or e_val is None:
                if static and (t_val or e_val) is not None and _params_in(
                        cond.attrs.get("value")):
                    self.arm_only_names[name] = cond.attrs.get("value")
                continue
            if is_const(t_val) and is_const(e_val):
                if t_val.type == e_val.type:
                    self.scope.names[name] = t_val
                continue
            # A number in one arm and a runtime value in the other (`start = 0` against
            # `start = ct.bid(0) // 2`), or a 0-d tile against a scalar: both arms give the
            # runtime type.
            # A 0-d tile in one arm and a number in the other merge as a scalar: the
            # cuTile Rust compiler cannot read back (`tile_to_scalar`) a tile it folded to
            # a constant, which the number's arm becomes when the `if` is static.
            for arm_val, arm_body, other in ((t_val, then_body, e_val),
                                             (e_val, else_body, t_val)):
                if is_const(other) and isinstance(arm_val.type, TileType) and \
                        arm_val.type.rank == 0 and isinstance(other.type.value, int | DimSym
                                                              | DimExpr):
                    scalar = self._arm_value(name, arm_val, TExpr(
                        "var", [], ScalarType(arm_val.type.dtype), None), arm_body, node)
                    t_val, e_val = (scalar, e_val) if arm_val is t_val else (t_val, scalar)
            t_val = self._arm_value(name, t_val, e_val, then_body, node)
            e_val = self._arm_value(name, e_val, t_val, else_body, node)
            if t_val.op != "var" or e_val.op != "var":
                continue
            # Under a static `if`, Python compiles one arm only: its arms' element types
            # are not tied together (that would fix a launch-time dtype for every variant).
            if self._resolved(t_val.type) != self._resolved(e_val.type) and (
                    static or not self._unifies(t_val.type, e_val.type)):
                if static:
                    # cuTile Python compiles only the arm the constant selects; Rust checks
                    # both, so the kernel is translated once per value of the constant.
                    params = _params_in(cond.attrs.get("value"))
                    if params:
                        raise ConstDependentError(
                            params, f"`{name}` has a different type in each arm of an `if` "
                            "on compile-time constants", self.span(node),
                            cond.attrs.get("value"))
                raise self.error(
                    "E0108", f"`{name}` has a different type in each branch "
                    f"({_describe(t_val.type)} and {_describe(e_val.type)})", node)
            prev = before.get(name)
            if t_val is prev and e_val is prev:
                continue
            results.append((name, t_val.type, t_val.attrs["name"], e_val.attrs["name"]))
        stmt = TIf(cond, then_body, else_body, [], self.span(node), static)
        stmt.results = []
        carried = self.carried_stack[-1] if self.carried_stack else set()
        for name, vtype, t_name, e_name in results:
            prev = before.get(name)
            if name in carried and prev is not None and prev.op == "var":
                rust_name, binding, first = prev.attrs["name"], prev.attrs.get("binding"), False
            else:
                rust_name, binding, first = self._fresh(name), None, True
                if prev is not None and prev.op == "var" and prev.attrs["name"] == rust_name:
                    if prev.type == vtype:
                        stmt.inherits.add(rust_name)
                    else:
                        # A `mut` of another type declared before the `if` would hide the
                        # earlier value from the arms: it gets its own name.
                        rust_name = self._fresh_distinct(name)
            stmt.results.append((rust_name, vtype, t_name, e_name, first))
            self.scope.names[name] = TExpr("var", [], vtype, self.span(node),
                                           {"name": rust_name, "binding": binding or stmt})
        self.out.append(stmt)

    def known_condition(self, value: object) -> bool | None:
        """The outcome this variant fixes for a condition, or for its negation."""
        key = condition_key(value)
        if key in self.cond_values:
            return self.cond_values[key]
        if isinstance(value, _Deferred) and value.op in _NEGATED:
            flipped = condition_key(_Deferred(_NEGATED[value.op], value.left, value.right))
            if flipped in self.cond_values:
                return not self.cond_values[flipped]
        return None

    def _resolved(self, vtype: ValueType) -> ValueType:
        """`vtype` with its element type resolved through the unifier."""
        if isinstance(vtype, TileType | ScalarType):
            return replace(vtype, dtype=self.find(vtype.dtype))
        return vtype

    def _unifies(self, a: ValueType, b: ValueType) -> bool:
        """Whether two types differ only in a launch-time element type that can be the
        other's: then they are unified (the value keeps one type, as cuTile Python needs)."""
        kinds = (TileType, ScalarType)
        if not (isinstance(a, kinds) and type(a) is type(b)):
            return False
        if isinstance(a, TileType) and a.shape != b.shape:
            return False
        x, y = self.find(a.dtype), self.find(b.dtype)
        if x == y:
            return True
        if isinstance(x, DTypeVar) or isinstance(y, DTypeVar):
            self.unify(x, y, self.kernel.node)
            return True
        return False

    def _arm_value(self, name: str, value: TExpr, other: TExpr, arm: list[TStmt],
                   node: cst.CSTNode) -> TExpr:
        """`value` as a variable of `other`'s runtime type, bound at the end of `arm`."""
        target = other.type
        if value.op == "var" and value.type == target:
            return value
        if not is_const(value) and not is_const(other):
            # One value of a launch-time element type merged with a runtime integer is
            # that integer type (the same pin as for comparisons and indices).
            self._pin_scalar_int(value, other, node)
        converted: TExpr | None = None
        if isinstance(target, ScalarType) and (is_const(value) or isinstance(
                value.type, ScalarType | TileType)):
            if isinstance(value.type, TileType) and value.type.rank != 0:
                return value
            converted = self.cast_scalar(value, target.dtype, node)
        elif isinstance(target, TileType) and (is_const(value) or isinstance(value.type,
                                                                           ScalarType)):
            converted = self.to_tile(value, target.dtype, target.shape, node)
        if converted is None:
            return value
        rust_name = self._fresh(name)
        arm.append(TAssign(rust_name, converted, value.span))
        return TExpr("var", [], converted.type, value.span, {"name": rust_name})

    def _assigned_names(self, stmts: list[cst.CSTNode] | tuple) -> frozenset[str]:
        return self.facts.assigned_names(stmts)

    # ---- expressions -------------------------------------------------------------------

    def expr(self, node: cst.BaseExpression) -> TExpr:
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is None:
            kind = type(node).__name__
            construct = {"Lambda": "lambda", "GeneratorExp": "generator",
                         "ListComp": "comprehension", "Await": "await", "Yield": "yield",
                         "NamedExpr": "walrus"}.get(kind, kind)
            raise self.error("E0104", f"`{construct}` is not allowed in a kernel", node,
                             f"expr:{construct}")
        return handler(self, node)

    def e_name(self, node: cst.Name) -> TExpr:
        name = node.value
        if name in self.scope.names:
            value = self.scope.names[name]
            return TExpr(value.op, value.args, value.type, self.span(node), value.attrs)
        if name in ("True", "False", "None"):
            return const({"True": True, "False": False, "None": None}[name], self.span(node))
        if name in self.source.tile_names:
            return self._tile_value(self.source.tile_names[name], node)
        if name in self.source.constants:
            return self._module_constant(name, node)
        if name in self.source.sibling_imports and name not in self.source.functions:
            return self._sibling_name(name, node)
        if name in self.source.functions or name in _BUILTIN_FUNCS:
            return TExpr("function", [], ConstType(None), self.span(node), {"name": name})
        if name in self.arm_only_names:
            condition = self.arm_only_names[name]
            raise ConstDependentError(_params_in(condition), f"`{name}` is defined in one "
                                      "arm of an `if` on compile-time constants only",
                                      self.span(node), condition)
        raise self.error("E0109", f"cannot find `{name}` in this kernel's scope", node)

    def _module_constant(self, name: str, node: cst.CSTNode) -> TExpr:
        key = (self.source.path, name)
        if key not in self.module_cache:
            saved = self.scope
            self.scope = _Scope({}, {})
            try:
                value = self.expr(self.source.constants[name])
            finally:
                self.scope = saved
            if not is_const(value):
                raise self.error("E0103", f"module-level `{name}` is not a compile-time "
                                 "constant", node)
            self.module_cache[key] = value
        return self.module_cache[key]

    def e_attribute(self, node: cst.Attribute) -> TExpr:
        name = tile_attr(self.source, node)
        if name is not None:
            return self._tile_value(name, node)
        full = dotted_name(node)
        if full is not None:
            head = full.split(".")[0]
            module = self.source.module_aliases.get(head)
            if module == "math" or full.startswith("math."):
                attr = node.attr.value
                if attr in ("inf", "pi", "e", "nan", "tau"):
                    return const(getattr(math, attr), self.span(node))
                if attr in _MATH_FUNCS:
                    return TExpr("function", [], ConstType(None), self.span(node),
                                 {"math": attr})
            if module in ("numpy", "torch") and node.attr.value in _NP_TORCH_DTYPES:
                return const(DType(_NP_TORCH_DTYPES[node.attr.value]), self.span(node))
            if module == "numpy" and node.attr.value in _NUMPY_CONSTANTS:
                return const(_NUMPY_CONSTANTS[node.attr.value], self.span(node))
            if module in ("numpy", "torch", "math"):
                raise self.error("E0109", f"`{full}` is not a dtype or constant of `{module}` "
                                 "that kernels can read", node, f"attr:{module}")
        base = self.expr(node.value)
        attr = node.attr.value
        if attr in ("shape", "slice"):
            base = self.materialize_slice(base)
        if attr == "slice" and isinstance(base.type, ArrayType):
            return TExpr("method", [base], ConstType(None), self.span(node),
                         {"name": "Array.slice"})
        if attr == "dtype":
            if isinstance(base.type, TileType | ScalarType | ArrayType):
                return const(self.find(base.type.dtype), self.span(node))
        if attr == "shape":
            if isinstance(base.type, TileType):
                return const(tuple(base.type.shape), self.span(node))
            if isinstance(base.type, ArrayType):
                return TExpr("array_shape", [base], ListType(()), self.span(node))
        if attr == "ndim" and isinstance(base.type, TileType):
            return const(base.type.rank, self.span(node))
        if isinstance(base.type, TileType | ArrayType) and signatures.known(attr):
            return TExpr("method", [base], ConstType(None), self.span(node), {"name": attr})
        raise self.error("E0107", f"unsupported attribute `.{attr}`", node,
                         f"attr:{attr}")

    def _tile_value(self, name: str, node: cst.CSTNode) -> TExpr:
        head, _, member = name.partition(".")
        if head in _ENUMS and member:
            return const(EnumValue(head, member), self.span(node))
        if name in ALL_DTYPES:
            return const(DType(name), self.span(node))
        if name in ("Constant", "Array", "Tile", "Scalar", "ByTarget"):
            return const(name, self.span(node))
        if signatures.known(name):
            return TExpr("function", [], ConstType(None), self.span(node), {"tile": name})
        condition = innermost_condition(self, self.static_conditions)
        if condition is not None:
            # Code under a compile-time condition that cuTile Python compiles only for some
            # values: the kernel is translated per outcome, and the outcome that reaches
            # this name fails as it does in Python.
            raise ConstDependentError(_params_in(condition), f"`ct.{name}` does not exist",
                                      self.span(node), condition)
        raise self.error("E0100", f"`cuda.tile` has no function or value `{name}`", node,
                         f"call:ct.{name}")

    def e_integer(self, node: cst.Integer) -> TExpr:
        return const(int(node.evaluated_value), self.span(node))

    def e_float(self, node: cst.Float) -> TExpr:
        return const(float(node.evaluated_value), self.span(node))

    def e_string(self, node: cst.SimpleString) -> TExpr:
        return const(node.evaluated_value, self.span(node))

    def e_fstring(self, node: cst.FormattedString) -> TExpr:
        # Only a message (of `ct.static_assert`) can be a string; its text is not needed.
        return const(self.source.module.code_for_node(node), self.span(node))

    def e_tuple(self, node: cst.Tuple | cst.List) -> TExpr:
        return _tuple_of([self.expr(e.value) for e in node.elements], self.span(node))

    def e_paren(self, node: cst.BaseExpression) -> TExpr:
        return self.expr(node)

    def e_unary(self, node: cst.UnaryOperation) -> TExpr:
        operand = self.expr(node.expression)
        op = type(node.operator)
        if is_const(operand):
            value = operand.type.value
            symbolic = isinstance(value, _ConstParam | _Deferred)
            if op is cst.Minus:
                if isinstance(value, DimSym | DimExpr):
                    return const(dim_op("*", -1, value), self.span(node))
                if symbolic:
                    return const(_Deferred("*", -1.0, value), self.span(node))
                return const(-value, self.span(node))
            if op is cst.Plus:
                return operand
            if op is cst.Not:
                # A condition on launch-time constants stays symbolic: `not FLAG`.
                if symbolic:
                    return const(_Deferred("^", value, True), self.span(node))
                if isinstance(value, DimSym | DimExpr):
                    return const(_Deferred("==", value, 0), self.span(node))
                return const(not value, self.span(node))
            if op is cst.BitInvert and isinstance(value, int):
                return const(~value, self.span(node))
        kind = {cst.Minus: "neg", cst.Not: "not", cst.BitInvert: "bitnot", cst.Plus: "pos"}[op]
        if kind == "pos":
            return operand
        self._require_runtime(operand, node)
        return TExpr(kind, [operand], operand.type, self.span(node))

    def e_binary(self, node: cst.BinaryOperation) -> TExpr:
        op = _BINOPS[type(node.operator)]
        return self.binary(op, self.expr(node.left), self.expr(node.right), node)

    def e_boolean(self, node: cst.BooleanOperation) -> TExpr:
        left, right = self.expr(node.left), self.expr(node.right)
        is_and = isinstance(node.operator, cst.And)
        if is_const(left) and is_const(right) and _concrete(left.type.value) \
                and _concrete(right.type.value):
            a, b = left.type.value, right.type.value
            return const((a and b) if is_and else (a or b), self.span(node))
        if is_const(left) and _concrete(left.type.value):
            # Python's `and`/`or` with a known left operand is one of the operands.
            return right if bool(left.type.value) == is_and else left
        if _is_runtime_bool(left) and (_is_runtime_bool(right) or (
                is_const(right) and isinstance(right.type.value, bool))):
            return self.short_circuit(left, right, is_and, node)
        return self.binary("&" if is_and else "|", left, right, node, logical=True)

    def short_circuit(self, left: TExpr, right: TExpr, is_and: bool,
                      node: cst.CSTNode) -> TExpr:
        """`left and right` / `left or right` on runtime booleans, as cuTile Python
        compiles them: an `if` on `left` whose taken arm evaluates `right` (`and`: `if
        left { right } else { left }`; `or`: `if left { left } else { right }`)."""
        if left.op != "var":
            name = self._fresh("cond")
            self.out.append(TAssign(name, left, left.span))
            left = TExpr("var", [], left.type, left.span, {"name": name})
        then_val, else_val = (right, left) if is_and else (left, right)
        return self.value_if(left, then_val, else_val, "cond", node)

    def value_if(self, cond: TExpr, then_val: TExpr, else_val: TExpr, py_name: str,
                 node: cst.CSTNode) -> TExpr:
        """A value chosen by a runtime condition as an `if` whose arms each evaluate their
        own value (cuTile Python's `if_else` for `a if c else b`, `and`, `or`). The arms
        must have one type (`_if_value_types_match`)."""
        arms: list[tuple[list[TStmt], str]] = []
        for value in (then_val, else_val):
            body: list[TStmt] = []
            if is_const(value):
                other = else_val if value is then_val else then_val
                value = self._arm_value(py_name, value, other, body, node)
            if value.op != "var":
                name = self._fresh(py_name)
                body.append(TAssign(name, value, value.span))
                value = TExpr("var", [], value.type, value.span, {"name": name})
            arms.append((body, value.attrs["name"]))
        vtype = then_val.type if not is_const(then_val) else else_val.type
        rust_name = self._fresh(py_name)
        stmt = TIf(cond, arms[0][0], arms[1][0], [], self.span(node), False)
        stmt.results = [(rust_name, vtype, arms[0][1], arms[1][1], True)]
        self.out.append(stmt)
        return TExpr("var", [], vtype, self.span(node), {"name": rust_name, "binding": stmt})

    def e_compare(self, node: cst.Comparison) -> TExpr:
        left = self.expr(node.left)
        result: TExpr | None = None
        for target in node.comparisons:
            right = self.expr(target.comparator)
            op_type = type(target.operator)
            if op_type in (cst.Is, cst.IsNot):
                if not (is_const(left) and is_const(right)):
                    raise self.error("E0107", "`is` compares compile-time values only", node)
                same = left.type.value is right.type.value or left.type.value == right.type.value
                part = const(same if op_type is cst.Is else not same, self.span(node))
            elif op_type in (cst.In, cst.NotIn):
                part = self.contains(left, right, op_type is cst.NotIn, node)
            elif op_type not in _CMPOPS:
                raise self.error("E0104", "`in`/`not in` are not allowed in a kernel", node)
            else:
                part = self.compare(_CMPOPS[op_type], left, right, node)
            if result is not None and _is_runtime_bool(result) and _is_runtime_bool(part):
                # `a < b < c` is `a < b and b < c` (cuTile Python: an `if`).
                result = self.short_circuit(result, part, True, node)
            else:
                result = part if result is None else self.binary("&", result, part, node,
                                                                 logical=True)
            left = right
        assert result is not None
        return result

    def contains(self, needle: TExpr, haystack: TExpr, negate: bool,
                 node: cst.CSTNode) -> TExpr:
        """`x in (a, b, ..)` as cuTile Python evaluates it: `x == a`, then `| (x == b)` ..,
        left to right, stopping at the first item known equal at compile time; `not in` is
        `not` of that. Tuples compare item by item (`&` of the items' `==`, from `True`);
        tiles are refused, as cuTile Python refuses them."""
        items = self._tuple_items(haystack)
        if items is None:
            raise self.error("E0107", "`in` needs a tuple on its right", node)
        result: TExpr | None = None
        for item in items:
            part = self._equal(needle, item, node)
            if isinstance(part.type, TileType) and part.type.rank > 0:
                raise self.error("E0107", "`in` requires scalar operands, not tiles of "
                                 f"shape {_shape_text(part.type.shape)} (cuTile Python "
                                 "refuses them too)", node)
            if is_const(part) and part.type.value is True:
                result = part
                break
            result = part if result is None else self._bitwise("|", result, part, node)
        if result is None:
            result = const(False, self.span(node))
        if not negate:
            return result
        if is_const(result):
            return const(not result.type.value, self.span(node))
        # cuTile Python's `not` of a boolean is `xori` with true (and cuTile Rust takes no
        # `!` on a scalar).
        return self.binary("^", result, const(True, self.span(node)), node, logical=True)

    def _tuple_items(self, value: TExpr) -> list[TExpr] | None:
        if is_const(value) and isinstance(value.type.value, tuple):
            return [const(v, value.span) for v in value.type.value]
        if value.op == "tuple":
            return list(value.args)
        return None

    def _equal(self, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        """`a == b` for `in`: tuples item by item (a tuple and a non-tuple never equal)."""
        items_a, items_b = self._tuple_items(a), self._tuple_items(b)
        if items_a is None and items_b is None:
            return self.compare("==", a, b, node)
        if is_const(a) and is_const(b):
            return const(a.type.value == b.type.value, self.span(node))
        if items_a is None or items_b is None or len(items_a) != len(items_b):
            return const(False, self.span(node))
        result: TExpr = const(True, self.span(node))
        for x, y in zip(items_a, items_b, strict=True):
            part = self._equal(x, y, node)
            if isinstance(part.type, TileType) and part.type.rank > 0:
                raise self.error("E0107", "a tuple comparison needs scalar items, not "
                                 f"tiles of shape {_shape_text(part.type.shape)} (cuTile "
                                 "Python refuses them too)", node)
            result = self._bitwise("&", result, part, node)
        return result

    def _bitwise(self, op: str, left: TExpr, right: TExpr, node: cst.CSTNode) -> TExpr:
        """`left & right` / `left | right` on booleans, folded only when both are known (as
        cuTile Python folds them)."""
        if is_const(left) and is_const(right):
            return self.binary(op, left, right, node)
        return self.binary(op, left, right, node, logical=True)

    def e_ifexp(self, node: cst.IfExp) -> TExpr:
        cond = self.expr(node.test)
        if is_const(cond) and _concrete(cond.type.value):
            return self.expr(node.body if cond.type.value else node.orelse)
        if is_const(cond) and self.known_condition(cond.type.value) is not None:
            taken = self.known_condition(cond.type.value)
            return self.expr(node.body if taken else node.orelse)
        body, orelse = self.expr(node.body), self.expr(node.orelse)
        if is_const(cond):
            if is_const(body) and is_const(orelse):
                params = _params_in(cond.type.value)
                if params:
                    raise ConstDependentError(params, "a compile-time value chosen by "
                                              "`ct.Constant` parameters", self.span(node),
                                              cond.type.value)
                raise self.error("E0103", "a compile-time choice that depends on a "
                                 "`ct.Constant` parameter cannot pick a compile-time value",
                                 node, "expr:const_ternary")
            cond = TExpr("const_cond", [], ScalarType(BOOL), cond.span,
                         {"value": cond.type.value})
        elif _is_runtime_bool(cond) and not is_const(body) and not is_const(orelse) and \
                self._resolved(body.type) == self._resolved(orelse.type):
            # cuTile Python evaluates only the arm the condition takes (an `if`).
            return self.value_if(cond, body, orelse, "chosen", node)
        return self.where(cond, body, orelse, node)

    def e_subscript(self, node: cst.Subscript) -> TExpr:
        base = self.expr(node.value)
        elements = node.slice
        if is_const(base) and isinstance(base.type.value, str):
            if base.type.value == "Constant":
                return const("Constant", self.span(node))
        if is_const(base) and isinstance(base.type.value, tuple):
            index = self._const_index(elements, node)
            return const(base.type.value[index], self.span(node))
        if isinstance(base.type, ListType):
            index = self._const_index(elements, node)
            if base.op == "array_shape":
                array = base.args[0]
                # `.shape[i]` says the array has at least i + 1 dimensions; a memory
                # operation on it says exactly how many.
                self.shape_ranks[array.type.param] = max(
                    self.shape_ranks.get(array.type.param, 0), index + 1)
                static = array.type.static_dim(index) if index >= 0 else None
                if static is not None:
                    # A slice between compile-time bounds: cuTile Python's extent is a
                    # compile-time constant.
                    return const(static, self.span(node))
                return TExpr("array_dim", base.args, ScalarType(I32), self.span(node),
                             {"axis": index})
            return base.args[index]
        if isinstance(base.type, TileType):
            return self._tile_subscript(base, elements, node)
        if isinstance(base.type, ArrayType) and base.op == "array":
            # Launched with a tuple or list (of arrays or numbers): cuTile Python passes it
            # as one aggregate parameter; a cuTile Rust 0.5.0 entry takes tensors and
            # scalars only (no tensor-array or tuple parameter: gaps.md).
            raise self.error("E0107", f"`{base.type.param}[...]` indexes the kernel "
                             f"parameter `{base.type.param}` as a tuple or list; tuple and "
                             "list parameters are not translated (a cuTile Rust entry takes "
                             "arrays and scalars)", node, "expr:subscript_param")
        raise self.error("E0107", f"unsupported subscript of {_describe(base.type)}", node,
                         "expr:subscript")

    def _const_index(self, elements: tuple, node: cst.CSTNode) -> int:
        if len(elements) != 1 or not isinstance(elements[0].slice, cst.Index):
            raise self.error("E0107", "only a single index is supported here", node)
        value = self.expr(elements[0].slice.value)
        if not (is_const(value) and isinstance(value.type.value, int)):
            raise self.error("E0103", "the index must be a compile-time integer", node)
        return value.type.value

    def _tile_subscript(self, base: TExpr, elements: tuple, node: cst.CSTNode) -> TExpr:
        # Only `x[:, None]`-style newaxis insertion: a reshape.
        assert isinstance(base.type, TileType)
        shape: list[Dim] = []
        source_dims = list(base.type.shape)
        for element in elements:
            sl = element.slice
            if isinstance(sl, cst.Slice) and sl.lower is None and sl.upper is None \
                    and sl.step is None:
                if not source_dims:
                    raise self.error("E0108", "too many indices for the tile", node)
                shape.append(source_dims.pop(0))
            elif isinstance(sl, cst.Index) and isinstance(sl.value, cst.Name) \
                    and sl.value.value == "None":
                shape.append(1)
            else:
                raise self.error("E0110", "tile indexing other than `[:, None]` newaxis "
                                 "insertion is not supported", node, "expr:tile_index")
        shape.extend(source_dims)
        return self.reshape(base, tuple(shape), node)

    def e_call(self, node: cst.Call) -> TExpr:
        printer = self._print_kind(node.func)
        if printer is not None:
            return self.print_call(printer, node)
        if dotted_name(node.func) in ("tuple", "list") and "tuple" not in self.scope.names \
                and len(node.args) == 1 and isinstance(node.args[0].value,
                                                       cst.GeneratorExp | cst.ListComp):
            return self.comprehension(node.args[0].value)
        positional: list[TExpr] = []
        keywords: dict[str, TExpr] = {}
        for arg in node.args:
            if arg.star:
                raise self.error("E0104", "`*args`/`**kwargs` calls are not allowed in a "
                                 "kernel", arg)
            value = self.expr(arg.value)
            if arg.keyword is not None:
                keywords[arg.keyword.value] = value
            else:
                positional.append(value)
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) and \
                isinstance(func.value.func, cst.Attribute) and \
                func.value.func.attr.value == "tiled_view":
            return self.tiled_view_call(func.value, func.attr.value, positional, keywords,
                                        node)
        if isinstance(func, cst.Name) and func.value not in self.scope.names and \
                func.value not in self.source.functions and func.value not in \
                self.source.tile_names and func.value not in _BUILTIN_FUNCS and \
                func.value not in self.source.constants and \
                func.value not in self.source.sibling_imports:
            raise self.error("E0105", f"call to `{func.value}`, which is not defined in this "
                             "file (kernels can call cuda.tile functions, helpers defined in "
                             "the same file, and min/max/int/float/len)", func,
                             f"call:{func.value}")
        callee = self.expr(func)
        if callee.op == "function" and "math" in callee.attrs:
            args = [self.const_value(a, node, "a `math` function's argument")
                    for a in positional]
            if not all(isinstance(a, int | float) for a in args):
                raise self.error("E0103", "`math` functions take compile-time numbers", node)
            return const(getattr(math, callee.attrs["math"])(*args), self.span(node))
        if callee.op == "function" and "tile" in callee.attrs:
            return self.tile_call(callee.attrs["tile"], positional, keywords, node)
        if callee.op == "method":
            return self.tile_call(callee.attrs["name"], [callee.args[0], *positional],
                                  keywords, node, method=True)
        if callee.op == "function":
            name = callee.attrs["name"]
            if name in _BUILTIN_FUNCS:
                return _BUILTIN_FUNCS[name](self, positional, keywords, node)
            return self.call_helper(name, positional, keywords, node)
        if is_const(callee) and callee.type.value == "ByTarget":
            # `ct.ByTarget(sm_80=2, default=4)`: a per-target compile-time value.
            values = {k: self.const_value(v, node, "a ByTarget value")
                      for k, v in keywords.items()}
            return const(values, self.span(node))
        if is_const(callee) and isinstance(callee.type.value, DType):
            # `ct.float8_e4m3fn(0.0)`: a typed scalar constant.
            if len(positional) == 1 and is_const(positional[0]):
                return const(_TypedConst(positional[0].type.value, callee.type.value),
                             self.span(node))
        raise self.error("E0105", "this call target is not a cuda.tile function or a helper "
                         "defined in this file", node.func, "call:unknown")

    def _print_kind(self, func: cst.BaseExpression) -> str | None:
        """`print` (Python's builtin, not shadowed), `ct.print` or `ct.printf`, else None."""
        name = tile_attr(self.source, func)
        if name in ("print", "printf"):
            return f"ct.{name}"
        if isinstance(func, cst.Name) and func.value == "print" and \
                "print" not in self.scope.names and "print" not in self.source.functions:
            return "print"
        return None

    def print_call(self, printer: str, node: cst.Call) -> TExpr:
        """A print of text and at most one value, as cuTile Python formats it (literal `%`
        doubled, the value's conversion by its element type: `%d`, `%lld`, `%u`, `%f`,
        `%lf`); the Rust writes that format verbatim (`cuda_tile_print!` for text,
        `print_tko` for one value). Anything else is refused by `_refuse_print`."""
        pieces = self._print_pieces(printer, node)
        if pieces is None or sum(not isinstance(p, str) for p in pieces) > 1:
            self._refuse_print(printer, node)
        assert pieces is not None
        if self.printed or self.loop_kinds:
            # cuTile Python orders every print after the one before (a token chain, also
            # across loop iterations); `cuda_tile_print!` gives no token to chain, and the
            # `print_tko` chain is not written yet.
            raise self.error("E0101", f"a second `{printer}` in a kernel, or one in a loop, "
                             "is not translated yet: cuTile Python orders prints through a "
                             "token chain (`cuda_tile_print!` has no token; chaining "
                             "`print_tko` is not written)", node, "call:print_order")
        self.printed = True
        fmt = ""
        args: list[TExpr] = []
        for piece in pieces:
            if isinstance(piece, str):
                fmt += piece
                continue
            value = piece
            if is_const(value) or not isinstance(value.type, TileType | ScalarType):
                self._refuse_print(printer, node)
            # The conversion (`%d`, `%f`) follows the element type: one entry per type.
            self.dtype_dependent(value.type.dtype, node, "a printed value's format")
            dtype = self.find(value.type.dtype)
            if not isinstance(dtype, DType):
                self._refuse_print(printer, node)
            fmt += _printf_conversion(dtype)
            args.append(value)
        if "{}" in fmt and not args:
            # `cuda_tile_print!` reads `{}` as a placeholder.
            self._refuse_print(printer, node)
        return TExpr("print", args, ConstType(None), self.span(node), {"format": fmt})

    def _print_pieces(self, printer: str, node: cst.Call) -> list[str | TExpr] | None:
        """The format's literal text (already escaped for printf) and values, in order; None
        when a part is not one cuTile Python formats without a spec."""
        if printer == "ct.printf":
            return None  # a user format is validated per value by cuTile Python
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if set(keywords) - {"sep", "end"} or any(a.star for a in node.args):
            return None
        sep_end = []
        for key, default in (("sep", " "), ("end", "\n")):
            if key in keywords:
                written = keywords[key]
                if not isinstance(written, cst.SimpleString):
                    return None
                sep_end.append(written.evaluated_value)
            else:
                sep_end.append(default)
        sep, end = sep_end
        pieces: list[str | TExpr] = []
        for i, arg in enumerate(a for a in node.args if a.keyword is None):
            if i:
                pieces.append(sep.replace("%", "%%"))
            parts = self._print_arg(arg.value)
            if parts is None:
                return None
            pieces.extend(parts)
        pieces.append(end.replace("%", "%%"))
        return pieces

    def _print_arg(self, node: cst.BaseExpression) -> list[str | TExpr] | None:
        if isinstance(node, cst.SimpleString):
            return [node.evaluated_value.replace("%", "%%")]
        if isinstance(node, cst.FormattedString):
            out: list[str | TExpr] = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    text = part.value.replace("{{", "{").replace("}}", "}")
                    out.append(text.replace("%", "%%"))
                elif part.format_spec is not None or part.conversion is not None or \
                        part.equal is not None:
                    return None
                else:
                    out.append(self.expr(part.expression))
            return out
        value = self.expr(node)
        # A string held by a name, or built (`lhs + rhs`), is not followed: the analysis
        # keeps an f-string's source text, not its pieces.
        return None if isinstance(value.type, ListType) or is_const(value) else [value]

    def _refuse_print(self, printer: str, node: cst.Call) -> None:
        """The diagnostic for a print the translation does not write; it says whether
        cuTile Rust 0.5.0 has a faithful form (gaps.md, "print"). Formatted values are the
        call's non-literal arguments and the `{...}` fields of its f-strings (`ct.printf`:
        after the format)."""
        args = [a for a in node.args if a.keyword is None]
        if printer == "ct.printf":
            values = max(len(args) - 1, 0)
        else:
            values = sum(_formatted_values(a.value) for a in args)
        if values >= 2:
            raise self.error(
                "E0110", f"`{printer}` of {values} values has no faithful cuTile Rust 0.5.0 "
                "form: `cuda_tile_print!` writes each `{}` as `%` and the first letter of "
                "the element type (`%i`, `%f`: no width or precision, not cuTile Python's "
                "`%d`/`%lld`/`%.5f`), and `print_tko` takes a single value", node,
                "call:print_values")
        raise self.error("E0101", f"this `{printer}` is not translated yet (a format spec, "
                         "`ct.printf`, a tuple or a constant value; text and one value "
                         "without a spec are)", node, "call:print")

    def tiled_view_call(self, view: cst.Call, method: str, positional: list[TExpr],
                        keywords: dict[str, TExpr], node: cst.Call) -> TExpr:
        """`array.tiled_view(shape).atomic_store_add(index, tile)`: an atomic add of a tile
        through a partition view of the array (Tile IR `atomic_red_view_tko`)."""
        if method != "atomic_store_add":
            raise self.error("E0101", f"`tiled_view(...).{method}` is not lowered yet", node,
                             f"call:tiled_view.{method}")
        assert isinstance(view.func, cst.Attribute)
        array = self.materialize_slice(self.expr(view.func.value))
        if array.op != "array" or len(view.args) != 1 or keywords or len(positional) != 2:
            raise self.error("E0102", "expected `array.tiled_view(shape)."
                             "atomic_store_add(index, tile)`", node)
        shape = self.const_shape(self.expr(view.args[0].value), view, "the view shape")
        from transpiler.lowering.typing_rules import _index_scalars

        index = _index_scalars(self, positional[0], node)
        tile = positional[1]
        if not isinstance(tile.type, TileType) or tile.type.shape != shape or \
                len(index) != len(shape):
            raise self.error("E0108", "the tile and the index must match the view shape "
                             f"{shape}", node)
        # cuTile Python requires the tile's element type to be the array's (no conversion).
        if isinstance(self.find(array.type.dtype), DTypeVar) and \
                isinstance(self.find(tile.type.dtype), DType):
            static_pin_split(self, array.type.param, node)
        self.unify(tile.type.dtype, array.type.dtype, node)
        # A float add and an integer add are different atomic modes in the Rust.
        self.require_concrete(array.type.dtype, node, "an atomic add (float or integer)")
        self.written_arrays.add(array.type.param)
        self.array_ranks.setdefault(array.type.param, len(shape))
        return TExpr("view_atomic", [array, *index, tile], ConstType(None), self.span(node),
                     {"shape": shape, "mode": "add"})

    # ---- helpers (inlined) -------------------------------------------------------------

    def call_helper(self, name: str, positional: list[TExpr], keywords: dict[str, TExpr],
                    node: cst.Call) -> TExpr:
        if name not in self.source.functions and name in self.source.sibling_imports:
            return self._call_sibling_helper(name, positional, keywords, node)
        fn = self.source.functions.get(name)
        if fn is None:
            raise self.error("E0105", f"`{name}` is not defined in this file", node.func,
                             f"call:{name}")
        if name in self.helper_stack:
            raise self.error("E0106", f"`{name}` calls itself (recursion is not allowed in "
                             "kernel code)", node, "call:recursion")
        if len(self.helper_stack) >= _MAX_HELPER_DEPTH:
            raise self.error("E0106", "helper calls nest too deeply", node)
        scope = self._bind_helper_args(fn, positional, keywords, node)
        saved_scope = self.scope
        self.scope = scope
        self.helper_stack.append(name)
        # The caller's loop-carried names are not the helper's: an assignment in the
        # helper binds a local of its own, whatever its name.
        self.carried_stack.append(set())
        try:
            body = list(fn.body.body)
            if _docstring(body) is not None:
                body = body[1:]
            result = self._helper_body(body, fn)
        finally:
            self.carried_stack.pop()
            self.helper_stack.pop()
            self.scope = saved_scope
        return result

    def _sibling_name(self, name: str, node: cst.Name) -> TExpr:
        """A name imported from a sibling module: a helper, or a module constant (read in
        its own module)."""
        module, original = self.source.sibling_imports[name]
        other = sibling(self.source, module)
        if other is not None and original in other.constants:
            saved = self.source, self.path
            self.source, self.path = other, other.path
            try:
                return self._module_constant(original, node)
            finally:
                self.source, self.path = saved
        return TExpr("function", [], ConstType(None), self.span(node), {"name": name})

    def _call_sibling_helper(self, name: str, positional: list[TExpr],
                             keywords: dict[str, TExpr], node: cst.Call) -> TExpr:
        """A helper imported from a file beside this one (`from .gelu import f`): inlined
        like a local helper, its body read in its own module (names, constants, spans)."""
        module, original = self.source.sibling_imports[name]
        other = sibling(self.source, module)
        if other is None or original not in other.functions:
            where = "which has no such function" if other else "which is not a file beside it"
            raise self.error("E0105", f"`{name}` is imported from `.{module}`, {where}",
                             node.func, f"call:{name}")
        saved = self.source, self.path
        self.source, self.path = other, other.path
        try:
            return self.call_helper(original, positional, keywords, node)
        finally:
            self.source, self.path = saved

    def _bind_helper_args(self, fn: cst.FunctionDef, positional: list[TExpr],
                          keywords: dict[str, TExpr], node: cst.Call) -> _Scope:
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        if len(positional) > len(params):
            raise self.error("E0102", f"`{fn.name.value}` takes {len(params)} arguments, "
                             f"got {len(positional)}", node)
        names: dict[str, TExpr] = {}
        for param, value in zip(params, positional, strict=False):
            names[param.name.value] = self.materialize_slice(value)
        for key, value in keywords.items():
            if not any(p.name.value == key for p in params):
                raise self.error("E0102", f"`{fn.name.value}` has no parameter `{key}`", node)
            names[key] = self.materialize_slice(value)
        for param in params:
            pname = param.name.value
            if pname not in names:
                if param.default is None:
                    raise self.error("E0102", f"`{fn.name.value}` is missing argument "
                                     f"`{pname}`", node)
                names[pname] = self.expr(param.default)
        for pname, value in names.items():
            if self._read_twice(fn, pname, value):
                names[pname] = self._argument_local(fn, pname, value)
        return _Scope(names, {}, dict(names))

    def _read_twice(self, fn: cst.FunctionDef, pname: str, value: TExpr) -> bool:
        """Whether a computed argument would be written out more than once when the helper
        is inlined (its parameter read at several places)."""
        if is_const(value) or isinstance(value.type, ListType) or not value.args and (
                value.op in _LEAF_OPS):
            return False
        reads = [n for n in _walk_names(fn.body) if n == pname]
        return len(reads) > 1

    def _argument_local(self, fn: cst.FunctionDef, pname: str, value: TExpr) -> TExpr:
        """An argument bound to a local before the helper's body: cuTile Python evaluates a
        call's arguments once (a load in an argument is one load, however often the
        helper reads its parameter)."""
        name = self._fresh_distinct(f"{fn.name.value}_{pname}")
        stmt = TAssign(name, value, value.span)
        self.out.append(stmt)
        return TExpr("var", [], value.type, value.span,
                     {"name": name, "binding": stmt, "assigned_by": stmt})

    def _helper_body(self, body: list[cst.BaseStatement], fn: cst.FunctionDef) -> TExpr:
        result: TExpr = const(None)
        for index, stmt in enumerate(body):
            last = index == len(body) - 1
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[-1],
                                                                        cst.Return):
                for small in stmt.body[:-1]:
                    self.small_statement(small, False)
                ret = stmt.body[-1]
                if not last:
                    raise self.error("E0110", "an early `return` in a helper is not "
                                     "supported", ret, "stmt:early_return")
                if ret.value is not None:
                    result = self.expr(ret.value)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self.small_statement(small, False)
            elif isinstance(stmt, cst.If) and self._has_return(stmt):
                raise self.error("E0110", "`return` inside a branch of a helper is not "
                                 "supported", stmt, "stmt:early_return")
            else:
                self.compound_statement(stmt)
        return result

    def _has_return(self, node: cst.CSTNode) -> bool:
        return self.facts.has_return(node)

    # ---- typing rules used by the API table ---------------------------------------------

    def tile_call(self, name: str, positional: list[TExpr], keywords: dict[str, TExpr],
                  node: cst.Call, method: bool = False) -> TExpr:
        from transpiler.lowering.typing_rules import TYPERS

        bound = signatures.bind(name, positional, keywords)
        if isinstance(bound, str):
            raise self.error("E0102", bound, node)
        typer = TYPERS.get(name)
        if typer is None:
            err = self.error("E0101", f"`ct.{name}` is not supported by the deterministic "
                             "passes yet", node, f"call:ct.{name}")
            return self.hole(err, bound.values, bound.explicit, node)
        values = {k: self._default_value(v) for k, v in bound.values.items()}
        if not self.allow_holes:
            return typer(self, values, bound.explicit, node)
        try:
            return typer(self, values, bound.explicit, node)
        except TranslationError as err:
            if err.unhandled is None or not err.unhandled.construct.startswith("call:ct."):
                raise
            return self.hole(err, bound.values, bound.explicit, node)

    # ---- LLM fallback holes (see llm_fallback/) -------------------------------------------
    # With `allow_holes`, a cuda.tile call that the passes cannot type or lower becomes a
    # `hole` node when it is element-wise: every explicit argument is a runtime tile or
    # scalar, and one at least is a tile. Its operands are converted and broadcast as for a
    # binary operator, and the result has their promoted dtype and broadcast shape. Any other
    # call (compile-time arguments: axes, dtypes, modes, shapes, flags, numbers; arrays) keeps
    # its error. The fallback fills the hole with a checked Rust fragment before lowering.

    def hole(self, err: TranslationError, values: dict[str, object], explicit: set[str],
             node: cst.Call) -> TExpr:
        if not self.allow_holes or err.unhandled is None:
            raise err
        operands = [(k, v) for k, v in values.items() if k in explicit]
        exprs = [v for _, v in operands if isinstance(v, TExpr) and isinstance(
            v.type, TileType | ScalarType)]
        shapes = [v.type.shape for v in exprs if isinstance(v.type, TileType)]
        if not shapes or len(exprs) != len(operands):
            raise err
        dtype = exprs[0].type.dtype
        for value in exprs[1:]:
            dtype = self.promote(dtype, value.type.dtype, node)
        shape = self.broadcast_shapes(shapes, node)
        self.hole_count += 1
        attrs: dict[str, object] = {"construct": err.unhandled.construct, "id": self.hole_count,
                                    "params": [k for k, _ in operands],
                                    "unhandled": err.unhandled, "diagnostic": err.diagnostic}
        return TExpr("hole", [self.to_tile(v, dtype, shape, node) for v in exprs],
                     TileType(dtype, shape), self.span(node), attrs)

    def _default_value(self, value: object) -> TExpr:
        if isinstance(value, TExpr):
            return value
        if isinstance(value, str) and value.startswith("enum:"):
            enum, _, member = value[5:].partition(".")
            return const(EnumValue(enum, member))
        return const(value)

    def _eval_const_node(self, node: cst.BaseExpression) -> object:
        value = self.expr(node)
        if not is_const(value):
            raise self.error("E0103", "a compile-time constant is required here", node)
        return value.type.value

    def const_value(self, value: TExpr, node: cst.CSTNode, what: str) -> object:
        if not is_const(value):
            raise self.error("E0103", f"{what} must be a compile-time constant", node,
                             "expr:non_constant")
        return value.type.value

    def const_int(self, value: TExpr, node: cst.CSTNode, what: str) -> int:
        v = self.const_value(value, node, what)
        if not isinstance(v, int) or isinstance(v, bool):
            raise self.error("E0103", f"{what} must be a literal integer", node)
        return v

    def const_shape(self, value: TExpr, node: cst.CSTNode, what: str = "a shape") -> Shape:
        v = self.const_value(value, node, what)
        if isinstance(v, int | DimSym | DimExpr) and not isinstance(v, bool):
            return (v,)
        if not isinstance(v, tuple) or not all(
                isinstance(d, int | DimSym | DimExpr) and not isinstance(d, bool) for d in v):
            raise self.error("E0103", f"{what} must be a tuple of compile-time integers", node)
        return tuple(v)

    def const_dtype(self, value: TExpr, node: cst.CSTNode) -> ElemType:
        v = self.const_value(value, node, "a dtype")
        if isinstance(v, DType | DTypeVar):
            return self.find(v)
        raise self.error("E0103", "expected a dtype", node)

    def _require_runtime(self, value: TExpr, node: cst.CSTNode) -> None:
        if not isinstance(value.type, TileType | ScalarType):
            raise self.error("E0107", f"expected a tile or scalar, found "
                             f"{_describe(value.type)}", node)

    def _int_scalar(self, value: int) -> TExpr:
        return TExpr("literal", [], ScalarType(I32), None, {"value": value})

    def to_scalar(self, value: TExpr, node: cst.CSTNode, dtype: ElemType = I32) -> TExpr:
        """A runtime scalar from a scalar, a 0-d tile or a compile-time number."""
        if isinstance(value.type, ScalarType):
            return value
        if is_const(value):
            v = value.type.value
            if isinstance(v, bool):
                return TExpr("literal", [], ScalarType(BOOL), value.span, {"value": v})
            if isinstance(v, int | float):
                dt = F32 if isinstance(v, float) else dtype
                return TExpr("literal", [], ScalarType(dt), value.span, {"value": v})
            if isinstance(v, DimSym | DimExpr):
                return TExpr("dim", [], ScalarType(I32), value.span, {"value": v})
            if isinstance(v, _ConstParam):
                dt = BOOL if v.kind == "bool" else F32
                return TExpr("const_param", [], ScalarType(dt), value.span, {"name": v.name})
            if isinstance(v, _Deferred) and _float_expression(v):
                return self.derived_scalar(v, value.span)
            if isinstance(v, _Deferred) and _bool_expression(v):
                return TExpr("const_cond", [], ScalarType(BOOL), value.span, {"value": v})
        if isinstance(value.type, TileType) and value.type.rank == 0:
            if value.op == "compare":
                # The cuTile Rust compiler cannot unwrap a 0-d `bool` tile (it panics on
                # `tile_to_scalar` to `bool`); comparing the operands as scalars is the
                # same `cmpi`/`cmpf` on 0-d tiles. Nor can it unwrap a tile of a generic
                # element type: a launch-time type is translated per dtype.
                for arg in value.args:
                    if isinstance(self.find(arg.type.dtype), DTypeVar):
                        self.require_concrete(arg.type.dtype, node, "a comparison of 0-d "
                                              "tiles used as a scalar")
                left, right = (_as_scalar(a) for a in value.args)
                return TExpr("compare", [left, right], ScalarType(BOOL), value.span,
                             value.attrs)
            return _as_scalar(value)
        raise self.error("E0107", f"expected a scalar, found {_describe(value.type)}", node)

    # Arithmetic, broadcasting and promotion --------------------------------------------

    def binary(self, op: str, left: TExpr, right: TExpr, node: cst.CSTNode,
               logical: bool = False, attrs: dict[str, object] | None = None) -> TExpr:
        if is_const(left) and is_const(right):
            return const(self._fold(op, left.type.value, right.type.value, node),
                         self.span(node))
        if op == "+" and self._tuple_items(left) is not None and \
                self._tuple_items(right) is not None:
            # Tuple concatenation (`acc += (t, t * 2)` in an unrolled loop).
            return _tuple_of([*self._tuple_items(left), *self._tuple_items(right)],
                             self.span(node))
        if op == "@":
            from transpiler.lowering.typing_rules import matmul

            return matmul(self, left, right, node)
        self._require_operand(left, node)
        self._require_operand(right, node)
        dtype = self._result_dtype(op, left, right, node)
        if op in ("//", "%"):
            # Python's integer `//` and `%` round toward negative infinity (a remainder
            # takes the divisor's sign), which Rust's operators do not: the lowering
            # writes the integer form only for a known integer type.
            self.require_concrete(dtype, node, f"Python's `{op}` (integers round toward "
                                  "negative infinity)")
        if op == "/" and not (isinstance(dtype, DType) and dtype.is_float):
            if isinstance(dtype, DType) and (dtype.is_int or dtype.is_bool):
                dtype = F32
        left, right, shape = self.harmonize(left, right, dtype, node)
        rtype = TileType(dtype, shape) if shape is not None else ScalarType(dtype)
        return TExpr("binary", [left, right], rtype, self.span(node),
                     {"op": op, "logical": logical, **(attrs or {})})

    def compare(self, op: str, left: TExpr, right: TExpr, node: cst.CSTNode) -> TExpr:
        if is_const(left) and is_const(right):
            return const(self._fold(op, left.type.value, right.type.value, node),
                         self.span(node))
        self._require_operand(left, node)
        self._require_operand(right, node)
        self._pin_scalar_int(left, right, node)
        dtype = self._result_dtype(op, left, right, node)
        left, right, shape = self.harmonize(left, right, dtype, node)
        rtype = TileType(BOOL, shape) if shape is not None else ScalarType(BOOL)
        if op == "!=" and shape is not None and not (isinstance(dtype, DType)
                                                     and not dtype.is_float):
            # Float `!=` is an unordered compare (true for NaN), the others ordered: the
            # Rust names the ordering, which needs the element type.
            self.require_concrete(dtype, node, "a float `!=` (an unordered compare)")
        return TExpr("compare", [left, right], rtype, self.span(node), {"op": op})

    def _pin_scalar_int(self, left: TExpr, right: TExpr, node: cst.CSTNode) -> None:
        """A single value of a launch-time element type compared with a runtime integer
        (a length read from an array against a block offset) is that integer type, as
        for indices: the launcher checks the array's dtype."""
        def dtype_of(value: TExpr) -> ElemType | None:
            if isinstance(value.type, ScalarType) or (isinstance(value.type, TileType)
                                                      and value.type.rank == 0):
                return self.find(value.type.dtype)
            return None

        a, b = dtype_of(left), dtype_of(right)
        for x, y in ((a, b), (b, a)):
            if isinstance(x, DTypeVar) and isinstance(y, DType) and y.is_int:
                self.unify(x, y, node)

    def where(self, cond: TExpr, x: TExpr, y: TExpr, node: cst.CSTNode) -> TExpr:
        self._require_operand(x, node)
        self._require_operand(y, node)
        dtype = self._result_dtype("where", x, y, node)
        shapes = [v.type.shape for v in (cond, x, y) if isinstance(v.type, TileType)]
        shape = self.broadcast_shapes(shapes, node) if shapes else None
        if shape is None:
            x = self.cast_scalar(x, dtype, node)
            y = self.cast_scalar(y, dtype, node)
            return TExpr("select_scalar", [self.to_scalar(cond, node, BOOL), x, y],
                         ScalarType(dtype), self.span(node))
        cond = self.to_tile(cond, BOOL, shape, node)
        x = self.to_tile(x, dtype, shape, node)
        y = self.to_tile(y, dtype, shape, node)
        return TExpr("where", [cond, x, y], TileType(dtype, shape), self.span(node))

    def _require_operand(self, value: TExpr, node: cst.CSTNode) -> None:
        if is_const(value):
            v = value.type.value
            if isinstance(v, bool | int | float | DimSym | DimExpr | _ConstParam | _TypedConst):
                return
            if isinstance(v, _Deferred) and (_float_expression(v) or _bool_expression(v)):
                return
        elif isinstance(value.type, TileType | ScalarType):
            return
        raise self.error("E0107", f"operand is {_describe(value.type)}, not a tile or number",
                         node)

    def _dtype_of(self, value: TExpr) -> ElemType | None:
        """A runtime operand's element type; None for a loosely typed Python number."""
        if isinstance(value.type, TileType | ScalarType):
            return self.find(value.type.dtype)
        v = value.type.value if is_const(value) else None
        if isinstance(v, _TypedConst):
            return v.dtype
        if isinstance(v, _ConstParam):
            return BOOL if v.kind == "bool" else None
        return None

    def _result_dtype(self, op: str, left: TExpr, right: TExpr, node: cst.CSTNode) -> ElemType:
        ld, rd = self._dtype_of(left), self._dtype_of(right)
        if ld is None and rd is None:
            return self._loose_dtype(left) if _is_float_const(left) or _is_float_const(
                right) else I32
        if ld is None:
            return self._with_loose(rd, left)
        if rd is None:
            return self._with_loose(ld, right)
        return self.promote(ld, rd, node)

    def _loose_dtype(self, value: TExpr) -> ElemType:
        return F32

    def _with_loose(self, dtype: ElemType, loose: TExpr) -> ElemType:
        # A Python number takes the other operand's dtype, except a float literal with an
        # integer tile, which promotes to float32.
        if isinstance(dtype, DType) and (dtype.is_int or dtype.is_bool) and _is_float_const(
                loose):
            return F32
        return dtype

    def promote(self, a: ElemType, b: ElemType, node: cst.CSTNode) -> ElemType:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        if isinstance(a, DTypeVar) and isinstance(b, DTypeVar):
            # Two launch-time dtypes combined without a cast: they must be the same.
            return self.unify(a, b, node)
        if isinstance(a, DTypeVar) or isinstance(b, DTypeVar):
            concrete = b if isinstance(a, DTypeVar) else a
            assert isinstance(concrete, DType)
            if concrete.is_float and concrete.name in ("float32", "float64"):
                note = (f"a launch-time element type meets `{concrete}`: the translation "
                        f"converts it to `{concrete}`, which is cuTile Python's promotion "
                        "for 16-bit floats and the identity for the same type")
                if note not in self.notes:
                    self.notes.append(note)
                return concrete
            return self.unify(a, b, node)
        return _promote_concrete(a, b, self, node)

    def harmonize(self, left: TExpr, right: TExpr, dtype: ElemType,
                  node: cst.CSTNode) -> tuple[TExpr, TExpr, Shape | None]:
        shapes = [v.type.shape for v in (left, right) if isinstance(v.type, TileType)]
        if not shapes:
            return self.cast_scalar(left, dtype, node), self.cast_scalar(right, dtype,
                                                                           node), None
        shape = self.broadcast_shapes(shapes, node)
        return (self.to_tile(left, dtype, shape, node), self.to_tile(right, dtype, shape, node),
                shape)

    def broadcast_shapes(self, shapes: list[Shape], node: cst.CSTNode) -> Shape:
        rank = max((len(s) for s in shapes), default=0)
        result: list[Dim] = []
        for axis in range(rank):
            dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
            dims.discard(1)
            if len(dims) > 1:
                raise self.error("E0108", "tile shapes " + " and ".join(
                    _shape_text(s) for s in shapes) + " do not broadcast", node)
            result.append(dims.pop() if dims else 1)
        return tuple(result)

    def cast_scalar(self, value: TExpr, dtype: ElemType, node: cst.CSTNode) -> TExpr:
        scalar = self.to_scalar(value, node, dtype if isinstance(dtype, DType) else I32)
        if scalar.op == "literal" and scalar.type.dtype != dtype:
            return TExpr("literal", [], ScalarType(dtype), scalar.span, scalar.attrs)
        if self.find(scalar.type.dtype) != self.find(dtype):
            return TExpr("convert_scalar", [scalar], ScalarType(dtype), scalar.span)
        return scalar

    def to_tile(self, value: TExpr, dtype: ElemType, shape: Shape,
                node: cst.CSTNode) -> TExpr:
        """Convert and broadcast a tile, scalar or number to `dtype` and `shape`."""
        if not isinstance(value.type, TileType):
            self._require_operand(value, node)
            if is_const(value) and not isinstance(value.type.value, _ConstParam | DimSym
                                                  | DimExpr | _Deferred):
                v = value.type.value
                if isinstance(v, _TypedConst):
                    v = v.value
                return TExpr("full", [], TileType(dtype, shape), value.span,
                             {"value": v, "shape": shape})
            scalar = self.cast_scalar(value, dtype, node)
            return TExpr("splat", [scalar], TileType(dtype, shape), value.span,
                         {"shape": shape})
        value = self.convert(value, dtype, node)
        return self.broadcast_to(value, shape, node)

    def convert(self, value: TExpr, dtype: ElemType, node: cst.CSTNode,
                rounding: object = None) -> TExpr:
        assert isinstance(value.type, TileType)
        if self.find(value.type.dtype) == self.find(dtype):
            return value
        return TExpr("convert", [value], TileType(dtype, value.type.shape), value.span,
                     {"rounding": rounding})

    def broadcast_to(self, value: TExpr, shape: Shape, node: cst.CSTNode) -> TExpr:
        assert isinstance(value.type, TileType)
        src = value.type.shape
        if src == shape:
            return value
        if len(src) < len(shape):
            value = self.reshape(value, (1,) * (len(shape) - len(src)) + tuple(src), node)
            src = value.type.shape
            if src == shape:
                return value
        for s, d in zip(src, shape, strict=False):
            if s != d and s != 1:
                raise self.error("E0108", f"cannot broadcast {_shape_text(src)} to "
                                 f"{_shape_text(shape)}", node)
        return TExpr("broadcast", [value], TileType(value.type.dtype, shape), value.span,
                     {"shape": shape})

    def reshape(self, value: TExpr, shape: Shape, node: cst.CSTNode) -> TExpr:
        assert isinstance(value.type, TileType)
        if value.type.shape == shape:
            return value
        return TExpr("reshape", [value], TileType(value.type.dtype, shape), value.span,
                     {"shape": shape})

    def stride_param(self, array: str, dim: int) -> str:
        """The name of the extra `i32` parameter that carries `array`'s stride along `dim`."""
        for name, known_array, known_dim in self.stride_params:
            if (known_array, known_dim) == (array, dim):
                return name
        name = rust_ident(f"{array}_stride_{dim}")
        self.stride_params.append((name, array, dim))
        return name

    def derived_scalar(self, expr: _Deferred, span: Span | None) -> TExpr:
        """A compile-time float expression over `ct.Constant` parameters (an integer one used
        as a float: `N * 1.0`).

        cuTile Python folds it (in double precision) when it compiles the kernel; cuTile Rust
        has no float const generics, so the launcher computes the same value on the host
        and passes it as an extra `f32` parameter, recorded in the manifest with the
        expression.
        """
        tree = _expression_tree(expr)
        for name, known in self.derived_params:
            if known == tree:
                return TExpr("const_param", [], ScalarType(F32), span, {"name": name})
        base = _first_param(expr) or "value"
        name = rust_ident(f"{base}_derived_{len(self.derived_params) + 1}")
        self.derived_params.append((name, tree))
        return TExpr("const_param", [], ScalarType(F32), span, {"name": name})

    def require_concrete(self, dtype: ElemType, node: cst.CSTNode, what: str) -> None:
        """Like `dtype_dependent`, checked when the body is done: later code may still fix
        the element type (an array read as indices becomes int32)."""
        self.concrete_required.append((dtype, node, what))

    def dtype_dependent(self, dtype: ElemType, node: cst.CSTNode, what: str) -> None:
        """Raise `DtypeDependentError` when `dtype` is a launch-time element type."""
        found = self.find(dtype)
        if isinstance(found, DTypeVar):
            members = [p.name for p in self.params if isinstance(p.type, ArrayType)
                       and self._root(p.type.dtype.key) == self._root(found.key)]
            raise DtypeDependentError(members, what, self.span(node))

    def _fold(self, op: str, a: object, b: object, node: cst.CSTNode) -> object:
        if op in ("==", "!=") and (isinstance(a, DTypeVar) or isinstance(b, DTypeVar)):
            var = a if isinstance(a, DTypeVar) else b
            other = b if var is a else a
            if var != other:
                self.dtype_dependent(var, node, "a comparison of element types")
        if isinstance(a, DimSym | DimExpr) or isinstance(b, DimSym | DimExpr):
            if op in ("+", "-", "*", "//", "%") and all(
                    isinstance(v, int | DimSym | DimExpr) and not isinstance(v, bool)
                    for v in (a, b)):
                return dim_op(op, a, b)  # type: ignore[arg-type]
            if op in ("==", "!=") and isinstance(a, DimSym | DimExpr) and a == b:
                return op == "=="
            return _Deferred(op, a, b)
        if isinstance(a, _ConstParam | _Deferred) or isinstance(b, _ConstParam | _Deferred):
            for known, other in ((a, b), (b, a)):
                if isinstance(known, bool) and op in ("&", "|"):
                    # `FLAG or False` is FLAG; `FLAG and False` is False.
                    if (op == "|") != known:
                        return other
                    return known
            return _Deferred(op, a, b)
        try:
            return _PY_OPS[op](a, b)
        except (TypeError, ZeroDivisionError, KeyError) as err:
            raise self.error("E0107", f"cannot evaluate `{op}` on compile-time values: {err}",
                             node) from None


def condition_key(value: object) -> str:
    """A condition over `ct.Constant` parameters written as Rust (`(BLOCK_W == 1)`)."""
    if isinstance(value, _ConstParam | DimSym):
        return value.name
    if isinstance(value, _Deferred | DimExpr):
        op = "/" if value.op == "//" else value.op
        return f"({condition_key(value.left)} {op} {condition_key(value.right)})"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def condition_tree(value: object) -> object:
    """JSON form of a condition: ["==", ["param", "BLOCK_W"], 1]."""
    if isinstance(value, _ConstParam | DimSym):
        return ["param", value.name]
    if isinstance(value, _Deferred | DimExpr):
        return [value.op, condition_tree(value.left), condition_tree(value.right)]
    return value




_RANK = {"bool_": 0, "uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 3, "int32": 3,
         "uint64": 4, "int64": 4, "float16": 10, "bfloat16": 10, "tfloat32": 11,
         "float32": 11, "float64": 12}


def _promote_concrete(a: DType, b: DType, analyzer: KernelAnalyzer,
                      node: cst.CSTNode) -> DType:
    if {a.name, b.name} == {"float16", "bfloat16"}:
        return F32
    ra, rb = _RANK.get(a.name), _RANK.get(b.name)
    if ra is None or rb is None:
        raise analyzer.error("E0108", f"no implicit promotion between `{a}` and `{b}`", node)
    return a if ra >= rb else b


def _describe(vtype: ValueType) -> str:
    if isinstance(vtype, TileType):
        return f"tile<{_dtype_text(vtype.dtype)}, {_shape_text(vtype.shape)}>"
    if isinstance(vtype, ScalarType):
        return f"scalar<{_dtype_text(vtype.dtype)}>"
    if isinstance(vtype, ArrayType):
        return f"array `{vtype.param}`"
    if isinstance(vtype, ListType):
        return "tuple(" + ", ".join(_describe(i) for i in vtype.items) + ")"
    return f"constant `{_const_text(vtype.value)}`"


def _const_text(value: object) -> str:
    """A compile-time value as the source would write it (never an internal repr)."""
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_const_text(v) for v in value) + ("," if len(value) == 1
                                                                 else "") + ")"
    if isinstance(value, DType):
        return f"ct.{value.name}"
    if all(hasattr(value, f) for f in ("op", "left", "right")):
        left, op, right = (getattr(value, f) for f in ("left", "op", "right"))
        return f"({_const_text(left)} {op} {_const_text(right)})"
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name
    if hasattr(value, "value"):
        return _const_text(value.value)  # a typed number
    return "a compile-time value"


def _dtype_text(dtype: ElemType) -> str:
    return dtype.name if isinstance(dtype, DType) else f"dtype#{dtype.key}"


def _shape_text(shape: Shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


#: Model ops without operands that name a value rather than compute one.
_LEAF_OPS = frozenset({"var", "array", "const", "const_param", "const_cond", "dim",
                       "literal", "function"})


def _walk_names(node: cst.CSTNode) -> list[str]:
    """The identifiers `node` reads or binds, one per occurrence."""
    found: list[str] = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:  # noqa: N802 - libcst's visitor name
            found.append(name.value)

    node.visit(Names())
    return found


def _docstring(body: list[cst.BaseStatement]) -> str | None:
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        value = body[0].body[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _ends_with_return(stmts: Sequence[cst.BaseStatement]) -> bool:
    last = stmts[-1] if stmts else None
    return (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)
            and last.body[-1].value is None)


def _returns_inside(node: cst.If) -> bool:
    """Whether a `return` statement sits somewhere in the `if`'s arms (not in a nested
    function)."""
    found = False

    class _Finder(cst.CSTVisitor):
        def visit_Return(self, _node: cst.Return) -> None:  # noqa: N802 - libcst's name
            nonlocal found
            found = True

        def visit_FunctionDef(self, _node: cst.FunctionDef) -> bool:  # noqa: N802
            return False

    node.visit(_Finder())
    return found


def _printf_conversion(dtype: DType) -> str:
    """cuTile Python's printf conversion of a value printed without a spec (its
    `PrintfValidator.infer_format`)."""
    if dtype.is_bool:
        return "%d"
    if dtype.is_int:
        length = "ll" if dtype.name.endswith("64") else ""
        return f"%{length}{'u' if dtype.name.startswith('uint') else 'd'}"
    return "%lf" if dtype.name == "float64" else "%f"


def _formatted_values(node: cst.BaseExpression) -> int:
    """How many runtime values a `print` argument formats: an f-string its fields, a string
    literal none, anything else one."""
    if isinstance(node, cst.SimpleString):
        return 0
    if isinstance(node, cst.ConcatenatedString):
        return _formatted_values(node.left) + _formatted_values(node.right)
    if isinstance(node, cst.FormattedString):
        return sum(1 for part in node.parts if isinstance(part, cst.FormattedStringExpression))
    return 1


def _tuple_of(items: list[TExpr], span: Span | None = None) -> TExpr:
    """A tuple value: a compile-time constant when every item is one."""
    if all(is_const(i) for i in items):
        return const(tuple(i.type.value for i in items), span)
    return TExpr("tuple", items, ListType(tuple(i.type for i in items)), span)


def _is_runtime_bool(value: TExpr) -> bool:
    """A boolean scalar known only at run time (not a tile, not a compile-time value)."""
    return isinstance(value.type, ScalarType) and value.type.dtype == BOOL and not is_const(
        value)


def _as_scalar(value: TExpr) -> TExpr:
    """A 0-d tile as a scalar of its element type (a scalar splat to 0-d: the scalar)."""
    assert isinstance(value.type, TileType) and value.type.rank == 0
    if value.op == "splat" and isinstance(value.args[0].type, ScalarType):
        return value.args[0]
    return TExpr("tile_to_scalar", [value], ScalarType(value.type.dtype), value.span)


def _is_early_exit(node: cst.If) -> bool:
    """An `if` whose body ends with `return` and whose `else` (if any) does not."""
    return _ends_with_return(node.body.body) and not _ends_with_return(_else_body(node))


def _else_body(node: cst.If) -> tuple:
    if node.orelse is None:
        return ()
    if isinstance(node.orelse, cst.If):
        return (node.orelse,)
    return tuple(node.orelse.body.body)


def _walk_assigns(stmts: list[TStmt]):
    return (stmt for stmt in walk_statements(stmts) if isinstance(stmt, TAssign))


def _rename_first_assign(stmts: list[TStmt], old: str, new: str) -> None:
    for stmt in _walk_assigns(stmts):
        if stmt.name == old:
            stmt.name = new
            stmt.first = False
            return


def _resolve_types(model: KernelModel, analyzer: KernelAnalyzer) -> None:
    """Replace every dtype variable by its class representative (or forced dtype)."""

    def fix(vtype: ValueType) -> ValueType:
        if isinstance(vtype, TileType):
            return TileType(analyzer.find(vtype.dtype), vtype.shape)
        if isinstance(vtype, ScalarType):
            return ScalarType(analyzer.find(vtype.dtype))
        if isinstance(vtype, ArrayType):
            ndim = analyzer.array_ranks.get(vtype.param,
                                            analyzer.shape_ranks.get(vtype.param, vtype.ndim))
            return ArrayType(analyzer.find(vtype.dtype), ndim, vtype.param, vtype.static_dims)
        if isinstance(vtype, ListType):
            return ListType(tuple(fix(i) for i in vtype.items))
        if isinstance(vtype, ConstType) and isinstance(vtype.value, DTypeVar):
            return ConstType(analyzer.find(vtype.value))
        return vtype

    def visit_expr(expr: TExpr) -> None:
        expr.type = fix(expr.type)
        for key, value in list(expr.attrs.items()):
            if isinstance(value, DTypeVar):
                expr.attrs[key] = analyzer.find(value)
        for arg in expr.args:
            visit_expr(arg)
        # A conversion inserted before unification fixed both sides to one type is a no-op.
        expr.args = [_skip_identity_convert(a) for a in expr.args]

    def visit(stmts: list[TStmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, TAssign | TEffect):
                visit_expr(stmt.value)
                stmt.value = _skip_identity_convert(stmt.value)
            elif isinstance(stmt, TDeclare):
                stmt.type = fix(stmt.type)
            elif isinstance(stmt, TFor):
                for e in (stmt.start, stmt.stop, stmt.step):
                    visit_expr(e)
                visit(stmt.body)
            elif isinstance(stmt, TWhile):
                if stmt.cond is not None:
                    visit_expr(stmt.cond)
                visit(stmt.body)
            elif isinstance(stmt, TIf):
                visit_expr(stmt.cond)
                visit(stmt.then)
                visit(stmt.orelse)
                stmt.results = [(name, fix(vtype), t_name, e_name, first)
                                for name, vtype, t_name, e_name, first in stmt.results]

    for param in model.params:
        param.type = fix(param.type)
        param.written = param.name in analyzer.written_arrays
    visit(model.body)


def _prune_unused_if_results(body: list[TStmt]) -> None:
    """Drop `if` results no later code reads (a name both arms assign but nothing uses).

    A result is live when an expression reads it, or when it is what an arm of an
    enclosing `if` yields (names an arm yields are passed down as `tail`)."""
    used: set[tuple[int, str]] = set()

    def visit_expr(expr: TExpr) -> None:
        if expr.op == "var" and expr.attrs.get("binding") is not None:
            used.add((id(expr.attrs["binding"]), expr.attrs["name"]))
        for arg in expr.args:
            visit_expr(arg)

    for expr in statement_exprs(body):
        visit_expr(expr)

    def prune(stmts: list[TStmt], tail: set[str]) -> None:
        for stmt in stmts:
            if isinstance(stmt, TIf):
                stmt.results = [r for r in stmt.results
                                if not r[4] or (id(stmt), r[0]) in used or r[0] in tail]
                prune(stmt.then, {r[2] for r in stmt.results})
                prune(stmt.orelse, {r[3] for r in stmt.results})
            elif isinstance(stmt, TFor | TWhile):
                prune(stmt.body, set())

    prune(body, set())


def _skip_identity_convert(expr: TExpr) -> TExpr:
    while expr.op in ("convert", "convert_scalar") and expr.args and \
            expr.args[0].type == expr.type:
        expr = expr.args[0]
    return expr


# ---- builtins ------------------------------------------------------------------------------


def _builtin_minmax(which: str):
    def rule(an: KernelAnalyzer, pos: list[TExpr], kw: dict[str, TExpr],
             node: cst.Call) -> TExpr:
        if len(pos) != 2 or kw:
            raise an.error("E0102", f"`{which}` takes two arguments in a kernel", node)
        a, b = pos
        if is_const(a) and is_const(b) and _concrete(a.type.value) and _concrete(b.type.value):
            return const((min if which == "min" else max)(a.type.value, b.type.value))
        if isinstance(a.type, TileType) or isinstance(b.type, TileType):
            # On tiles cuTile Python's builtin min/max is the element-wise minimum/maximum.
            return an.binary("minimum" if which == "min" else "maximum", a, b, node,
                             attrs={"ftz": False, "nan": False})
        a_s, b_s = an.to_scalar(a, node), an.to_scalar(b, node)
        dtype = an.promote(a_s.type.dtype, b_s.type.dtype, node)
        return TExpr("scalar_minmax", [an.cast_scalar(a_s, dtype, node),
                                       an.cast_scalar(b_s, dtype, node)],
                     ScalarType(dtype), an.span(node), {"which": which})

    return rule


def _builtin_cast(kind: str):
    def rule(an: KernelAnalyzer, pos: list[TExpr], kw: dict[str, TExpr],
             node: cst.Call) -> TExpr:
        if len(pos) != 1:
            raise an.error("E0102", f"`{kind}` takes one argument", node)
        value = pos[0]
        if is_const(value) and _concrete(value.type.value):
            number = value.type.value
            if not isinstance(number, bool | int | float):
                number = getattr(number, "value", number)  # a typed number: its value
            return const({"int": int, "float": float, "bool": bool}[kind](number))
        if is_const(value):
            return value
        scalar = an.to_scalar(value, node)
        target = {"int": I32, "float": F32, "bool": BOOL}[kind]
        return an.cast_scalar(scalar, target, node)

    return rule


def _builtin_len(an: KernelAnalyzer, pos: list[TExpr], kw: dict[str, TExpr],
                 node: cst.Call) -> TExpr:
    value = pos[0] if len(pos) == 1 else None
    if value is not None and is_const(value) and isinstance(value.type.value, tuple):
        return const(len(value.type.value))
    if value is not None and value.op == "tuple":
        return const(len(value.args))
    raise an.error("E0110", "`len` of a runtime value is not supported", node, "call:len")


_BUILTIN_FUNCS: dict[str, Callable[..., TExpr]] = {
    "min": _builtin_minmax("min"),
    "max": _builtin_minmax("max"),
    "int": _builtin_cast("int"),
    "float": _builtin_cast("float"),
    "bool": _builtin_cast("bool"),
    "len": _builtin_len,
}

_EXPR_HANDLERS: dict[type, Callable[[KernelAnalyzer, cst.CSTNode], TExpr]] = {
    cst.Name: KernelAnalyzer.e_name,
    cst.Attribute: KernelAnalyzer.e_attribute,
    cst.Integer: KernelAnalyzer.e_integer,
    cst.Float: KernelAnalyzer.e_float,
    cst.SimpleString: KernelAnalyzer.e_string,
    cst.FormattedString: KernelAnalyzer.e_fstring,
    cst.Tuple: KernelAnalyzer.e_tuple,
    cst.List: KernelAnalyzer.e_tuple,
    cst.UnaryOperation: KernelAnalyzer.e_unary,
    cst.BinaryOperation: KernelAnalyzer.e_binary,
    cst.BooleanOperation: KernelAnalyzer.e_boolean,
    cst.Comparison: KernelAnalyzer.e_compare,
    cst.IfExp: KernelAnalyzer.e_ifexp,
    cst.Subscript: KernelAnalyzer.e_subscript,
    cst.Call: KernelAnalyzer.e_call,
}


def analyze_kernel(source: SourceModule, kernel: KernelDef,
                   allow_holes: bool = False) -> KernelModel:
    """The kernel's typed model when it needs no variants; raises `SplitNeeded` when the code
    depends on an element type or a constant (use `variants.analyze_kernel_variants`)."""
    launch_values = launch_constants(source, kernel.name)
    outcome = KernelAnalyzer(source, kernel, allow_holes, launch_values).run()
    if not isinstance(outcome, KernelModel):
        raise SplitNeeded(outcome)
    return outcome
