"""Rows skipped by a mask: under a `ct.Constant[bool]` flag a row whose mask entry is zero
exits early from inside the flag's `if` (an exit nested in a compile-time branch), and a
runtime `bool` parameter picks whether the kept rows are negated before scaling."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def skip_masked_rows_kernel(x, mask, y, scale: float, negate: bool, TILE: ConstInt,
                            HAS_MASK: ConstBool):
    row = ct.bid(0)
    if HAS_MASK:
        keep = ct.load(mask, index=(row,), shape=(1,)).reshape(()).astype(ct.int32)
        if keep == 0:
            return
    t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
    if negate:
        t = -t
    ct.store(y, index=(row, 0), tile=t * scale)


def skip_masked_rows(x: torch.Tensor, mask: torch.Tensor | None, scale: float,
                     negate: bool = False, tile: int = 128) -> torch.Tensor:
    rows = x.shape[0]
    y = torch.zeros_like(x, dtype=torch.float32)
    has_mask = mask is not None
    if mask is None:
        mask = torch.ones(rows, dtype=torch.int32, device=x.device)
    mask = mask.to(torch.int32)
    ct.launch(torch.cuda.current_stream(), (rows, 1, 1), skip_masked_rows_kernel,
              (x, mask, y, scale, negate, tile, has_mask))
    return y
