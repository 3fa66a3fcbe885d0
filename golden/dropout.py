"""Inference-reproducible dropout with a counter-based hash instead of a stateful RNG.

Each element's keep/drop decision is a pure function of (seed, flat index): a few rounds of
xor-shift-multiply mixing on uint32, then the top 24 bits become a uniform in [0, 1)
that is compared against p.
Kept elements are scaled by 1 / (1 - p).
"""

import cuda.tile as ct
import torch

BLOCK = 1024
INV_2_24 = 1.0 / (1 << 24)


def hash_u32(x):
    """Integer finalizer (lowbias32-style); x is a uint32 tile."""
    x = x ^ (x >> 16)
    x = x * 0x7FEB352D
    x = x ^ (x >> 15)
    x = x * 0x846CA68B
    x = x ^ (x >> 16)
    return x


@ct.kernel
def dropout_kernel(x, y, seed: int, p: ct.Constant[float], TILE: ct.Constant[int]):
    """y = where(keep, x / (1 - p), 0) with keep = hash(seed, i) / 2^32 >= p."""
    pid = ct.bid(0)
    offs = pid * TILE + ct.arange(TILE, dtype=ct.int32)
    seed_mix = ct.full((TILE,), seed, dtype=ct.uint32) * 0x9E3779B9
    key = offs.astype(ct.uint32) ^ seed_mix
    bits = hash_u32(key)
    uniform = ct.bitwise_rshift(bits, 8).astype(ct.float32) * INV_2_24   # in [0, 1)
    keep = uniform >= p

    xt = ct.load(x, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    scaled = xt.astype(ct.float32) * (1.0 / (1.0 - p))
    out = ct.where(keep, scaled, 0.0)
    ct.store(y, index=(pid,), tile=out.astype(y.dtype))


def dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """x: any shape, float32/float16/bfloat16; p in [0, 1)."""
    flat = x.reshape(-1)
    y = torch.empty_like(flat)
    grid = (ct.cdiv(flat.numel(), BLOCK),)
    ct.launch(torch.cuda.current_stream(), grid, dropout_kernel, (flat, y, seed, p, BLOCK))
    return y.view_as(x)
