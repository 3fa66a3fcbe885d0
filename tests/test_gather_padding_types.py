"""Gather padding values and element types: a typed float8 padding fixes the array's type
(cuTile Python casts it to no other), a finite float padding leaves it generic (written as
an `f32` constant converted), and a scatter, like a store, only widens (tests of
`typing_rules.gather` / `scatter`, the IR check's float8 constants)."""

from __future__ import annotations

import textwrap

from transpiler.driver import read_manifests, translate_text
from transpiler.ircheck.canonicalize import convert_literal, normal_literal

_SCALED_FP8 = """
import cuda.tile as ct


@ct.kernel
def scaled(a, s, y, TILE: ct.Constant[int]):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    q = ct.gather(a, idx, padding_value=ct.float8_e4m3fn(0.0))
    scale = ct.gather(s, idx, padding_value=0.0)
    ct.scatter(y, idx, ct.astype(q, ct.float32) * scale)
"""

_SCATTER_UNDER_CONST = """
import cuda.tile as ct


@ct.kernel
def pick(x, y, TILE: ct.Constant[int], HALF: ct.Constant[bool], VIEW: ct.Constant[bool]):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    t = ct.astype(ct.gather(x, idx, padding_value=0), ct.float32)
    if HALF:
        c = ct.astype(t, ct.bfloat16)
    else:
        c = t
    if VIEW:
        ct.store(y, index=(ct.bid(0),), tile=c)
    else:
        ct.scatter(y, idx, c)
"""


def _entries(text: str) -> dict[str, dict[str, object]]:
    result = translate_text(textwrap.dedent(text), "op.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert result.rust is not None
    return {str(m["entry"]): m for m in read_manifests(result.rust).values()}


def _elements(manifest: dict[str, object]) -> dict[str, str]:
    return {str(p["name"]): str(p["element"]) for p in manifest["params"]  # type: ignore
            if p["kind"] == "array"}


def test_a_float8_padding_fixes_the_array_and_a_float_padding_keeps_it_generic() -> None:
    entries = _entries(_SCALED_FP8)
    assert list(entries) == ["scaled"]  # one entry: no per-dtype variants
    elements = _elements(entries["scaled"])
    assert elements["a"] == "f8e4m3fn"
    assert elements["s"] not in ("f32", "f16", "bf16", "f8e4m3fn")  # a generic


def test_a_scatter_narrowing_a_variant_is_dropped_like_a_store() -> None:
    entries = _entries(_SCATTER_UNDER_CONST)
    # No entry stores into a float16 y (neither a float32 nor a bfloat16 tile goes into
    # it): not through the view store, and not through the scatter (VIEW false) either.
    variants = [m["dtype_variant"] for m in entries.values()]
    assert any(v.get("y") == "bfloat16" for v in variants)  # type: ignore[union-attr]
    assert all(v.get("y") != "float16" for v in variants)  # type: ignore[union-attr]


def test_float8_constants_fold_only_when_exact() -> None:
    assert convert_literal("<f32: 0.0>", "f8E4M3FN") == "<f8E4M3FN: 0.0>"
    assert convert_literal("<f32: 448.0>", "f8E4M3FN") == "<f8E4M3FN: 448.0>"
    assert convert_literal("<f32: 0.1>", "f8E4M3FN") is None  # rounding not modelled
    assert normal_literal("<f8E4M3FN: 0.000000e+00>") == "<f8E4M3FN: 0.0>"
    assert normal_literal("<i32: 7>") == "<i32: 7>"
