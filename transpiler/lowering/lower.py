"""Lowering pass: `SpecializedKernel` -> Rust syntax tree of one `#[cutile::entry]` function.

Takes a specialized kernel; gives a `rust_emit.tree.Function`. Each typed operation is
lowered by the rule registered for it in `RULES` (the Rust half of the API table). Views
over the arrays (load partitions with their padding, absolute-index store partitions) are
created once at the top of the body, as cuTile Python creates its views once per array and
shape. Results whose type Rust cannot infer from context (conversions, reductions,
permutations) get their own annotated `let`.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from rust_emit import tree as t
from specialization.plan import (
    CONST_GENERIC_TYPES,
    FLOAT_BITS_KIND,
    Generic,
    SpecializedKernel,
)
from transpiler.diagnostics import Diagnostic, Span, TranslationError
from transpiler.lowering import loop_split
from transpiler.lowering.float_bits import half_bits, signed_i16
from transpiler.lowering.region_holes import lower_region_hole
from transpiler.lowering.rust_names import rust_ident
from transpiler.lowering.store_tokens import (
    accessed_arrays,
    bound_names,
    chained_store_arrays,
    shared_chain_needed,
    sliced_names,
    view_loaded_arrays,
)
from transpiler.lowering.support import floordiv_name, mod_name
from transpiler.lowering.typing_rules import ATOMIC_RMW
from transpiler.model import (
    ArrayType,
    ConstType,
    Dim,
    DimExpr,
    DimSym,
    DType,
    DTypeVar,
    ElemType,
    ListType,
    PointerType,
    ScalarType,
    TAssign,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TJump,
    TokenType,
    TReturn,
    TStmt,
    TWhile,
    ValueType,
    dim_op,
    statement_exprs,
    walk_statements,
)
from transpiler.model.consts import I32, condition_tree
from transpiler.model.consts import params_in as _params_in
from transpiler.model.elements import ELEMENTS, dtype_of_rust

#: Element types Rust has no literals of: their zero is `T::ZERO`, other values an `f32`
#: constant converted.
NO_LITERAL_ELEMS = ("f16", "bf16", "tf32", "f8e4m3fn", "f8e5m2")
_PADDING = {None: "None", "UNDETERMINED": "None", "ZERO": "Zero", "NEG_ZERO": "NegZero",
            "NAN": "Nan", "POS_INF": "PosInf", "NEG_INF": "NegInf"}
_ROUNDING = {None: "NearestEven", "RN": "NearestEven", "RZ": "Zero", "RM": "NegativeInf",
             "RP": "PositiveInf", "FULL": "Full", "APPROX": "Approx", "RZI": "NearestIntToZero",
             "RA": "NearestAway"}
_REDUCE = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod"}
_CMP = {"<": "lt_tile", "<=": "le_tile", ">": "gt_tile", ">=": "ge_tile", "==": "eq_tile",
        "!=": "ne_tile"}
_NEEDS_OWN_LET = {"convert", "reduce", "permute", "tile_to_scalar", "convert_scalar", "mma",
                  "arange", "scan", "load", "full", "hole", "extract", "bid", "num_blocks",
                  "cdiv_tile", "gather", "cat"}


@dataclass
class _View:
    name: str
    stmt: t.Stmt


@dataclass
class _Lowered:
    """One operand lowered while its operation was being lowered: where its statements
    begin and end in its block (the block's last statement then, None while empty) and the
    expression it came to."""

    stmts: list[t.Stmt]
    start: t.Stmt | None
    end: t.Stmt | None
    value: t.Expr
    source: TExpr


@dataclass
class _Anchor:
    """Where the views over a slice go: after its `let` (then after the views already
    placed), in the block that declares it; `serial` tells two declarations apart."""

    stmts: list[t.Stmt]
    after: t.Stmt
    serial: int


@dataclass
class _Context:
    stmts: list[t.Stmt]
    carried: set[str] = field(default_factory=set)
    # Pointer scatters (by `id`) whose array a later statement of the same block reads or
    # writes again through pointers: the scatter's token orders them (as cuTile Python's
    # token threading does); `tokens` holds each array's latest such token.
    chained: set[int] = field(default_factory=set)
    tokens: dict[str, str] = field(default_factory=dict)
    # View accesses of the block ordered through one token chain per array, whichever of
    # its tensors (the array, its slices) they go through, as cuTile Python orders them:
    # `view_chained` the stores (by `id`) whose token a later access waits on,
    # `view_waits` the loads and stores that wait; `view_tokens` each array's latest token.
    view_chained: set[int] = field(default_factory=set)
    view_waits: set[int] = field(default_factory=set)
    view_tokens: dict[str, str] = field(default_factory=dict)


class KernelLowerer:
    def __init__(self, spec: SpecializedKernel, path: str) -> None:
        self.spec = spec
        self.path = path
        self.views: dict[tuple, _View] = {}
        self.view_order: list[_View] = []
        self.temp_counter = 0
        self.names = {p.name for p in spec.model.params}
        # Support functions (see `support.py`) the kernel calls, by name.
        self.support: set[str] = set()
        # The latest declaration of each slice (a local `Tensor`), by Rust name.
        self.slice_anchors: dict[str, _Anchor] = {}
        self.slice_count = 0
        # The token variable of each array whose stores are chained (`store_tokens.py`):
        # its last store; and, for those the kernel also loads, its last access.
        self.store_tokens: dict[str, str] = {}
        self.access_tokens: dict[str, str] = {}
        # Whether every array shares one token chain (`declare_shared_chain`): gathers and
        # atomics then join it too.
        self.shared_chain = False
        # Plain view loads made so far through each shared load view (see `load_view`).
        self.view_loads: dict[tuple, int] = {}
        # The operands lowered so far for the operation being lowered (see `in_order`).
        self.operands: list[_Lowered] | None = None

    # ---- errors and types --------------------------------------------------------------

    def error(self, code: str, message: str, span: Span | None) -> TranslationError:
        return TranslationError(Diagnostic(code, message, self.path, span,
                                           kernel=self.spec.model.name))

    def elem(self, dtype: ElemType) -> str:
        return self.spec.rust_elem(dtype)

    def dim(self, d: Dim, span: Span | None, in_type: bool) -> str:
        if isinstance(d, int):
            return str(d)
        if isinstance(d, DimSym):
            return d.name
        if in_type:
            return self.derived_generic(d)
        return _dim_text(d)

    def derived_generic(self, d: DimExpr) -> str:
        """A const generic standing for arithmetic on constants in a type (`BLOCK // 8`):
        stable Rust cannot write `{ [BLOCK / 8] }`; the launcher (and the IR check) compute
        its value from the constants, with Python's operators."""
        tree = condition_tree(d)
        for g in self.spec.generics:
            if g.tree == tree:
                return g.name
        name = _derived_name(tree)
        if name[:1].isdigit():
            name = f"C{name}"  # `2 * BLOCK`: a Rust name cannot start with a digit
        taken = {g.name for g in self.spec.generics} | self.names
        while name in taken:
            name += "_"
        self.spec.generics.append(Generic(name, "i32", f"derived({_tree_text(tree)})",
                                          tuple(_params_in(d)), tree))
        return name

    def shape_type(self, shape: tuple[Dim, ...], span: Span | None) -> str:
        return "{ [" + ", ".join(self.dim(d, span, True) for d in shape) + "] }"

    def rust_type(self, vtype: ValueType, span: Span | None) -> str | None:
        if isinstance(vtype, TileType):
            return f"Tile<{self.elem(vtype.dtype)}, {self.shape_type(vtype.shape, span)}>"
        if isinstance(vtype, ScalarType):
            return self.elem(vtype.dtype)
        if isinstance(vtype, PointerType):
            shape = self.shape_type(vtype.shape, span)
            return f"PointerTile<*mut {self.elem(vtype.dtype)}, {shape}>"
        if isinstance(vtype, TokenType):
            return "Token"
        if isinstance(vtype, ListType):
            items = [self.rust_type(i, span) for i in vtype.items]
            return "(" + ", ".join(i or "_" for i in items) + ")"
        return None

    def const_shape(self, shape: tuple[Dim, ...], span: Span | None) -> t.Expr:
        return t.MacroCall("const_shape", tuple(t.Path(self.dim(d, span, True))
                                                for d in shape))

    # ---- function ----------------------------------------------------------------------

    def lower(self) -> t.Function:
        ctx = _Context([])
        tokens = self.declare_store_tokens()
        self.block(self.spec.model.body, ctx)
        body = (self.float_constant_lets() + [v.stmt for v in self.view_order] + tokens
                + ctx.stmts)
        model = self.spec.model
        generics = []
        for g in self.spec.generics:
            text = (f"{g.name}: ElementType" if g.kind == "type"
                    else f"const {g.name}: {CONST_GENERIC_TYPES[g.kind]}")
            generics.append(t.GenericParam(text))
        params = tuple(t.Param(_ident(p.name), t.RType(self.spec.param_types[p.name]))
                       for p in model.params if p.kind != "const" or p.name in
                       self.spec.runtime_params)
        params += tuple(t.Param(name, t.RType("f32")) for name, _ in model.derived_params)
        params += tuple(t.Param(name, t.RType("i32")) for name, _, _ in model.stride_params)
        params += tuple(t.Param(name, t.RType("i32")) for name, _, _ in model.extent_params)
        return t.Function(
            name=self.spec.entry_name,
            params=params,
            body=t.BlockExpr(tuple(body)),
            generics=tuple(generics),
            # A token chain's last assignment is never read (the kernel ends); rustc would
            # warn about each such array.
            attributes=(("allow(unused_assignments)",) if tokens else ()) + (
                _style_allowances(self.spec) + (_entry_attribute(self.spec),)),
            doc=_doc_lines(model.docstring),
            comments=_manifest_comment(self.spec),
        )

    def float_constant_lets(self) -> list[t.Stmt]:
        """`let EPS: f32 = ...` for each `ct.Constant[float]` that the entry takes as its f32
        bits: the generic's `i32` constant reinterpreted (`bitcast`), which tileiras folds
        to the float constant cuTile Python writes. Made after the body, so that the body's
        temporaries keep their names."""
        ctx = _Context([])
        for g in self.spec.generics:
            if g.kind != FLOAT_BITS_KIND:
                continue
            holder = self.let(ctx, "bits", t.Call("scalar_to_tile", (t.Path(g.name),)),
                              "Tile<i32, { [] }>")
            value = self.let(ctx, "value", t.Call("bitcast", (holder,)), "Tile<f32, { [] }>")
            ctx.stmts.append(t.Let(_ident(g.params[0]), t.Call("tile_to_scalar", (value,)),
                                   t.RType("f32")))
        return ctx.stmts

    def declare_store_tokens(self) -> list[t.Stmt]:
        """`let mut tok: Token = get_tensor_token(A);` for each array whose stores are
        chained; each such store then waits on `tok` and replaces it."""
        lets: list[t.Stmt] = []
        arrays = {p.name: p for p in self.spec.model.params if p.kind == "array"}
        taken = self.names | bound_names(self.spec.model.body)
        body = self.spec.model.body
        if shared_chain_needed(body):
            return self.declare_shared_chain(body, set(arrays), taken)
        loaded = view_loaded_arrays(body)
        for name in sorted(chained_store_arrays(body) & set(arrays)):
            self.store_tokens[name] = self.token_variable(f"{name.lower()}_token", taken)
            lets.append(t.Let(self.store_tokens[name], t.Call(
                "get_tensor_token", (t.Path(_ident(name)),)), t.RType("Token"), mutable=True))
            if name in loaded:
                self.access_tokens[name] = self.token_variable(f"{name.lower()}_access",
                                                               taken)
                lets.append(t.Let(self.access_tokens[name], t.Path(self.store_tokens[name]),
                                  t.RType("Token"), mutable=True))
        return lets

    def declare_shared_chain(self, body: list[TStmt], arrays: set[str],
                             taken: set[str]) -> list[t.Stmt]:
        """One token chain for every array (an acquiring or releasing atomic orders the
        block's accesses to all arrays): `let mut all_written = new_token_unordered();
        let mut all_accessed = all_written;`, every array's store and access token."""
        sliced = sliced_names(body)
        if sliced:
            raise self.error("E0111", "an acquiring or releasing atomic in a kernel that "
                             "accesses `Array.slice` views is not lowered yet (the slices "
                             f"`{', '.join(sorted(sliced))}` would stay outside the block's "
                             "token chain)", None)
        written = self.token_variable("all_written", taken)
        accessed = self.token_variable("all_accessed", taken)
        self.shared_chain = True
        for name in accessed_arrays(body) & arrays:
            self.store_tokens[name] = written
            self.access_tokens[name] = accessed
        return [t.Let(written, t.Call("new_token_unordered", ()), t.RType("Token"),
                      mutable=True),
                t.Let(accessed, t.Path(written), t.RType("Token"), mutable=True)]

    def token_variable(self, hint: str, taken: set[str]) -> str:
        """A name for a token variable that no binding of the kernel uses."""
        name = hint
        while name in taken:
            name += "_"
        taken.add(name)
        self.names.add(name)
        return name

    def block(self, stmts: list[TStmt], ctx: _Context) -> None:
        ctx.chained = _scattered_then_reused(stmts)
        ctx.view_chained, ctx.view_waits = _view_token_chains(stmts)
        for stmt in stmts:
            self.stmt(stmt, ctx)

    def stmt(self, stmt: TStmt, ctx: _Context) -> None:
        if isinstance(stmt, TAssign):
            self.assign(stmt, ctx)
        elif isinstance(stmt, TEffect):
            effect = self.effect(stmt.value, ctx)
            if effect != t.TupleExpr(()):
                ctx.stmts.append(t.ExprStmt(effect, semicolon=True))
        elif isinstance(stmt, TFor):
            self.for_loop(stmt, ctx)
        elif isinstance(stmt, TWhile):
            self.while_loop(stmt, ctx)
        elif isinstance(stmt, TJump):
            ctx.stmts.append(t.Jump(stmt.kind))
        elif isinstance(stmt, TIf):
            self.if_stmt(stmt, ctx)
        elif isinstance(stmt, TReturn):
            return
        else:
            raise TypeError(f"unknown statement {stmt!r}")

    def assign(self, stmt: TAssign, ctx: _Context) -> None:
        if stmt.value.op == "array_slice":
            lower_array_slice(self, stmt.name, stmt.value, ctx)
            return
        value = self.expr(stmt.value, ctx, top=True)
        if stmt.first:
            self.declare(ctx, stmt.name, value, self.rust_type(stmt.value.type, stmt.span),
                         stmt.mutable)
        else:
            ctx.stmts.append(t.Assign(stmt.name, value))

    def declare(self, ctx: _Context, name: str, value: t.Expr, ty: str | None,
                mutable: bool) -> None:
        """`let name: ty = value;`. rustfmt would break a long annotation over lines with a
        trailing comma, and the cuTile Rust compiler compares types as written: a long one
        goes on a temporary (or is left to inference from a plain operand) instead."""
        if ty and len(name) + len(ty) > LONG_LET:
            if not isinstance(value, t.Binary | t.Path | t.Unary):
                value = self.let(ctx, "value", value, ty)
            ty = None
        ctx.stmts.append(t.Let(name, value, t.RType(ty) if ty else None, mutable=mutable))

    def for_loop(self, stmt: TFor, ctx: _Context) -> None:
        split = loop_split.find_split(stmt) if self.spec.model.split_loops else None
        if split is not None:
            self.split_for_loop(stmt, split, ctx)
            return
        self.emit_for(stmt, self.expr(stmt.start, ctx), self.expr(stmt.stop, ctx), stmt.body,
                      ctx)

    def split_for_loop(self, stmt: TFor, split: loop_split.LoopSplit, ctx: _Context) -> None:
        """Two loops, as cuTile Python compiles a loop that branches on its index; under a
        compile-time guard, `if GUARD { two loops } else { one loop without the branch }`
        (the cuTile Rust compiler keeps only the arm the constants select)."""
        if split.guard is None:
            self.emit_split_loops(stmt, split, ctx)
            return
        guarded = _Context([], ctx.carried)
        self.emit_split_loops(stmt, split, guarded)
        plain = _Context([], ctx.carried)
        self.emit_for(stmt, self.expr(stmt.start, plain), self.expr(stmt.stop, plain),
                      loop_split.unsplit_body(stmt, split), plain)
        ctx.stmts.append(t.ExprStmt(t.IfExpr(self.expr(split.guard, ctx),
                                             t.BlockExpr(tuple(guarded.stmts)),
                                             t.BlockExpr(tuple(plain.stmts))),
                                    semicolon=False))

    def emit_split_loops(self, stmt: TFor, split: loop_split.LoopSplit,
                         ctx: _Context) -> None:
        at = self.expr(split.split_at, ctx)
        if not isinstance(at, t.Path | t.Lit):
            at = self.let(ctx, "split", at, "i32")
        bound = TExpr("var", [], ScalarType(I32), stmt.span, {"name": at.text}) if isinstance(
            at, t.Path) else split.split_at
        first_stop = TExpr("scalar_minmax", [stmt.stop, bound], ScalarType(I32), stmt.span,
                           {"which": "min"})
        second_start = TExpr("scalar_minmax", [stmt.start, bound], ScalarType(I32),
                             stmt.span, {"which": "max"})
        first_body, second_body = loop_split.split_bodies(stmt, split)
        stop = self.expr(first_stop, ctx)
        start = self.expr(second_start, ctx)
        self.emit_for(stmt, self.expr(stmt.start, ctx), stop, first_body, ctx)
        self.emit_for(stmt, start, self.expr(stmt.stop, ctx), second_body, ctx)

    def emit_for(self, stmt: TFor, start: t.Expr, stop: t.Expr, body: list[TStmt],
                 ctx: _Context) -> None:
        rng: t.Expr = t.Range(start, stop)
        literal = stmt.step.op == "literal"
        if getattr(stmt.step.type, "dtype", I32) != I32 and literal:
            # The cuTile Rust compiler types a missing step as i32 and casts no i64 to
            # usize; an unsuffixed literal step (usize to rustc) it compiles in the
            # start's type.
            rng = t.MethodCall(rng, "step_by", (t.Lit(str(stmt.step.attrs["value"])),))
        elif not (literal and stmt.step.attrs["value"] == 1):
            rng = t.MethodCall(rng, "step_by", (t.Cast(self.expr(stmt.step, ctx), "usize"),))
        inner = _Context([], ctx.carried | set(stmt.carried))
        self.block(body, inner)
        ctx.stmts.append(t.ForLoop(stmt.var, rng, t.BlockExpr(tuple(inner.stmts))))

    def while_loop(self, stmt: TWhile, ctx: _Context) -> None:
        """`while cond { body }`; a condition that needs statements of its own (a memory
        access, an atomic, any temporary) is evaluated before every iteration, as Python
        does: `loop { stmts; if cond {} else { break; } body }`."""
        carried = ctx.carried | set(stmt.carried)
        head = _Context([], carried)
        cond = None if stmt.cond is None else self.expr(stmt.cond, head)
        inner = _Context([], carried)
        self.block(stmt.body, inner)
        if cond is None or not head.stmts:
            ctx.stmts.append(t.WhileLoop(cond, t.BlockExpr(tuple(inner.stmts))))
            return
        guard = t.IfExpr(cond, t.BlockExpr(()), t.BlockExpr((t.Jump("break"),)))
        body = (*head.stmts, t.ExprStmt(guard, semicolon=False), *inner.stmts)
        ctx.stmts.append(t.WhileLoop(None, t.BlockExpr(body)))

    def if_stmt(self, stmt: TIf, ctx: _Context) -> None:
        if not stmt.static and _static_guard(stmt.cond) is not None:
            stmt = self.nest_static_guard(stmt)
        cond = self.expr(stmt.cond, ctx)
        if len(stmt.results) > 1:
            self.if_assigning(stmt, cond, ctx)
            return
        arms = [(stmt.then, {}), (stmt.orelse, {})]
        if stmt.results and not stmt.results[0][4]:
            # `x = if c { let x = ..; x } else { x }`: the cuTile Rust compiler takes an
            # arm's `let x` for an assignment of the mutable `x` and yields it a second
            # time; arm-local bindings of `x` are renamed.
            arms = _renamed_arms(stmt)
        (then_arm, then_renamed), (else_arm, else_renamed) = arms
        then_ctx = _Context([], set())
        self.block(then_arm, then_ctx)
        else_ctx = _Context([], set())
        self.block(else_arm, else_ctx)
        if not stmt.results:
            orelse = t.BlockExpr(tuple(else_ctx.stmts)) if else_ctx.stmts else None
            ctx.stmts.append(t.ExprStmt(t.IfExpr(cond, t.BlockExpr(tuple(then_ctx.stmts)),
                                                 orelse), semicolon=False))
            return
        then_tail = _tuple_or_single([t.Path(then_renamed.get(r[2], r[2]))
                                      for r in stmt.results])
        else_tail = _tuple_or_single([t.Path(else_renamed.get(r[3], r[3]))
                                      for r in stmt.results])
        if_expr = t.IfExpr(cond, t.BlockExpr(tuple(then_ctx.stmts), then_tail),
                           t.BlockExpr(tuple(else_ctx.stmts), else_tail))
        names = [r[0] for r in stmt.results]
        types = [self.rust_type(r[1], stmt.span) or "_" for r in stmt.results]
        if not stmt.results[0][4]:
            ctx.stmts.append(t.Assign(names[0], if_expr))
            return
        ctx.stmts.append(t.Let(names[0], if_expr, t.RType(types[0]), mutable=stmt.mutable))

    def nest_static_guard(self, stmt: TIf) -> TIf:
        """`if G and R` with `G` compile-time as `if G { if R {then} else {orelse} } else
        {orelse}`: cuTile Python folds `G` (a short-circuit `and`), so each specialization
        has either the runtime `if` or none; the static outer `if` folds the same way."""
        guard, test = _static_guard(stmt.cond) or (stmt.cond, stmt.cond)
        inner_names = [self.temp(r[0]) for r in stmt.results]
        inner = TIf(test, stmt.then, copy.deepcopy(stmt.orelse), [], stmt.span, False,
                    [(n, r[1], r[2], r[3], True) for n, r in zip(inner_names, stmt.results,
                                                                  strict=True)])
        return TIf(guard, [inner], stmt.orelse, stmt.merged, stmt.span, True,
                   [(r[0], r[1], n, r[3], r[4]) for n, r in zip(inner_names, stmt.results,
                                                                 strict=True)],
                   stmt.mutable, stmt.inherits)

    def if_assigning(self, stmt: TIf, cond: t.Expr, ctx: _Context) -> None:
        """An `if` that gives several names their values: the cuTile Rust compiler has no
        tuple-valued blocks, so each name is declared `mut` before the `if` and each arm
        assigns it (arm-local bindings of the same names are renamed first)."""
        for name, vtype, _t, _e, first in stmt.results:
            if first:
                ty = self.rust_type(vtype, stmt.span) or "_"
                # A declaration that shadows the earlier binding of the name starts from
                # its value: an arm may read it, or keep it.
                init = t.Path(name) if name in stmt.inherits else self.zero(vtype, stmt.span)
                self.declare(ctx, name, init, ty, mutable=True)
        arms = []
        for (arm, renamed), index in zip(_renamed_arms(stmt), (2, 3), strict=True):
            arm_ctx = _Context([], set())
            self.block(arm, arm_ctx)
            for result in stmt.results:
                value = renamed.get(result[index], result[index])
                if value != result[0]:
                    arm_ctx.stmts.append(t.Assign(result[0], t.Path(value)))
            arms.append(t.BlockExpr(tuple(arm_ctx.stmts)))
        ctx.stmts.append(t.ExprStmt(t.IfExpr(cond, arms[0], arms[1]), semicolon=False))

    def zero(self, vtype: ValueType, span: Span | None) -> t.Expr:
        """A placeholder value of a type (the value is always overwritten)."""
        if isinstance(vtype, TileType):
            elem = self.elem(vtype.dtype)
            value: t.Expr = t.Lit("false") if elem == "bool" else (
                t.Path(f"{elem}::ZERO") if elem in NO_LITERAL_ELEMS or not isinstance(
                    vtype.dtype, DType) else literal(0, vtype.dtype, self))
            return t.Call("constant", (value, self.const_shape(vtype.shape, span)))
        if isinstance(vtype, ScalarType):
            return literal(0, vtype.dtype, self) if self.elem(vtype.dtype) != "bool" else t.Lit(
                "false")
        raise self.error("E0107", "a value of this kind cannot come out of an `if`", span)

    def temp(self, hint: str) -> str:
        self.temp_counter += 1
        name = f"{hint}_{self.temp_counter}"
        while name in self.names:
            self.temp_counter += 1
            name = f"{hint}_{self.temp_counter}"
        self.names.add(name)
        return name

    # ---- expressions -------------------------------------------------------------------

    def expr(self, e: TExpr, ctx: _Context, top: bool = False) -> t.Expr:
        rule = RULES.get(e.op)
        if rule is None:
            raise self.error("E0101", f"no Rust lowering for the operation `{e.op}`", e.span)
        start = ctx.stmts[-1] if ctx.stmts else None
        lowered = self.in_order(ctx, lambda: rule(self, e, ctx))
        if not top and e.op in _NEEDS_OWN_LET:
            ty = self.rust_type(e.type, e.span)
            name = self.temp(_TEMP_HINT.get(e.op, "t"))
            ctx.stmts.append(t.Let(name, lowered, t.RType(ty) if ty else None))
            lowered = t.Path(name)
        if self.operands is not None:
            self.operands.append(_Lowered(ctx.stmts, start, ctx.stmts[-1] if ctx.stmts
                                          else None, lowered, e))
        return lowered

    def effect(self, e: TExpr, ctx: _Context) -> t.Expr:
        if e.op == "store":
            return self.in_order(ctx, lambda: lower_store(self, e, ctx))
        if e.op == "scatter":
            return self.in_order(ctx, lambda: lower_scatter(self, e, ctx))
        if e.op == "view_atomic":
            return self.in_order(ctx, lambda: lower_view_atomic(self, e, ctx))
        if e.op == "print":
            return self.in_order(ctx, lambda: lower_print(self, e, ctx))
        if e.op == "atomic":
            return self.in_order(ctx, lambda: _emit_atomic(self, e, ctx, keep_old=False))
        return self.expr(e, ctx, top=True)

    def in_order(self, ctx: _Context, lower: Callable[[], t.Expr]) -> t.Expr:
        """Run one operation's rule, then keep its operands in source order.

        cuTile Python emits an operation's operands left to right, each with all of its own
        operations; the cuTile Rust compiler emits the `let`s of a block first and the
        expression after them. An operand the rule left inline (`x.reshape(..)`) whose
        later sibling needed statements (a conversion's `let`) would run after that sibling:
        the same operations in another order, which tileiras schedules differently (a
        conversion of a whole tile ahead of the value it multiplies can cost registers and
        spill). Such an operand gets its own `let` where its own statements end."""
        outer, self.operands = self.operands, []
        try:
            lowered = lower()
            operands = self.operands
        finally:
            self.operands = outer
        return self.sequence_operands(operands, lowered, ctx)

    def sequence_operands(self, operands: list[_Lowered], lowered: t.Expr,
                          ctx: _Context) -> t.Expr:
        """`lowered` with each inline operand that a later operand's statements would
        overtake bound to a `let` right after its own statements (see `in_order`)."""
        mine = [o for o in operands if o.stmts is ctx.stmts]
        late = [i for i, o in enumerate(mine)
                if any(later.end is not later.start for later in mine[i + 1:])
                and t.is_operation(o.value)]
        # A statement rewritten below (an operand's use became its name) is a new object:
        # `moved` maps the old one to it, so later operands still find where they end.
        moved: dict[int, t.Stmt] = {}
        last_after: dict[int, t.Stmt] = {}
        for i in late:
            operand = mine[i]
            ty = self.rust_type(operand.source.type, operand.source.span)
            end = operand.end
            while end is not None and id(end) in moved:
                end = moved[id(end)]
            at = self.statement_index(ctx.stmts, end)
            if ty is None or at is None:
                continue
            uses = t.replace_node((lowered, *ctx.stmts[at:]), operand.value, operand.value)[1]
            if not uses:
                continue
            name = t.Path(self.temp(_TEMP_HINT.get(operand.source.op, "arg")))
            lowered = t.replace_node(lowered, operand.value, name)[0]
            for k in range(at, len(ctx.stmts)):
                new, found = t.replace_node(ctx.stmts[k], operand.value, name)
                if found:
                    moved[id(ctx.stmts[k])] = new
                    ctx.stmts[k] = new  # type: ignore[assignment]
            # Operands that end at the same statement keep their order.
            anchor = last_after.get(id(end), end)
            let = t.Let(name.text, operand.value, t.RType(ty))
            ctx.stmts.insert(self.statement_index(ctx.stmts, anchor) or 0, let)
            last_after[id(end)] = let
        return lowered

    @staticmethod
    def statement_index(stmts: list[t.Stmt], after: t.Stmt | None) -> int | None:
        """The index just after the statement `after` (0 for None; None when it is not in
        `stmts`)."""
        if after is None:
            return 0
        return next((i + 1 for i, s in enumerate(stmts) if s is after), None)

    def let(self, ctx: _Context, hint: str, value: t.Expr, ty: str) -> t.Path:
        """Bind `value` to a fresh annotated local and return its path."""
        name = self.temp(hint)
        ctx.stmts.append(t.Let(name, value, t.RType(ty)))
        return t.Path(name)

    # ---- views -------------------------------------------------------------------------

    def array_ref(self, array: TExpr) -> t.Expr:
        """An array operand as a `&Tensor`: a parameter by name, a slice (a local
        `Tensor`) by reference."""
        path = t.Path(_ident(array.attrs["name"]))
        return t.Ref(path) if array.attrs.get("slice") else path

    def view_anchor(self, array: TExpr) -> _Anchor | None:
        """The declaration a view over `array` must follow: None for a parameter (its
        views open the body)."""
        return self.slice_anchors.get(array.attrs["name"]) if array.attrs.get("slice") \
            else None

    def place_view(self, key: tuple, view: _View, anchor: _Anchor | None) -> None:
        """Record a new view: at the top of the body, or after its slice's declaration."""
        self.views[key] = view
        if anchor is None:
            self.view_order.append(view)
            return
        index = next(i for i, s in enumerate(anchor.stmts) if s is anchor.after)
        anchor.stmts.insert(index + 1, view.stmt)
        anchor.after = view.stmt

    def load_view(self, array: TExpr, shape: tuple[Dim, ...], padding: str | None,
                  order: tuple[int, ...], span: Span | None, own: bool = False) -> str:
        """The partition view of `array` at this shape, padding and order; `own`: a view
        of the load's own when an earlier load already read through the shared one
        (cuTile Rust's `load_view_tko` leaves the load's token in its view, so a second
        load through it would wait on the first, which cuTile Python's loads never do:
        each takes the array's last write; a view is a description, not a copy)."""
        name = array.attrs["name"]
        anchor = self.view_anchor(array)
        key: tuple = ("load", name, shape, padding, order, anchor and anchor.serial)
        if own:
            loads = self.view_loads.get(key, 0)
            self.view_loads[key] = loads + 1
            key = (*key, loads) if loads else key
        if key not in self.views:
            view_name = self.temp(f"{name.lower()}_view")
            assert isinstance(array.type, ArrayType)
            elem = self.elem(array.type.dtype)
            identity = order == tuple(range(len(shape)))
            dim_map: t.Expr = t.Path("dim_map::Identity") if identity else t.MacroCall(
                "const_array", tuple(t.Lit(str(i)) for i in order))
            call = t.Call("make_partition_view", (
                self.array_ref(array), self.const_shape(shape, span),
                t.Path(f"padding::{_PADDING[padding]}"), dim_map,
                t.Call("get_tensor_token", (self.array_ref(array),))))
            ty = t.RType(f"Partition<{elem}, {self.shape_type(shape, span)}>")
            stmt = t.Let(view_name, t.BlockExpr((), call, unsafe=True), ty)
            self.place_view(key, _View(view_name, stmt), anchor)
        return self.views[key].name

    def store_view(self, array: TExpr, shape: tuple[Dim, ...], span: Span | None) -> str:
        name = array.attrs["name"]
        anchor = self.view_anchor(array)
        key = ("store", name, shape, anchor and anchor.serial)
        if key not in self.views:
            view_name = self.temp(f"{name.lower()}_out")
            call = t.MethodCall(t.Path(_ident(name)), "partition_full_mut",
                                (self.const_shape(shape, span),))
            # A chained store (`store_view_raw`) borrows its view immutably.
            stmt = t.Let(view_name, t.BlockExpr((), call, unsafe=True), None,
                         mutable=name not in self.store_tokens)
            self.place_view(key, _View(view_name, stmt), anchor)
        return self.views[key].name


# `let NAME: TYPE =` longer than this (in characters of name and type) is not annotated:
# at the deepest usual indentation rustfmt would otherwise break the type over lines.
LONG_LET = 58

_TEMP_HINT = {"bid": "block", "num_blocks": "blocks", "extract": "part",
              "convert": "conv", "reduce": "red", "permute": "perm", "mma": "prod",
              "tile_to_scalar": "val", "convert_scalar": "val", "arange": "iota"}


def _static_guard(cond: TExpr) -> tuple[TExpr, TExpr] | None:
    """(`G`, `R`) for a runtime condition `G and R` whose left operand is compile-time."""
    if cond.op == "binary" and cond.attrs.get("op") == "&" and cond.attrs.get("logical"):
        left, right = cond.args
        if left.op in ("const_param", "const_cond") and right.op not in ("const_param",
                                                                         "const_cond"):
            return left, right
    return None


def _renamed_arms(stmt: TIf) -> list[tuple[list[TStmt], dict[str, str]]]:
    """Copies of the `if`'s arms with their own bindings of the result names renamed
    (`x_then`, `x_else`), each with its old -> new names. Copies: the renaming edits
    statements, and one statement can be lowered more than once (a split loop's two loops)."""
    names = {r[0] for r in stmt.results}
    out = []
    for arm, suffix in ((stmt.then, "then"), (stmt.orelse, "else")):
        arm = copy.deepcopy(arm, _statements_read_from_outside(arm))
        out.append((arm, _rename_bindings(arm, names, suffix)))
    return out


def _statements_read_from_outside(stmts: list[TStmt]) -> dict[int, object]:
    """A `copy.deepcopy` memo that keeps the statements outside `stmts` that their
    expressions refer to (a variable's binding made before the `if`) as they are: the copy
    is of the arm, and following those references would copy the kernel up to that point
    again for every arm (nothing renames them: `_rename_bindings` edits the arm's own)."""
    inside = {id(s) for s in walk_statements(stmts)}
    keep: dict[int, object] = {}
    pending = list(statement_exprs(stmts))
    seen: set[int] = set()
    while pending:
        expr = pending.pop()
        if id(expr) in seen:
            continue
        seen.add(id(expr))
        pending.extend(expr.args)
        for value in expr.attrs.values():
            if isinstance(value, TStmt) and id(value) not in inside:
                keep[id(value)] = value
    return keep


def _rename_bindings(stmts: list[TStmt], names: set[str], suffix: str) -> dict[str, str]:
    """Rename the bindings of `names` made in `stmts` (at any depth) to `name_suffix`, and
    the reads of those bindings; returns old -> new names of the bindings visible at the
    end of `stmts`."""
    by_binding: dict[tuple[int, str], str] = {}

    def bind(stmts: list[TStmt], visible: dict[str, str]) -> dict[str, str]:
        # `visible`: old -> new name of the binding each renamed name refers to here (an
        # `if`'s arm results are names, resolved in the arm's own scope).
        visible = dict(visible)
        for stmt in stmts:
            if isinstance(stmt, TAssign) and stmt.first and stmt.name in names:
                old = stmt.name
                by_binding[(id(stmt), old)] = stmt.name = visible[old] = f"{old}_{suffix}"
            elif isinstance(stmt, TIf):
                then_visible, else_visible = bind(stmt.then, visible), bind(stmt.orelse,
                                                                             visible)
                results = []
                for name, vtype, t_name, e_name, first in stmt.results:
                    t_name, e_name = then_visible.get(t_name, t_name), else_visible.get(
                        e_name, e_name)
                    if first and name in names:
                        by_binding[(id(stmt), name)] = visible[name] = new = f"{name}_{suffix}"
                        if name in stmt.inherits:
                            # It starts from the earlier binding, renamed the same way.
                            stmt.inherits = (stmt.inherits - {name}) | {new}
                        name = new
                    results.append((name, vtype, t_name, e_name, first))
                stmt.results = results
            elif isinstance(stmt, TFor | TWhile):
                bind(stmt.body, visible)
        return visible

    def read(expr: TExpr) -> None:
        binding = expr.attrs.get("binding") if expr.op == "var" else None
        if binding is not None and (id(binding), expr.attrs["name"]) in by_binding:
            expr.attrs = {**expr.attrs, "name": by_binding[(id(binding), expr.attrs["name"])]}
        for arg in expr.args:
            read(arg)

    visible = bind(stmts, {})
    for expr in statement_exprs(stmts):
        read(expr)
    return visible


def _tuple_or_single(items: list[t.Expr]) -> t.Expr:
    return items[0] if len(items) == 1 else t.TupleExpr(tuple(items))


def _ident(name: str) -> str:
    return rust_ident(name)


_DERIVED_OPS = {"+": "PLUS", "-": "MINUS", "*": "TIMES", "//": "DIV", "%": "MOD"}


def _derived_name(tree: object) -> str:
    """`BLOCK_STATE_DIV_8` for ["//", ["param", "BLOCK_STATE"], 8]."""
    if isinstance(tree, list) and tree[0] == "param":
        return str(tree[1]).upper()
    if isinstance(tree, list):
        op = _DERIVED_OPS.get(str(tree[0]), "OP")
        return f"{_derived_name(tree[1])}_{op}_{_derived_name(tree[2])}"
    return str(tree).replace("-", "NEG")


def _tree_text(tree: object) -> str:
    """A condition tree in Python's notation (`BLOCK // 8`)."""
    if isinstance(tree, list) and tree[0] == "param":
        return str(tree[1])
    if isinstance(tree, list):
        return f"({_tree_text(tree[1])} {tree[0]} {_tree_text(tree[2])})"
    return str(tree)


def _dim_text(d: Dim) -> str:
    if isinstance(d, DimExpr):
        op = "/" if d.op == "//" else d.op
        return f"({_dim_text(d.left)} {op} {_dim_text(d.right)})"
    if isinstance(d, int) and d < 0:
        return f"{d}i32"
    return str(d)


def _doc_lines(doc: str | None) -> tuple[str, ...]:
    if not doc:
        return ()
    lines = [line.rstrip() for line in doc.strip("\n").splitlines()]
    indent = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=0)
    out = [lines[0].strip()] + [x[indent:] for x in lines[1:]]
    return tuple(out)


