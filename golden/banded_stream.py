"""A row block streamed over its column tiles, with three kinds of stores in the loop.

`y` is written once per step at the loop's own index: each step owns its tile, and cuTile
Python leaves those stores unordered (a parallel store). `band` is written only for the
first `n_band` steps, under a runtime `if`, and `pairs` at an index computed from the loop
variable: cuTile Python orders each of those stores after the previous one through a token
the loop carries, and the translation carries the same token (`store_view_raw` with the
array's token, reassigned by each store).
"""

import cuda.tile as ct
import torch

TILE = 128


@ct.kernel
def banded_stream_kernel(x, y, band, pairs, n_band: int, TILE: ct.Constant[int]):
    """y = 2x tile by tile; band = x for the first n_band tiles; pairs[j // 2] = the sum of
    tiles j and j+1 (even j), written at every step."""
    row = ct.bid(0)
    n = ct.num_tiles(x, axis=1, shape=(1, TILE))
    for j in range(n):
        t = ct.load(x, index=(row, j), shape=(1, TILE))
        ct.store(y, index=(row, j), tile=t * 2)
        if j < n_band:
            ct.store(band, index=(row, j), tile=t)
        nxt = ct.load(x, index=(row, j + 1), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(pairs, index=(row, j // 2), tile=t + nxt)


def banded_stream(x: torch.Tensor, n_band: int) -> tuple[torch.Tensor, torch.Tensor,
                                                         torch.Tensor]:
    """x: (rows, cols) float32 or float16, cols a multiple of 2 * TILE."""
    y = torch.empty_like(x)
    band = torch.zeros_like(x)
    pairs = torch.empty((x.shape[0], x.shape[1] // 2), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), banded_stream_kernel,
              (x, y, band, pairs, n_band, TILE))
    return y, band, pairs
