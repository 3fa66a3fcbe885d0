"""Single-precision GEMM that runs on tensor cores through TF32.

float32 operand tiles are rounded to tfloat32 before the MMA; 16-bit inputs go to the MMA as
they are. The accumulator stays float32 either way.
"""

import cuda.tile as ct
import torch


@ct.kernel
def matmul_tf32_kernel(A, B, C, BM: ct.Constant[int], BN: ct.Constant[int],
                       BK: ct.Constant[int]):
    """C = A @ B; operand dtype picked at compile time from A's dtype."""
    mma_dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    num_k = ct.cdiv(A.shape[1], BK)

    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(num_k):
        a = ct.load(A, index=(pid_m, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, pid_n), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.astype(mma_dtype), b.astype(mma_dtype), acc)
    ct.store(C, index=(pid_m, pid_n), tile=acc.astype(C.dtype))


def matmul_tf32(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Accepts float32 (TF32 math) and bfloat16 operands."""
    m, k = a.shape
    n = b.shape[1]
    bm, bn, bk = 128, 128, 32
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn))
    ct.launch(torch.cuda.current_stream(), grid, matmul_tf32_kernel, (a, b, c, bm, bn, bk))
    return c
