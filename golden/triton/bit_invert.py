"""Bitwise `~` on integer and bool tensors: Triton computes it as a xor with all ones
(`true` for a bool), which is what the translation writes (cuTile Rust 0.5.0's compiler has
no `noti`). The element type comes from the launch: one entry per integer type."""
import triton
import triton.language as tl


@triton.jit
def invert_bits(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    flipped = ~x
    keep = ~(x < 0)
    tl.store(y_ptr + offs, tl.where(keep, flipped, x), mask=mask)
