import triton
import triton.language as tl


@triton.jit
def other_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=1)
    tl.store(y_ptr + offs, v.to(tl.float32) * 2.0, mask=mask)
