"""Kernels of base.py with one deliberate change each; every one must FAIL the IR check."""

import math

import cuda.tile as ct
from cuda.tile import PaddingMode

SCALE = 0.5
LOG2E = 1.0 / math.log(2.0)


def _scaled(t):
    return t * SCALE


@ct.kernel
def vadd_half_tile(a, b, c, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    ta = ct.load(a, index=(bid,), shape=(TILE // 2,))
    tb = ct.load(b, index=(bid,), shape=(TILE // 2,))
    ct.store(c, index=(bid,), tile=ta + tb)


@ct.kernel
def exp2_scale_no_ftz(x, y, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=ct.exp2(_scaled(t) * LOG2E))


@ct.kernel
def softmax_max_axis0(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    m = ct.max(t, axis=0, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))


@ct.kernel
def softmax_sum_not_max(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    m = ct.sum(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))


@ct.kernel
def softmax_no_padding(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N))
    t = t.astype(ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))


@ct.kernel
def softmax_exp2(x, y, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    e = ct.exp2(t - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=(e / s).astype(y.dtype))


@ct.kernel
def matmul_swapped_bounds(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int],
                          TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(TM, TK))
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(nk, 0):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def matmul_f16_acc(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(TM, TK))
    acc = ct.full((TM, TN), 0, dtype=ct.float16)
    for k in range(nk):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def split_store_missing(x, y, z, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=t * 2.0)


@ct.kernel
def split_store_extra(x, y, z, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(y, index=(bid,), tile=t * 2.0)
    ct.store(z, index=(bid,), tile=t + 1.0)
    ct.store(z, index=(bid + 1,), tile=t + 1.0)
