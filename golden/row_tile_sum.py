"""Row sums over column tiles, with the tile index kept in a counter the loop increments.

`col = 0` before the loop and `col += 1` inside make `col` a loop-carried value (cuTile Python
carries it through the loop), not the number 0.
"""

import cuda.tile as ct
import torch

TILE = 128


@ct.kernel
def row_tile_sum_kernel(x, y, n_cols: int, TILE: ct.Constant[int]):
    """y[r, :] = sum over the column tiles c of x[r, c * TILE:(c + 1) * TILE]."""
    row = ct.bid(0)
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    col = 0
    for start in range(0, n_cols, TILE):
        acc += ct.load(x, index=(row, col), shape=(1, TILE)).astype(ct.float32)
        col += 1
    ct.store(y, index=(row, 0), tile=acc.astype(y.dtype))


def row_tile_sum(x: torch.Tensor) -> torch.Tensor:
    """x: (rows, cols) float32 or float16, cols a multiple of TILE."""
    y = torch.empty((x.shape[0], TILE), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), row_tile_sum_kernel,
              (x, y, x.shape[1], TILE))
    return y
