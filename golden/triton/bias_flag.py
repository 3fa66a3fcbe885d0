"""A bool constexpr (`HAS_BIAS`) selecting an arm at compile time, and an unused pointer."""
import triton
import triton.language as tl


@triton.jit
def linear_bias_kernel(x_ptr, b_ptr, y_ptr, N, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    y = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_BIAS:
        y += tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * N + cols, y, mask=mask)
