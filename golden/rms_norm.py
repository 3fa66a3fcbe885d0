"""RMSNorm: y = x / sqrt(mean(x^2) + eps) * (offset + w).

Gemma-style models store the weight as (w - 1); the OFFSET_ONE flag selects the (1 + w) form at
compile time.
"""

import cuda.tile as ct
import torch


@ct.kernel
def rms_norm_kernel(x, w, y, n_cols: int, eps: float,
                    TILE_N: ct.Constant[int], OFFSET_ONE: ct.Constant[bool]):
    """Normalize one row per block; float32 statistics, output in y's dtype."""
    row = ct.bid(0)
    xt = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    xf = xt.astype(ct.float32)
    mean_sq = ct.sum(xf * xf, axis=-1, keepdims=True) / n_cols
    inv_rms = ct.rsqrt(mean_sq + eps)

    wt = ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO)
    wf = wt.astype(ct.float32)
    if OFFSET_ONE:
        scale = wf + 1.0
    else:
        scale = wf
    out = xf * inv_rms * ct.reshape(scale, (1, TILE_N))
    ct.store(y, index=(row, 0), tile=out.astype(y.dtype))


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6,
             offset_one: bool = False) -> torch.Tensor:
    """x: (M, N) float32 or bfloat16; weight: (N,) of the same dtype."""
    m, n = x.shape
    tile_n = 1 << (n - 1).bit_length()
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (m,), rms_norm_kernel,
              (x, weight, y, n, eps, tile_n, offset_one))
    return y
