"""Python's `%` on floats: the remainder takes the divisor's sign (`-1.5 % 4.0 == 2.5`), where
Tile IR's `remf` is C's truncated remainder; cuTile Python corrects `remf` by the divisor
where the signs differ, and so does the translation, on tiles and on scalars (0-d tiles)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def wrap_phase_kernel(x, y, period: float, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    half = period % 2.0
    ct.store(y, index=(bid,), tile=(t % period) - half)


def wrap_phase(x: torch.Tensor, period: float, tile: int = 256) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile), 1, 1),
              wrap_phase_kernel, (x, y, period, tile))
    return y
