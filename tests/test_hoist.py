"""The loop-invariant hoisting pass (`transpiler/lowering/hoist.py`) on small Rust trees: what
moves out of a `for` loop and what must stay."""

from __future__ import annotations

from rust_emit import tree as t
from rust_emit.printer import print_source
from transpiler.lowering.hoist import hoist_loop_invariants

TILE = "Tile<f32, { [N] }>"


def _p(name: str) -> t.Path:
    return t.Path(name)


def _shape(*dims: str) -> t.MacroCall:
    return t.MacroCall("const_shape", tuple(t.Path(d) for d in dims))


def _bcast(name: str) -> t.MethodCall:
    """`name.reshape(const_shape![1]).broadcast(const_shape![N])`: a 0-d tile spread."""
    return t.MethodCall(t.MethodCall(_p(name), "reshape", (_shape("1"),)), "broadcast",
                        (_shape("N"),))


def _load(index: t.Expr) -> t.Call:
    return t.Call("load_view_tko", (t.Ref(_p("view")), t.ArrayExpr((index,)),
                                     _p("ordering::Weak"), _p("scope::TileBlock"), _p("None"),
                                     _p("tma::Enabled")))


def _let(name: str, value: t.Expr, ty: str | None = TILE, mutable: bool = False) -> t.Let:
    return t.Let(name, value, t.RType(ty) if ty else None, mutable=mutable)


def _fn(*stmts: t.Stmt) -> t.Function:
    params = (t.Param("x", t.RType("&Tensor<f32, { [-1] }>")), t.Param("n", t.RType("i32")),
              t.Param("g", t.RType("Tile<f32, { [] }>")), t.Param("s", t.RType("f32")))
    return t.Function("k", params, t.BlockExpr(stmts), (t.GenericParam("const N: i32"),))


def _loop(*body: t.Stmt, var: str = "i", end: str = "n") -> t.ForLoop:
    return t.ForLoop(var, t.Range(t.Lit("0i32"), _p(end)), t.BlockExpr(body))


def _text(fn: t.Function) -> str:
    module = t.Module("m", (fn,))
    return print_source(t.SourceFile((), (module,)))


def _lines(fn: t.Function) -> list[str]:
    return [line.strip() for line in _text(hoist_loop_invariants(fn)).splitlines()]


def _before_loop(lines: list[str], text: str) -> bool:
    loop = next(i for i, line in enumerate(lines) if line.startswith("for "))
    return any(text in line for line in lines[:loop])


def test_invariant_broadcast_and_scalar_arithmetic_move_before_the_loop() -> None:
    fn = _fn(
        _let("acc", t.Call("constant", (t.Lit("0.0f32"), _shape("N"))), mutable=True),
        _loop(
            _let("v", _load(t.Binary("+", t.Binary("*", _p("n"), t.Lit("2i32")), _p("i")))),
            t.Assign("acc", t.Binary("+", t.Binary("*", _p("acc"), _bcast("g")), _p("v"))),
        ),
    )
    lines = _lines(fn)
    # Fresh names in statement order, numbered after the names already there.
    assert "let inv_1: i32 = n * 2i32;" in lines
    assert ("let bcast_2: Tile<f32, { [N] }> = "
            "g.reshape(const_shape![1]).broadcast(const_shape![N]);") in lines
    assert _before_loop(lines, "inv_1") and _before_loop(lines, "bcast_2")
    # The load, the loop-index sum and the update of the carried tile stay in the loop.
    assert not _before_loop(lines, "load_view_tko")
    assert "acc = acc * bcast_2 + v;" in lines
    assert any("[inv_1 + i]" in line for line in lines)


def test_loop_variable_carried_value_and_loads_stay() -> None:
    fn = _fn(
        _let("acc", t.Call("constant", (t.Lit("0.0f32"), _shape("N"))), mutable=True),
        _loop(
            _let("iv", t.Call("scalar_to_tile", (_p("i"),)), "Tile<i32, { [] }>"),
            _let("b", t.MethodCall(_p("acc"), "reshape", (_shape("N"),))),
            _let("v", _load(_p("n"))),
            _let("w", t.Binary("*", _p("v"), _p("v"))),
            t.Assign("acc", _p("w")),
        ),
    )
    assert hoist_loop_invariants(fn) == fn


