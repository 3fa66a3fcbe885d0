"""Column sums of a 2-D block, accumulated over row blocks, stored as f16."""
import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros((BN,), tl.float32)
    for m0 in range(0, M, BM):
        rm = m0 + tl.arange(0, BM)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(y_ptr + rn, acc.to(tl.float16), mask=rn < N)
