"""A bool constant of which cuTile Python accepts only one value (`False` asks for a tile of
3 elements; tile sizes are powers of two), launched by host code with the accepted value."""

import cuda.tile as ct
import torch


@ct.kernel
def copy_kernel(src, dst, TILE: ct.Constant[int], WIDE: ct.Constant[bool]):
    size = TILE if WIDE else 3
    tile = ct.load(src, index=(ct.bid(0),), shape=(size,))
    ct.store(dst, index=(ct.bid(0),), tile=tile)


def copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 128),), copy_kernel,
              (x, y, 128, True))
    return y
