"""Row sums over column blocks where the first block counts twice (`if k == 0` inside the
loop). When the row is a single block, the cuTile Rust compiler folds that `if` from the
loop's bounds while cuTile Python keeps it: the IR check folds it too."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def first_block_boost_kernel(x, out, N: ConstInt, TILE: ConstInt):
    row = ct.bid(0)
    acc = ct.full((1, TILE), 0.0, dtype=ct.float32)
    for k in range(N // TILE):
        t = ct.load(x, index=(row, k), shape=(1, TILE)).astype(ct.float32)
        if k == 0:
            t = t * 2.0
        acc = acc + t
    ct.store(out, index=(row, 0), tile=acc.astype(out.dtype))


def first_block_boost(x: torch.Tensor, tile: int = 256) -> torch.Tensor:
    out = torch.empty((x.shape[0], tile), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), first_block_boost_kernel,
              (x, out, x.shape[1], tile))
    return out
