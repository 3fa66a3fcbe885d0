"""Sums each row of a (1, BLOCK) tile in groups of 8 columns: the grouped view has shape
(BLOCK // 8, 8), arithmetic on a constant inside a tile type, which stable Rust cannot write;
the translation declares a derived const generic that the launcher computes."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def grouped_row_sum_kernel(x, out, BLOCK: ConstInt):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, BLOCK)).astype(ct.float32)
    groups = ct.reshape(t, (BLOCK // 8, 8))
    sums = ct.sum(groups, axis=1)
    ct.store(out, index=(row, 0), tile=ct.reshape(sums, (1, BLOCK // 8)).astype(out.dtype))


def grouped_row_sum(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[0], x.shape[1] // 8), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), grouped_row_sum_kernel,
              (x, out, x.shape[1]))
    return out
