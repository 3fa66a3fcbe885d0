"""Kernels of base.py rewritten without changing meaning; each must PASS the IR check."""

import math

import cuda.tile as ct
from cuda.tile import PaddingMode as PM

SCALE = 0.5
LOG2E = 1.0 / math.log(2.0)


def _scaled(t):
    return t * SCALE


@ct.kernel
def vadd_renamed(lhs, rhs, out, BLOCK: ct.Constant[int]):
    block = ct.bid(0)
    left = ct.load(lhs, index=(block,), shape=(BLOCK,))
    right = ct.load(rhs, index=(block,), shape=(BLOCK,))
    ct.store(out, index=(block,), tile=left + right)


@ct.kernel
def vadd_reordered(a, b, c, TILE: ct.Constant[int]):
    tb = ct.load(b, index=(ct.bid(0),), shape=(TILE,))
    ta = ct.load(a, index=(ct.bid(0),), shape=(TILE,))
    ct.store(c, index=(ct.bid(0),), tile=tb + ta)


@ct.kernel
def vadd_dead_code(a, b, c, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ta = ct.load(a, index=(bid,), shape=(TILE,))
    unused = ct.exp(ta) * 3.0  # noqa: F841 - the extra computation under test
    tb = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=ta + tb)


@ct.kernel
def softmax_restructured(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PM.NEG_INF).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, index=(row, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(y.dtype))


@ct.kernel
def split_store_swapped(x, y, z, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(z, index=(bid,), tile=t + 1.0)
    ct.store(y, index=(bid,), tile=t * 2.0)
