"""Triton's element types and its type promotion, as tables.

Takes nothing; gives the Triton dtype names (`tl.float16`, `tl.int1`, ...) with their model
names, the type of a Python number literal (`to_tensor_type`: i32 unless too large), and
`computation_type`, Triton 3.9's rule for the type two operands of an arithmetic operation
are computed in (`semantic.computation_type_impl`): a Python number of a lower or equal kind
does not take part; f64 wins; a division or remainder of floats is f32 or wider; f32 wins;
f16 wins; bf16 with bf16 is bf16, with another float f32; integers by C's usual arithmetic
conversions. A launch-time element type (`DTypeVar`) is accepted where the rule's result
does not depend on what it is.
"""

from __future__ import annotations

from transpiler.model import DType, DTypeVar, ElemType

# Triton dtype name -> model dtype name.
TRITON_DTYPES: dict[str, str] = {
    "float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    "float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2", "int1": "bool_",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "fp16": "float16",
    "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
}
# Model dtype name -> (kind, bits): kind orders bool < uint < int < float, as Triton's does.
_KINDS: dict[str, tuple[int, int]] = {
    "bool_": (0, 1), "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),
    "int8": (2, 8), "int16": (2, 16), "int32": (2, 32), "int64": (2, 64),
    "float8_e4m3fn": (3, 8), "float8_e5m2": (3, 8), "float16": (3, 16), "bfloat16": (3, 16),
    "float32": (3, 32), "float64": (3, 64), "tfloat32": (3, 32),
}
# The element types a dtype-dependent kernel is translated for, one entry each: floats for
# arithmetic whose typing depends on the type, integers for values used as offsets.
FLOAT_VARIANTS = ("float16", "bfloat16", "float32")
INDEX_VARIANTS = ("int32", "int64")
ATOMIC_VARIANTS = ("float32", "float16", "int32")
# Tile IR's compare-and-swap takes 32- and 64-bit elements only.
CAS_VARIANTS = ("int32", "float32", "int64")
# `tl.<name>` -> the element types Triton 3.9 takes for its tensor argument
# (`triton.language.math._check_dtype`, libdevice's convention); functions not listed take
# any type.
_FP32_FP64 = ("float32", "float64")
MATH_DTYPES: dict[str, tuple[str, ...]] = {
    "exp": _FP32_FP64, "exp2": _FP32_FP64, "log": _FP32_FP64, "log2": _FP32_FP64,
    "cos": _FP32_FP64, "sin": _FP32_FP64, "sqrt": _FP32_FP64, "sqrt_rn": ("float32",),
    "rsqrt": _FP32_FP64, "erf": _FP32_FP64, "floor": _FP32_FP64, "ceil": _FP32_FP64,
}
BOOL, I32, I64, F32 = DType("bool_"), DType("int32"), DType("int64"), DType("float32")


class DtypeDependent(Exception):
    """The result type depends on a launch-time element type: the kernel is translated once
    per element type of the first family of `candidates` for which it translates (floats
    for arithmetic, then integers for a value that turns out to be an index)."""

    def __init__(self, var: DTypeVar,
                 candidates: tuple[tuple[str, ...], ...] = (FLOAT_VARIANTS, INDEX_VARIANTS)
                 ) -> None:
        super().__init__("dtype-dependent")
        self.var = var
        self.candidates = candidates


def literal_dtype(value: object) -> DType:
    """Triton's type of a Python number (`semantic.to_tensor_type`)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return I32
        if 2**31 <= value < 2**32:
            return DType("uint32")
        if -2**63 <= value < 2**63:
            return I64
        return DType("uint64")
    number = abs(float(value))  # type: ignore[arg-type]
    if number in (0.0, float("inf")) or number != number or 2**-126 <= number <= (
            2 - 2**-23) * 2**127:
        return F32
    return DType("float64")


def kind(dtype: ElemType) -> int:
    """0 bool, 1 unsigned, 2 signed, 3 float; a launch-time element type counts as a float
    (pointers to floats are what Triton kernels load and compute on)."""
    return 3 if isinstance(dtype, DTypeVar) else _KINDS[dtype.name][0]


def bits(dtype: DType) -> int:
    return _KINDS[dtype.name][1]


def is_float(dtype: ElemType) -> bool:
    return kind(dtype) == 3


def is_int(dtype: ElemType) -> bool:
    return kind(dtype) in (1, 2)


def computation_type(a: ElemType, a_number: bool, b: ElemType, b_number: bool,
                     div_or_mod: bool) -> ElemType:
    """The type `a op b` is computed in; `a_number`: `a` is a Python number."""
    if a_number != b_number:
        number, tensor = (a, b) if a_number else (b, a)
        if kind(number) <= kind(tensor):
            a, b = tensor, tensor
    if isinstance(a, DTypeVar) or isinstance(b, DTypeVar):
        if a == b and not div_or_mod:
            return a
        var = a if isinstance(a, DTypeVar) else b
        assert isinstance(var, DTypeVar)
        raise DtypeDependent(var)
    names = {a.name, b.name}
    if "float64" in names:
        return DType("float64")
    if div_or_mod and (is_float(a) or is_float(b)):
        return F32
    if "float32" in names:
        return F32
    if "float16" in names:
        return DType("float16")
    if names == {"bfloat16"}:
        return DType("bfloat16")
    if "bfloat16" in names:
        return F32
    if is_float(a) and is_float(b):
        return a if a == b else DType("float16")
    if not (kind(a) in (0, 1, 2) and kind(b) in (0, 1, 2)):
        raise TypeError(f"unexpected types {a} and {b}")
    return integer_promote(a, b)


def integer_promote(a: DType, b: DType) -> DType:
    """C's usual arithmetic conversions (Triton's `integer_promote_impl`)."""
    a_unsigned, b_unsigned = kind(a) <= 1, kind(b) <= 1
    if a_unsigned == b_unsigned:
        return a if bits(a) > bits(b) else b
    if a_unsigned:
        return a if bits(a) >= bits(b) else b
    return b if bits(b) >= bits(a) else a


def sum_dtype(dtype: ElemType) -> ElemType:
    """The type `tl.sum` / `tl.cumsum` accumulate in (`_pick_sum_dtype`): integers narrower
    than 32 bits widen to 32."""
    if isinstance(dtype, DTypeVar) or kind(dtype) == 3 or bits(dtype) >= 32:
        return dtype
    return DType("uint32") if kind(dtype) <= 1 else I32


def extreme_dtype(dtype: ElemType) -> ElemType:
    """The type `tl.max` / `tl.min` (without indices) reduce in (Triton 3.9's `max`): a
    float narrower than 32 bits widens to f32, an integer narrower than 32 bits to i32 (a
    signed one, whatever the input's sign). A launch-time element type has no answer: the
    kernel is translated per element type."""
    if isinstance(dtype, DTypeVar):
        raise DtypeDependent(dtype)
    if kind(dtype) == 0 or bits(dtype) >= 32:
        return dtype
    return F32 if kind(dtype) == 3 else I32
