"""SwiGLU gate for a fused gate/up projection.

The MLP's first GEMM writes [gate | up] side by side into one (M, 2 * H) buffer. This kernel
reads both halves of a row and writes silu(gate) * up into an (M, H) output.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def sigmoid(x):
    return ct.truediv(1.0, 1.0 + ct.exp(-x), rounding_mode=ct.RoundingMode.APPROX,
                      flush_to_zero=True)


@ct.kernel(occupancy=2)
def swiglu_kernel(gate_up, out, hidden: int, BLOCK_H: ConstInt):
    """Block (row, j) handles columns [j*BLOCK_H, (j+1)*BLOCK_H) of one token."""
    row = ct.bid(0)
    col_block = ct.bid(1)
    n_col_blocks = ct.cdiv(hidden, BLOCK_H)

    gate = ct.load(gate_up, index=(row, col_block), shape=(1, BLOCK_H),
                   padding_mode=ct.PaddingMode.ZERO, latency=2)
    up = ct.load(gate_up, index=(row, col_block + n_col_blocks), shape=(1, BLOCK_H),
                 padding_mode=ct.PaddingMode.ZERO, latency=2)
    g = gate.astype(ct.float32)
    act = g * sigmoid(g) * up.astype(ct.float32)
    ct.store(out, index=(row, col_block), tile=act.astype(out.dtype), latency=2)


def swiglu(gate_up: torch.Tensor, block_h: int = 512) -> torch.Tensor:
    """gate_up: (M, 2H), bfloat16 or float16; H must be a multiple of block_h."""
    m, two_h = gate_up.shape
    hidden = two_h // 2
    assert hidden % block_h == 0
    out = torch.empty((m, hidden), dtype=gate_up.dtype, device=gate_up.device)
    grid = (m, hidden // block_h, 1)
    ct.launch(torch.cuda.current_stream(), grid, swiglu_kernel, (gate_up, out, hidden, block_h))
    return out
