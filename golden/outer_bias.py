"""Add a row bias and a column bias to a matrix and scale by a rank-1 outer product:

    y[i, j] = (x[i, j] + r[i] + c[j]) * u[i] * v[j]

Exercises the different ways of lifting 1-D tiles to 2-D: newaxis indexing, ct.expand_dims,
ct.reshape and ct.broadcast_to.
"""

import cuda.tile as tile
import torch

BM = 32
BN = 64


@tile.kernel
def outer_bias_kernel(x, r, c, u, v, y, TM: tile.Constant[int], TN: tile.Constant[int]):
    """float32-only; one (TM, TN) tile per block."""
    bi = tile.bid(0)
    bj = tile.bid(1)
    xt = tile.load(x, index=(bi, bj), shape=(TM, TN), padding_mode=tile.PaddingMode.ZERO)
    rt = tile.load(r, index=(bi,), shape=(TM,), padding_mode=tile.PaddingMode.ZERO)
    col = tile.load(c, index=(bj,), shape=(TN,), padding_mode=tile.PaddingMode.ZERO)
    ut = tile.load(u, index=(bi,), shape=(TM,), padding_mode=tile.PaddingMode.ZERO)
    vt = tile.load(v, index=(bj,), shape=(TN,), padding_mode=tile.PaddingMode.ZERO)

    row_bias = tile.expand_dims(rt, axis=1)                    # (TM, 1)
    col_bias = tile.reshape(col, (1, TN))                      # (1, TN)
    scale = tile.broadcast_to(ut[:, None], (TM, TN)) * vt[None, :]
    out = (xt + row_bias + col_bias) * scale
    tile.store(y, index=(bi, bj), tile=out)


def outer_bias(x, r, c, u, v):
    """All tensors float32; x is (M, N), r and u are (M,), c and v are (N,)."""
    m, n = x.shape
    y = torch.empty_like(x)
    grid = (tile.cdiv(m, BM), tile.cdiv(n, BN), 1)
    tile.launch(torch.cuda.current_stream(), grid, outer_bias_kernel,
                (x, r, c, u, v, y, BM, BN))
    return y
