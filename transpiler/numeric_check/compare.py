"""Comparison of one output array between the two sides of a numeric check.

Takes both arrays and the tolerance that the pair of programs justifies; gives an
`OutputVerdict`: equal bit for bit (NaN equal to NaN of any payload), or within a bound of
units in the last place with the reason that allows it, or the first differing element.

Tolerances are rules, as data (`TOLERANCES`): both sides run on the same interpreter, whose
order of accumulation and math functions are fixed, so equal programs give equal bits; a
difference is accepted only where the two programs differ in a way that changes rounding and
not meaning (one contracts `a * b + c` into `fma` where the other does not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from transpiler.ircheck.parse import Operation, TileIrModule


@dataclass(frozen=True)
class Tolerance:
    rule: str
    ulps: int
    #: also accepted: |difference| <= relative * max |reference| over the array (the
    #: cancellation a different rounding of one term can expose)
    relative: float
    reason: str


TOLERANCES: dict[str, Tolerance] = {
    "exact": Tolerance("bitwise", 0, 0.0, "the same ops on the same inputs"),
    "contraction": Tolerance(
        "contraction", 16, 1e-5,
        "one side computes `a * b + c` with one rounding (`fma`), the other with two"),
    "atomic-order": Tolerance(
        "atomic-order", 64, 1e-5,
        "float atomics add in the order the blocks run; another order rounds differently"),
    "approx-division": Tolerance(
        "approx-division", 2, 0.0,
        "`divf rounding<approx>` is `a * rcp.approx(b)` on the GPU, within 2 ulp of the "
        "quotient (PTX `div.approx.f32`); the interpreter models the reciprocal's rounding "
        "but not its bits (interpreter against a GPU only; two translations that both "
        "divide approximately run the same model and compare bit for bit)"),
    "approx-tanh": Tolerance(
        "approx-tanh", 0, 2.0 ** -10.987,
        "`tanh rounding<approx>` is PTX `tanh.approx.f32` on the GPU, relative error below "
        "2^-10.987; the interpreter keeps 12 significant bits of the exact tanh (interpreter "
        "against a GPU only)"),
}

#: A Triton translation against Triton's interpreter, per element type of the output (key:
#: numpy dtype name; `+atomics` where the translation adds floats atomically). The two are
#: different programs run by different interpreters, so floats are not bit-exact; integers
#: and bools are. A mutant the proof must reject (a wrong mask, `other`, offset, division,
#: accumulator type) differs by far more than these.
ELEMENT_TOLERANCES: dict[str, Tolerance] = {
    "exact": TOLERANCES["exact"],
    "float64": Tolerance(
        "float64-reassociation", 16, 1e-12,
        "numpy in Triton's interpreter sums reductions and dot products pairwise and in "
        "another order than the Tile IR interpreter, and contracts nothing into `fma`"),
    "float32": Tolerance(
        "float32-reassociation", 16, 1e-5,
        "reductions and dot products summed in another order (numpy's pairwise sum in "
        "Triton's interpreter), `a * b + c` contracted to `fma` on one side only, and "
        "transcendental functions (exp, log, tanh, sqrt) from different libm roundings: "
        "each a few ulps, or the rounding of the largest term where terms cancel"),
    "float16": Tolerance(
        "float16-rounding", 2, 1e-3,
        "a value computed in f32 (within the float32 rule) and rounded to f16 at the store "
        "can round to the neighbouring f16 value; f16 arithmetic rounds each op"),
    "bfloat16": Tolerance(
        "bfloat16-rounding", 2, 8e-3,
        "as float16, at bfloat16's 8-bit mantissa"),
    "float32+atomics": Tolerance(
        "float32-atomic-order", 64, 1e-5,
        "float atomics add in the order the blocks run, and each block's partial sum in "
        "another order than numpy's"),
    "float16+atomics": Tolerance(
        "float16-atomic-order", 4, 2e-3,
        "f16 atomics round after every add, in the order the blocks run"),
}

_FLOAT_BITS = {2: np.int16, 4: np.int32, 8: np.int64, 1: np.int8}


@dataclass
class OutputVerdict:
    array: str
    rule: str
    ok: bool
    index: tuple[int, ...] | None = None
    reference: str | None = None
    generated: str | None = None
    mismatches: int = 0
    max_ulps: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"array": self.array, "rule": self.rule, "ok": self.ok,
                "index": list(self.index) if self.index is not None else None,
                "reference": self.reference, "generated": self.generated,
                "mismatches": self.mismatches, "max_ulps": self.max_ulps}


def _count(module: TileIrModule, predicate: Any) -> int:
    total = 0
    stack: list[Operation] = [op for e in module.entries for op in e.ops]
    while stack:
        op = stack.pop()
        total += bool(predicate(op))
        stack.extend(o for r in op.regions for o in r.ops)
    return total


def pair_tolerance(reference: TileIrModule, generated: TileIrModule) -> Tolerance:
    """The tolerance the two programs justify."""
    def fma(op: Operation) -> bool:
        return op.name == "fma"
    if _count(reference, fma) != _count(generated, fma):
        return TOLERANCES["contraction"]
    return TOLERANCES["exact"]


def has_float_atomics(module: TileIrModule) -> bool:
    def float_atomic(op: Operation) -> bool:
        return op.name.startswith("atomic_") and any(
            i.kind == "NAME" and i.text == "addf" for i in op.items)
    return _count(module, float_atomic) > 0


def approx_rule(module: TileIrModule) -> str:
    """The tolerance against a GPU of a module's approximate ops (`rounding<approx>`):
    `approx-tanh` where it computes an approximate tanh, `approx-division` where it divides
    approximately, else `exact`."""
    def approx(name: str) -> Any:
        return lambda op: op.name == name and "approx" in op.attributes.get("rounding", "")
    if _count(module, approx("tanh")):
        return "approx-tanh"
    return "approx-division" if _count(module, approx("divf")) else "exact"


def is_float(array: np.ndarray) -> bool:
    return array.dtype.kind == "f" or array.dtype in (
        np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e4m3fn),
        np.dtype(ml_dtypes.float8_e5m2))


def _ordered(bits: np.ndarray) -> np.ndarray:
    """Float bit patterns as integers that order like the floats (for ULP distances)."""
    wide = bits.astype(np.int64)
    width = bits.dtype.itemsize * 8
    sign = np.int64(1) << (width - 1)
    return np.where(wide < 0, -(wide & (sign - 1)), wide)


def compare_output(name: str, reference: np.ndarray, generated: np.ndarray,
                   tolerance: Tolerance) -> OutputVerdict:
    if reference.shape != generated.shape:
        return OutputVerdict(name, tolerance.rule, False, (), str(reference.shape),
                             str(generated.shape))
    if is_float(reference):
        with np.errstate(all="ignore"):
            return _compare_floats(name, reference, generated, tolerance)
    bad = (reference != generated).reshape(-1)
    return _verdict(name, reference, generated, tolerance, bad, 0)


def _compare_floats(name: str, reference: np.ndarray, generated: np.ndarray,
                    tolerance: Tolerance) -> OutputVerdict:
    ref = reference.reshape(-1)
    gen = generated.reshape(-1)
    bits = _FLOAT_BITS[reference.dtype.itemsize]
    same = (ref.view(bits) == gen.view(bits)) | (
        np.isnan(ref.astype(np.float64)) & np.isnan(gen.astype(np.float64)))
    ulps = np.abs(_ordered(ref.view(bits)) - _ordered(gen.view(bits)))
    ulps = np.where(same, 0, ulps)
    scale = np.nanmax(np.abs(np.where(np.isfinite(ref.astype(np.float64)),
                                      ref.astype(np.float64), 0.0)), initial=0.0)
    close = (ulps <= tolerance.ulps) | (
        np.abs(ref.astype(np.float64) - gen.astype(np.float64))
        <= tolerance.relative * scale)
    close &= np.isfinite(ref.astype(np.float64)) | same
    bad = ~(same | close)
    max_ulps = int(ulps.max(initial=0))
    return _verdict(name, reference, generated, tolerance, bad, max_ulps)


def _verdict(name: str, reference: np.ndarray, generated: np.ndarray, tolerance: Tolerance,
             bad: np.ndarray, max_ulps: int) -> OutputVerdict:
    if not bad.any():
        rule = tolerance.rule if max_ulps else "bitwise"
        return OutputVerdict(name, rule, True, max_ulps=max_ulps)
    first = int(np.flatnonzero(bad)[0])
    index = tuple(int(i) for i in np.unravel_index(first, reference.shape))
    return OutputVerdict(name, tolerance.rule, False, index,
                         _show(reference.reshape(-1)[first]),
                         _show(generated.reshape(-1)[first]), int(bad.sum()), max_ulps)


def _show(value: Any) -> str:
    item = np.asarray(value)
    if is_float(item):
        return repr(float(item))
    return repr(int(item)) if item.dtype.kind in "iu" else repr(item.item())
