"""SAXPY: y = alpha * x + y, with `alpha` passed as a runtime float scalar.

`alpha` is an ordinary kernel argument (not a compile-time constant), so one compiled kernel
serves every value of alpha.
"""

import cuda.tile as ct
import torch

TILE_SIZE = 2048


@ct.kernel
def saxpy_kernel(alpha: float, x, y, TILE: ct.Constant[int]):
    """In-place y <- alpha * x + y over float32 vectors."""
    block = ct.bid(0)
    xt = ct.load(x, index=(block,), shape=(TILE,))
    yt = ct.load(y, index=(block,), shape=(TILE,))
    out = alpha * xt + yt
    ct.store(y, index=(block,), tile=out)


def saxpy(alpha: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Single-precision only, as the name says."""
    if x.dtype != torch.float32 or y.dtype != torch.float32:
        raise TypeError("saxpy expects float32 tensors")
    n = x.shape[0]
    grid = (ct.cdiv(n, TILE_SIZE),)
    ct.launch(torch.cuda.current_stream(), grid, saxpy_kernel, (float(alpha), x, y, TILE_SIZE))
    return y
