"""2-D matrix transpose, out = x.T.

Block (i, j) loads input tile (i, j) and stores it, transposed, to output tile (j, i).
"""

import cuda.tile as ct
import torch

TILE = 64


@ct.kernel
def transpose_kernel(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    """Tile-level transpose with ct.transpose; works for any element type."""
    bi = ct.bid(0)
    bj = ct.bid(1)
    t = ct.load(x, index=(bi, bj), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(bj, bi), tile=ct.transpose(t))


@ct.kernel
def transpose_order_kernel(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    """Same result, but the transposition is folded into the load with order=(1, 0)."""
    bi = ct.bid(0)
    bj = ct.bid(1)
    # Tile (bj, bi) of the (N, M) view of x, i.e. x[bi*TM:.., bj*TN:..] read column-major.
    t = ct.load(x, index=(bj, bi), shape=(TN, TM), order=(1, 0))
    ct.store(out, index=(bj, bi), tile=t)


def transpose(x: torch.Tensor, fold_into_load: bool = False) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((n, m), dtype=x.dtype, device=x.device)
    grid = (ct.cdiv(m, TILE), ct.cdiv(n, TILE))
    kernel = transpose_order_kernel if fold_into_load else transpose_kernel
    ct.launch(torch.cuda.current_stream(), grid, kernel, (x, out, TILE, TILE))
    return out
