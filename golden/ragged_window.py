"""Per-row windowed sums over ragged rows: each row's valid length comes from `lens` (or is
the full width), a row with no valid columns writes zeros and exits early, and a window of
`WINDOW` columns before the row's end (optionally extended past it) is summed per column."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def ragged_window_kernel(x, lens, out, n_cols: int, TILE: ConstInt, WINDOW: ConstInt,
                         USE_LENS: ConstBool, CENTERED: ConstBool):
    row = ct.bid(0)
    if USE_LENS:
        length = ct.load(lens, index=(row,), shape=(1,)).reshape(())
    else:
        length = n_cols
    if length <= 0:
        ct.store(out, index=(row, 0), tile=ct.full((1, TILE), 0.0, dtype=out.dtype))
        return
    if WINDOW > 0:
        lo = max(0, length - WINDOW)
        hi = length
        if not CENTERED:
            lo = max(0, lo - 1)
            hi = hi + WINDOW // 2
        hi = min(hi, n_cols)
    elif CENTERED:
        lo = 0
        hi = min(length + WINDOW, n_cols)
    else:
        lo = 0
        hi = length
    offs = ct.arange(TILE, dtype=ct.int32)
    acc = ct.full((1, TILE), 0.0, dtype=ct.float32)
    for j in range(lo // TILE, ct.cdiv(hi, TILE)):
        t = ct.load(x, index=(row, j), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        t = t.astype(ct.float32)
        cols = j * TILE + offs
        keep = (cols >= lo) & (cols < hi)
        if WINDOW > 0:
            keep = keep & ((cols - hi) >= -WINDOW)
        keep = keep[None, :] & (t != 0.0)
        acc = acc + ct.where(keep, t, 0.0)
    ct.store(out, index=(row, 0), tile=acc.astype(out.dtype))


def ragged_window_sum(x: torch.Tensor, lens: torch.Tensor | None = None, window: int = 0,
                      centered: bool = False, tile: int = 128) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, tile), dtype=x.dtype, device=x.device)
    use_lens = lens is not None
    if lens is None:
        lens = torch.empty(0, dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (rows, 1, 1), ragged_window_kernel,
              (x, lens, out, cols, tile, window, use_lens, centered))
    return out
