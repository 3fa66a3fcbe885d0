"""A 3-D grid: batch, rows and column blocks, with C-style index arithmetic."""
import triton
import triton.language as tl


@triton.jit
def add_bias_3d(x_ptr, b_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
    bz = tl.program_id(2)
    r = tl.program_id(1)
    cb = tl.program_id(0)
    cols = cb * BLOCK + tl.arange(0, BLOCK)
    mask = cols < C
    base = (bz * R + r) * C
    x = tl.load(x_ptr + base + cols, mask=mask)
    b = tl.load(b_ptr + cols % C, mask=mask)
    half = cols // 2
    tl.store(y_ptr + base + cols, x + b + half.to(x.dtype), mask=mask)
