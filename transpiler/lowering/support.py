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
    zero = t.Lit(f"0{rust_type}")
    fix = t.Binary("&", t.Binary("^", t.Binary("<", t.Path("r"), zero),
                                 t.Binary("<", t.Path("b"), zero)),
                   t.Binary("!=", t.Path("r"), zero))
    tile = f"Tile<{rust_type}, {{ [] }}>"
    body = t.BlockExpr(
        (
            t.Let("r", t.Binary("%", t.Path("a"), t.Path("b")), t.RType(rust_type)),
            t.Let("fix", fix, t.RType("bool")),
            t.Let("fix_tile", t.Call("scalar_to_tile", (t.Path("fix"),)),
                  t.RType("Tile<bool, { [] }>")),
            _scalar_tile("wrapped", t.Binary("+", t.Path("r"), t.Path("b")), rust_type),
            _scalar_tile("r_tile", t.Path("r"), rust_type),
            t.Let("result", t.Call("select", (t.Path("fix_tile"), t.Path("wrapped"),
                                              t.Path("r_tile"))), t.RType(tile)),
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
