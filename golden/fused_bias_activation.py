"""Fused GEMM epilogue: y = act(x + bias) with an optional residual add, built from helpers.

Shows how tile-level helper functions compose: `add_row_bias` broadcasts a bias row,
`activation` picks the nonlinearity at compile time, and `split_pos_neg` returns a tuple that is
unpacked by the caller (used for a leaky-ReLU built from its positive and negative parts).
"""

import cuda.tile as ct
import torch

ACT_RELU = 0
ACT_LEAKY_RELU = 1
ACT_QUICK_GELU = 2  # x * sigmoid(1.702 x)

LEAKY_SLOPE = 0.01


def add_row_bias(t, bias_row):
    """(M, N) tile + (N,) bias, broadcast along rows."""
    return t + bias_row[None, :]


def split_pos_neg(t):
    """Return (max(t, 0), min(t, 0)) so callers can weight the two halves separately."""
    zero = ct.zeros(t.shape, dtype=t.dtype)
    return ct.maximum(t, zero), ct.minimum(t, zero)


def activation(t, kind: int, slope: float):
    if kind == ACT_RELU:
        pos, _ = split_pos_neg(t)
        out = pos
    elif kind == ACT_LEAKY_RELU:
        pos, neg = split_pos_neg(t)
        out = pos + slope * neg
    else:
        out = t * ct.truediv(1.0, 1.0 + ct.exp(-1.702 * t),
                             rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
    return out


@ct.kernel
def bias_act_kernel(x, bias, residual, y, ACT: ct.Constant[int], HAS_RESIDUAL: ct.Constant[bool],
                    TM: ct.Constant[int], TN: ct.Constant[int]):
    """One (TM, TN) tile per block; float32 math in registers."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(bias, index=(bn,), shape=(TN,), padding_mode=ct.PaddingMode.ZERO)
    h = add_row_bias(t.astype(ct.float32), bias_row=b.astype(ct.float32))
    h = activation(h, kind=ACT, slope=LEAKY_SLOPE)
    if HAS_RESIDUAL:
        r = ct.load(residual, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        h = h + r.astype(ct.float32)
    ct.store(y, index=(bm, bn), tile=h.astype(y.dtype))


def bias_act(x: torch.Tensor, bias: torch.Tensor, act: int = ACT_RELU,
             residual: torch.Tensor | None = None) -> torch.Tensor:
    m, n = x.shape
    tm, tn = 64, 128
    y = torch.empty_like(x)
    has_res = residual is not None
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, bias_act_kernel,
              (x, bias, residual if has_res else x, y, act, has_res, tm, tn))
    return y
