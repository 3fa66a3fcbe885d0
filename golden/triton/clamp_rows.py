"""`tl.clamp` with runtime bounds and with constant ones, NaN ignored (the default) and
propagated (`propagate_nan=tl.PropagateNan.ALL`)."""
import triton
import triton.language as tl


@triton.jit
def clamp_kernel(x_ptr, y_ptr, z_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.clamp(x, lo, hi), mask=mask)
    kept = tl.clamp(x.to(tl.float32), -1.5, 2.0, propagate_nan=tl.PropagateNan.ALL)
    tl.store(z_ptr + offs, kept, mask=mask)


def clamp(x, y, z, lo, hi):
    n = x.numel()
    clamp_kernel[(triton.cdiv(n, 256),)](x, y, z, lo, hi, n, BLOCK=256)
