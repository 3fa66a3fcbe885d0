"""Matrix multiply-accumulate: `mmaf` (float) and `mmai` (integer), batched over leading axes.

Takes `a` (..., M, K), `b` (..., K, N) and the accumulator (..., M, N); gives `a @ b + acc`
in the accumulator's type. Float products and sums are carried in float64 and rounded once
to the accumulator type (the GPU's order of accumulation is unspecified; this one is fixed);
integer ones in int64 and wrapped. The products go through `einsum` without BLAS: a BLAS
call's threads cost more than the work on tiles of this size, and its summation order would
depend on the library.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transpiler.ircheck.parse import Operation
from transpiler.tileir_interp.elements import as_signed, as_unsigned, to_float, wrap_int
from transpiler.tileir_interp.ops_arith import Handler, operand_element, result_element


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...mk,...kn->...mn", a, b)


def _mmaf(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    a, b, acc = (np.asarray(x).astype(np.float64) for x in args)
    return [to_float(_matmul(a, b) + acc, result_element(op))]


def _mmai(m: Any, op: Operation, args: list[Any]) -> list[Any]:
    flags = [name for name in op.attributes if name in ("signed", "unsigned")]
    words = [i.text for i in op.items if i.kind == "NAME" and i.text in ("signed", "unsigned")]
    signs = words if len(words) >= 2 else (flags * 2)[:2] or ["signed", "signed"]
    operands = []
    for index, sign in enumerate(signs[:2]):
        etype = operand_element(op, index)
        value = np.asarray(args[index])
        read = as_unsigned(value, etype) if sign == "unsigned" else as_signed(value, etype)
        operands.append(read.astype(np.int64))
    acc = np.asarray(args[2]).astype(np.int64)
    return [wrap_int(_matmul(operands[0], operands[1]) + acc, result_element(op))]


MATRIX_OPS: dict[str, Handler] = {"mmaf": _mmaf, "mmai": _mmai}
