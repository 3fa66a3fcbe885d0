"""Column sums of a matrix by atomic accumulation: each block adds its row's tiles into a
single output row through `tiled_view(...).atomic_store_add` (a relaxed, device-scope
atomic add through a partition view)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def column_accumulate_kernel(x, acc, n_cols: int, TILE: ConstInt):
    row = ct.bid(0)
    for j in range(ct.cdiv(n_cols, TILE)):
        t = ct.load(x, index=(row, j), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        acc.tiled_view((1, TILE)).atomic_store_add((0, j), t)


def column_sums(x: torch.Tensor, tile: int = 128) -> torch.Tensor:
    acc = torch.zeros((1, x.shape[1]), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), column_accumulate_kernel,
              (x, acc, x.shape[1], tile))
    return acc
