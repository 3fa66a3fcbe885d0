"""Softmax over long rows with an online (streaming) max/sum.

Pass 1 walks the row in TILE_N-wide chunks keeping a running maximum and a running sum that is
rescaled whenever the maximum grows. Pass 2 walks the row again and writes the normalized values.
Exponentials are computed in base 2 with the log2(e) factor folded in.
"""

import math

import cuda.tile as ct
import torch

LOG2E = math.log2(math.e)
NEG_INF = -math.inf


@ct.kernel
def online_softmax_kernel(x, y, n_cols: int, TILE_N: ct.Constant[int]):
    """One block per row; loops over ct.cdiv(n_cols, TILE_N) column tiles twice."""
    row = ct.bid(0)
    num_chunks = ct.cdiv(n_cols, TILE_N)

    running_max = ct.full((1, 1), NEG_INF, dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    for chunk in range(num_chunks):
        t = ct.load(x, index=(row, chunk), shape=(1, TILE_N),
                    padding_mode=ct.PaddingMode.NEG_INF, latency=4)
        t = t.astype(ct.float32) * LOG2E
        new_max = ct.maximum(running_max, ct.max(t, axis=1, keepdims=True))
        correction = ct.exp2(running_max - new_max, flush_to_zero=True)
        p = ct.exp2(t - new_max, flush_to_zero=True)
        running_sum = running_sum * correction + ct.sum(p, axis=1, keepdims=True)
        running_max = new_max

    inv_sum = ct.truediv(1.0, running_sum, rounding_mode=ct.RoundingMode.APPROX,
                         flush_to_zero=True)
    for chunk in range(num_chunks):
        t = ct.load(x, index=(row, chunk), shape=(1, TILE_N),
                    padding_mode=ct.PaddingMode.NEG_INF, latency=4)
        p = ct.exp2(t.astype(ct.float32) * LOG2E - running_max, flush_to_zero=True)
        ct.store(y, index=(row, chunk), tile=(p * inv_sum).astype(y.dtype))


def online_softmax(x: torch.Tensor, tile_n: int = 1024) -> torch.Tensor:
    """Softmax over the last dim of a 2-D tensor of any width (float32 or bfloat16)."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (n_rows,), online_softmax_kernel,
              (x, y, n_cols, tile_n))
    return y
