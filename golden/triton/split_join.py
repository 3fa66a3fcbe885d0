"""Interleaved pairs: `tl.split` of a last dimension of size 2 and `tl.join` back, with the
halves swapped and scaled (as the attention tutorial's split accumulators do)."""
import triton
import triton.language as tl


@triton.jit
def swap_pairs(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    pairs = tl.reshape(tl.load(x_ptr + offs), (BLOCK, 2))
    first, second = tl.split(pairs)
    swapped = tl.join(second * 2.0, first)
    tl.store(y_ptr + offs, tl.reshape(swapped, (2 * BLOCK,)))
