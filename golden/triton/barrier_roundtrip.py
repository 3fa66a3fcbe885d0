"""A store, a `tl.debug_barrier()`, then a shifted read of the same buffer (ordered by tokens)."""
import triton
import triton.language as tl


@triton.jit
def shift_kernel(x_ptr, scratch_ptr, y_ptr, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + base + offs)
    tl.store(scratch_ptr + base + offs, x * 2)
    tl.debug_barrier()
    rev = tl.load(scratch_ptr + base + (BLOCK - 1 - offs))
    tl.store(y_ptr + base + offs, rev)
