"""An in-place running sum over the column tiles of a row block: step j reads the tile step
j - 1 wrote.

cuTile Python orders each load of `x` after the last store to it (a token the loop carries)
and each store after the loads before it. The translation chains the same way: the loads go
through `load_view_raw` waiting on `x`'s last store, their completion tokens are joined into
`x`'s last-access token, and each store waits on that. Without it the next step's load is free
to run before the previous step's store (tileiras then drops the barriers between them).
"""

import cuda.tile as ct
import torch

TILE = 128


@ct.kernel
def inplace_prefix_kernel(x, n_tiles: int, TILE: ct.Constant[int]):
    """x[row, j] += x[row, j - 1] for j = 1 .. n_tiles - 1, in order."""
    row = ct.bid(0)
    for j in range(1, n_tiles):
        prev = ct.load(x, index=(row, j - 1), shape=(1, TILE))
        cur = ct.load(x, index=(row, j), shape=(1, TILE))
        ct.store(x, index=(row, j), tile=cur + prev)


def inplace_prefix(x: torch.Tensor) -> torch.Tensor:
    """x: (rows, n * TILE) float32 or float16, updated in place and returned."""
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), inplace_prefix_kernel,
              (x, x.shape[1] // TILE, TILE))
    return x
