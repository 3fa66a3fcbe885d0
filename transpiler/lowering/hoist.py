"""Loop-invariant code motion on the Rust tree: pure computations move out of `for` loops.

Takes the `rust_emit.tree.Function` the lowering built; gives the same function with each
loop-invariant pure computation of a `for` body bound to a `let` placed immediately before the
loop. cuTile Python's pipeline does this (`hoist_loop_invariants`) before it emits Tile IR;
cuTile Rust emits every op where the source puts it, so without this pass the broadcasts of
values defined before a loop, and the arithmetic on them, would run on every iteration.

What moves, mirroring cuTile Python's pass:

- Only out of a `for` body, from the body's own statements: nothing leaves an `if` arm or
  another block nested in the body (cuTile Python hoists out of loops only; what runs under a
  condition stays under it). A `let` that moves out of an inner loop is a statement of the
  outer body, so it moves on out of the outer loop when its operands allow (loops are
  processed innermost first): as far out as the dependencies allow.
- A whole `let` (immutable, one name) whose value is pure and invariant moves as it is; it
  keeps its name when no other binding of that name exists in the function, else it is
  renamed (with its reads in the rest of the body) so that no read changes binding. Otherwise
  the largest pure invariant subexpressions of a statement that are operations (calls,
  methods, operators) move, each bound to a fresh annotated `let`.
- Pure: the DSL operations of the allowlist below (arithmetic, broadcast, reshape, constant,
  conversions, comparisons, reductions, the Python-semantics support functions). Never loads,
  stores, atomics, `unsafe` blocks, tokens, partitions, pointers, `if` expressions, or calls
  not listed. An integer division moves like any other pure op, as cuTile Python moves it.
- Invariant: every name it reads is bound outside the loop. A name is not when it is the loop
  variable; when an earlier statement of the body (that stays) binds it, so a read resolves
  to that binding (Rust shadowing); or when the body assigns it (`x = ..`, a loop-carried
  value), borrows it `&mut`, or calls a method on it that is not pure, anywhere at any depth.

A moved subexpression needs its type written out (the cuTile Rust compiler does not infer a
`let` from every expression); an expression whose type this pass cannot derive from its
operands stays, and its own subexpressions are tried instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace

from rust_emit import tree as t
from rust_emit.printer import flat_expr
from transpiler.lowering.lower import LONG_LET

# ---- the allowlist -------------------------------------------------------------------------

# Pure operations whose result has the type of their first operand.
_SAME_AS_FIRST = frozenset({
    "negf", "negi", "noti", "absf", "absi", "exp", "exp2", "log", "log2", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "floor", "ceil", "rsqrt", "sqrt", "fma", "maxf", "minf", "maxi",
    "mini", "addf", "subf", "mulf", "divf", "divi", "remi", "max", "min", "ceil_div",
})
# Element-wise comparisons: a `bool` tile of the operands' shape.
_COMPARE = frozenset({"lt_tile", "le_tile", "gt_tile", "ge_tile", "eq_tile", "ne_tile", "cmpf"})
# Pure operations typed from their operands by `_infer_call`.
_BUILDERS = frozenset({"broadcast_scalar", "constant", "scalar_to_tile", "tile_to_scalar",
                       "select", "get_shape_dim"})
# Pure operations whose result type only a `let` annotation gives (the target of a conversion,
# a reduction's shape): they move only as a whole annotated `let`.
_ANNOTATED_ONLY = frozenset({
    "convert_tile", "convert_scalar", "exti", "bitcast", "iota", "permute", "reduce_sum",
    "reduce_max", "reduce_min", "reduce_prod", "scan_sum", "extract", "mma", "mmaf",
})
_PURE_CALLS = _SAME_AS_FIRST | _COMPARE | _BUILDERS | _ANNOTATED_ONLY
# The support functions (`support.py`): Python's integer `//` and `%`, pure arithmetic.
_SUPPORT_PREFIXES = ("py_floordiv_", "py_mod_")
_PURE_METHODS = frozenset({"reshape", "broadcast", "shape"})
# Methods that leave their receiver as it was (any other may change it: `&mut self`).
_READ_ONLY_METHODS = _PURE_METHODS | {"step_by", "offset_tile", "partition_full_mut"}
# `get_tile_block_id().0`: no operands, the same value everywhere in the kernel.
_GRID_QUERIES = frozenset({"get_tile_block_id", "get_num_tile_blocks"})

_SCALAR_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">=", "&&", "||"})
_ELEM_TYPES = ("bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16",
               "tf32", "f32", "f64", "f8e4m3fn", "f8e5m2")

# ---- names in text -------------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_]\w*")
# A local name inside a path's text: an identifier that is not a segment of `a::b`.
_NAME_TOKEN = re.compile(r"(?<![\w:])[A-Za-z_]\w*(?![\w:])")
_SIMPLE_PATH = re.compile(r"[A-Za-z_]\w*(::[\w<>]+)*")
# Arithmetic on constants, as the lowering writes a derived dimension (`(BLOCK / 8)`).
_CONST_ARITH = re.compile(r"[\w\s()+\-*/%]+")
_LIT_SUFFIX = re.compile(r"-?\d(?:[\d_.eE+-]*)(i8|i16|i32|i64|u8|u16|u32|u64|f16|f32|f64)")
_TILE = re.compile(r"Tile<(.+?), (\{ \[.*\] \})>")
_NUMBERED = re.compile(r"_(\d+)$")


def _path_names(text: str) -> set[str]:
    return set(_NAME_TOKEN.findall(text))


def _pure_path(text: str) -> bool:
    if text.startswith("__HOLE_"):
        return False
    return bool(_SIMPLE_PATH.fullmatch(text) or _CONST_ARITH.fullmatch(text))


def _pattern_names(pattern: str) -> set[str]:
    return {n for n in _IDENT.findall(pattern) if n not in ("mut", "_")}


# ---- walking the tree ----------------------------------------------------------------------


def _children(e: t.Expr) -> Iterator[t.Expr]:
    """The direct subexpressions of `e`, except those inside a block's statements."""
    if isinstance(e, t.Call | t.MacroCall):
        yield from e.args
    elif isinstance(e, t.MethodCall):
        yield e.receiver
        yield from e.args
    elif isinstance(e, t.Field):
        yield e.base
    elif isinstance(e, t.Binary):
        yield e.left
        yield e.right
    elif isinstance(e, t.Unary):
        yield e.operand
    elif isinstance(e, t.Cast | t.Ref):
        yield e.expr
    elif isinstance(e, t.TupleExpr | t.ArrayExpr):
        yield from e.items
    elif isinstance(e, t.Range):
        yield e.start
        yield e.end
    elif isinstance(e, t.BlockExpr) and e.tail is not None:
        yield e.tail
    elif isinstance(e, t.IfExpr):
        yield e.cond
        yield e.then
        if e.orelse is not None:
            yield e.orelse


