"""A `@triton.jit` helper inlined into the kernel, with libdevice's tanh."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_tanh(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + libdevice.tanh(inner))


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, gelu_tanh(x), mask=mask)
