"""Bit patterns of 16-bit float constants.

Takes a Python float and a 16-bit float element type (`f16`, `bf16`); gives the type's IEEE
bits for the value, rounded once from the double to nearest even. This is how cuTile Python
writes a constant of such a type into its Tile IR, and cuTile Rust has no literal of either
type, so the translation writes these bits as an `i16` constant and reinterprets them
(`bitcast`); a converted `f32` constant would round twice and costs tileiras a conversion
it does not fold.
"""

from __future__ import annotations

import math
import struct

#: exponent bits, fraction bits
HALF_FORMATS: dict[str, tuple[int, int]] = {"f16": (5, 10), "bf16": (8, 7)}


def half_bits(value: float, elem: str) -> int | None:
    """The 16 bits (0..0xFFFF) of `value` in `elem`, round to nearest even, overflowing to
    infinity; None for NaN (its payload is not worth pinning down) or another type."""
    if elem not in HALF_FORMATS or math.isnan(value):
        return None
    exp_bits, frac_bits = HALF_FORMATS[elem]
    bias = (1 << (exp_bits - 1)) - 1
    infinity_field = (1 << exp_bits) - 1
    sign = 0x8000 if math.copysign(1.0, value) < 0 else 0
    magnitude = abs(float(value))
    if math.isinf(magnitude):
        return sign | (infinity_field << frac_bits)
    if magnitude == 0.0:
        return sign
    # The exponent of the leading bit, no lower than the smallest normal's: below that the
    # value is subnormal and keeps fewer significant bits.
    exponent = max(math.frexp(magnitude)[1] - 1, 1 - bias)
    # Scaling by a power of two is exact, so Python's round() (half to even) rounds once.
    units = round(math.ldexp(magnitude, frac_bits - exponent))
    if units == 1 << (frac_bits + 1):  # rounded up to the next power of two
        exponent, units = exponent + 1, 1 << frac_bits
    field = exponent + bias if units >= 1 << frac_bits else 0
    if field >= infinity_field:
        return sign | (infinity_field << frac_bits)
    return sign | (field << frac_bits) | (units & ((1 << frac_bits) - 1))


def signed_i16(bits: int) -> int:
    """The 16 bits read as a signed integer (the `i16` literal that holds them)."""
    return bits - 0x10000 if bits & 0x8000 else bits


def f32_bits(value: float) -> int:
    """The IEEE bits of `value` rounded once to f32 (nearest even), as a signed 32-bit
    integer: what an `i32` const generic carries for a `ct.Constant[float]`. A value beyond
    f32's range is an infinity, as a conversion of the double gives."""
    try:
        packed = struct.pack("<f", value)
    except OverflowError:
        packed = struct.pack("<f", math.copysign(math.inf, value))
    return struct.unpack("<i", packed)[0]
