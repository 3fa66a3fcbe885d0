"""Scaled batched GEMM in full float32: C[b] = scale * (A[b] @ B[b]).

The scale is a compile-time float (e.g. 1/sqrt(d) for attention scores). Partial products come
from ct.matmul on 3-D float32 tiles, whose result dtype is the operand dtype.
"""

import cuda.tile as ct
import torch


@ct.kernel
def scaled_bmm_kernel(A, B, C, scale: ct.Constant[float], BLOCK_M: ct.Constant[int],
                      BLOCK_N: ct.Constant[int], BLOCK_K: ct.Constant[int]):
    """float32 in / float32 out; the matmul result dtype is the operand dtype."""
    b = ct.bid(0)
    i = ct.bid(1)
    j = ct.bid(2)
    acc = ct.zeros((1, BLOCK_M, BLOCK_N), dtype=ct.float32)
    for kk in range(ct.cdiv(A.shape[2], BLOCK_K)):
        a_t = ct.load(A, (b, i, kk), (1, BLOCK_M, BLOCK_K), padding_mode=ct.PaddingMode.ZERO)
        b_t = ct.load(B, (b, kk, j), (1, BLOCK_K, BLOCK_N), padding_mode=ct.PaddingMode.ZERO)
        acc += ct.matmul(a_t, b_t)
    ct.store(C, (b, i, j), acc * scale)


def scaled_bmm(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    batch, m, _ = a.shape
    n = b.shape[-1]
    bm, bn, bk = 64, 128, 32
    c = torch.empty((batch, m, n), dtype=torch.float32, device=a.device)
    grid = (batch, ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(torch.cuda.current_stream(), grid, scaled_bmm_kernel,
              (a, b, c, scale, bm, bn, bk))
    return c
