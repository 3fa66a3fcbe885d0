"""Index of each row's maximum (first one on ties)."""
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    idx = tl.argmax(x, axis=0)
    tl.store(out_ptr + row, idx)