def test_a_name_read_before_its_shadowing_binding_is_the_outer_one() -> None:
    fn = _fn(
        _loop(
            # `g` is the parameter here: invariant.
            _let("a", t.Binary("*", _p("g"), _p("g")), "Tile<f32, { [] }>"),
            # From here on `g` is a load made in the loop: nothing reading it moves.
            _let("g", _load(_p("i")), "Tile<f32, { [] }>"),
            _let("c", _bcast("g")),
            _let("d", t.Binary("+", _p("c"), _bcast("a"))),
        ),
    )
    lines = _lines(fn)
    assert _before_loop(lines, "let a: Tile<f32, { [] }> = g * g;")
    assert not _before_loop(lines, "let c:")
    assert not _before_loop(lines, "g.reshape")
    # `a` moved out whole, so its broadcast moves too.
    assert _before_loop(lines, "a.reshape(const_shape![1])")


def test_a_hoisted_let_whose_name_is_bound_elsewhere_is_renamed() -> None:
    fn = _fn(
        _let("q", t.Call("constant", (t.Lit("1.0f32"), _shape("N")))),
        _loop(
            _let("q", t.Binary("*", _p("q"),
                               t.Call("broadcast_scalar", (_p("s"), _shape("N"))))),
            _let("r", t.Binary("+", _p("q"), _load(_p("i")))),
        ),
        _let("z", t.Binary("+", _p("q"), _p("q"))),
    )
    lines = _lines(fn)
    assert _before_loop(
        lines, "let q_1: Tile<f32, { [N] }> = q * broadcast_scalar(s, const_shape![N]);")
    loop = lines.index("for i in 0i32..n {")
    assert lines[loop + 1:loop + 3] == ["let r: Tile<f32, { [N] }> =", "q_1"]
    # After the loop `q` is still the first binding.
    assert "let z: Tile<f32, { [N] }> = q + q;" in lines


def test_nested_loops_hoist_as_far_out_as_the_operands_allow() -> None:
    inner = _loop(
        _let("a", t.Binary("*", _load(_p("j")), _bcast("g"))),
        _let("o", t.Call("scalar_to_tile", (t.Binary("*", _p("i"), _p("n")),)),
             "Tile<i32, { [] }>"),
        var="j", end="N",
    )
    fn = _fn(_loop(_let("u", _load(_p("i"))), inner))
    lines = _lines(fn)
    outer = lines.index("for i in 0i32..n {")
    inner_at = lines.index("for j in 0i32..N {")
    bcast = next(i for i, line in enumerate(lines) if "g.reshape" in line)
    prod = next(i for i, line in enumerate(lines) if line.startswith("let o:"))
    assert bcast < outer  # reads only `g`: out of both loops
    assert outer < prod < inner_at  # reads `i`: out of the inner loop only


def test_nothing_leaves_an_if_arm_or_an_unsafe_block() -> None:
    guarded = t.IfExpr(t.Binary("==", _p("i"), t.Lit("0i32")),
                       t.BlockExpr((_let("h", _bcast("g")),)))
    stored = t.BlockExpr((), t.Call("store_view_tko_mut", (
        t.Ref(_p("out"), mutable=True), _bcast("g"), t.ArrayExpr((_p("i"),)))), unsafe=True)
    fn = _fn(_loop(t.ExprStmt(guarded, semicolon=False), t.ExprStmt(stored)))
    lines = _lines(fn)
    # The broadcast under the runtime `if` stays there; the store stays, while its
    # invariant operand (a broadcast of `g`) is computed before the loop.
    assert not _before_loop(lines, "let h")
    assert not _before_loop(lines, "store_view_tko_mut")
    assert sum("g.reshape" in line for line in lines) == 2
    assert _before_loop(lines, "let bcast_1")


def test_a_name_borrowed_mutably_in_the_loop_is_not_invariant() -> None:
    fn = _fn(
        _let("out", _p("x"), None, mutable=True),
        _loop(
            _let("view_copy", t.MethodCall(_p("out"), "reshape", (_shape("N"),))),
            t.ExprStmt(t.BlockExpr((), t.Call("store_view_tko_mut", (
                t.Ref(_p("out"), mutable=True), _p("view_copy"))), unsafe=True)),
        ),
    )
    assert hoist_loop_invariants(fn) == fn


def test_hoisting_is_idempotent() -> None:
    fn = _fn(_loop(_let("a", t.Binary("*", _load(_p("i")), _bcast("g")))))
    once = hoist_loop_invariants(fn)
    assert once != fn
    assert hoist_loop_invariants(once) == once
