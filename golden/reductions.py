"""Row and column reductions of a 2-D matrix.

`row_stats_kernel` reduces along axis 1 (one block per BLOCK_M rows, looping over column tiles),
`col_stats_kernel` reduces along axis 0 (one block per BLOCK_N columns, looping over row tiles).
Both produce sums and maxima; keepdims is used where the result is broadcast back.
"""

import cuda.tile as ct
import torch

NEG_INF = float("-inf")


@ct.kernel
def row_stats_kernel(x, row_sum, row_max, BLOCK_M: ct.Constant[int], BLOCK_N: ct.Constant[int]):
    """row_sum[i] = sum_j x[i, j], row_max[i] = max_j x[i, j] (float32 outputs)."""
    bm = ct.bid(0)
    acc_sum = ct.zeros((BLOCK_M, 1), dtype=ct.float32)
    acc_max = ct.full((BLOCK_M,), NEG_INF, dtype=ct.float32)
    for bn in range(ct.num_tiles(x, axis=1, shape=(BLOCK_M, BLOCK_N))):
        t = ct.load(x, index=(bm, bn), shape=(BLOCK_M, BLOCK_N),
                    padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        acc_sum = acc_sum + ct.sum(t, axis=1, keepdims=True)
        # Padding is zero, so mask padded columns out of the max explicitly.
        cols = bn * BLOCK_N + ct.arange(BLOCK_N, dtype=ct.int32)
        t_masked = ct.where(cols[None, :] < x.shape[1], t, NEG_INF)
        acc_max = ct.maximum(acc_max, ct.max(t_masked, axis=1, keepdims=False))
    ct.store(row_sum, index=(bm,), tile=ct.reshape(acc_sum, (BLOCK_M,)))
    ct.store(row_max, index=(bm,), tile=acc_max)


@ct.kernel
def col_stats_kernel(x, col_sum, col_max, BLOCK_M: ct.Constant[int], BLOCK_N: ct.Constant[int]):
    """col_sum[j] = sum_i x[i, j], col_max[j] = max_i x[i, j]."""
    bn = ct.bid(0)
    acc_sum = ct.zeros((BLOCK_N,), dtype=ct.float32)
    acc_max = ct.full((1, BLOCK_N), NEG_INF, dtype=ct.float32)
    for bm in range(ct.num_tiles(x, axis=0, shape=(BLOCK_M, BLOCK_N))):
        t = ct.load(x, index=(bm, bn), shape=(BLOCK_M, BLOCK_N),
                    padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        acc_max = ct.maximum(acc_max, ct.max(t, axis=0, keepdims=True))
        rows = ct.arange(BLOCK_M, dtype=ct.int32) + bm * BLOCK_M
        t_zero = ct.where(rows[:, None] < x.shape[0], t, 0.0)
        acc_sum += ct.sum(t_zero, axis=0)
    ct.store(col_sum, index=(bn,), tile=acc_sum)
    ct.store(col_max, index=(bn,), tile=acc_max.reshape((BLOCK_N,)))


def row_stats(x: torch.Tensor, block_m: int = 16, block_n: int = 256):
    m, _ = x.shape
    s = torch.empty(m, dtype=torch.float32, device=x.device)
    mx = torch.empty_like(s)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, block_m),), row_stats_kernel,
              (x, s, mx, block_m, block_n))
    return s, mx


def col_stats(x: torch.Tensor, block_m: int = 64, block_n: int = 128):
    n = x.shape[1]
    s = torch.empty(n, dtype=torch.float32, device=x.device)
    mx = torch.empty_like(s)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, block_n),), col_stats_kernel,
              (x, s, mx, block_m, block_n))
    return s, mx
