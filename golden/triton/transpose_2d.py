"""2-D tiles on a 2-D grid: read a block, write it transposed (`tl.trans`)."""
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    t_mask = (rn[:, None] < N) & (rm[None, :] < M)
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x), mask=t_mask)