def _manifest_comment(spec: SpecializedKernel) -> tuple[str, ...]:
    lines = []
    for g in spec.generics:
        kind = "ElementType" if g.kind == "type" else CONST_GENERIC_TYPES[g.kind]
        lines.append(f"generic {g.name}: {kind}"
                     f" <- {g.source}")
    for note in spec.notes:
        lines.append(f"note: {note}")
    return tuple(lines)


# `@ct.kernel` options -> cuTile Rust optimization hint names.
_KERNEL_HINTS = {"occupancy": "occupancy", "num_ctas": "num_cta_in_cga",
                 "num_worker_warps": "num_worker_warps_per_cta"}


def _style_allowances(spec: SpecializedKernel) -> tuple[str, ...]:
    """`allow(non_upper_case_globals)` where a const generic keeps a lower-case source name
    (a Triton `num_stages: tl.constexpr`): rustc would warn that const parameters are upper
    case. The name stays the source's, the one the manifest, the launchers' arguments and
    the IR check's specializations use."""
    lower_case = any(g.kind != "type" and g.name != g.name.upper() for g in spec.generics)
    return ("allow(non_upper_case_globals)",) if lower_case else ()


def _entry_attribute(spec: SpecializedKernel) -> str:
    """`#[cutile::entry(...)]` with the kernel's optimization hints, per target: a plain
    value applies to every target (`default`), `ct.ByTarget(sm_80=2, default=4)` per key."""
    by_target: dict[str, list[str]] = {}
    for option, rust_name in _KERNEL_HINTS.items():
        value = spec.model.hints.get(option)
        targets = value.items() if isinstance(value, dict) else [("default", value)]
        for target, item in targets:
            if isinstance(item, int) and not isinstance(item, bool):
                by_target.setdefault(target, []).append(f"{rust_name} = {item}")
    if not by_target:
        return "cutile::entry()"
    groups = ", ".join(f"{target} = ({', '.join(parts)},)"
                       for target, parts in sorted(by_target.items()))
    return f"cutile::entry(optimization_hints = ({groups},))"


