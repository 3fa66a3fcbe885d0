"""Dropout with precomputed uniform noise: keep where noise > p, scaled by 1 / (1 - p)."""
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr, noise_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    r = tl.load(noise_ptr + offs, mask=mask).to(tl.float32)
    keep = r > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offs, out, mask=mask)
