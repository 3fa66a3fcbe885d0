"""A spin lock around a read-modify-write, as Triton's layer-norm backward takes it:
`while tl.atomic_cas(lock, 0, 1) == 1`, the update, a barrier, `tl.atomic_xchg` to release."""
import triton
import triton.language as tl


@triton.jit
def locked_accumulate(x_ptr, acc_ptr, lock_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=mask, other=0.0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    x += tl.load(acc_ptr + cols, mask=mask)
    tl.store(acc_ptr + cols, x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)
