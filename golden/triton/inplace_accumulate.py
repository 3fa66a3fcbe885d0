"""Read-modify-write of one buffer in a loop: each step reads what the previous step wrote."""
import triton
import triton.language as tl


@triton.jit
def accumulate_kernel(acc_ptr, x_ptr, steps, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    for s in range(steps):
        a = tl.load(acc_ptr + offs, mask=mask, other=0.0)
        x = tl.load(x_ptr + s * n + offs, mask=mask, other=0.0)
        tl.store(acc_ptr + offs, a + x, mask=mask)
