"""Inclusive prefix sum of each row."""
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)