def _map_children(e: t.Expr, fn: Callable[[t.Expr], t.Expr]) -> t.Expr:
    """`e` with `fn` applied to each direct subexpression (blocks and `if`s are left to the
    caller: their statements bind names)."""
    if isinstance(e, t.Call | t.MacroCall):
        return replace(e, args=tuple(fn(a) for a in e.args))
    if isinstance(e, t.MethodCall):
        return replace(e, receiver=fn(e.receiver), args=tuple(fn(a) for a in e.args))
    if isinstance(e, t.Field):
        return replace(e, base=fn(e.base))
    if isinstance(e, t.Binary):
        return replace(e, left=fn(e.left), right=fn(e.right))
    if isinstance(e, t.Unary):
        return replace(e, operand=fn(e.operand))
    if isinstance(e, t.Cast | t.Ref):
        return replace(e, expr=fn(e.expr))
    if isinstance(e, t.TupleExpr | t.ArrayExpr):
        return replace(e, items=tuple(fn(i) for i in e.items))
    if isinstance(e, t.Range):
        return replace(e, start=fn(e.start), end=fn(e.end))
    return e


def _stmt_exprs(stmt: t.Stmt) -> Iterator[t.Expr]:
    if isinstance(stmt, t.Let) and stmt.value is not None:
        yield stmt.value
    elif isinstance(stmt, t.Assign):
        yield stmt.value
    elif isinstance(stmt, t.ExprStmt):
        yield stmt.expr
    elif isinstance(stmt, t.ForLoop):
        yield stmt.iterable
        yield stmt.body


