"""Subtracts each row's mean. Two things decided by constants: the mean gets a column axis
only when a block holds several rows (`if ROWS != 1`, so the translation pins ROWS = 1 in
the other entry), and an optional activation calls `ct.sigmoid`, which cuda.tile does not
have: cuTile Python cannot compile launches with SWISH set, so only SWISH = 0 is translated
(the manifest notes the rest)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def centered_rows_kernel(x, y, ROWS: ConstInt, TILE: ConstInt, SWISH: ConstInt):
    block = ct.bid(0)
    t = ct.load(x, index=(block, 0), shape=(ROWS, TILE)).astype(ct.float32)
    mean = ct.sum(t, axis=1) / TILE
    if ROWS != 1:
        mean = mean[:, None]
    out = t - mean
    if SWISH:
        out = ct.sigmoid(out) * t
    ct.store(y, index=(block, 0), tile=out.astype(y.dtype))


def centered_rows(x: torch.Tensor, rows: int = 4, swish: int = 0) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // rows, 1, 1), centered_rows_kernel,
              (x, y, rows, x.shape[1], swish))
    return y
