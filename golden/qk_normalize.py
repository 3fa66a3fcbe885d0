"""Optionally L2-normalized query/key product, per row.

A compile-time flag rescales two tiles in one `if`: the arm reads the tiles' earlier values
and gives both names new ones (in Rust, both are declared before the `if` from their
earlier values).
"""

import cuda.tile as ct
import torch

DIM = 128


@ct.kernel
def qk_rows_kernel(q, k, out, eps: float, DIM: ct.Constant[int], NORMALIZE: ct.Constant[bool]):
    """out[r, :] = q[r, :] * k[r, :], each of q and k first scaled to unit L2 norm."""
    row = ct.bid(0)
    qt = ct.load(q, index=(row, 0), shape=(1, DIM)).reshape((DIM,)).astype(ct.float32)
    kt = ct.load(k, index=(row, 0), shape=(1, DIM)).reshape((DIM,)).astype(ct.float32)
    if NORMALIZE:
        qt = qt * ct.rsqrt(ct.sum(qt * qt, axis=0) + eps)
        kt = kt * ct.rsqrt(ct.sum(kt * kt, axis=0) + eps)
    prod = (qt * kt).reshape((1, DIM))
    ct.store(out, index=(row, 0), tile=prod.astype(out.dtype))


def qk_rows(q: torch.Tensor, k: torch.Tensor, normalize: bool = True) -> torch.Tensor:
    """q, k: (rows, DIM) float16 or bfloat16."""
    out = torch.empty_like(q)
    ct.launch(torch.cuda.current_stream(), (q.shape[0],), qk_rows_kernel,
              (q, k, out, 1e-6, DIM, normalize))
    return out
