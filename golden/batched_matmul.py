"""Batched GEMM on 3-D tiles: C[b] = A[b] @ B[b].

Tiles keep a leading batch dimension of 1 so that the load/store index space is (batch, m, n);
ct.mma multiplies the last two axes of the 3-D tiles and accumulates in float32.
"""

import cuda.tile as ct
import torch


@ct.kernel
def bmm_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    """Grid is (m_tiles, n_tiles, batch)."""
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    batch = ct.bid(2)
    num_k = ct.num_tiles(A, axis=2, shape=(1, TM, TK))

    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for kk in range(num_k):
        a = ct.load(A, index=(batch, pid_m, kk), shape=(1, TM, TK),
                    padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(batch, kk, pid_n), shape=(1, TK, TN),
                    padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(batch, pid_m, pid_n), tile=acc.astype(C.dtype))


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(batch, M, K) @ (batch, K, N) for float16 / bfloat16."""
    batch, m, k = a.shape
    n = b.shape[2]
    tm, tn, tk = 64, 64, 32
    c = torch.empty((batch, m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), batch)
    ct.launch(torch.cuda.current_stream(), grid, bmm_kernel, (a, b, c, tm, tn, tk))
    return c
