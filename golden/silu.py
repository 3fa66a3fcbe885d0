"""SiLU (swish): y = x * sigmoid(x) = x / (1 + exp(-x)).

The division uses the approximate reciprocal path with flush-to-zero, which is what production
activation kernels do; the error is far below bf16 resolution.
"""

import cuda.tile as ct
import torch

TILE = 1024


@ct.kernel
def silu_kernel(x, y, TILE_SIZE: ct.Constant[int]):
    """Flat 1-D SiLU; dtype-generic (float32 / float16 / bfloat16)."""
    pid = ct.bid(0)
    xt = ct.load(x, index=(pid,), shape=(TILE_SIZE,), padding_mode=ct.PaddingMode.ZERO,
                 allow_tma=False)
    xf = ct.astype(xt, ct.float32)
    denom = 1.0 + ct.exp(-xf)
    out = ct.truediv(xf, denom, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
    ct.store(y, index=(pid,), tile=ct.astype(out, y.dtype), allow_tma=False)


def silu(x: torch.Tensor) -> torch.Tensor:
    flat = x.contiguous().view(-1)
    out = torch.empty_like(flat)
    grid = (ct.cdiv(flat.numel(), TILE),)
    ct.launch(torch.cuda.current_stream(), grid, silu_kernel, (flat, out, TILE))
    return out.view_as(x)
