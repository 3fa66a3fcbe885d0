"""Row sharpening: raise each probability row to the power 2**STEPS, renormalize, and mix
the result with the original row.

The helper squares its parameter in a loop. Python passes the tile by value: rebinding the
parameter inside the helper leaves the caller's `p` as it was, and the kernel reads `p`
again after the call. The helper's loop therefore carries a copy of its own, not the
caller's variable.
"""

import cuda.tile as ct
import torch

TILE = 1024
STEPS = 3


def _repeated_square(a, steps):
    """a ** (2 ** steps), one squaring per step."""
    for _ in range(steps):
        a = a * a
    return a


@ct.kernel
def sharpen_rows_kernel(x, y, STEPS: ct.Constant[int], TILE: ct.Constant[int]):
    """y[r] = (x[r] + sharpened x[r]) / 2, where sharpened = x**(2**STEPS), renormalized."""
    row = ct.bid(0)
    p = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
    p = p.astype(ct.float32)
    sharp = _repeated_square(p, STEPS)
    sharp = sharp / ct.sum(sharp, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=((p + sharp) * 0.5).astype(y.dtype))


def sharpen_rows(x: torch.Tensor) -> torch.Tensor:
    """x: (rows, TILE) float32, float16 or bfloat16, each row a distribution."""
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), sharpen_rows_kernel,
              (x, y, STEPS, TILE))
    return y
