"""Scatters a flat block of values into a (rows, N) matrix, wrapping the flat index with
Python's `%` on an integer tile (floor modulo), then scatters a second correction into the
same matrix: the second scatter is ordered after the first through its token."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def wrapped_scatter_kernel(values, out, N: ConstInt, TILE: ConstInt):
    block = ct.bid(0)
    flat = block * TILE + ct.arange(TILE, dtype=ct.int32)
    cols = flat % N
    rows = flat // N
    v = ct.load(values, index=(block,), shape=(TILE,))
    ct.scatter(out, (rows, cols), v)
    ct.scatter(out, (rows, cols), v * 0.5)


def wrapped_scatter(values: torch.Tensor, n: int, tile: int = 256) -> torch.Tensor:
    out = torch.empty((values.shape[0] // n, n), dtype=values.dtype, device=values.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(values.shape[0], tile), 1, 1),
              wrapped_scatter_kernel, (values, out, n, tile))
    return out
