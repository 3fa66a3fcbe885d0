"""Gram matrix G = X^T X of a tall float32 matrix X (N samples x D features).

Each block owns one (TD, TD) tile of G and streams over the samples in TS-row chunks, forming
X[:, i]^T @ X[:, j] with the `@` operator on transposed tiles. Diagonal tiles use the same tile
twice.
"""

import cuda.tile as ct
import torch

TILE_SAMPLES = 64
TILE_FEATURES = 64


@ct.kernel
def gram_kernel(X, G, n_samples: int, TS: ct.Constant[int], TD: ct.Constant[int]):
    """G[i-tile, j-tile] = sum over sample chunks of Xi^T @ Xj (float32 throughout)."""
    ti = ct.bid(0)
    tj = ct.bid(1)
    acc = ct.zeros((TD, TD), dtype=ct.float32)
    for s in range(ct.cdiv(n_samples, TS)):
        xi = ct.load(X, index=(s, ti), shape=(TS, TD), padding_mode=ct.PaddingMode.ZERO)
        if ti == tj:
            xj = xi
        else:
            xj = ct.load(X, index=(s, tj), shape=(TS, TD), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + xi.transpose() @ xj
    ct.store(G, index=(ti, tj), tile=acc)


def gram(x: torch.Tensor) -> torch.Tensor:
    """x: (N, D) float32 -> (D, D) float32."""
    n, d = x.shape
    g = torch.empty((d, d), dtype=torch.float32, device=x.device)
    grid = (ct.cdiv(d, TILE_FEATURES), ct.cdiv(d, TILE_FEATURES))
    ct.launch(torch.cuda.current_stream(), grid, gram_kernel,
              (x, g, n, TILE_SAMPLES, TILE_FEATURES))
    return g
