"""Sum of blocks into one accumulator with an atomic add (Triton's acq_rel, gpu scope)."""
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    s = tl.sum(x, axis=0)
    tl.atomic_add(total_ptr, s)