def _deep(e: t.Expr) -> Iterator[t.Expr]:
    """`e` and every expression inside it, through nested blocks and their statements."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))
        if isinstance(node, t.BlockExpr):
            for stmt in node.stmts:
                stack.extend(_stmt_exprs(stmt))


def _deep_stmts(stmts: tuple[t.Stmt, ...]) -> Iterator[t.Stmt]:
    for stmt in stmts:
        yield stmt
        for e in _stmt_exprs(stmt):
            for node in _deep(e):
                if isinstance(node, t.BlockExpr):
                    yield from node.stmts


def _reads(e: t.Expr) -> set[str]:
    return {n for node in _deep(e) if isinstance(node, t.Path) for n in _path_names(node.text)}


def _mutated(stmts: tuple[t.Stmt, ...]) -> set[str]:
    """Names whose value may change inside `stmts`: assigned, borrowed `&mut`, the receiver of
    a method that is not pure, or named in text this pass cannot read (a fallback fragment)."""
    out: set[str] = set()
    for stmt in _deep_stmts(stmts):
        if isinstance(stmt, t.Assign):
            out |= _path_names(stmt.target)
        for e in _stmt_exprs(stmt):
            for node in _deep(e):
                if isinstance(node, t.Ref) and node.mutable:
                    out |= _reads(node.expr)
                elif isinstance(node, t.MethodCall) and node.method not in _READ_ONLY_METHODS:
                    out |= _reads(node.receiver)
                elif isinstance(node, t.Path) and not _pure_path(node.text):
                    out |= _path_names(node.text)
    return out


def _bound_here(stmt: t.Stmt) -> set[str]:
    """The names a statement binds for the statements after it in its block."""
    return _pattern_names(stmt.pattern) if isinstance(stmt, t.Let) else set()


# ---- purity --------------------------------------------------------------------------------


def _is_pure(e: t.Expr) -> bool:
    if isinstance(e, t.Path):
        return _pure_path(e.text)
    if isinstance(e, t.Lit):
        return True
    if isinstance(e, t.MacroCall):
        ok = e.name in ("const_shape", "const_array")
    elif isinstance(e, t.Call):
        ok = e.func in _PURE_CALLS or e.func.startswith(_SUPPORT_PREFIXES)
    elif isinstance(e, t.MethodCall):
        ok = e.method in _PURE_METHODS
    elif isinstance(e, t.Field):
        return _is_grid_query(e)
    elif isinstance(e, t.Ref):
        ok = not e.mutable
    elif isinstance(e, t.BlockExpr):
        ok = not e.unsafe and not e.stmts and e.tail is not None
    else:
        ok = isinstance(e, t.Binary | t.Unary | t.Cast | t.TupleExpr | t.ArrayExpr | t.Range)
    return ok and all(_is_pure(c) for c in _children(e))


def _is_grid_query(e: t.Field) -> bool:
    return isinstance(e.base, t.Call) and e.base.func in _GRID_QUERIES and not e.base.args


# ---- types ---------------------------------------------------------------------------------

Env = dict[str, str | None]


def _is_scalar(ty: str | None) -> bool:
    return ty in _ELEM_TYPES


def _shape_text(e: t.Expr) -> str | None:
    if isinstance(e, t.MacroCall) and e.name == "const_shape":
        return "{ [" + ", ".join(flat_expr(a) for a in e.args) + "] }"
    return None


def _tile(elem: str | None, shape: str | None) -> str | None:
    return f"Tile<{elem}, {shape}>" if elem and shape else None


def _tile_parts(ty: str | None) -> tuple[str, str] | None:
    match = _TILE.fullmatch(ty) if ty else None
    return (match.group(1), match.group(2)) if match else None


def _path_type(text: str, env: Env) -> str | None:
    if _IDENT.fullmatch(text):
        return env.get(text)
    head = text.split("::", 1)[0]
    if "::" in text and head in _ELEM_TYPES:
        return head  # `f32::INFINITY`, `bf16::ZERO`
    names = _NAME_TOKEN.findall(text)
    return env.get(names[0]) if names and _CONST_ARITH.fullmatch(text) else None


def _lit_type(text: str) -> str | None:
    if text in ("true", "false"):
        return "bool"
    match = _LIT_SUFFIX.match(text) or re.search(r"as (\w+)$", text)
    return match.group(1) if match else None


def _infer(e: t.Expr, env: Env) -> str | None:
    """The Rust type of a pure expression, from the types of the names it reads; None when
    it cannot be derived (it then gets no `let` of its own)."""
    if isinstance(e, t.Path):
        return _path_type(e.text, env)
    if isinstance(e, t.Lit):
        return _lit_type(e.text)
    if isinstance(e, t.MethodCall) and e.method in ("reshape", "broadcast") and e.args:
        parts = _tile_parts(_infer(e.receiver, env))
        return _tile(parts[0], _shape_text(e.args[0])) if parts else None
    if isinstance(e, t.Binary):
        left, right = _infer(e.left, env), _infer(e.right, env)
        if e.op in _SCALAR_COMPARE:
            return "bool" if _is_scalar(left) or _is_scalar(right) else None
        return left or right
    if isinstance(e, t.Unary):
        return _infer(e.operand, env)
    if isinstance(e, t.Field) and _is_grid_query(e):
        return "i32"
    if isinstance(e, t.Call):
        return _infer_call(e, env)
    return None


def _infer_call(e: t.Call, env: Env) -> str | None:
    args = e.args
    if not args:
        return None
    if e.func in _SAME_AS_FIRST or e.func.startswith(_SUPPORT_PREFIXES):
        return _infer(args[0], env) or (_infer(args[1], env) if len(args) > 1 else None)
    if e.func in _COMPARE:
        parts = _tile_parts(_infer(args[0], env) or _infer(args[1], env))
        return _tile("bool", parts[1]) if parts else None
    if e.func in ("broadcast_scalar", "constant") and len(args) == 2:
        elem = _infer(args[0], env)
        return _tile(elem, _shape_text(args[1])) if _is_scalar(elem) else None
    if e.func == "scalar_to_tile":
        elem = _infer(args[0], env)
        return _tile(elem, "{ [] }") if _is_scalar(elem) else None
    if e.func == "tile_to_scalar":
        parts = _tile_parts(_infer(args[0], env))
        return parts[0] if parts else None
    if e.func == "select" and len(args) == 3:
        return _infer(args[1], env) or _infer(args[2], env)
    if e.func == "get_shape_dim":
        return "i32"
    return None


def _split_top(text: str) -> list[str]:
    """`(A<b, c>, D)` -> [`A<b, c>`, `D`]: the comma-separated parts at bracket depth 0."""
    inner = text[1:-1] if text.startswith("(") and text.endswith(")") else text
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return parts


def _bind(env: Env, stmt: t.Stmt) -> None:
    """Record the types of the names `stmt` binds."""
    if not isinstance(stmt, t.Let):
        return
    if _IDENT.fullmatch(stmt.pattern):
        ty = stmt.ty.text if stmt.ty else (_infer(stmt.value, env) if stmt.value else None)
        env[stmt.pattern] = ty
        return
    names = _split_top(stmt.pattern)
    types = _split_top(stmt.ty.text) if stmt.ty else []
    for i, name in enumerate(names):
        if _IDENT.fullmatch(name) and name != "_":
            env[name] = types[i] if len(types) == len(names) else None


# ---- renaming ------------------------------------------------------------------------------


def _rename_stmts(stmts: tuple[t.Stmt, ...], old: str, new: str) -> tuple[t.Stmt, ...]:
    """`stmts` with the reads of `old` renamed `new` up to the statement that rebinds `old`."""
    out: list[t.Stmt] = []
    for i, stmt in enumerate(stmts):
        out.append(_rename_stmt(stmt, old, new))
        if old in _bound_here(stmt):
            return (*out, *stmts[i + 1:])
    return tuple(out)


def _rename_stmt(stmt: t.Stmt, old: str, new: str) -> t.Stmt:
    def rename(e: t.Expr) -> t.Expr:
        return _rename_expr(e, old, new)

    if isinstance(stmt, t.Let) and stmt.value is not None:
        return replace(stmt, value=rename(stmt.value))
    if isinstance(stmt, t.Assign):
        return replace(stmt, target=new if stmt.target == old else stmt.target,
                       value=rename(stmt.value))
    if isinstance(stmt, t.ExprStmt):
        return replace(stmt, expr=rename(stmt.expr))
    if isinstance(stmt, t.ForLoop):
        body = stmt.body if stmt.var == old else _rename_block(stmt.body, old, new)
        return replace(stmt, iterable=rename(stmt.iterable), body=body)
    return stmt


def _rename_block(block: t.BlockExpr, old: str, new: str) -> t.BlockExpr:
    shadowed = any(old in _bound_here(s) for s in block.stmts)
    tail = block.tail
    if tail is not None and not shadowed:
        tail = _rename_expr(tail, old, new)
    return replace(block, stmts=_rename_stmts(block.stmts, old, new), tail=tail)


def _rename_expr(e: t.Expr, old: str, new: str) -> t.Expr:
    if isinstance(e, t.Path):
        if old not in _path_names(e.text):
            return e
        return t.Path(_NAME_TOKEN.sub(lambda m: new if m.group(0) == old else m.group(0),
                                      e.text))
    if isinstance(e, t.BlockExpr):
        return _rename_block(e, old, new)
    if isinstance(e, t.IfExpr):
        orelse = e.orelse
        if orelse is not None:
            orelse = _rename_expr(orelse, old, new)
        assert orelse is None or isinstance(orelse, t.BlockExpr | t.IfExpr)
        return replace(e, cond=_rename_expr(e.cond, old, new),
                       then=_rename_block(e.then, old, new), orelse=orelse)
    return _map_children(e, lambda c: _rename_expr(c, old, new))


# ---- the pass ------------------------------------------------------------------------------


class _Hoister:
    def __init__(self, fn: t.Function) -> None:
        body = fn.body.stmts
        bindings: Counter[str] = Counter(p.name for p in fn.params)
        taken = {p.name for p in fn.params}
        for g in fn.generics:
            taken |= set(_IDENT.findall(g.text))
        for stmt in _deep_stmts(body):
            if isinstance(stmt, t.Let):
                bindings.update(_pattern_names(stmt.pattern))
                taken |= _pattern_names(stmt.pattern)
            elif isinstance(stmt, t.ForLoop):
                bindings[stmt.var] += 1
                taken.add(stmt.var)
        # `_deep` of the top-level statements reaches every nested one's expressions too.
        for stmt in body:
            for e in _stmt_exprs(stmt):
                taken |= {n for node in _deep(e) if isinstance(node, t.Path)
                          for n in _IDENT.findall(node.text)}
        self.bindings = bindings
        self.taken = taken
        # Fresh names continue the lowering's numbering (`t_5`, `dim_66`, ...).
        self.counter = max((int(m.group(1)) for n in taken if (m := _NUMBERED.search(n))),
                           default=0)

    def fresh(self, hint: str) -> str:
        while True:
            self.counter += 1
            name = f"{hint}_{self.counter}"
            if name not in self.taken:
                self.taken.add(name)
                self.bindings[name] = 1  # the one `let` the caller writes
                return name

    def fresh_for(self, hint: str, ty: str) -> str | None:
        """A fresh name for a `let` of type `ty`, or None where the annotation would be too
        long for one line (rustfmt would break the type, see `lower.LONG_LET`) or the type
        is a pointer tile (pointers stay where the lowering put them)."""
        counter = self.counter
        name = self.fresh(hint)
        if ty.startswith("PointerTile") or len(name) + len(ty) > LONG_LET:
            self.taken.discard(name)
            del self.bindings[name]
            self.counter = counter
            return None
        return name

    # ---- blocks ----------------------------------------------------------------------------

    def block(self, stmts: tuple[t.Stmt, ...], env: Env) -> tuple[t.Stmt, ...]:
        env = dict(env)
        out: list[t.Stmt] = []
        for stmt in stmts:
            if isinstance(stmt, t.ForLoop):
                prelude, stmt = self.loop(stmt, env)
                for let in prelude:
                    _bind(env, let)
                out.extend(prelude)
            else:
                stmt = self.nested(stmt, env)
            _bind(env, stmt)
            out.append(stmt)
        return tuple(out)

    def nested(self, stmt: t.Stmt, env: Env) -> t.Stmt:
        """`stmt` with the loops inside its blocks (`if` arms, block expressions) processed."""
        if isinstance(stmt, t.Let) and stmt.value is not None:
            return replace(stmt, value=self.nested_expr(stmt.value, env))
        if isinstance(stmt, t.Assign):
            return replace(stmt, value=self.nested_expr(stmt.value, env))
        if isinstance(stmt, t.ExprStmt):
            return replace(stmt, expr=self.nested_expr(stmt.expr, env))
        return stmt

    def nested_expr(self, e: t.Expr, env: Env) -> t.Expr:
        if isinstance(e, t.BlockExpr):
            if not e.stmts:
                return e if e.tail is None else replace(e, tail=self.nested_expr(e.tail, env))
            inner = dict(env)
            stmts = self.block(e.stmts, inner)
            for stmt in stmts:
                _bind(inner, stmt)
            tail = None if e.tail is None else self.nested_expr(e.tail, inner)
            return replace(e, stmts=stmts, tail=tail)
        if isinstance(e, t.IfExpr):
            orelse = None if e.orelse is None else self.nested_expr(e.orelse, env)
            assert orelse is None or isinstance(orelse, t.BlockExpr | t.IfExpr)
            then = self.nested_expr(e.then, env)
            assert isinstance(then, t.BlockExpr)
            return replace(e, cond=self.nested_expr(e.cond, env), then=then, orelse=orelse)
        return _map_children(e, lambda c: self.nested_expr(c, env))

    # ---- loops -----------------------------------------------------------------------------

    def loop(self, loop: t.ForLoop, env: Env) -> tuple[list[t.Stmt], t.ForLoop]:
        """The `let`s to place before `loop` and the loop without them. Inner loops first, so
        what leaves them is a statement of this body and can leave this loop too."""
        body = self.block(loop.body.stmts, {**env, loop.var: "i32"})
        prelude, body = self.hoist(loop.var, body, env)
        return prelude, replace(loop, body=replace(loop.body, stmts=body))

    def hoist(self, var: str, stmts: tuple[t.Stmt, ...],
              env: Env) -> tuple[list[t.Stmt], tuple[t.Stmt, ...]]:
        """The `let`s that leave the loop body `stmts` (in order) and the body without them;
        `env` types the names visible before the loop."""
        env = dict(env)
        variant = {var} | _mutated(stmts)
        prelude: list[t.Stmt] = []
        out: list[t.Stmt] = []
        rest = list(stmts)
        index = 0
        while index < len(rest):
            stmt = rest[index]
            index += 1
            moved = self.whole_let(stmt, variant)
            if moved is not None:
                prelude.append(moved)
                _bind(env, moved)
                if isinstance(stmt, t.Let) and moved.pattern != stmt.pattern:
                    rest[index:] = _rename_stmts(tuple(rest[index:]), stmt.pattern,
                                                 moved.pattern)
                continue
            lets: list[t.Stmt] = []
            stmt = self.statement(stmt, variant, env, lets)
            for let in lets:
                _bind(env, let)
            prelude.extend(lets)
            out.append(stmt)
            # A read after this statement of a name it binds reads this in-loop binding.
            variant |= _bound_here(stmt)
        return prelude, tuple(out)

    def whole_let(self, stmt: t.Stmt, variant: set[str]) -> t.Let | None:
        """`stmt` as it moves before the loop (renamed where its name is bound elsewhere), or
        None when it stays."""
        if not (isinstance(stmt, t.Let) and not stmt.mutable and stmt.value is not None
                and _IDENT.fullmatch(stmt.pattern)):
            return None
        if not _is_pure(stmt.value) or _reads(stmt.value) & variant:
            return None
        if stmt.ty and stmt.ty.text.startswith("PointerTile"):
            return None
        if self.bindings[stmt.pattern] == 1:
            return stmt
        # Another binding of the name exists: a fresh name keeps every read on its binding.
        name = self.fresh_for(stmt.pattern, stmt.ty.text if stmt.ty else "")
        return None if name is None else replace(stmt, pattern=name)

    def statement(self, stmt: t.Stmt, variant: set[str], env: Env,
                  lets: list[t.Stmt]) -> t.Stmt:
        def hoist(e: t.Expr) -> t.Expr:
            return self.expr(e, variant, env, lets)

        if isinstance(stmt, t.Let) and stmt.value is not None:
            return replace(stmt, value=hoist(stmt.value))
        if isinstance(stmt, t.Assign):
            return replace(stmt, value=hoist(stmt.value))
        if isinstance(stmt, t.ExprStmt):
            return replace(stmt, expr=hoist(stmt.expr))
        if isinstance(stmt, t.ForLoop):
            return replace(stmt, iterable=hoist(stmt.iterable))
        return stmt

    def expr(self, e: t.Expr, variant: set[str], env: Env, lets: list[t.Stmt]) -> t.Expr:
        """`e` with its largest pure invariant operations replaced by fresh `let`s."""
        if t.is_operation(e) and _is_pure(e) and not _reads(e) & variant:
            ty = _infer(e, env)
            name = self.fresh_for(_hint(e), ty) if ty else None
            if ty and name:
                lets.append(t.Let(name, e, t.RType(ty)))
                return t.Path(name)
        if isinstance(e, t.IfExpr):
            # The condition is computed in the loop body; the arms run under it and stay.
            return replace(e, cond=self.expr(e.cond, variant, env, lets))
        if isinstance(e, t.BlockExpr):
            if e.stmts or e.tail is None:
                return e
            return replace(e, tail=self.expr(e.tail, variant, env, lets))
        return _map_children(e, lambda c: self.expr(c, variant, env, lets))


def _hint(e: t.Expr) -> str:
    if isinstance(e, t.MethodCall):
        return "bcast" if e.method == "broadcast" else e.method
    if isinstance(e, t.Call):
        return {"broadcast_scalar": "bcast", "constant": "cst"}.get(e.func, "inv")
    return "inv"


def hoist_loop_invariants(fn: t.Function) -> t.Function:
    hoister = _Hoister(fn)
    env: Env = {p.name: p.ty.text for p in fn.params}
    for g in fn.generics:
        match = re.fullmatch(r"const (\w+): (\w+)", g.text)
        if match:
            env[match.group(1)] = match.group(2)
    body = hoister.block(fn.body.stmts, env)
    return replace(fn, body=replace(fn.body, stmts=body))
