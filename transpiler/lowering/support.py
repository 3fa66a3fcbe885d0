"""Support functions: small Rust helpers a translated module defines when its kernels need them.

Takes the names the lowering asked for; gives `rust_emit` functions to place in the module
(the cuTile Rust compiler inlines them at each call). They spell Python semantics that Rust
operators do not have: integer `//` rounds toward negative infinity and `%` takes the sign
of the divisor, where Rust's `/` and `%` truncate. Each body is written with the ops cuTile
Python emits for the same operator, so the Tile IR is the same.
"""

from __future__ import annotations

from rust_emit import tree as t

INT_TYPES = ("i8", "i16", "i32", "i64")


def floordiv_name(rust_type: str) -> str:
    return f"py_floordiv_{rust_type}"


def mod_name(rust_type: str) -> str:
    return f"py_mod_{rust_type}"


def support_function(name: str) -> t.Function:
    kind, _, rust_type = name.rpartition("_")
    if kind == "py_floordiv" and rust_type in INT_TYPES:
        return _floordiv(rust_type)
    if kind == "py_mod" and rust_type in INT_TYPES:
        return _mod(rust_type)
    raise KeyError(name)


def _scalar_tile(name: str, value: t.Expr, rust_type: str) -> t.Let:
    return t.Let(name, t.Call("scalar_to_tile", (value,)), t.RType(f"Tile<{rust_type}, {{ [] }}>"))


def _floordiv(rust_type: str) -> t.Function:
    body = t.BlockExpr(
        (
            _scalar_tile("a_tile", t.Path("a"), rust_type),
            _scalar_tile("b_tile", t.Path("b"), rust_type),
        ),
        t.Call("tile_to_scalar", (t.Call("divi", (t.Path("a_tile"), t.Path("b_tile"),
                                                   t.Path("rounding::NegativeInf"))),)),
    )
    return t.Function(
        floordiv_name(rust_type),
        (t.Param("a", t.RType(rust_type)), t.Param("b", t.RType(rust_type))),
        body,
        ret=t.RType(rust_type),
        doc=("Python's `a // b` on integers: the quotient rounded toward negative infinity.",),
    )


def _mod(rust_type: str) -> t.Function:
    tile = f"Tile<{rust_type}, {{ [] }}>"
    flag = "Tile<bool, { [] }>"
    zero = t.Call("constant", (t.Lit(f"0{rust_type}"), t.MacroCall("const_shape", ())))
    body = t.BlockExpr(
        (
            _scalar_tile("r", t.Binary("%", t.Path("a"), t.Path("b")), rust_type),
            _scalar_tile("b_tile", t.Path("b"), rust_type),
            t.Let("zero", zero, t.RType(tile)),
            t.Let("r_negative", t.Call("lt_tile", (t.Path("r"), t.Path("zero"))),
                  t.RType(flag)),
            t.Let("b_negative", t.Call("lt_tile", (t.Path("b_tile"), t.Path("zero"))),
                  t.RType(flag)),
            t.Let("nonzero", t.Call("ne_tile", (t.Path("r"), t.Path("zero"))), t.RType(flag)),
            t.Let("signs_differ", t.Binary("^", t.Path("r_negative"), t.Path("b_negative")),
                  t.RType(flag)),
            t.Let("fix", t.Binary("&", t.Path("signs_differ"), t.Path("nonzero")),
                  t.RType(flag)),
            t.Let("wrapped", t.Binary("+", t.Path("r"), t.Path("b_tile")), t.RType(tile)),
            t.Let("result", t.Call("select", (t.Path("fix"), t.Path("wrapped"), t.Path("r"))),
                  t.RType(tile)),
        ),
        t.Call("tile_to_scalar", (t.Path("result"),)),
    )
    return t.Function(
        mod_name(rust_type),
        (t.Param("a", t.RType(rust_type)), t.Param("b", t.RType(rust_type))),
        body,
        ret=t.RType(rust_type),
        doc=("Python's `a % b` on integers: the remainder has the sign of the divisor.",),
    )
