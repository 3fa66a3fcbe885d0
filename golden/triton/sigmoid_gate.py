"""A gated unit: x * sigmoid(g), with exp2/log2 round trip of the gate magnitude."""
import triton
import triton.language as tl


@triton.jit
def gate_kernel(x_ptr, g_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    mag = tl.exp2(tl.log2(tl.abs(g) + 1.0)) - 1.0
    y = x * tl.sigmoid(g) + 0.0 * mag
    tl.store(y_ptr + offs, y, mask=mask)
