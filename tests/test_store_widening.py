"""Stores that cuTile Python widens: a 16-bit float tile stored into an array of a wider
float type is converted at the store, so which Rust entries exist follows the array's
launch-time element type (tests of `typing_rules.store` and the variant driver)."""

from __future__ import annotations

import textwrap

from transpiler.driver import read_manifests, translate_text

_HEADER = """
import cuda.tile as ct
import torch
"""

_PLAIN = _HEADER + """
@ct.kernel
def halve(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(t * 0.5, ct.bfloat16))
"""

_UNDER_FLAG = _HEADER + """
@ct.kernel
def scaled(x, y, TILE: ct.Constant[int], NARROW: ct.Constant[bool]):
    t = ct.astype(ct.load(x, index=(ct.bid(0),), shape=(TILE,)), ct.float32)
    if NARROW:
        ct.store(y, index=(ct.bid(0),), tile=ct.astype(t, ct.bfloat16))
    else:
        ct.store(y, index=(ct.bid(0),), tile=t)
"""


def _entries(text: str) -> dict[str, dict[str, object]]:
    result = translate_text(textwrap.dedent(text), "op.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert result.rust is not None
    return {str(m["entry"]): m for m in read_manifests(result.rust).values()}


def test_a_narrow_float_store_gets_an_entry_per_wider_array_type() -> None:
    entries = _entries(_PLAIN)
    variants = {e: m["dtype_variant"] for e, m in entries.items()}
    assert variants == {"halve_f32": {"y": "float32"}, "halve_bf16": {"y": "bfloat16"}}
    # float16 cannot hold every bfloat16 value: cuTile Python refuses that store, and the
    # entry's notes say why it is missing.
    notes = entries["halve_f32"]["notes"]
    assert any("cannot be stored into `float16` array `y`" in str(n) for n in notes)


def test_a_narrowing_store_under_a_compile_time_if_drops_only_that_arm() -> None:
    entries = _entries(_UNDER_FLAG)
    # y float32 takes both arms; y bfloat16 only the launches with NARROW (the other arm
    # stores float32 into it, which cuTile Python refuses).
    assert {e: (m["dtype_variant"], m["const_variant"]) for e, m in entries.items()} == {
        "scaled_f32": ({"y": "float32"}, {}),
        "scaled_bf16_narrow_true": ({"y": "bfloat16"}, {"NARROW": True}),
    }


_ACCUMULATE = """
@ct.kernel
def accumulate(x, out, TILE: ct.Constant[int], ATOMIC: ct.Constant[bool]):
    t = ct.astype(ct.load(x, index=(ct.bid(0),), shape=(TILE,)), ct.float32)
    if ATOMIC:
        out.tiled_view((TILE,)).atomic_store_add((ct.bid(0),), t)
    else:
        ct.store(out, index=(ct.bid(0),), tile={stored})
"""
_PINNED_IN_ONE_ARM = _HEADER + _ACCUMULATE.format(stored="t.astype(out.dtype)")


def test_an_element_type_fixed_in_one_arm_of_a_compile_time_if_splits_the_kernel() -> None:
    # The atomic add fixes `out` to float32 only for launches with ATOMIC; the other arm
    # converts to `out.dtype`, whatever it is: one entry per outcome, `out` generic in one.
    entries = _entries(_PINNED_IN_ONE_ARM)
    elements = {e: ({p["name"]: p.get("element") for p in m["params"]  # type: ignore[union-attr]
                     if p["kind"] == "array"}["out"], m["const_variant"])
                for e, m in entries.items()}
    assert sorted(elements.values(), key=str) == sorted(
        [("f32", {"ATOMIC": True}), ("EOutT", {"ATOMIC": False})], key=str), elements


_HOST_READS_DTYPE = _HEADER + _ACCUMULATE.format(stored="t") + """

def launch(x, out):
    assert out.dtype == torch.float32
    ct.launch(None, (1,), accumulate, (x, out, 128, True))
"""


def test_a_host_function_reading_dtype_does_not_split_the_kernel() -> None:
    # Only the kernel and its helpers decide: here both arms need float32 anyway.
    entries = _entries(_HOST_READS_DTYPE)
    assert [m["const_variant"] for m in entries.values()] == [{}]
