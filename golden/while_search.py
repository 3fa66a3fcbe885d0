"""Walk a row of blocks until a running sum passes a threshold: `while` with `break` and
`continue`.

Each block of the output row accumulates input tiles one after another, skipping the tile at
the block's own position, and stops early once the sum's first element passes `limit`. The
`while` loop and its jumps compile to a Tile IR `loop` on both sides.
"""

import cuda.tile as ct
import torch

TILE = 128


@ct.kernel
def while_search_kernel(x, out, n_tiles: int, limit: float, TILE: ct.Constant[int]):
    row = ct.bid(0)
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    k = 0
    while k < n_tiles:
        t = ct.load(x, index=(row, k), shape=(1, TILE))
        k += 1
        if k == row + 1:
            continue
        acc = acc + t.astype(ct.float32)
        if ct.max(acc) > limit:
            break
    ct.store(out, index=(row, 0), tile=acc.astype(out.dtype))


def while_search(x: torch.Tensor, limit: float) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, TILE), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (rows,), while_search_kernel,
              (x, out, cols // TILE, float(limit), TILE))
    return out
