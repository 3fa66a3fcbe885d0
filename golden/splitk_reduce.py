"""Second stage of a split-K GEMM: sum SPLITS partial (M, N) float32 results and cast.

partials has shape (SPLITS, M, N). SPLITS is a compile-time constant, so the reduction loop has
constant bounds and is fully unrollable.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def splitk_reduce_kernel(partials, out, SPLITS: ConstInt, BM: ConstInt, BN: ConstInt):
    """out[tile] = sum_s partials[s, tile], written in out's dtype."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    total = ct.zeros((BM, BN), dtype=ct.float32)
    for s in range(SPLITS):
        part = ct.load(partials, index=(s, bm, bn), shape=(1, BM, BN),
                       padding_mode=ct.PaddingMode.ZERO, latency=3)
        total = total + ct.reshape(part, (BM, BN))
    ct.store(out, index=(bm, bn), tile=total.astype(out.dtype))


def splitk_reduce(partials: torch.Tensor, out_dtype=torch.bfloat16) -> torch.Tensor:
    splits, m, n = partials.shape
    bm, bn = 64, 128
    out = torch.empty((m, n), dtype=out_dtype, device=partials.device)
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(torch.cuda.current_stream(), grid, splitk_reduce_kernel,
              (partials, out, splits, bm, bn))
    return out
