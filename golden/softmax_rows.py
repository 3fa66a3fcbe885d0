"""Row-wise softmax for rows that fit in one tile.

Each block owns one row. The row is loaded as a (1, TILE_N) tile padded with -inf, so padding
lanes contribute exp(-inf) = 0 to the sum and never win the max.
"""

import cuda.tile as ct
import torch


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@ct.kernel(occupancy=4)
def softmax_row_kernel(x, y, TILE_N: ct.Constant[int]):
    """y[row, :] = softmax(x[row, :]); math in float32, result cast back to y's dtype."""
    row = ct.bid(0)
    logits = ct.load(x, index=(row, 0), shape=(1, TILE_N),
                     padding_mode=ct.PaddingMode.NEG_INF)
    logits = logits.astype(ct.float32)
    row_max = ct.max(logits, axis=1, keepdims=True)
    numer = ct.exp(logits - row_max)
    denom = ct.sum(numer, axis=1, keepdims=True)
    probs = numer / denom
    ct.store(y, index=(row, 0), tile=probs.astype(y.dtype))


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of a 2-D float32/float16/bfloat16 tensor."""
    n_rows, n_cols = x.shape
    tile_n = next_power_of_2(n_cols)
    if tile_n > 16384:
        raise ValueError("row too long for the single-tile kernel; use online_softmax")
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (n_rows,), softmax_row_kernel, (x, y, tile_n))
    return y
