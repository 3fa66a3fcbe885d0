"""Element types of Tile IR and the numeric rules the ops carry (rounding, flush-to-zero).

Takes element type names as `tileirdisasm` prints them (`i32`, `bf16`, `f8E4M3FN`, `ptr<f32>`);
gives the numpy dtype that holds such values in the interpreter, their size in memory, and the
conversions with a rounding mode. Integers are held in the signed numpy type of their width
(Tile IR integers are signless; each op says whether it reads them signed or unsigned), `i1`
as numpy `bool`, `tf32` as `float32` whose mantissa has been rounded to 10 bits, pointers as
`int64` byte addresses.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class ElementType:
    name: str
    dtype: np.dtype
    kind: str  # "int" | "float" | "ptr"
    bits: int
    #: bytes one element takes in memory
    size: int


def _t(name: str, dtype: object, kind: str, bits: int, size: int) -> ElementType:
    return ElementType(name, np.dtype(dtype), kind, bits, size)


ELEMENT_TYPES: dict[str, ElementType] = {
    "i1": _t("i1", np.bool_, "int", 1, 1),
    "i8": _t("i8", np.int8, "int", 8, 1),
    "i16": _t("i16", np.int16, "int", 16, 2),
    "i32": _t("i32", np.int32, "int", 32, 4),
    "i64": _t("i64", np.int64, "int", 64, 8),
    "f16": _t("f16", np.float16, "float", 16, 2),
    "bf16": _t("bf16", ml_dtypes.bfloat16, "float", 16, 2),
    "tf32": _t("tf32", np.float32, "float", 32, 4),
    "f32": _t("f32", np.float32, "float", 32, 4),
    "f64": _t("f64", np.float64, "float", 64, 8),
    "f8E4M3FN": _t("f8E4M3FN", ml_dtypes.float8_e4m3fn, "float", 8, 1),
    "f8E5M2": _t("f8E5M2", ml_dtypes.float8_e5m2, "float", 8, 1),
}

POINTER = _t("ptr", np.int64, "ptr", 64, 8)

UNSIGNED_OF: dict[int, np.dtype] = {
    1: np.dtype(np.uint8), 8: np.dtype(np.uint8), 16: np.dtype(np.uint16),
    32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
SIGNED_OF: dict[int, np.dtype] = {
    1: np.dtype(np.int8), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
    32: np.dtype(np.int32), 64: np.dtype(np.int64)}

#: the numpy type float arithmetic of each float type is carried out in before rounding
#: back (numpy and ml_dtypes round every result to the nearest even value)
COMPUTE_DTYPE: dict[str, np.dtype] = {
    "f16": np.dtype(np.float32), "bf16": np.dtype(np.float32), "tf32": np.dtype(np.float32),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "f8E4M3FN": np.dtype(np.float32), "f8E5M2": np.dtype(np.float32)}

#: the smallest normal number of each type (flush-to-zero replaces smaller magnitudes by 0)
_SMALLEST_NORMAL: dict[str, float] = {"f32": float(np.finfo(np.float32).tiny),
                                      "tf32": float(np.finfo(np.float32).tiny)}


class ElementTypeError(ValueError):
    """An element type name the interpreter does not know."""


def element(name: str) -> ElementType:
    if name.startswith("ptr<"):
        return POINTER
    try:
        return ELEMENT_TYPES[name]
    except KeyError:
        raise ElementTypeError(f"unknown element type `{name}`") from None


def pointee(name: str) -> ElementType:
    """`ptr<f32>` -> f32."""
    if not name.startswith("ptr<"):
        raise ElementTypeError(f"`{name}` is not a pointer type")
    return element(name[4:-1])


def as_signed(values: np.ndarray, etype: ElementType) -> np.ndarray:
    """Integers read as signed (i1 true is -1)."""
    if etype.bits == 1:
        return -values.astype(np.int8)
    return values


def as_unsigned(values: np.ndarray, etype: ElementType) -> np.ndarray:
    if etype.bits == 1:
        return values.astype(np.uint8)
    return values.view(UNSIGNED_OF[etype.bits])


def wrap_int(values: np.ndarray, etype: ElementType) -> np.ndarray:
    """Any numpy integers -> the interpreter's representation of `etype` (two's complement
    wrap; i1 keeps the low bit)."""
    array = np.asarray(values)
    if etype.bits == 1:
        return (array.astype(np.int64) & 1).astype(np.bool_)
    return array.astype(etype.dtype)


def round_tf32(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to tf32's 10 mantissa bits, to nearest even."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    finite = np.isfinite(np.asarray(values, dtype=np.float32))
    lsb = (bits >> 13) & 1
    rounded = ((bits + 0xFFF + lsb) & ~np.uint64(0x1FFF)).astype(np.uint32)
    out = np.where(finite, rounded, bits.astype(np.uint32))
    return out.view(np.float32)


def to_float(values: np.ndarray, etype: ElementType, rounding: str = "nearest_even"
             ) -> np.ndarray:
    """Float values (any numpy float type) rounded to `etype` with a rounding mode."""
    if rounding in ("nearest_even", "approx", "full", ""):
        if etype.name == "tf32":
            return round_tf32(values.astype(np.float32))
        return np.asarray(values).astype(etype.dtype)
    wide = np.asarray(values, dtype=np.float64)
    near = wide.astype(etype.dtype)
    if etype.name == "tf32":
        near = round_tf32(wide.astype(np.float32))
    back = near.astype(np.float64)
    toward = {"zero": np.where(wide >= 0, -np.inf, np.inf), "negative_inf": -np.inf,
              "positive_inf": np.inf}.get(rounding)
    if toward is None:
        raise ElementTypeError(f"unknown rounding mode `{rounding}`")
    toward = np.broadcast_to(toward, wide.shape)
    wrong = np.isfinite(wide) & (back != wide) & ((back > wide) == (toward < 0))
    stepped = np.nextafter(near.astype(etype.dtype), toward.astype(etype.dtype))
    return np.where(wrong, stepped, near).astype(etype.dtype)


def flush_subnormals(values: np.ndarray, etype: ElementType) -> np.ndarray:
    """Values whose magnitude is below the smallest normal become zero of the same sign."""
    tiny = _SMALLEST_NORMAL.get(etype.name)
    if tiny is None:
        return values
    small = np.abs(values) < tiny
    if not small.any():
        return values
    return np.where(small, np.copysign(np.zeros_like(values), values), values)


def padding_value(name: str, etype: ElementType) -> object:
    """The element a view load uses for a position outside the array (`padding_value`)."""
    table: dict[str, float] = {"zero": 0.0, "neg_zero": -0.0, "nan": float("nan"),
                               "pos_inf": float("inf"), "neg_inf": float("-inf")}
    if name not in table:
        raise ElementTypeError(f"unknown padding value `{name}`")
    if etype.kind == "int":
        if name not in ("zero", "neg_zero"):
            raise ElementTypeError(f"padding `{name}` on integer type `{etype.name}`")
        return 0
    return table[name]


def undefined_fill(etype: ElementType) -> object:
    """What an undetermined element reads as (a load outside the array without padding):
    NaN for floats and a fixed bit pattern for integers, so that a result which depends on it
    differs from one that does not."""
    return float("nan") if etype.kind == "float" else -0x5A5A5A5B
