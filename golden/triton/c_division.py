"""C-style integer division and remainder (toward zero) on tiles and scalars."""
import triton
import triton.language as tl


@triton.jit
def divmod_kernel(a_ptr, q_ptr, r_ptr, d, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0).to(tl.int32)
    shift = (pid - 3) // 2 + (pid - 3) % 2
    tl.store(q_ptr + offs, a // d + shift, mask=mask)
    tl.store(r_ptr + offs, a % d, mask=mask)
