"""Element-wise ops: integer and float arithmetic, comparisons, conversions, math functions.

Takes an op (its attributes: `signed`/`unsigned`, `rounding<...>`, `flush_to_zero`,
`propagate_nan`, comparison predicates) and its operand tiles; gives its result tiles. Every
op is a numpy expression over the whole tile. Float ops on 16- and 8-bit types compute in
float32 and round the result once to the result type; a rounding mode other than nearest-even
computes in float64 and steps the float32 result toward the mode. `approx` and `full` are
computed as correctly rounded, except `divf` `approx`, which is computed as the GPU computes
it: a product with an approximate reciprocal (PTX `div.approx`: `a * rcp.approx(b)`, within
2 ulp of the quotient). The hardware's reciprocal is not correctly rounded and its bits are
not specified; it is modelled as the reciprocal rounded toward zero (within 1 ulp of the true
one, as the hardware's is, and below it wherever it is not exact), so that a division that is
approximate on one side and correctly rounded on the other shows in the results even where
the product with a correctly rounded reciprocal would be exact (a numerator of 1). The
comparison with a real GPU allows `compare.TOLERANCES["approx-division"]` for it. Likewise
`tanh` `approx` (f32) keeps 12 significant bits (PTX `tanh.approx.f32`: relative error below
2^-10.987; `compare.TOLERANCES["approx-tanh"]` against a GPU).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from transpiler.ircheck.parse import Operation
from transpiler.tileir_interp.elements import (
    COMPUTE_DTYPE,
    ElementType,
    as_signed,
    as_unsigned,
    flush_subnormals,
    to_float,
    wrap_int,
)
from transpiler.tileir_interp.errors import InterpError, UnsupportedOpError
from transpiler.tileir_interp.values import tile_type

Handler = Callable[[Any, Operation, list[Any]], Any]

_DIRECTED = ("zero", "negative_inf", "positive_inf")


def result_element(op: Operation, index: int = 0) -> ElementType:
    return tile_type(op.result_types[index]).element


def operand_element(op: Operation, index: int = 0) -> ElementType:
    return tile_type(op.signature_types[index]).element


def rounding(op: Operation) -> str:
    text = op.attributes.get("rounding", "")
    return text.strip("<>").strip() or "nearest_even"


def is_unsigned(op: Operation) -> bool:
    return "unsigned" in op.attributes


# ---- floats ------------------------------------------------------------------------------


def _float_op(fn: Callable[..., np.ndarray]) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        etype = result_element(op)
        mode = rounding(op)
        wide = mode in _DIRECTED
        compute = np.dtype(np.float64) if wide else COMPUTE_DTYPE[etype.name]
        values = [np.asarray(a).astype(compute) for a in args]
        ftz = "flush_to_zero" in op.attributes
        if ftz:
            values = [flush_subnormals(v, etype) for v in values]
        result = to_float(np.asarray(fn(*values)), etype, mode)
        return [flush_subnormals(result, etype) if ftz else result]
    return handler


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    # The product of two float32 values is exact in float64; one rounding of the sum to
    # float64 and one to the result type follow (a fused float64 fma is not reachable here).
    return a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)


def _maxmin(nan_ignoring: Callable[..., np.ndarray], nan_propagating: Callable[..., np.ndarray]
            ) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        fn = nan_propagating if "propagate_nan" in op.attributes else nan_ignoring
        return _float_op(fn)(m, op, args)
    return handler


def _divf(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    if rounding(op) != "approx":
        return _float_op(np.divide)(m, op, args)
    etype = result_element(op)
    compute = COMPUTE_DTYPE[etype.name]
    a, b = (np.asarray(x).astype(compute) for x in args)
    ftz = "flush_to_zero" in op.attributes
    if ftz:
        a, b = flush_subnormals(a, etype), flush_subnormals(b, etype)
    with np.errstate(divide="ignore"):
        reciprocal = to_float(np.asarray(1.0 / b.astype(np.float64)), etype, "zero")
    result = to_float(np.asarray(a * reciprocal.astype(compute)), etype)
    return [flush_subnormals(result, etype) if ftz else result]


#: `tanh rounding<approx>` is PTX `tanh.approx.f32`: relative error below 2^-10.987. It is
#: modelled as the f32 tanh with its significand cut to 12 bits (toward zero: relative error
#: below 2^-11), an error of that size, so that an approximate tanh on one side only shows.
_APPROX_TANH_BITS = 12


def truncate_significand(values: np.ndarray, bits: int) -> np.ndarray:
    """float32 values with all but the first `bits` bits of the significand (the implicit one
    included) cleared: rounded toward zero to `bits` significant bits."""
    as_f32 = np.asarray(values, dtype=np.float32)
    mask = np.uint32((0xFFFFFFFF << (24 - bits)) & 0xFFFFFFFF)
    cut = (as_f32.view(np.uint32) & mask).view(np.float32)
    return np.where(np.isfinite(as_f32), cut, as_f32)


def _approximable(fn: Callable[..., np.ndarray], approx_bits: int) -> Handler:
    """A math function whose `rounding<approx>` form (f32) keeps `approx_bits` bits."""
    exact = _float_op(fn)

    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        [result] = exact(m, op, args)
        if rounding(op) != "approx" or result_element(op).name != "f32":
            return [result]
        return [truncate_significand(result, approx_bits)]
    return handler


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


FLOAT_OPS: dict[str, Handler] = {
    "addf": _float_op(np.add),
    "subf": _float_op(np.subtract),
    "mulf": _float_op(np.multiply),
    "divf": _divf,
    "remf": _float_op(np.fmod),
    "pow": _float_op(np.power),
    "atan2": _float_op(np.arctan2),
    "fma": _float_op(_fma),
    "negf": _float_op(np.negative),
    "absf": _float_op(np.abs),
    "exp": _float_op(np.exp),
    "exp2": _float_op(np.exp2),
    "log": _float_op(np.log),
    "log2": _float_op(np.log2),
    "sin": _float_op(np.sin),
    "cos": _float_op(np.cos),
    "tan": _float_op(np.tan),
    "sinh": _float_op(np.sinh),
    "cosh": _float_op(np.cosh),
    "tanh": _approximable(np.tanh, _APPROX_TANH_BITS),
    "sqrt": _float_op(np.sqrt),
    "rsqrt": _float_op(_rsqrt),
    "floor": _float_op(np.floor),
    "ceil": _float_op(np.ceil),
    "maxf": _maxmin(np.fmax, np.maximum),
    "minf": _maxmin(np.fmin, np.minimum),
}


# ---- integers ----------------------------------------------------------------------------


def _wide(op: Operation, value: np.ndarray, etype: ElementType) -> np.ndarray:
    """The integers as Python-sized numbers: int64, or uint64 for unsigned 64-bit."""
    if is_unsigned(op):
        return as_unsigned(np.asarray(value), etype).astype(
            np.uint64 if etype.bits == 64 else np.int64)
    return as_signed(np.asarray(value), etype).astype(np.int64)


def _int_op(fn: Callable[..., np.ndarray]) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        etype = result_element(op)
        values = [_wide(op, a, etype) for a in args]
        return [wrap_int(fn(*values), etype)]
    return handler


def _bitwise(fn: Callable[..., np.ndarray]) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        return [fn(*[np.asarray(a) for a in args])]
    return handler


def _divide(op: Operation, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.any(b == 0):
        raise InterpError("integer division by zero")
    floor = a // b
    exact = (a % b) == 0
    mode = rounding(op) if "rounding" in op.attributes else "zero"
    if mode == "negative_inf" or is_unsigned(op):
        return floor
    if mode == "positive_inf":
        return np.where(exact, floor, floor + 1)
    if mode == "zero":
        return np.where(exact | ((a < 0) == (b < 0)), floor, floor + 1)
    raise UnsupportedOpError(f"integer division rounding `{mode}`")


def _divi(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    etype = result_element(op)
    a, b = (_wide(op, x, etype) for x in args)
    return [wrap_int(_divide(op, a, b), etype)]


def _remi(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    etype = result_element(op)
    a, b = (_wide(op, x, etype) for x in args)
    if np.any(b == 0):
        raise InterpError("integer remainder by zero")
    return [wrap_int(np.fmod(a, b) if not is_unsigned(op) else a % b, etype)]


def _shift(left: bool) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        etype = result_element(op)
        amount = as_signed(np.asarray(args[1]), etype).astype(np.int64)
        if np.any((amount < 0) | (amount >= etype.bits)):
            raise InterpError(f"shift by an amount outside [0, {etype.bits})")
        if left:
            value = as_unsigned(np.asarray(args[0]), etype).astype(np.uint64)
            return [wrap_int((value << amount.astype(np.uint64)).view(np.int64)
                             if etype.bits == 64 else value << amount.astype(np.uint64),
                             etype)]
        value = _wide(op, args[0], etype)
        shifted = value >> amount.astype(value.dtype)
        return [wrap_int(shifted, etype)]
    return handler


def _mulhii(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    etype = result_element(op)
    if etype.bits == 64:
        raise UnsupportedOpError("`mulhii` on 64-bit integers")
    # Tile IR's `mulhii` has no signedness: tileiras 13.4 compiles it to an unsigned
    # multiply-high (sm_90 `IMAD.HI.U32`) whatever the element type, so the operands are
    # taken as unsigned.
    a, b = (as_unsigned(np.asarray(x), etype).astype(np.uint64) for x in args)
    return [wrap_int((a * b) >> np.uint64(etype.bits), etype)]


def _minmax_int(fn: Callable[..., np.ndarray]) -> Handler:
    def handler(m: Any, op: Operation, args: list[Any]) -> list[Any]:
        etype = result_element(op)
        a, b = (_wide(op, x, etype) for x in args)
        return [wrap_int(fn(a, b), etype)]
    return handler


INT_OPS: dict[str, Handler] = {
    "addi": _int_op(np.add),
    "subi": _int_op(np.subtract),
    "muli": _int_op(np.multiply),
    "negi": _int_op(np.negative),
    "absi": _int_op(np.abs),
    "andi": _bitwise(np.bitwise_and),
    "ori": _bitwise(np.bitwise_or),
    "xori": _bitwise(np.bitwise_xor),
    "divi": _divi,
    "remi": _remi,
    "shli": _shift(left=True),
    "shri": _shift(left=False),
    "mulhii": _mulhii,
    "maxi": _minmax_int(np.maximum),
    "mini": _minmax_int(np.minimum),
}


# ---- comparisons and select --------------------------------------------------------------

PREDICATES: dict[str, Callable[..., np.ndarray]] = {
    "equal": np.equal, "not_equal": np.not_equal, "less_than": np.less,
    "less_than_or_equal": np.less_equal, "greater_than": np.greater,
    "greater_than_or_equal": np.greater_equal}


def _predicate(op: Operation) -> Callable[..., np.ndarray]:
    for name in op.attributes:
        if name in PREDICATES:
            return PREDICATES[name]
    raise UnsupportedOpError("comparison without a known predicate")


def _cmpi(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    etype = operand_element(op)
    a, b = (_wide(op, x, etype) for x in args)
    return [np.asarray(_predicate(op)(a, b))]


def _cmpf(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    compute = COMPUTE_DTYPE[operand_element(op).name]
    a, b = (np.asarray(x).astype(compute) for x in args)
    base = np.asarray(_predicate(op)(a, b))
    either_nan = np.isnan(a) | np.isnan(b)
    if "unordered" in op.attributes:
        return [base | either_nan]
    return [base & ~either_nan]


def _select(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.where(np.asarray(args[0]), args[1], args[2]).astype(np.asarray(args[1]).dtype)]


COMPARE_OPS: dict[str, Handler] = {"cmpi": _cmpi, "cmpf": _cmpf, "select": _select}


# ---- conversions -------------------------------------------------------------------------


def _exti(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    source, target = operand_element(op), result_element(op)
    return [wrap_int(_wide(op, args[0], source), target)]


def _trunci(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    target = result_element(op)
    return [wrap_int(np.asarray(args[0]).astype(np.int64), target)]


def _itof(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    source, target = operand_element(op), result_element(op)
    wide = _wide(op, args[0], source)
    mode = rounding(op)
    if mode in _DIRECTED:
        return [to_float(wide.astype(np.float64), target, mode)]
    via = np.float64 if target.bits == 64 else np.float32
    return [to_float(wide.astype(via), target)]


def _ftoi(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    target = result_element(op)
    value = np.asarray(args[0]).astype(np.float64)
    mode = rounding(op) if "rounding" in op.attributes else "zero"
    rounders = {"zero": np.trunc, "nearest_int_to_zero": np.trunc, "negative_inf": np.floor,
                "positive_inf": np.ceil, "nearest_even": np.rint}
    if mode not in rounders:
        raise UnsupportedOpError(f"float-to-int rounding `{mode}`")
    whole = rounders[mode](value)
    bits = target.bits
    lo, hi = (0, 2.0 ** bits - 1) if is_unsigned(op) else (-(2.0 ** (bits - 1)),
                                                            2.0 ** (bits - 1) - 1)
    # Out-of-range values saturate and NaN becomes 0, as the GPU's conversions do.
    clipped = np.nan_to_num(np.clip(whole, lo, hi), nan=0.0)
    if is_unsigned(op):
        return [wrap_int(clipped.astype(np.uint64).view(np.int64), target)]
    return [wrap_int(clipped.astype(np.int64), target)]


def _ftof(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    target = result_element(op)
    value = np.asarray(args[0])
    if value.dtype.itemsize < 4:
        value = value.astype(np.float32)
    result = to_float(value, target, rounding(op))
    if "flush_to_zero" in op.attributes:
        result = flush_subnormals(result, target)
    return [result]


def _bitcast(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    target = result_element(op)
    # np.array, not np.ascontiguousarray: the latter makes a 0-d tile 1-d
    value = np.array(args[0], order="C")
    if value.dtype.itemsize != target.dtype.itemsize:
        raise UnsupportedOpError(f"bitcast between sizes {value.dtype.itemsize} and "
                                 f"{target.dtype.itemsize}")
    return [value.view(target.dtype)]


def _same_bits(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    return [np.asarray(args[0]).astype(np.int64)]


CONVERT_OPS: dict[str, Handler] = {
    "exti": _exti, "trunci": _trunci, "itof": _itof, "ftoi": _ftoi, "ftof": _ftof,
    "bitcast": _bitcast, "int_to_ptr": _same_bits, "ptr_to_int": _same_bits,
    "ptr_to_ptr": _same_bits,
}
