"""Reference kernels for the IR-check tests.

The tests never import this file: reference.py lifts each kernel out of it. The `numpy`
import and the module-level `raise` prove that: importing or running the file would fail.
"""

import math

import cuda.tile as ct
import numpy as np
from cuda.tile import PaddingMode

SCALE = 0.5
LOG2E = 1.0 / math.log(2.0)


def _scaled(t):
    return t * SCALE


@ct.kernel
def vadd(a, b, c, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ta = ct.load(a, index=(bid,), shape=(TILE,))
    tb = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=ta + tb)


@ct.kernel
def softmax(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))


@ct.kernel
def matmul(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(TM, TK))
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(nk):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def exp2_scale(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=ct.exp2(_scaled(t) * LOG2E, flush_to_zero=True))


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=t * 2.0)


@ct.kernel
def split_store(x, y, z, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=t * 2.0)
    ct.store(z, index=(bid,), tile=t + 1.0)


def host_buffer(n):
    return np.zeros(n)


raise RuntimeError("tests/ircheck_kernels/base.py must never be executed")
