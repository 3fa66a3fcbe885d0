"""Alternating-sign column sums: a loop-carried tile reassigned inside a runtime `if`.

out[0, j] = x[0, j] - x[1, j] + x[2, j] - ... over the rows of x; one column tile per block.
The odd-row correction rebinds the accumulator inside an `if` on the loop index.
"""

import cuda.tile as ct
import torch

TILE = 256


@ct.kernel
def alternating_rows_kernel(x, out, ROWS: ct.Constant[int], TILE_N: ct.Constant[int]):
    col = ct.bid(0)
    acc = ct.zeros((1, TILE_N), dtype=ct.float32)
    for i in range(ROWS):
        row = ct.astype(ct.load(x, index=(i, col), shape=(1, TILE_N)), ct.float32)
        acc = acc + row
        if i % 2 == 1:
            acc = acc - 2.0 * row
    ct.store(out, index=(0, col), tile=ct.astype(acc, out.dtype))


def alternating_rows(x: torch.Tensor) -> torch.Tensor:
    """x: (rows, cols) float32/float16/bfloat16; returns the (1, cols) alternating sums."""
    rows, cols = x.shape
    out = torch.empty((1, cols), dtype=x.dtype, device=x.device)
    grid = (ct.cdiv(cols, TILE),)
    ct.launch(torch.cuda.current_stream(), grid, alternating_rows_kernel, (x, out, rows, TILE))
    return out
