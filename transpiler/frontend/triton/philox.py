"""Triton's random numbers (`tl.randint`, `tl.rand`, `tl.randn`, `tl.randint4x`, `tl.rand4x`)
as integer tile operations: the analyzer's typing rules for them.

Takes a seed (an integer scalar) and a block of int32 offsets; gives the typed model
operations that compute what Triton 3.9's `triton/language/random.py` computes, step for
step: ten rounds of Philox 4x32 on the counter (offset, 0, 0, 0) with the key (seed's low
and high 32 bits, the high ones from the seed's sign extension to 64 bits, as Triton's
`seed.to(tl.uint64)` gives them), each round `umulhi` / wrapping multiply / xor / key
increment on uint32 tiles (`mulhi` is Tile IR `mulhii`); `rand` reinterprets the first word
as int32, flips negative values (`~x`, written `x ^ -1`) and scales by 4.6566127342e-10 in
f32; `randn` is the Box-Muller transform of the first two words. The key is kept as tiles
of the offsets' shape (the crate's `bitcast` takes tiles), which computes the same values.
64-bit seeds and offsets are a diagnostic (the 64-bit Philox variant is not translated).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from transpiler.frontend.triton import dtypes
from transpiler.frontend.triton.dtypes import F32, I32
from transpiler.model import DType, ListType, ScalarType, TExpr, TileType

U32 = DType("uint32")
ROUNDS = 10
# Philox 4x32 constants (the Weyl key increments and the round multipliers).
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
# `uint_to_uniform_float`'s scale for 32-bit words, and Box-Muller's constants.
UNIFORM_SCALE = 4.6566127342e-10
MIN_UNIFORM = 1.0e-7
TWO_PI = 6.283185307179586
# Words of the Philox output each function takes, and what it makes of each.
WORDS = {"randint": 1, "rand": 1, "randn": 2, "randint4x": 4, "rand4x": 4}


class PhiloxRules:
    """Typing rules of Triton's random functions, mixed into the analyzer (which supplies
    `arg`, `const_arg`, `element_op`, `broadcast`, `binary`, `math`, `where`, `error`)."""

    arg: Callable
    const_arg: Callable
    element_op: Callable
    broadcast: Callable
    binary: Callable
    math: Callable
    where: Callable
    error: Callable
    elem: Callable
    runtime: Callable
    let_value: Callable
    span: Callable

    def rule_random(self, name: str, args: dict, node: cst.Call) -> TExpr:
        seed, offset = self.arg(args, "seed"), self.arg(args, "offset")
        assert seed is not None and offset is not None
        rounds = self.const_arg(args, "n_rounds", ROUNDS)
        if not isinstance(rounds, int) or rounds < 0:
            raise self.error("E0103", "`n_rounds` must be a non-negative compile-time int",
                             node)
        if not isinstance(offset.type, TileType) or self.elem(offset) != I32:
            raise self.error("E0121", f"`tl.{name}` is translated for a block of int32 "
                             "offsets (the 64-bit Philox variant is not)", node)
        seed = self.runtime(seed)
        if not isinstance(seed.type, ScalarType) or self.elem(seed) != I32:
            raise self.error("E0121", f"`tl.{name}` is translated for an int32 seed (a 64-bit "
                             "seed takes Triton's 64-bit key, which is not translated)", node)
        words = self.philox(seed, offset, rounds, node)[:WORDS[name]]
        if name in ("randint", "randint4x"):
            out = [self.bitcast(w, I32, node) for w in words]
        elif name in ("rand", "rand4x"):
            out = [self.uniform(w, node) for w in words]
        else:
            out = [self.normal(self.uniform(words[0], node), self.uniform(words[1], node),
                               node)]
        if len(out) == 1:
            return out[0]
        return TExpr("pytuple", out, ListType(tuple(o.type for o in out)), self.span(node))

    def philox(self, seed: TExpr, offset: TExpr, rounds: int,
               node: cst.CSTNode) -> list[TExpr]:
        """The four uint32 words of Philox 4x32 for counter (offset, 0, 0, 0)."""
        shape = tuple(offset.type.shape)
        seed_tile = self.philox_let(self.broadcast(seed, shape, node), "seed")
        k0 = self.philox_let(self.bitcast(seed_tile, U32, node), "k0")
        negative = self.element_op("compare", {"op": "<"}, I32, dtypes.BOOL,
                                   [seed_tile, self.full(0, I32, shape)], shape, node)
        k1 = self.philox_let(TExpr("where", [negative, self.full(0xFFFFFFFF, U32, shape),
                                             self.full(0, U32, shape)],
                                   TileType(U32, shape), seed.span), "k1")
        c0 = self.philox_let(self.bitcast(offset, U32, node), "c0")
        c1 = c2 = c3 = self.philox_let(self.full(0, U32, shape), "zero")
        a = self.philox_let(self.full(ROUND_A, U32, shape), "round_a")
        b = self.philox_let(self.full(ROUND_B, U32, shape), "round_b")
        key_a = self.philox_let(self.full(KEY_A, U32, shape), "key_a")
        key_b = self.philox_let(self.full(KEY_B, U32, shape), "key_b")
        for _ in range(rounds):
            old_c0, old_c2 = c0, c2
            c0 = self.philox_let(self.xor(self.xor(self.mulhi(b, old_c2, node), c1, node), k0,
                                    node), "c0")
            c2 = self.philox_let(self.xor(self.xor(self.mulhi(a, old_c0, node), c3, node), k1,
                                    node), "c2")
            c1 = self.philox_let(self.u32("*", b, old_c2, node), "c1")
            c3 = self.philox_let(self.u32("*", a, old_c0, node), "c3")
            k0 = self.philox_let(self.u32("+", k0, key_a, node), "k0")
            k1 = self.philox_let(self.u32("+", k1, key_b, node), "k1")
        return [c0, c1, c2, c3]

    def philox_let(self, value: TExpr, hint: str) -> TExpr:
        return self.let_value(f"philox_{hint}", value)

    def full(self, value: int | float, dtype: DType, shape: tuple) -> TExpr:
        return TExpr("full", [], TileType(dtype, shape), None, {"value": value, "shape": shape})

    def u32(self, op: str, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        return self.element_op("binary", {"op": op}, U32, U32, [a, b], tuple(a.type.shape),
                               node)

    def xor(self, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        return self.u32("^", a, b, node)

    def mulhi(self, a: TExpr, b: TExpr, node: cst.CSTNode) -> TExpr:
        return self.element_op("mulhi", {}, U32, U32, [a, b], tuple(a.type.shape), node)

    def bitcast(self, x: TExpr, dtype: DType, node: cst.CSTNode) -> TExpr:
        return TExpr("bitcast", [x], TileType(dtype, tuple(x.type.shape)), self.span(node),
                     {"dtype": dtype})

    def uniform(self, word: TExpr, node: cst.CSTNode) -> TExpr:
        """`uint_to_uniform_float`: [0, 1) in f32 from a uint32 word."""
        signed = self.let_value("philox_bits", self.bitcast(word, I32, node))
        shape = tuple(signed.type.shape)
        negative = self.element_op("compare", {"op": "<"}, I32, dtypes.BOOL,
                                   [signed, self.full(0, I32, shape)], shape, node)
        # `~x` as `x ^ -1` (the same bits): cutile-compiler 0.5.0 has no `noti`.
        flipped = self.element_op("binary", {"op": "^"}, I32, I32,
                                  [signed, self.full(-1, I32, shape)], shape, node)
        folded = TExpr("where", [negative, flipped, signed], signed.type, signed.span)
        return self.element_op("binary", {"op": "*"}, F32, F32,
                               [folded, self.full(UNIFORM_SCALE, F32, shape)], shape, node)

    def normal(self, u1: TExpr, u2: TExpr, node: cst.CSTNode) -> TExpr:
        """`pair_uniform_to_normal`'s first value: sqrt(-2 log u1) cos(2 pi u2)."""
        shape = tuple(u1.type.shape)
        floor = self.element_op("binary", {"op": "maximum", "nan": False}, F32, F32,
                                [self.full(MIN_UNIFORM, F32, shape), u1], shape, node)
        angle = self.element_op("binary", {"op": "*"}, F32, F32,
                                [self.full(TWO_PI, F32, shape), u2], shape, node)
        log = self.math("log", floor, node)
        radius = self.math("sqrt", self.element_op(
            "binary", {"op": "*"}, F32, F32, [self.full(-2.0, F32, shape), log], shape, node),
            node)
        return self.element_op("binary", {"op": "*"}, F32, F32,
                               [radius, self.math("cos", angle, node)], shape, node)

