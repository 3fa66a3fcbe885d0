"""A gated residual update: residual stream plus gate times layer output, in float32.

The gate product is computed in the activations' dtype and bound to a name before the
add, whose other operand is the residual converted to float32. For float32 activations cuTile Python sees a product
with one use added to a float32 value and contracts the two into an `fma`; for float16 or
bfloat16 the product is converted to float32 first and the add stays an `addf`. The
translation therefore decides the contraction per element type (`kernel_f32`, ...).
"""

import cuda.tile as ct
import torch

TILE_N = 1024


@ct.kernel
def gated_residual_kernel(h, gate, residual, out, TILE_N: ct.Constant[int]):
    """out[r, :] = residual[r, :] + h[r, :] * gate[r, :], accumulated in float32."""
    row = ct.bid(0)
    col = ct.bid(1)
    ht = ct.load(h, index=(row, col), shape=(1, TILE_N))
    gt = ct.load(gate, index=(row, col), shape=(1, TILE_N))
    update = ht * gt
    stream = ct.load(residual, index=(row, col), shape=(1, TILE_N)).astype(ct.float32)
    ct.store(out, index=(row, col), tile=(update + stream).astype(out.dtype))


def gated_residual(h: torch.Tensor, gate: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """h, gate, residual: (rows, cols), all float32, float16 or bfloat16."""
    out = torch.empty_like(residual)
    grid = (h.shape[0], ct.cdiv(h.shape[1], TILE_N))
    ct.launch(torch.cuda.current_stream(), grid, gated_residual_kernel,
              (h, gate, residual, out, TILE_N))
    return out
