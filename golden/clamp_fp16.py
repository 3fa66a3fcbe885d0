"""Clamp a float16 activation into [lo, hi]: a kernel fixed to one element type.

Used before an fp8 cast: values are clipped to the representable range of the target format.
The kernel is written for float16 only and builds its bounds with ct.full in that dtype.
"""

import cuda.tile as ct
import torch

FP8_E4M3_MAX = 448.0


@ct.kernel
def clamp_fp16_kernel(x, y, LO: ct.Constant[float], HI: ct.Constant[float],
                      TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    """y = min(max(x, LO), HI) element-wise; x and y are float16."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(TILE_M, TILE_N))
    lo = ct.full((TILE_M, TILE_N), LO, dtype=ct.float16)
    hi = ct.full((TILE_M, TILE_N), HI, dtype=ct.float16)
    clipped = ct.minimum(ct.maximum(t, lo), hi)
    ct.store(y, index=(i, j), tile=clipped)


def clamp_for_fp8(x: torch.Tensor) -> torch.Tensor:
    """x: (M, N) float16."""
    if x.dtype != torch.float16:
        raise TypeError("clamp_for_fp8 is specialized for float16")
    m, n = x.shape
    y = torch.empty_like(x)
    grid = (ct.cdiv(m, 32), ct.cdiv(n, 128))
    ct.launch(torch.cuda.current_stream(), grid, clamp_fp16_kernel,
              (x, y, -FP8_E4M3_MAX, FP8_E4M3_MAX, 32, 128))
    return y
