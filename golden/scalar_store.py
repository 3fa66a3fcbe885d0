"""Storing scalars: a value read as one element, a runtime sum, and a number.

Each block reads its element of `x` as a scalar (`shape=()`), stores it plus the scalar
argument `bias` into `y` and writes the number 1 into `flags`: each scalar is stored as a
one-element tile, as cuTile Python stores it.
"""

import cuda.tile as ct
import torch


@ct.kernel
def scalar_store_kernel(x, y, flags, bias: float):
    bid = ct.bid(0)
    v = ct.load(x, index=(bid,), shape=())
    ct.store(y, index=(bid,), tile=v + bias)
    ct.store(flags, index=(bid,), tile=1)


def scalar_store(x: torch.Tensor, bias: float) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dtype == torch.float32
    y = torch.empty_like(x)
    flags = torch.zeros(x.shape, dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), scalar_store_kernel,
              (x, y, flags, float(bias)))
    return y, flags
