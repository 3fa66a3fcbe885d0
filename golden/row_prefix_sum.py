"""Inclusive prefix sums along each row of a (ROWS, TILE) block: `ct.cumsum(..., axis=1)`.
cuTile Rust 0.5.0 scans along dimension 0 only, so the translation swaps the axes around
the scan."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_prefix_sum_kernel(x, out, ROWS: ConstInt, TILE: ConstInt):
    block = ct.bid(0)
    t = ct.load(x, index=(block, 0), shape=(ROWS, TILE), padding_mode=ct.PaddingMode.ZERO)
    sums = ct.cumsum(t.astype(ct.float32), axis=1)
    ct.store(out, index=(block, 0), tile=sums.astype(out.dtype))


def row_prefix_sum(x: torch.Tensor, rows: int = 4) -> torch.Tensor:
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], rows), 1, 1),
              row_prefix_sum_kernel, (x, out, rows, x.shape[1]))
    return out
