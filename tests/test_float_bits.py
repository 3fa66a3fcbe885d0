"""16-bit float constants as bits (`transpiler.lowering.float_bits`): the bits cuTile Python
writes for a Python float (its own encoder is the oracle), and what the translation emits."""

from __future__ import annotations

import math
import random
import struct
import textwrap

import pytest

from transpiler.driver import translate_text
from transpiler.lowering.float_bits import half_bits, signed_i16


@pytest.mark.parametrize(("value", "elem", "bits"), [
    (1.0, "f16", 0x3C00), (1.0, "bf16", 0x3F80), (-448.0, "f16", 0xDF00),
    (0.5, "bf16", 0x3F00), (-0.0, "bf16", 0x8000), (65504.0, "f16", 0x7BFF),
    (65520.0, "f16", 0x7C00),              # halfway to the next power: rounds to infinity
    (float("-inf"), "bf16", 0xFF80), (2.0 ** -24, "f16", 0x0001),  # smallest subnormal
    (2.0 ** -25, "f16", 0x0000),           # half of it: ties to even, zero
    (1.0 + 2.0 ** -8, "bf16", 0x3F80),     # a tie: to even (down)
    (1.0 + 3 * 2.0 ** -8, "bf16", 0x3F82),  # a tie: to even (up)
])
def test_known_encodings(value: float, elem: str, bits: int) -> None:
    assert half_bits(value, elem) == bits


def test_nan_and_other_types_have_no_bits() -> None:
    assert half_bits(float("nan"), "f16") is None
    assert half_bits(1.0, "f32") is None
    assert signed_i16(0xDF00) == -8448 and signed_i16(0x3C00) == 0x3C00


def test_f16_rounds_like_struct() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        value = rng.choice([rng.uniform(-7e4, 7e4), math.ldexp(rng.uniform(-1, 1),
                                                               rng.randint(-30, 18))])
        try:
            want = struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:
            want = 0xFC00 if value < 0 else 0x7C00
        assert half_bits(value, "f16") == want, value


def test_bits_are_the_ones_cutile_python_writes() -> None:
    encoder = pytest.importorskip("cuda.tile._bytecode.float")
    types = pytest.importorskip("cuda.tile._bytecode.type")
    rng = random.Random(11)
    for _ in range(20000):
        value = math.ldexp(rng.uniform(-1, 1), rng.randint(-140, 130))
        assert half_bits(value, "f16") == encoder.float_to_bits(value, types.SimpleType.F16)
        assert half_bits(value, "bf16") == encoder.float_to_bits(value, types.SimpleType.BF16)


def test_a_16_bit_full_is_its_bits_reinterpreted() -> None:
    source = textwrap.dedent("""
        import cuda.tile as ct


        @ct.kernel
        def fill(y, TILE: ct.Constant[int]):
            ct.store(y, index=(ct.bid(0),), tile=ct.full((TILE,), -0.75, dtype=ct.bfloat16))
    """)
    result = translate_text(source, "fill.py")
    assert result.ok and result.rust is not None
    # -0.75 in bf16 is 0xBF40, the i16 -16576; no f32 constant, no conversion
    assert "constant(-16576i16, const_shape![])" in result.rust
    assert "bitcast(bits_" in result.rust
    assert "f32_const" not in result.rust and "0.75" not in result.rust


def test_f32_bits_round_once_like_a_c_conversion() -> None:
    import numpy as np

    from transpiler.lowering.float_bits import f32_bits

    rng = random.Random(7)
    values = [rng.uniform(-1e6, 1e6) for _ in range(2000)] + [
        1e-5, -0.0, 0.0, 1e-45, 3.4028235e38, float("inf"), float("-inf")]
    for value in values:
        expected = int(np.array([value], dtype=np.float32).view(np.int32)[0])
        assert f32_bits(value) == expected, value
    # Beyond f32's range: the infinity of that sign, as numpy's conversion gives.
    assert f32_bits(1e300) == int(np.array([np.inf], dtype=np.float32).view(np.int32)[0])
    assert f32_bits(-1e300) == int(np.array([-np.inf], dtype=np.float32).view(np.int32)[0])
