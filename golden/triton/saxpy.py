"""y = a * x + y in place (a float scalar parameter, read and write through one pointer)."""
import triton
import triton.language as tl


@triton.jit
def saxpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, a * x + y, mask=mask)
