"""Kernels written the way TileGym writes them, for the lifting tests.

A project's own decorator stacked outside `@ct.kernel` (a host-side wrapper), torch type hints
on the parameters, and torch / numpy dtypes read inside kernels and helpers. The tests never
import this file: `tilegym` does not exist here, and the module-level `raise` would fail.
Each kernel has a twin in base.py (or below) written with cuda.tile names only.
"""

from __future__ import annotations

import cuda.tile as ct
import numpy as np
import torch
from numpy import float16 as half
from tilegym.experimental import experimental_kernel

ACC_DTYPE = torch.float32


def _widen(t):
    return t.astype(np.float32)


@experimental_kernel
@ct.kernel
def vadd(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor,
         TILE: ct.Constant[int]) -> torch.Tensor:
    bid = ct.bid(0)
    ta = ct.load(a, index=(bid,), shape=(TILE,))
    tb = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=ta + tb)


@experimental_kernel
@ct.kernel(occupancy=2)
def cast_host_dtypes(x: torch.Tensor, y: torch.Tensor, TILE: ct.Constant[int]) -> None:
    bid = ct.bid(0)
    t = _widen(ct.load(x, index=(bid,), shape=(TILE,)))
    acc = ct.full((TILE,), 0, dtype=ACC_DTYPE) + t.astype(torch.bfloat16).astype(np.float32)
    ct.store(y, index=(bid,), tile=(acc * 2.0).astype(half).astype(torch.float32))


@ct.kernel(occupancy=2)
def cast_tile_dtypes(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,)).astype(ct.float32)
    acc = ct.full((TILE,), 0, dtype=ct.float32) + t.astype(ct.bfloat16).astype(ct.float32)
    ct.store(y, index=(bid,), tile=(acc * 2.0).astype(ct.float16).astype(ct.float32))


@ct.kernel(occupancy=2)
def cast_other_dtypes(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,)).astype(ct.float32)
    acc = ct.full((TILE,), 0, dtype=ct.float32) + t.astype(ct.float16).astype(ct.float32)
    ct.store(y, index=(bid,), tile=(acc * 2.0).astype(ct.bfloat16).astype(ct.float32))


raise RuntimeError("tests/ircheck_kernels/host_wrapped.py must never be executed")
