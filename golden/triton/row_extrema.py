"""Per-row max and min with keep_dims, and the centered range (tl.maximum / tl.minimum)."""
import triton
import triton.language as tl


@triton.jit
def row_range_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0).to(tl.float32)
    hi = tl.max(x, axis=1, keep_dims=True)
    lo = tl.min(x, axis=1, keep_dims=True)
    y = tl.minimum(tl.maximum(x - lo, 0.0), hi - lo)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y, mask=mask)
