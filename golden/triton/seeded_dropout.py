"""Dropout with Triton's Philox generator: `tl.rand` for the keep mask, `tl.randint` and
`tl.randn` written out beside it."""
import triton
import triton.language as tl


@triton.jit
def seeded_dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def random_streams(bits_ptr, normal_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(bits_ptr + offs, tl.randint(seed, offs, n_rounds=6))
    # Added to what is there: an accumulating store of noise.
    tl.store(normal_ptr + offs, tl.load(normal_ptr + offs) + tl.randn(seed, offs))