# ---- rules: typed op -> Rust ---------------------------------------------------------------

Rule = Callable[[KernelLowerer, TExpr, _Context], t.Expr]
RULES: dict[str, Rule] = {}


def rule(*ops: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for op in ops:
            RULES[op] = fn
        return fn

    return register


def _number(value: object) -> object:
    """A number; a typed compile-time number (`ct.uint32(3)`) gives its value."""
    return value if isinstance(value, bool | int | float) else getattr(value, "value", value)


def literal(value: object, dtype: ElemType, lw: KernelLowerer) -> t.Expr:
    rust = lw.elem(dtype)
    value = _number(value)
    if isinstance(value, bool):
        return t.Lit("true" if value else "false")
    if rust in ("f32", "f64"):
        return t.Lit(_float_text(float(value)) + rust)
    if rust in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
        return t.Lit(f"{int(value)}{rust}")
    return t.Lit(_float_text(float(value)) + "f32")


def _element_scalar_tile(lw: KernelLowerer, ctx: _Context, value: float, elem: str,
                         hints: tuple[str, str]) -> t.Path:
    """A 0-d tile of `elem` holding `value`. Rust has no literal of the 16-bit and float8
    types: a 16-bit value is its bits as an `i16` constant, reinterpreted (the constant
    cuTile Python writes, which tileiras folds); another an f32 constant, converted unless
    `elem` is f32. `hints` name the two lets."""
    value = _number(value)  # type: ignore[assignment]
    bits = half_bits(float(value), elem)
    if bits is not None:
        holder = lw.let(ctx, "bits", t.Call("constant", (
            t.Lit(f"{signed_i16(bits)}i16"), t.MacroCall("const_shape", ()))),
            "Tile<i16, { [] }>")
        return lw.let(ctx, hints[1], t.Call("bitcast", (holder,)), f"Tile<{elem}, {{ [] }}>")
    holder = lw.let(ctx, hints[0], t.Call("constant", (
        _float_constant(value, DType("float32"), lw), t.MacroCall("const_shape", ()))),
        "Tile<f32, { [] }>")
    if elem == "f32":
        return holder
    return lw.let(ctx, hints[1], t.Call("convert_tile", (holder,)), f"Tile<{elem}, {{ [] }}>")


def _positive_zero(value: object) -> bool:
    """An integer or float zero that is not -0.0 (`T::ZERO` is +0)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0 \
        and math.copysign(1.0, float(value)) > 0


def _float_text(value: float) -> str:
    if value == float("inf"):
        return "f32::INFINITY as "
    text = repr(float(value))
    if "e" in text or "inf" in text or "nan" in text:
        return text
    return text if "." in text else text + ".0"


@rule("var")
def lower_var(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Path(e.attrs["name"])


@rule("literal")
def lower_literal(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    assert isinstance(e.type, ScalarType)
    return literal(e.attrs["value"], e.type.dtype, lw)


@rule("dim")
def lower_dim(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    text = lw.dim(e.attrs["value"], e.span, False)
    if isinstance(e.attrs["value"], DimExpr):
        # The cuTile Rust compiler folds arithmetic on constants (`W / 2`) to a constant
        # whose type it cannot always infer inside a larger expression or call; a typed
        # `let` gives it one.
        return lw.let(ctx, "dim", t.Path(text), "i32")
    return t.Path(text)


@rule("const_param")
def lower_const_param(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    # A `ct.Constant[float]` is the f32 local that `float_constant_lets` binds from its bits.
    name = e.attrs["name"]
    return t.Path(_ident(name) if name in lw.spec.param_types else name)


@rule("const_cond")
def lower_const_cond(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Path(_cond_text(e.attrs["value"]))


def _cond_text(value: object) -> str:
    """A condition over constants as a Rust `bool` expression (Python truthiness: an
    integer is true when it is not 0)."""
    text = _const_expr_text(value)
    return text if _is_bool_valued(value) else f"({text} != 0)"


def _const_expr_text(value: object) -> str:
    name = getattr(value, "name", None)
    if name is not None:
        return name
    op, left, right = (getattr(value, a, None) for a in ("op", "left", "right"))
    if op is not None:
        rust_op = "/" if op == "//" else op  # constants here are sizes: never negative
        return f"({_const_expr_text(left)} {rust_op} {_const_expr_text(right)})"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _is_bool_valued(value: object) -> bool:
    if isinstance(value, bool) or getattr(value, "kind", None) == "bool":
        return True
    op = getattr(value, "op", None)
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return True
    if op in ("&", "|", "^"):
        return _is_bool_valued(getattr(value, "left", None)) and _is_bool_valued(
            getattr(value, "right", None))
    return False


@rule("bid")
def lower_bid(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Field(t.Call("get_tile_block_id", ()), str(e.attrs["axis"]))


@rule("num_blocks")
def lower_num_blocks(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Field(t.Call("get_num_tile_blocks", ()), str(e.attrs["axis"]))


@rule("num_tiles")
def lower_num_tiles(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    view = lw.load_view(e.args[0], e.attrs["shape"], None, e.attrs["order"], e.span)
    return t.Call("num_tiles", (t.Ref(t.Path(view)), t.Lit(str(e.attrs["axis"]))))


@rule("cdiv")
def lower_cdiv(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Call("ceil_div", (lw.expr(e.args[0], ctx), lw.expr(e.args[1], ctx)))


def _latency_arg(lw: KernelLowerer, latency: object, span: Span | None) -> t.Expr:
    if latency is None:
        return t.Path("None")
    text = str(latency) if isinstance(latency, int) else lw.dim(latency, span, False)
    return t.Call("Some", (t.Lit(text),))


def _tma_arg(allow_tma: object) -> t.Expr:
    return t.Path("tma::Disabled" if allow_tma is False else "tma::Enabled")


@rule("load")
def lower_load(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    # The view load itself, not `Partition::load`: cuTile Python checks no tile index
    # against the view's grid (an out-of-grid index is undefined behaviour there), and the
    # checked form adds bounds-check operations whenever the index is not a block id.
    array, *index = e.args
    plain = array.attrs["name"] not in lw.access_tokens and _view_token(ctx, e) is None
    view = lw.load_view(array, e.attrs["shape"], e.attrs["padding"], e.attrs["order"], e.span,
                        own=plain)
    if array.attrs["name"] in lw.access_tokens:
        return lower_ordered_load(lw, e, view, ctx)
    idx = t.ArrayExpr(tuple(lw.expr(i, ctx) for i in index))
    token = _view_token(ctx, e)
    if token is not None:
        return _raw_load(lw, e, ctx, view, idx, token)
    return t.Call("load_view_tko", (
        t.Ref(t.Path(view)), idx, t.Path("ordering::Weak"), t.Path("scope::TileBlock"),
        _latency_arg(lw, e.attrs.get("latency"), e.span), _tma_arg(e.attrs.get("allow_tma"))))


def lower_ordered_load(lw: KernelLowerer, e: TExpr, view: str, ctx: _Context) -> t.Expr:
    """A load from an array whose stores are chained: it waits on the last store (cuTile
    Python's read-after-write order, carried across loop iterations), and the array's
    last-access token joins its completion so that the next store waits on it as well."""
    array, *index = e.args
    name = array.attrs["name"]
    store_token, access = lw.store_tokens[name], lw.access_tokens[name]
    done = lw.temp("load_token")
    value = _raw_load(lw, e, ctx, view, _raw_index(lw, index, ctx), store_token, done)
    ctx.stmts.append(t.Assign(access, t.Call("join_tokens", (
        t.Ref(t.ArrayExpr((t.Path(access), t.Path(done)))),))))
    return value


def lower_store(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    array, *index, tile = e.args
    order = tuple(e.attrs.get("order") or range(len(index)))
    if order != tuple(range(len(index))):
        return lower_ordered_store(lw, e, order, ctx)
    view = lw.store_view(array, tile.type.shape, e.span)
    value = _stored_value(lw, e, ctx)
    token = lw.store_tokens.get(array.attrs["name"])
    if token is not None:
        chained = _store_view_raw(lw, e, view, value, _raw_index(lw, index, ctx),
                                  _store_waits_on(lw, array.attrs["name"]))
        _record_store(lw, ctx, array.attrs["name"], t.BlockExpr((), chained, unsafe=True))
        return t.TupleExpr(())
    idx = t.ArrayExpr(tuple(lw.expr(i, ctx) for i in index))
    latency = _latency_arg(lw, e.attrs.get("latency"), e.span)
    tma = _tma_arg(e.attrs.get("allow_tma"))
    token = _view_token(ctx, e)
    if token is None:
        call = t.Call("store_view_tko_mut", (
            t.Ref(t.Path(view), mutable=True), value, idx, t.Path("ordering::Weak"),
            t.Path("scope::TileBlock"), latency, tma))
    else:
        # The raw store takes the array's latest token (a store through another tensor).
        call = _store_view_raw(lw, e, view, value, idx, t.Call("Some", (t.Path(token),)))
    stored = t.BlockExpr((), call, unsafe=True)
    if id(e) not in ctx.view_chained:
        return stored
    if token is None:
        # The compiler gives the view back from `store_view_tko_mut`, its token updated.
        ctx.stmts.append(t.ExprStmt(stored, semicolon=True))
        stored = t.Call("get_partition_token_mut", (t.Ref(t.Path(view)),))
    ctx.view_tokens[array.type.param] = lw.let(ctx, "token", stored, "Token").text
    return t.TupleExpr(())


def _view_token(ctx: _Context, e: TExpr) -> str | None:
    """The token a view access waits on: its array's latest in the block's chain."""
    if id(e) not in ctx.view_waits:
        return None
    return ctx.view_tokens.get(e.args[0].type.param)


def _not_inbounds(rank: int) -> t.ArrayExpr:
    """The raw view ops' `inbounds` flags: none promised (cuTile Python promises none)."""
    return t.ArrayExpr(tuple(t.Lit("false") for _ in range(rank)))


def _raw_load(lw: KernelLowerer, e: TExpr, ctx: _Context, view: str, idx: t.Expr,
              token: str, done: str = "_") -> t.Path:
    """`let (tile, done) = load_view_raw(&view, idx, Some(token), ..)`: a load that waits on
    the array's latest store (`done` names its completion token, or `_`)."""
    shape = e.attrs["shape"]
    assert isinstance(e.type, TileType)
    call = t.Call("load_view_raw", (
        t.Ref(t.Path(view)), idx, t.Call("Some", (t.Path(token),)), t.Path("ordering::Weak"),
        t.Path("scope::TileBlock"), _tma_arg(e.attrs.get("allow_tma")),
        _latency_arg(lw, e.attrs.get("latency"), e.span), _not_inbounds(len(shape)),
        lw.const_shape(shape, e.span)))
    name = lw.temp("loaded")
    ctx.stmts.append(t.Let(f"({name}, {done})", t.BlockExpr((), call, unsafe=True), t.RType(
        f"({lw.rust_type(e.type, e.span)}, Token)")))
    return t.Path(name)


def _stored_value(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Path:
    """The stored tile as a name: the store's tile parameter is generic, so the JIT needs
    the tile's type spelled out on a `let`."""
    tile = e.args[-1]
    value = lw.expr(tile, ctx)
    if isinstance(value, t.Path):
        return value
    name = lw.temp("out")
    ctx.stmts.append(t.Let(name, value, t.RType(lw.rust_type(tile.type, e.span) or "_")))
    return t.Path(name)


def _store_view_raw(lw: KernelLowerer, e: TExpr, view: str, value: t.Expr,
                    index: t.ArrayExpr, token: t.Expr) -> t.Call:
    """The raw store op (explicit token, no bounds promise on any axis)."""
    return t.Call("store_view_raw", (
        t.Ref(t.Path(view)), value, index, token, t.Path("ordering::Weak"),
        t.Path("scope::TileBlock"), _tma_arg(e.attrs.get("allow_tma")),
        _latency_arg(lw, e.attrs.get("latency"), e.span), _not_inbounds(len(index.items))))


def lower_ordered_store(lw: KernelLowerer, e: TExpr, order: tuple[int, ...],
                        ctx: _Context) -> t.Expr:
    """`ct.store(.., order=)`: cuTile Rust's mutable partitions take no dimension map, so
    the store goes through a partition view that has one (`make_partition_view` with the
    order as its `dim_map`, no padding: the view cuTile Python stores through) by the raw
    store op, after the array's previous chained store if there is one."""
    array, *index, tile = e.args
    view = lw.load_view(array, tile.type.shape, None, order, e.span)
    value = _stored_value(lw, e, ctx)
    name = array.attrs["name"]
    after = _store_waits_on(lw, name) if name in lw.store_tokens else t.Path("None")
    stored = t.BlockExpr((), _store_view_raw(lw, e, view, value, _raw_index(lw, index, ctx),
                                             after), unsafe=True)
    if name not in lw.store_tokens:
        return stored
    _record_store(lw, ctx, name, stored)
    return t.TupleExpr(())


def _store_waits_on(lw: KernelLowerer, array: str) -> t.Expr:
    """A chained store waits on the array's last access (its last store, and the loads
    since), as cuTile Python orders a store after every earlier access to the array."""
    return t.Call("Some", (t.Path(lw.access_tokens.get(array, lw.store_tokens[array])),))


def _record_store(lw: KernelLowerer, ctx: _Context, array: str, stored: t.Expr) -> None:
    token = lw.store_tokens[array]
    ctx.stmts.append(t.Assign(token, stored))
    if array in lw.access_tokens:
        ctx.stmts.append(t.Assign(lw.access_tokens[array], t.Path(token)))


def _raw_index(lw: KernelLowerer, index: list[TExpr], ctx: _Context) -> t.ArrayExpr:
    """The tile index of a `store_view_raw`. A call of one of our support functions
    (Python's `//` and `%`) is bound to an `i32` first: the raw op's index is generic, and
    the cuTile Rust compiler cannot infer an inlined call's type there."""
    coords: list[t.Expr] = []
    for i in index:
        value = lw.expr(i, ctx)
        if isinstance(value, t.Call) and value.func in lw.support:
            value = lw.let(ctx, "index", value, lw.rust_type(i.type, i.span) or "i32")
        coords.append(value)
    return t.ArrayExpr(tuple(coords))


def _pointer_tile(lw: KernelLowerer, e: TExpr, ctx: _Context) -> tuple[t.Path, t.Expr]:
    """The pointer tile and the mask of a gather/scatter, built the way cuTile Python builds
    them: per dimension a 64-bit index times the stride (1 for the last dimension, else the
    stride parameter the launcher passes), summed; with `check_bounds`, an unsigned
    `index < extent` test per dimension, all combined with the user's mask."""
    array = e.args[0]
    strides: list[str | None] = e.attrs["strides"]
    indices = e.args[1:1 + len(strides)]
    shape = e.attrs["shape"]
    shape_ty = lw.shape_type(shape, e.span)
    tile_i64 = f"Tile<i64, {shape_ty}>"
    elem = lw.elem(array.type.dtype)
    name = _ident(array.attrs["name"])
    ones = lw.const_shape((1,) * len(shape), e.span)
    full = lw.const_shape(shape, e.span)
    offsets: t.Expr | None = None
    masks: list[t.Expr] = []
    for dim, (index, stride) in enumerate(zip(indices, strides, strict=True)):
        idx: t.Expr = lw.expr(index, ctx)
        own_ty = f"Tile<i64, {lw.shape_type(index.type.shape, e.span)}>"
        if lw.elem(index.type.dtype) != "i64":
            if index.op == "scalar_to_tile":
                # `exti` is generic in its input: rustc needs the index tile's type named.
                idx = lw.let(ctx, "index_tile", idx, lw.rust_type(index.type, e.span) or "_")
            idx = lw.let(ctx, "index64", t.Call("exti", (idx,)), own_ty)
        if len(index.type.shape) < len(shape):
            lifted = (1,) * (len(shape) - len(index.type.shape)) + tuple(index.type.shape)
            idx = lw.let(ctx, "index64", t.MethodCall(idx, "reshape", (
                lw.const_shape(lifted, e.span),)), f"Tile<i64, {lw.shape_type(lifted, e.span)}>")
            if lifted != tuple(shape):
                idx = lw.let(ctx, "index64", t.MethodCall(idx, "broadcast", (full,)), tile_i64)
        elif index.type.shape != tuple(shape):
            idx = lw.let(ctx, "index64", t.MethodCall(idx, "broadcast", (full,)), tile_i64)
        if e.attrs["check_bounds"]:
            masks.append(_in_bounds(lw, ctx, name, dim, idx, ones, full, shape_ty))
        if stride is None:
            factor = lw.let(ctx, "unit_stride", t.Call("constant", (t.Lit("1i64"), full)),
                            tile_i64)
        else:
            factor = _broadcast_i64(lw, ctx, t.Path(stride), "stride", ones, full, shape_ty)
        term = lw.let(ctx, "offsets", t.Binary("*", idx, factor), tile_i64)
        offsets = term if offsets is None else lw.let(ctx, "offsets",
                                                      t.Binary("+", offsets, term), tile_i64)
    assert offsets is not None
    mask: t.Expr = t.Path("None")
    if e.attrs["has_mask"]:
        masks.append(lw.expr(e.args[-1], ctx))
    if masks:
        combined = masks[0]
        for extra in masks[1:]:
            combined = lw.let(ctx, "mask", t.Binary("&", combined, extra),
                              f"Tile<bool, {shape_ty}>")
        if not isinstance(combined, t.Path):
            combined = lw.let(ctx, "mask", combined, f"Tile<bool, {shape_ty}>")
        mask = t.Call("Some", (combined,))
    ones_ty = lw.shape_type((1,) * len(shape), e.span)
    base = lw.let(ctx, "base", t.Call("get_tensor_base", (lw.array_ref(array),)),
                  f"PointerTile<*mut {elem}, {{ [] }}>")
    base1 = lw.let(ctx, "base", t.MethodCall(base, "reshape", (ones,)),
                   f"PointerTile<*mut {elem}, {ones_ty}>")
    spread = lw.let(ctx, "base", t.MethodCall(base1, "broadcast", (full,)),
                    f"PointerTile<*mut {elem}, {shape_ty}>")
    pointers = lw.let(ctx, "pointers", t.MethodCall(spread, "offset_tile", (offsets,)),
                      f"PointerTile<*mut {elem}, {shape_ty}>")
    return pointers, mask


def _broadcast_i64(lw: KernelLowerer, ctx: _Context, scalar: t.Expr, hint: str,
                   ones: t.Expr, full: t.Expr, shape_ty: str) -> t.Path:
    """An i32 scalar widened to i64 and spread over the tile shape."""
    as_tile = lw.let(ctx, f"{hint}_tile", t.Call("scalar_to_tile", (scalar,)),
                     "Tile<i32, { [] }>")
    wide = lw.let(ctx, f"{hint}64", t.Call("exti", (as_tile,)), "Tile<i64, { [] }>")
    return lw.let(ctx, hint, t.MethodCall(t.MethodCall(wide, "reshape", (ones,)),
                                          "broadcast", (full,)), f"Tile<i64, {shape_ty}>")


def _in_bounds(lw: KernelLowerer, ctx: _Context, name: str, dim: int, idx: t.Expr,
               ones: t.Expr, full: t.Expr, shape_ty: str) -> t.Path:
    extent = lw.let(ctx, "extent", t.Call("get_shape_dim", (
        t.MethodCall(t.Path(name), "shape", ()), t.Lit(f"{dim}i32"))), "i32")
    bound = _broadcast_i64(lw, ctx, extent, "bound", ones, full, shape_ty)
    # Unsigned comparison: a negative index is out of bounds too.
    idx_u = lw.let(ctx, "index_u", t.Call("bitcast", (idx,)), f"Tile<u64, {shape_ty}>")
    bound_u = lw.let(ctx, "bound_u", t.Call("bitcast", (bound,)), f"Tile<u64, {shape_ty}>")
    return lw.let(ctx, "in_bounds", t.Call("lt_tile", (idx_u, bound_u)),
                  f"Tile<bool, {shape_ty}>")


def _latency_type(lw: KernelLowerer, latency: object, span: Span | None) -> t.Expr:
    value = 0 if latency is None else latency
    text = str(value) if isinstance(value, int) else lw.dim(value, span, False)
    return t.Path(f"Latency::<{text}>")


@rule("gather")
def lower_gather(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    pointers, mask = _pointer_tile(lw, e, ctx)
    assert isinstance(e.type, TileType)
    dtype = e.type.dtype
    elem = lw.elem(dtype)
    padding = e.attrs["padding"]
    if isinstance(padding, DimSym | DimExpr):
        # A `ct.Constant[int]` padding value: the const generic itself.
        value = t.Path(lw.dim(padding, e.span, False))
        pad = lw.let(ctx, "padding", value if elem == "i32" else t.Call(
            "convert_scalar", (value,)), elem)
    elif isinstance(padding, float) and not math.isfinite(padding):
        # `f32::NEG_INFINITY` is accepted only as a DSL operation's argument: a 0-d
        # constant tile holds it (its bits reinterpreted for a 16-bit element type).
        holder = _element_scalar_tile(lw, ctx, padding, elem, ("padding", "padding"))
        pad = lw.let(ctx, "padding", t.Call("tile_to_scalar", (holder,)), elem)
    elif _positive_zero(padding) and isinstance(dtype, DType) and elem in NO_LITERAL_ELEMS:
        # A zero of the element type itself (`T::ZERO`, through a 0-d constant: a DSL
        # operation's argument is where cuTile Rust accepts it), as cuTile Python writes
        # it: tileiras does not always fold the `ftof` of a converted f32 zero, and a
        # padding it cannot see is zero costs a select per element (float8: several).
        # Not for a launch-time element type: cuTile Rust 0.5.0 cannot take `E::ZERO`'s
        # 0-d tile back to a scalar.
        holder = lw.let(ctx, "padding", t.Call("constant", (
            t.Path(f"{elem}::ZERO"), t.MacroCall("const_shape", ()))), f"Tile<{elem}, {{ [] }}>")
        pad = lw.let(ctx, "padding", t.Call("tile_to_scalar", (holder,)), elem)
    elif elem in ("f16", "bf16") or (isinstance(padding, float) and (
            isinstance(dtype, DTypeVar) or elem in NO_LITERAL_ELEMS)):
        # No literal of the type: an `f32` constant converted (for a launch-time element
        # type too; the identity for `f32`).
        pad_f32 = lw.let(ctx, "padding", literal(float(padding), DType("float32"), lw), "f32")
        pad = lw.let(ctx, "padding", t.Call("convert_scalar", (pad_f32,)), elem)
    else:
        pad = lw.let(ctx, "padding", _float_constant(padding, dtype, lw)
                     if isinstance(padding, float) else literal(padding, dtype, lw), elem)
    shape_ty = lw.shape_type(e.attrs["shape"], e.span)
    tile_ty = f"(Tile<{elem}, {shape_ty}>, Token)"
    name = lw.temp("gathered")
    latency = _latency_type(lw, e.attrs.get("latency"), e.span)
    if len(e.attrs["shape"]) >= 2 and isinstance(mask, t.Call):
        # cuTile Rust 0.5.0 reshapes a scalar padding to rank 1 whatever the tile's rank:
        # gather the tile flattened to rank 1, where the padding fits, and reshape it back
        # (used elementwise, tileiras makes the same code of it as of cuTile Python's rank-2
        # gather; feeding an `mma`, the reshape costs a trip through shared memory, still
        # less than a `select` of the padding after an unpadded load: gaps.md). The IR
        # check's flattened-gather rule.
        flat = (functools.reduce(lambda a, b: dim_op("*", a, b), e.attrs["shape"]),)
        flat_ty = lw.shape_type(flat, e.span)
        flat_shape = lw.const_shape(flat, e.span)
        flat_pointers = lw.let(ctx, "flat_pointers", t.MethodCall(
            pointers, "reshape", (flat_shape,)), f"PointerTile<*mut {elem}, {flat_ty}>")
        flat_mask = lw.let(ctx, "flat_mask", t.MethodCall(mask.args[0], "reshape", (
            flat_shape,)), f"Tile<bool, {flat_ty}>")
        loaded = t.BlockExpr((), t.Call("load_ptr_tko", (
            flat_pointers, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"),
            t.Call("Some", (flat_mask,)), t.Call("Some", (pad,)),
            _after(ctx, e.args[0].attrs["name"], lw), latency)), unsafe=True)
        done = _gather_done(lw, e)
        ctx.stmts.append(t.Let(f"({name}, {done})", loaded,
                               t.RType(f"(Tile<{elem}, {flat_ty}>, Token)")))
        _join_gather(lw, e, ctx, done)
        return t.MethodCall(t.Path(name), "reshape", (lw.const_shape(e.attrs["shape"],
                                                                      e.span),))
    loaded = t.BlockExpr((), t.Call("load_ptr_tko", (
        pointers, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"), mask,
        t.Call("Some", (pad,)), _after(ctx, e.args[0].attrs["name"], lw), latency)), unsafe=True)
    done = _gather_done(lw, e)
    ctx.stmts.append(t.Let(f"({name}, {done})", loaded, t.RType(tile_ty)))
    _join_gather(lw, e, ctx, done)
    return t.Path(name)


def _gather_done(lw: KernelLowerer, e: TExpr) -> str:
    """The name of a gather's completion token: `_` unless the block's accesses share one
    chain (`declare_shared_chain`), where a later write waits on the gather."""
    if not (lw.shared_chain and e.args[0].attrs["name"] in lw.access_tokens):
        return "_"
    return lw.temp("gather_token")


def _join_gather(lw: KernelLowerer, e: TExpr, ctx: _Context, done: str) -> None:
    """The shared chain's last-access token joins the gather's completion token `done`."""
    if done == "_":
        return
    access = lw.access_tokens[e.args[0].attrs["name"]]
    ctx.stmts.append(t.Assign(access, t.Call("join_tokens", (
        t.Ref(t.ArrayExpr((t.Path(access), t.Path(done)))),))))


def lower_scatter(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    pointers, mask = _pointer_tile(lw, e, ctx)
    value_index = 1 + len(e.attrs["strides"])
    value = lw.expr(e.args[value_index], ctx)
    if not isinstance(value, t.Path):
        value = lw.let(ctx, "values", value, lw.rust_type(e.args[value_index].type, e.span) or "_")
    array = e.args[0].attrs["name"]
    chained = array in lw.store_tokens
    stored = t.BlockExpr((), t.Call("store_ptr_tko", (
        pointers, value, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"), mask,
        _store_waits_on(lw, array) if chained else _after(ctx, array),
        _latency_type(lw, e.attrs.get("latency"), e.span))), unsafe=True)
    if chained:
        _record_store(lw, ctx, array, stored)
        return t.TupleExpr(())
    if id(e) not in ctx.chained:
        return stored
    ctx.tokens[array] = lw.let(ctx, "token", stored, "Token").text
    return t.TupleExpr(())


@rule("atomic")
def lower_atomic(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    """An atomic whose old values are used: they are the expression's value."""
    return _emit_atomic(lw, e, ctx, keep_old=True)


def _emit_atomic(lw: KernelLowerer, e: TExpr, ctx: _Context, keep_old: bool) -> t.Expr:
    """`let (old, token) = atomic_rmw_tko(pointers, update, atomic::M, ordering::O, scope::S,
    mask, token)`: the pointer tile and bounds mask built as for a scatter (the compiler
    needs the result type written); `old` is `_` for an atomic evaluated as a statement,
    `token` is `_` unless a later pointer access to the array waits on it."""
    pointers, mask = _pointer_tile(lw, e, ctx)
    value_index = 1 + len(e.attrs["strides"])
    update = e.args[value_index]
    value = lw.expr(update, ctx)
    if not isinstance(value, t.Path):
        value = lw.let(ctx, "update", value, lw.rust_type(update.type, e.span) or "_")
    array = e.args[0].attrs["name"]
    assert isinstance(e.type, TileType) and isinstance(e.args[0].type, ArrayType)
    ordered = lw.shared_chain and array in lw.store_tokens
    after = _store_waits_on(lw, array) if ordered else _after(ctx, array)
    order, scope = t.Path(f"ordering::{e.attrs['order']}"), t.Path(f"scope::{e.attrs['scope']}")
    if e.attrs["function"] == "atomic_cas":
        desired = lw.expr(e.args[value_index + 1], ctx)
        if not isinstance(desired, t.Path):
            desired = lw.let(ctx, "desired", desired, lw.rust_type(e.type, e.span) or "_")
        op = t.Call("atomic_cas_tko", (pointers, value, desired, order, scope, mask, after))
    else:
        op = t.Call("atomic_rmw_tko", (pointers, value, t.Path(f"atomic::{_atomic_mode(lw, e)}"),
                                       order, scope, mask, after))
    old = lw.temp("old") if keep_old else "_"
    token = lw.temp("token") if id(e) in ctx.chained or ordered else "_"
    ctx.stmts.append(t.Let(f"({old}, {token})", t.BlockExpr((), op, unsafe=True), t.RType(
        f"({lw.rust_type(e.type, e.span)}, Token)")))
    if ordered:
        _record_store(lw, ctx, array, t.Path(token))
    elif token != "_":
        ctx.tokens[array] = token
    return t.Path(old) if keep_old else t.TupleExpr(())


def _atomic_mode(lw: KernelLowerer, e: TExpr) -> str:
    """The `atomic::` mode of an atomic for its array's element type (the typing rule
    refused the types the function does not take)."""
    spec = ATOMIC_RMW[e.attrs["function"]]
    elem = lw.elem(e.args[0].type.dtype)
    modes = spec.modes()
    if len(modes) == 1:
        return next(iter(modes))
    dtype = dtype_of_rust(elem)
    mode = spec.mode(DType(dtype)) if dtype is not None else None
    if mode is None:
        raise lw.error("E0108", f"`ct.{e.attrs['function']}` has no atomic mode for `{elem}`",
                       e.span)
    return mode


def lower_print(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    """A print with its printf format written out: text alone through `cuda_tile_print!`
    (the compiler keeps a literal without `{}` as it is), one value through `print_tko`
    (the format verbatim, one operand; a scalar as its 0-d tile)."""
    text = t.Lit(_rust_string(e.attrs["format"]))
    if not e.args:
        return t.MacroCall("cuda_tile_print", (text,), delimiter="(")
    (arg,) = e.args
    value = lw.expr(arg, ctx)
    if isinstance(arg.type, ScalarType):
        value = lw.let(ctx, "printed", t.Call("scalar_to_tile", (value,)),
                       f"Tile<{lw.elem(arg.type.dtype)}, {{ [] }}>")
    return t.Call("print_tko", (text, value, t.Path("None")))


def _rust_string(text: str) -> str:
    """`text` as a Rust string literal."""
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
    out = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def lower_view_atomic(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    """An atomic add of a tile through a partition view, relaxed at device scope (cuTile
    Python's `tiled_view(...).atomic_store_add`)."""
    array, *index, tile = e.args
    view = lw.load_view(array, e.attrs["shape"], None, tuple(range(len(index))), e.span)
    value = lw.expr(tile, ctx)
    if not isinstance(value, t.Path):
        value = lw.let(ctx, "values", value, lw.rust_type(tile.type, e.span) or "_")
    assert isinstance(tile.type, TileType)
    mode = "AddF" if lw.elem(tile.type.dtype) in ("f16", "bf16", "f32", "f64") else "Add"
    coords = t.ArrayExpr(tuple(lw.expr(i, ctx) for i in index))
    name = array.attrs["name"]
    chained = name in lw.store_tokens
    added = t.BlockExpr((), t.Call("atomic_red_view_raw", (
        t.Ref(t.Path(view)), value, coords, t.Path(f"atomic::{mode}"),
        t.Path("ordering::Relaxed"), t.Path("scope::Device"),
        _store_waits_on(lw, name) if chained else t.Path("None"))), unsafe=True)
    if not chained:
        return added
    _record_store(lw, ctx, name, added)
    return t.TupleExpr(())


def lower_array_slice(lw: KernelLowerer, name: str, e: TExpr, ctx: _Context) -> None:
    """`let name: Tensor<..> = make_tensor_view(..)`, a slice built as cuTile Python builds
    it: the array's base moved by `start` times the sliced axis' stride (an `i64` offset),
    the axis `stop - start` long (assumed non-negative, as Python assumes it) or of its
    compile-time size, the other dimensions and every stride the array's own."""
    array, start_e, stop_e = e.args
    assert isinstance(array.type, ArrayType) and isinstance(e.type, ArrayType)
    ndim, axis = array.type.ndim, int(e.attrs["axis"])
    elem = lw.elem(array.type.dtype)
    strides = _stride_names(lw, array.type.param, ndim, e.span)
    start = _scalar_operand(lw, start_e, f"{name}_start", ctx)
    step: t.Expr = t.Path(strides[axis]) if axis < ndim - 1 else t.Lit("1i32")
    offset = lw.let(ctx, f"{name}_offset", t.Binary("*", start, step), "i32")
    offset = lw.let(ctx, f"{name}_offset", t.Call("scalar_to_tile", (offset,)),
                    "Tile<i32, { [] }>")
    offset = lw.let(ctx, f"{name}_offset", t.Call("exti", (offset,)), "Tile<i64, { [] }>")
    base = lw.let(ctx, f"{name}_base", t.MethodCall(t.Call(
        "get_tensor_base", (lw.array_ref(array),)), "offset_tile", (offset,)),
        f"PointerTile<*mut {elem}, {{ [] }}>")
    dims: list[t.Expr] = []
    for dim in range(ndim):
        if e.type.static_dim(dim) is not None:
            continue
        if dim == axis:
            stop = _scalar_operand(lw, stop_e, f"{name}_stop", ctx)
            extent = lw.let(ctx, f"{name}_extent", t.Binary("-", stop, start), "i32")
            dims.append(lw.let(ctx, f"{name}_extent", t.BlockExpr((), t.Call(
                "assume_bounds_lower", (extent,), ("_", "0")), unsafe=True), "i32"))
        else:
            dims.append(t.Call("get_shape_dim", (t.MethodCall(
                t.Path(_ident(array.attrs["name"])), "shape", ()), t.Lit(f"{dim}i32"))))
    shape_ty = "{ [" + ", ".join(_static_dim_text(lw, e.type, d, e.span)
                                  for d in range(ndim)) + "] }"
    shape = lw.let(ctx, f"{name}_shape", t.StructLit(
        f"Shape::<{shape_ty}>", (("dims", t.Ref(t.ArrayExpr(tuple(dims)))),)),
        f"Shape<{shape_ty}>")
    stride_ty = "{ [" + ", ".join(["-1"] * (ndim - 1) + ["1"]) + "] }"
    stride_array = lw.let(ctx, f"{name}_strides", t.StructLit(
        f"Array::<{stride_ty}>", (("dims", t.Ref(t.ArrayExpr(tuple(
            t.Path(s) for s in strides)))),)), f"Array<{stride_ty}>")
    view = t.Call("make_tensor_view", (base, shape, stride_array, t.Call(
        "get_tensor_token", (lw.array_ref(array),))))
    let = t.Let(name, t.BlockExpr((), view, unsafe=True),
                t.RType(f"Tensor<{elem}, {shape_ty}>"))
    ctx.stmts.append(let)
    lw.slice_count += 1
    lw.slice_anchors[name] = _Anchor(ctx.stmts, let, lw.slice_count)


def _stride_names(lw: KernelLowerer, param: str, ndim: int, span: Span | None) -> list[str]:
    """The `i32` parameters carrying `param`'s strides along dims 0..ndim-2 (the analysis
    registers them for every sliced array; the last stride is 1)."""
    found = {dim: name for name, array, dim in lw.spec.model.stride_params if array == param}
    missing = [d for d in range(ndim - 1) if d not in found]
    if missing or ndim < 1:
        raise lw.error("E0108", f"the strides of `{param}` are not known", span)
    return [found[d] for d in range(ndim - 1)]


def _scalar_operand(lw: KernelLowerer, e: TExpr, hint: str, ctx: _Context) -> t.Expr:
    """A scalar lowered once: a name or literal as it is, anything else bound to a `let`."""
    value = lw.expr(e, ctx)
    if isinstance(value, t.Path | t.Lit):
        return value
    return lw.let(ctx, hint, value, lw.rust_type(e.type, e.span) or "i32")


def _static_dim_text(lw: KernelLowerer, array: ArrayType, dim: int, span: Span | None) -> str:
    static = array.static_dim(dim)
    return "-1" if static is None else lw.dim(static, span, True)


def _after(ctx: _Context, array: str, lw: KernelLowerer | None = None) -> t.Expr:
    """The token a pointer access to `array` waits on: the array's last write when its
    writes are chained, else the block's last scatter to it."""
    if lw is not None and array in lw.store_tokens:
        return t.Call("Some", (t.Path(lw.store_tokens[array]),))
    token = ctx.tokens.get(array)
    return t.Call("Some", (t.Path(token),)) if token else t.Path("None")


def _scattered_then_reused(stmts: list[TStmt]) -> set[int]:
    """The top-level pointer writes of `stmts` (scatters and atomics, by `id` of their
    expression) whose array a later top-level statement accesses through pointers again
    (gather, scatter or atomic)."""
    pending: dict[str, int] = {}
    chained: set[int] = set()
    for stmt in stmts:
        writes: list[TExpr] = []
        for expr in statement_exprs([stmt]):
            for node in _walk_exprs(expr):
                if node.op in _POINTER_ACCESSES and node.args and node.args[0].op == "array":
                    name = node.args[0].attrs["name"]
                    if name in pending:
                        chained.add(pending.pop(name))
                    if node.op in _POINTER_WRITES and _top_level_write(stmt, node):
                        writes.append(node)
        for node in writes:
            pending[node.args[0].attrs["name"]] = id(node)
    return chained


_POINTER_ACCESSES = frozenset({"scatter", "gather", "atomic"})
_POINTER_WRITES = frozenset({"scatter", "atomic"})


def _top_level_write(stmt: TStmt, node: TExpr) -> bool:
    """A pointer write the statement evaluates itself (a scatter statement, an atomic in
    an effect or an assignment's value), not one inside a loop or an `if` of it."""
    if not isinstance(stmt, TAssign | TEffect):
        return False
    return any(n is node for n in _walk_exprs(stmt.value))


def _view_token_chains(stmts: list[TStmt]) -> tuple[set[int], set[int]]:
    """(stores whose token is kept, accesses that wait on a token) of the top-level view
    loads and stores of `stmts`: an access to an array whose last store went through
    another tensor (a slice of it, or the array itself) starts the array's chain, and every
    later access to the array in the block waits on the chain's latest store."""
    last: dict[str, tuple[int, str]] = {}
    started: set[str] = set()
    chained: set[int] = set()
    waits: set[int] = set()
    for stmt in stmts:
        if not isinstance(stmt, TAssign | TEffect):
            continue
        for node in reversed(_walk_exprs(stmt.value)):
            if node.op not in ("load", "store") or not node.args or \
                    node.args[0].op != "array":
                continue
            root, tensor = node.args[0].type.param, node.args[0].attrs["name"]
            previous = last.get(root)
            if previous is not None and (root in started or previous[1] != tensor):
                chained.add(previous[0])
                started.add(root)
                waits.add(id(node))
            if node.op == "store" and node is stmt.value:
                last[root] = (id(node), tensor)
    return chained, waits


def _walk_exprs(expr: TExpr) -> list[TExpr]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.args)
    return out


@rule("fma")
def lower_fma(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    a, b, c = (lw.expr(x, ctx) for x in e.args)
    rounding = t.Path(f"rounding::{_ROUNDING[e.attrs.get('rounding')]}")
    ftz = t.Path(f"ftz::{'Enabled' if e.attrs.get('ftz') else 'Disabled'}")
    if isinstance(e.type, ScalarType):
        tiles = tuple(t.Call("scalar_to_tile", (x,)) for x in (a, b, c))
        return t.Call("tile_to_scalar", (t.Call("fma", (*tiles, rounding, ftz)),))
    return t.Call("fma", (a, b, c, rounding, ftz))


@rule("binary")
def lower_binary(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    op = e.attrs["op"]
    dtype = e.type.dtype
    is_tile = isinstance(e.type, TileType)
    is_float = isinstance(dtype, DType) and dtype.is_float or (
        not isinstance(dtype, DType))
    rounding, ftz = e.attrs.get("rounding"), e.attrs.get("ftz")
    if op in ("maximum", "minimum"):
        if not is_tile:
            return t.Call("max" if op == "maximum" else "min", (left, right))
        if is_float:
            fn = "maxf" if op == "maximum" else "minf"
            nan = "Enabled" if e.attrs.get("nan") else "Disabled"
            return t.Call(fn, (left, right, t.Path(f"nan::{nan}"),
                               t.Path(f"ftz::{'Enabled' if ftz else 'Disabled'}")))
        return t.Call("maxi" if op == "maximum" else "mini", (left, right))
    if is_tile and (rounding not in (None,) or ftz) and op in ("+", "-", "*", "/"):
        fn = {"+": "addf", "-": "subf", "*": "mulf", "/": "divf"}[op]
        return t.Call(fn, (left, right, t.Path(f"rounding::{_ROUNDING[rounding]}"),
                           t.Path(f"ftz::{'Enabled' if ftz else 'Disabled'}")))
    if op in ("//", "%") and not is_float:
        return _lower_int_floor_op(lw, e, op, left, right, ctx)
    if op == "//":
        raise lw.error("E0101", "floor division of floats is not lowered yet", e.span)
    if op == "%":
        return _lower_float_mod(lw, e, left, right, is_tile, ctx)
    if op == "**":
        return _lower_power(lw, e, left, right, is_tile, is_float)
    return t.Binary(op, left, right)


def _lower_power(lw: KernelLowerer, e: TExpr, left: t.Expr, right: t.Expr, is_tile: bool,
                 is_float: bool) -> t.Expr:
    """`a ** b` on floats: Tile IR `pow` (cuTile Python's `ct.pow`); a scalar goes through
    0-d tiles."""
    if not is_float:
        raise lw.error("E0101", "`**` on integers is not lowered yet", e.span)
    if is_tile:
        return t.Call("pow", (left, right))
    tiles = tuple(t.Call("scalar_to_tile", (x,)) for x in (left, right))
    return t.Call("tile_to_scalar", (t.Call("pow", tiles),))


def _lower_int_floor_op(lw: KernelLowerer, e: TExpr, op: str, left: t.Expr,
                        right: t.Expr, ctx: _Context) -> t.Expr:
    """Python's integer `//` and `%` round toward negative infinity; Rust's truncate."""
    rust_type = lw.elem(e.type.dtype)
    if isinstance(e.type, ScalarType):
        name = floordiv_name(rust_type) if op == "//" else mod_name(rust_type)
        lw.support.add(name)
        return t.Call(name, (left, right))
    if op == "//":
        return t.Call("divi", (left, right, t.Path("rounding::NegativeInf")))
    return _lower_tile_floor_mod(lw, e, left, right, ctx)


def _lower_tile_floor_mod(lw: KernelLowerer, e: TExpr, left: t.Expr, right: t.Expr,
                          ctx: _Context, shape_of: tuple[Dim, ...] | None = None) -> t.Expr:
    """`a % b` on tiles as cuTile Python computes it: the truncated remainder `r` (`remi`,
    `remf`), moved by `b` where `r` is nonzero and its sign differs from `b`'s (a float
    `r != 0` is the unordered compare Python's `!=` is). `shape_of`: the shape when `e` is a
    scalar computed on 0-d tiles."""
    tile_shape = e.type.shape if isinstance(e.type, TileType) else shape_of or ()
    dtype = e.type.dtype
    is_float = not (isinstance(dtype, DType) and not dtype.is_float)
    elem = lw.elem(dtype)
    shape = lw.const_shape(tile_shape, e.span)
    dims = lw.shape_type(tile_shape, e.span)
    tile, flags = f"Tile<{elem}, {dims}>", f"Tile<bool, {dims}>"
    b = lw.let(ctx, "divisor", right, tile)
    r = lw.let(ctx, "rem", t.Call("remf" if is_float else "remi", (left, b)), tile)
    zero_value = t.Path(f"{elem}::ZERO") if is_float else t.Lit(f"0{elem}")
    zero = lw.let(ctx, "zero", t.Call("constant", (zero_value, shape)), tile)
    nonzero = t.Call("cmpf", (r, zero, t.Path("predicate::NotEqual"),
                              t.Path("cmp_ordering::Unordered"))) if is_float else t.Call(
        "ne_tile", (r, zero))
    fix = lw.let(ctx, "fix", t.Binary("&", t.Binary(
        "^", t.Call("lt_tile", (r, zero)), t.Call("lt_tile", (b, zero))), nonzero), flags)
    return t.Call("select", (fix, t.Binary("+", r, b), r))


def _lower_float_mod(lw: KernelLowerer, e: TExpr, left: t.Expr, right: t.Expr,
                     is_tile: bool, ctx: _Context) -> t.Expr:
    """Python's float `a % b` (the sign of the divisor), where Rust's `%` is C's `remf`; a
    scalar goes through 0-d tiles."""
    if is_tile:
        return _lower_tile_floor_mod(lw, e, left, right, ctx)
    tiles = [lw.let(ctx, "operand", t.Call("scalar_to_tile", (x,)),
                    f"Tile<{lw.elem(e.type.dtype)}, {{ [] }}>") for x in (left, right)]
    result = lw.let(ctx, "mod", _lower_tile_floor_mod(lw, e, tiles[0], tiles[1], ctx, ()),
                    f"Tile<{lw.elem(e.type.dtype)}, {{ [] }}>")
    return t.Call("tile_to_scalar", (result,))


@rule("compare")
def lower_compare(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    if isinstance(e.type, TileType):
        operand = e.args[0].type
        if e.attrs["op"] == "!=" and isinstance(operand, TileType) and isinstance(
                operand.dtype, DType) and operand.dtype.is_float:
            # Python's float `!=` holds for NaN: Tile IR's unordered compare.
            return t.Call("cmpf", (left, right, t.Path("predicate::NotEqual"),
                                   t.Path("cmp_ordering::Unordered")))
        return t.Call(_CMP[e.attrs["op"]], (left, right))
    return t.Binary(e.attrs["op"], left, right)


_UNARY_RUST = {"exp": "exp", "log": "log", "log2": "log2", "sin": "sin", "cos": "cos",
               "tan": "tan", "sinh": "sinh", "cosh": "cosh", "floor": "floor", "ceil": "ceil"}


@rule("unary")
def lower_unary(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    fn = e.attrs["fn"]
    ftz = t.Path(f"ftz::{'Enabled' if e.attrs.get('ftz') else 'Disabled'}")
    rounding = e.attrs.get("rounding")
    dtype = e.args[0].type.dtype
    is_float = not (isinstance(dtype, DType) and not dtype.is_float)
    if fn in ("exp", "tanh") and rounding not in (None, "FULL"):
        name = "exp_with_rounding" if fn == "exp" else "tanh_with_rounding"
        return t.BlockExpr((), t.Call(name, (x, t.Path(f"rounding::{_ROUNDING[rounding]}"))),
                           unsafe=True)
    if fn in _UNARY_RUST:
        return t.Call(_UNARY_RUST[fn], (x,))
    if fn == "tanh":
        return t.Call("tanh", (x,))
    if fn == "exp2":
        return t.Call("exp2", (x, ftz))
    if fn == "sqrt":
        return t.Call("sqrt", (x, t.Path(f"rounding::{_ROUNDING[rounding]}"), ftz))
    if fn == "rsqrt":
        return t.Call("rsqrt", (x, ftz))
    if fn in ("abs", "negative"):
        if fn == "abs":
            return t.Call("absf" if is_float else "absi", (x,))
        return t.Call("negf", (x,)) if is_float else t.Call("negi", (x, t.Path("overflow::None")))
    if fn == "bitwise_not":
        return t.Call("noti", (x,))
    raise lw.error("E0101", f"`ct.{fn}` is not lowered yet", e.span)


@rule("scan")
def lower_scan(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    direction = "Reverse" if e.attrs.get("reverse") else "Forward"
    assert isinstance(e.type, TileType)
    elem = lw.elem(e.type.dtype)
    # Half types have no Rust literal: their zero is `f16::ZERO` / `bf16::ZERO`.
    identity = literal(0, e.type.dtype, lw) if isinstance(
        e.type.dtype, DType) and elem not in NO_LITERAL_ELEMS else t.Path(f"{elem}::ZERO")
    axis = int(e.attrs["axis"])
    if axis == 0:
        return t.Call("scan_sum", (x, t.Lit("0i32"), t.Path(f"reverse::{direction}"),
                                   identity))
    # cuTile Rust 0.5.0 scans along dimension 0 whatever `dim` says (its compile_scan_op
    # writes dim=0): the scanned axis is swapped to the front and back (IR check rule
    # scan-axis-swap).
    swap = list(range(e.type.rank))
    swap[0], swap[axis] = axis, 0
    axes = t.MacroCall("const_array", tuple(t.Lit(str(a)) for a in swap))
    front = f"Tile<{elem}, {lw.shape_type(tuple(e.type.shape[a] for a in swap), e.span)}>"
    swapped = lw.let(ctx, "front", t.Call("permute", (x, axes)), front)
    scanned = lw.let(ctx, "scanned", t.Call("scan_sum", (
        swapped, t.Lit("0i32"), t.Path(f"reverse::{direction}"), identity)), front)
    return t.Call("permute", (scanned, axes))


@rule("neg")
def lower_neg(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    if isinstance(e.type, ScalarType):
        return t.Unary("-", x)
    dtype = e.type.dtype
    if isinstance(dtype, DType) and not dtype.is_float:
        return t.Call("negi", (x, t.Path("overflow::None")))
    return t.Call("negf", (x,))


@rule("not", "bitnot")
def lower_not(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    if isinstance(e.type, ScalarType):
        return t.Unary("!", x)
    return t.Call("noti", (x,))


@rule("where")
def lower_where(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Call("select", tuple(lw.expr(a, ctx) for a in e.args))


@rule("select_scalar")
def lower_select_scalar(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    cond, x, y = (lw.expr(a, ctx) for a in e.args)
    return t.IfExpr(cond, t.BlockExpr((), x), t.BlockExpr((), y))


@rule("scalar_minmax")
def lower_scalar_minmax(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    # Python's `min`/`max` on runtime scalars are `mini`/`maxi` (`minf`/`maxf`) on 0-d tiles.
    elem = lw.elem(e.type.dtype)
    tile_ty = f"Tile<{elem}, {{ [] }}>"
    a, b = (lw.let(ctx, "operand", t.Call("scalar_to_tile", (lw.expr(x, ctx),)), tile_ty)
            for x in e.args)
    which = e.attrs["which"]
    if elem.startswith(("f", "bf")):
        call = t.Call(f"{which}f", (a, b, t.Path("nan::Disabled"), t.Path("ftz::Disabled")))
    else:
        call = t.Call(f"{which}i", (a, b))
    result = lw.let(ctx, which, call, tile_ty)
    return t.Call("tile_to_scalar", (result,))


@rule("reduce")
def lower_reduce(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    return t.Call(_REDUCE[e.attrs["kind"]], (x, t.Lit(f"{e.attrs['axis']}i32")))


def _receiver(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    """A method call's receiver; a call result gets its own annotated local first (the
    cuTile Rust compiler cannot infer a method's type on an unannotated call result)."""
    x = lw.expr(e, ctx)
    if isinstance(x, t.Call | t.BlockExpr):
        return lw.let(ctx, "value", x, lw.rust_type(e.type, e.span) or "_")
    return x


@rule("cat")
def lower_cat(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    return t.Call("cat", (left, right, t.Lit(f"{e.attrs['axis']}i32")))


@rule("reshape")
def lower_reshape(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = _receiver(lw, e.args[0], ctx)
    return t.MethodCall(x, "reshape", (lw.const_shape(e.attrs["shape"], e.span),))


@rule("broadcast")
def lower_broadcast(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = _receiver(lw, e.args[0], ctx)
    return t.MethodCall(x, "broadcast", (lw.const_shape(e.attrs["shape"], e.span),))


@rule("permute")
def lower_permute(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    axes = t.MacroCall("const_array", tuple(t.Lit(str(a)) for a in e.attrs["axes"]))
    return t.Call("permute", (x, axes))


_INT_BITS = {e.rust: e.bits for e in ELEMENTS if not e.is_float}


def _int_conversion(lw: KernelLowerer, source: TExpr, target: TExpr) -> str | None:
    """`bitcast`/`exti` for an integer-to-integer conversion, else None (not int to int)."""
    src, dst = lw.elem(source.type.dtype), lw.elem(target.type.dtype)
    if src not in _INT_BITS or dst not in _INT_BITS:
        return None
    if _INT_BITS[src] == _INT_BITS[dst]:
        # Tile IR integers are signless: only the Rust type changes.
        return "bitcast"
    if _INT_BITS[src] < _INT_BITS[dst]:
        return "exti"
    raise lw.error("E0110", f"narrowing `{src}` to `{dst}` needs `trunci`, which cuTile Rust "
                   "0.5.0 cannot serialize (missing overflow attribute)", target.span)


@rule("convert")
def lower_convert(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    source = e.args[0]
    value = lw.expr(source, ctx)
    op = _int_conversion(lw, source, e)
    return t.Call(op or "convert_tile", (value,))


@rule("convert_scalar")
def lower_convert_scalar(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    source = e.args[0]
    value = lw.expr(source, ctx)
    op = _int_conversion(lw, source, e)
    if op is None:
        return t.Call("convert_scalar", (value,))
    # Integer scalars convert through 0-d tiles (`convert_scalar` has no int-to-int form).
    src, dst = lw.elem(source.type.dtype), lw.elem(e.type.dtype)
    tile_in = lw.temp("as_tile")
    ctx.stmts.append(t.Let(tile_in, t.Call("scalar_to_tile", (value,)),
                           t.RType(f"Tile<{src}, {{ [] }}>")))
    tile_out = lw.temp("converted")
    ctx.stmts.append(t.Let(tile_out, t.Call(op, (t.Path(tile_in),)),
                           t.RType(f"Tile<{dst}, {{ [] }}>")))
    return t.Call("tile_to_scalar", (t.Path(tile_out),))


@rule("splat")
def lower_splat(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    shape = e.attrs["shape"]
    if all(d == 1 for d in shape):
        # cuTile Python reshapes a scalar to (1, ..., 1) with no broadcast after it;
        # `broadcast_scalar` would add a no-op broadcast.
        assert isinstance(e.type, TileType)
        name = lw.temp("scalar")
        elem = lw.elem(e.type.dtype)
        ctx.stmts.append(t.Let(name, t.Call("scalar_to_tile", (x,)),
                               t.RType(f"Tile<{elem}, {{ [] }}>")))
        if not shape:
            return t.Path(name)
        return t.MethodCall(t.Path(name), "reshape", (lw.const_shape(shape, e.span),))
    return t.Call("broadcast_scalar", (x, lw.const_shape(shape, e.span)))


def _float_constant(value: object, dtype: DType, lw: KernelLowerer) -> t.Expr:
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        sign = "" if value > 0 else "NEG_"
        return t.Path(f"{lw.elem(dtype)}::{sign}INFINITY")
    return literal(value, dtype, lw)


@rule("full")
def lower_full(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    assert isinstance(e.type, TileType)
    dtype = e.type.dtype
    value = e.attrs["value"]
    shape = lw.const_shape(e.attrs["shape"], e.span)
    rust = lw.elem(dtype)
    if not isinstance(dtype, DType) or rust in NO_LITERAL_ELEMS:
        # Rust has no literals of these types: an f32 constant converted (round to nearest
        # even) holds the same value cuTile Python's constant holds.
        if _positive_zero(value):
            # `T::ZERO` is a constant of the type itself, as cuTile Python writes it; a
            # converted f32 zero is an `ftof` that tileiras does not always fold.
            return t.Call("constant", (t.Path(f"{rust}::ZERO"), shape))
        # One 0-d constant of the type, spread over the shape, as cuTile Python splats one
        # (a conversion of a whole constant tile costs an instruction per element pair).
        scalar = _element_scalar_tile(lw, ctx, value, rust, ("f32_const", "value"))
        dims = e.attrs["shape"]
        if not dims:
            return scalar
        ones = lw.const_shape(tuple(1 for _ in dims), e.span)
        return t.MethodCall(t.MethodCall(scalar, "reshape", (ones,)), "broadcast", (shape,))
    if rust in ("u32", "u64") and isinstance(value, int) and value >= 2 ** (_INT_BITS[rust] - 1):
        # cuTile Rust 0.5.0 compiles an unsigned constant above the signed maximum to 0:
        # write the same bits as a signed constant and reinterpret them.
        bits = _INT_BITS[rust]
        signed = "i32" if bits == 32 else "i64"
        name = lw.temp("bits")
        shape_type = lw.shape_type(e.attrs["shape"], e.span)
        bits_literal = t.Lit(f"{value - 2 ** bits}{signed}")
        ctx.stmts.append(t.Let(name, t.Call("constant", (bits_literal, shape)),
                               t.RType(f"Tile<{signed}, {shape_type}>")))
        return t.Call("bitcast", (t.Path(name),))
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        sign = "" if value > 0 else "NEG_"
        return t.Call("constant", (t.Path(f"{lw.elem(dtype)}::{sign}INFINITY"), shape))
    return t.Call("constant", (literal(value, dtype, lw), shape))


@rule("arange")
def lower_arange(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Call("iota", (lw.const_shape((e.attrs["size"],), e.span),))


@rule("mma")
def lower_mma(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    # `mma` is rank 2 only; `mmaf` takes rank 2 or 3 (batched) and lowers to the same op.
    fn = "mma" if isinstance(e.type, TileType) and e.type.rank == 2 else "mmaf"
    return t.Call(fn, tuple(lw.expr(a, ctx) for a in e.args))


@rule("extract")
def lower_extract(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    indices = []
    for index in e.args[1:]:
        value = lw.expr(index, ctx)
        indices.append(lw.let(ctx, "index_tile", t.Call("scalar_to_tile", (value,)),
                              "Tile<i32, { [] }>"))
    return t.Call("extract", (x, t.ArrayExpr(tuple(indices))))


@rule("cdiv_tile")
def lower_cdiv_tile(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    left, right = (lw.expr(a, ctx) for a in e.args)
    return t.Call("divi", (left, right, t.Path("rounding::PositiveInf")))


@rule("tile_to_scalar")
def lower_tile_to_scalar(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Call("tile_to_scalar", (lw.expr(e.args[0], ctx),))


@rule("scalar_to_tile")
def lower_scalar_to_tile(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.Call("scalar_to_tile", (lw.expr(e.args[0], ctx),))


@rule("array_dim")
def lower_array_dim(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    array = e.args[0].args[0] if e.args[0].op == "array_shape" else e.args[0]
    axis = int(e.attrs["axis"])
    if axis < 0:
        # `shape[-1]`: counted from the array's rank (cuTile Rust takes a plain index).
        ndim = max((p.type.ndim for p in lw.spec.model.params
                    if isinstance(p.type, ArrayType) and p.type.param == array.type.param),
                   default=0)
        if axis + ndim < 0:
            raise lw.error("E0108", f"axis {axis} of an array with {ndim} dimensions", e.span)
        axis += ndim
    return t.Call("get_shape_dim", (t.MethodCall(t.Path(array.attrs["name"]), "shape", ()),
                                    t.Lit(f"{axis}i32")))


@rule("assume_div")
def lower_assume_div(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    x = lw.expr(e.args[0], ctx)
    divisor = e.attrs["divisor"]
    d = str(divisor) if isinstance(divisor, int) else lw.dim(divisor, e.span, False)
    return t.BlockExpr((), t.Call("assume_div_by", (x,), ("_", d)), unsafe=True)


@rule("tuple")
def lower_tuple(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    return t.TupleExpr(tuple(lw.expr(a, ctx) for a in e.args))


@rule("const")
def lower_const(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    assert isinstance(e.type, ConstType)
    value = e.type.value
    if isinstance(value, bool):
        return t.Lit("true" if value else "false")
    if isinstance(value, int):
        return t.Lit(f"{value}i32")
    if isinstance(value, float):
        return t.Lit(_float_text(value) + "f32")
    raise lw.error("E0107", f"the compile-time value {value!r} has no Rust runtime form",
                   e.span)


# ---- LLM fallback holes (see llm_fallback/) ------------------------------------------------


@rule("hole")
def lower_hole(lw: KernelLowerer, e: TExpr, ctx: _Context) -> t.Expr:
    """A construct left to the LLM fallback: its accepted fragment, else a marked placeholder.

    Each operand is bound to a name first (a plain variable keeps its own); the fragment is
    one expression over those names. The names with their Rust types go to
    `attrs["inputs"]` and the result type to `attrs["rust_type"]`, for the fallback's prompt.
    The fragment comes with a provenance comment (`attrs["provenance"]`). Statement and
    helper holes are lowered by `region_holes`.
    """
    if e.attrs.get("kind", "expression") != "expression":
        return lower_region_hole(lw, e, ctx)
    inputs: list[tuple[str, str]] = []
    for arg in e.args:
        lowered = lw.expr(arg, ctx)
        ty = lw.rust_type(arg.type, e.span) or "_"
        if isinstance(lowered, t.Path) and lowered.text.isidentifier():
            name = lowered.text
        else:
            name = lw.temp("hole_in")
            ctx.stmts.append(t.Let(name, lowered, t.RType(ty)))
        inputs.append((name, ty))
    e.attrs["inputs"] = inputs
    e.attrs["rust_type"] = lw.rust_type(e.type, e.span)
    fragment = e.attrs.get("fragment")
    if fragment is None:
        ctx.stmts.append(t.Comment(f"HOLE {e.attrs['id']}: {e.attrs['construct']}"))
        return t.Path(f"__HOLE_{e.attrs['id']}__")
    ctx.stmts.append(t.Comment(str(e.attrs.get("provenance", "llm-fallback fragment"))))
    return t.Path(str(fragment))


def lower_kernel(spec: SpecializedKernel, path: str) -> tuple[t.Function, set[str]]:
    """The entry function and the names of the support functions it calls."""
    lowerer = KernelLowerer(spec, path)
    return lowerer.lower(), lowerer.support
