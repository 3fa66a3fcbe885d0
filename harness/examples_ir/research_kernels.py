"""Small cuTile Python kernels, one construct each, for IR research (see IDIOMS.md).

`export_py_ir.py` compiles each entry of `SPECS` to Tile IR text; `research.rs` holds the hand
translations compiled by the harness with the same specialization.
"""

import math

import cuda.tile as ct

LOG2E = math.log2(math.e)
NEG_INF = -math.inf


@ct.kernel
def saxpy(alpha: float, x, y, TILE: ct.Constant[int]):
    block = ct.bid(0)
    xt = ct.load(x, index=(block,), shape=(TILE,))
    yt = ct.load(y, index=(block,), shape=(TILE,))
    ct.store(y, index=(block,), tile=alpha * xt + yt)


@ct.kernel(occupancy=4)
def scale_lit(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(TILE,))
    ct.store(y, index=(b,), tile=t * 0.5 + 1.0)


@ct.kernel
def silu(x, y, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    xt = ct.load(x, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO,
                 allow_tma=False)
    xf = ct.astype(xt, ct.float32)
    denom = 1.0 + ct.exp(-xf)
    out = ct.truediv(xf, denom, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
    ct.store(y, index=(pid,), tile=ct.astype(out, y.dtype), allow_tma=False)


@ct.kernel
def online_softmax(x, y, n_cols: int, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    num_chunks = ct.cdiv(n_cols, TILE_N)
    running_max = ct.full((1, 1), NEG_INF, dtype=ct.float32)
    running_sum = ct.zeros((1, 1), dtype=ct.float32)
    for chunk in range(num_chunks):
        t = ct.load(x, index=(row, chunk), shape=(1, TILE_N),
                    padding_mode=ct.PaddingMode.NEG_INF, latency=4)
        t = t.astype(ct.float32) * LOG2E
        new_max = ct.maximum(running_max, ct.max(t, axis=1, keepdims=True))
        correction = ct.exp2(running_max - new_max, flush_to_zero=True)
        p = ct.exp2(t - new_max, flush_to_zero=True)
        running_sum = running_sum * correction + ct.sum(p, axis=1, keepdims=True)
        running_max = new_max
    inv_sum = ct.truediv(1.0, running_sum, rounding_mode=ct.RoundingMode.APPROX,
                         flush_to_zero=True)
    for chunk in range(num_chunks):
        t = ct.load(x, index=(row, chunk), shape=(1, TILE_N),
                    padding_mode=ct.PaddingMode.NEG_INF, latency=4)
        p = ct.exp2(t.astype(ct.float32) * LOG2E - running_max, flush_to_zero=True)
        ct.store(y, index=(row, chunk), tile=(p * inv_sum).astype(y.dtype))


@ct.kernel
def layer_norm_stats(X, Mean, Rstd, N: int, eps: ct.Constant[float],
                     BLOCK_N: ct.Constant[int]):
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, BLOCK_N), padding_mode=ct.PaddingMode.ZERO)
    x = x.astype(ct.float32)
    mean = ct.sum(x, axis=1) / N
    cols = ct.arange(BLOCK_N, dtype=ct.int32)
    in_row = cols[None, :] < N
    centered = ct.where(in_row, x - mean[:, None], 0.0)
    var = ct.sum(centered * centered, axis=1) / N
    rstd = ct.rsqrt(var + eps)
    ct.store(Mean, index=(row,), tile=mean)
    ct.store(Rstd, index=(row,), tile=rstd)


@ct.kernel
def persistent_scale(x, y, n_tiles: int, TILE: ct.Constant[int]):
    for t in range(ct.bid(0), n_tiles, ct.num_blocks(0)):
        v = ct.load(x, index=(t,), shape=(TILE,), latency=3)
        ct.store(y, index=(t,), tile=v * 2.0)


@ct.kernel
def transpose(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TM, TN))
    ct.store(y, index=(bn, bm), tile=ct.transpose(t))


@ct.kernel
def transpose_order(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bn, bm), shape=(TN, TM), order=(1, 0))
    ct.store(y, index=(bn, bm), tile=t)


@ct.kernel
def clamp_flag(x, y, lo: ct.Constant[float], hi: ct.Constant[float], TILE: ct.Constant[int],
               SHIFT: ct.Constant[bool]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(TILE,))
    if SHIFT:
        t = t + 1.0
    ct.store(y, index=(b,), tile=ct.minimum(ct.maximum(t, lo), hi))


@ct.kernel
def gelu_tanh(x, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(x, index=(b,), shape=(TILE,)).astype(ct.float32)
    inner = 0.7978845608 * (t + 0.044715 * t * t * t)
    out = 0.5 * t * (1.0 + ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX))
    ct.store(y, index=(b,), tile=out.astype(y.dtype))


@ct.kernel
def reduce_axis0(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    bn = ct.bid(0)
    t = ct.load(x, index=(0, bn), shape=(TM, TN))
    ct.store(y, index=(bn,), tile=ct.sum(t, axis=0))


@ct.kernel
def int8_dequant(q, scale, y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    t = ct.load(q, index=(b,), shape=(TILE,)).astype(ct.float32)
    s = ct.load(scale, index=(b,), shape=(TILE,))
    ct.store(y, index=(b,), tile=(t * s).astype(y.dtype))


@ct.kernel
def cumsum_i32(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(TILE,))
    inclusive = ct.cumsum(t, axis=0)
    ct.store(y, index=(0,), tile=inclusive - t)


@ct.kernel
def bmm(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    b = ct.bid(2)
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, TM, TK))):
        a = ct.load(A, index=(b, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        bt = ct.load(B, index=(b, bn, k), shape=(1, TK, TN), order=(0, 2, 1),
                     padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, bt, acc)
    ct.store(C, index=(b, bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def runtime_if(x, y, TILE: ct.Constant[int]):
    ti = ct.bid(0)
    tj = ct.bid(1)
    t = ct.load(x, index=(ti,), shape=(TILE,))
    if ti == tj:
        t = t * 2.0
    else:
        t = ct.abs(t)
    ct.store(y, index=(ti,), tile=ct.floor(t))


@ct.kernel
def hash_bits(y, seed: int, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    offs = pid * TILE + ct.arange(TILE, dtype=ct.int32)
    seed_mix = ct.full((TILE,), seed, dtype=ct.uint32) * 0x9E3779B9
    key = offs.astype(ct.uint32) ^ seed_mix
    key = key ^ (key >> 16)
    u = ct.bitwise_rshift(key, 8).astype(ct.float32)
    ct.store(y, index=(pid,), tile=u.astype(ct.int32))


@ct.kernel
def split_heads(x, y, H: ct.Constant[int], TS: ct.Constant[int], D: ct.Constant[int]):
    b = ct.bid(0)
    s = ct.bid(1)
    t = ct.load(x, index=(b, s, 0), shape=(1, TS, H * D))
    t4 = ct.reshape(t, (1, TS, H, D))
    ct.store(y, index=(b, 0, s, 0), tile=ct.permute(t4, (0, 2, 1, 3)))
