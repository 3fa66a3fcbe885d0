"""Masked integer atomics with explicit orderings: a running max and a counter."""
import triton
import triton.language as tl


@triton.jit
def atomic_max_kernel(x_ptr, max_ptr, count_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32)
    tl.atomic_max(max_ptr + offs % 8, x, mask=mask, sem="relaxed")
    ones = tl.full((BLOCK,), 1, tl.int32)
    tl.atomic_add(count_ptr + (offs % 4).to(tl.int32), ones.to(tl.int32), mask=mask,
                  sem="acq_rel", scope="gpu")
