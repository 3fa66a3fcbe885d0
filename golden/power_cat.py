"""Squared and square-rooted halves joined side by side: `**` and `ct.cat`.

Each block loads two (TM, 32) tiles of a row band, raises the first to the power 2 and the
second to 0.5 (Tile IR `pow`, as cuTile Python writes `**` on floats), and stores the two
joined along the last axis as one (TM, 64) tile.
"""

import cuda.tile as ct
import torch

TM = 16


@ct.kernel
def power_cat_kernel(x, y, TM: ct.Constant[int]):
    bid = ct.bid(0)
    left = ct.load(x, index=(bid, 0), shape=(TM, 32))
    right = ct.load(x, index=(bid, 1), shape=(TM, 32))
    joined = ct.cat((left ** 2, right ** 0.5), axis=-1)
    ct.store(y, index=(bid, 0), tile=joined)


def power_cat(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype in (torch.float32, torch.float16)
    y = torch.empty((x.shape[0], 64), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // TM,), power_cat_kernel, (x, y, TM))
    return y
