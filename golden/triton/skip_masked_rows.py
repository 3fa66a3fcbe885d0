"""An early exit nested in a compile-time test (`if MASK is not None: ... if keep == 0:
return`), followed by the rest of the kernel: the exit must skip that rest, so the rest runs
in the `else` arm of the inner `if` (before, the nested `return` was dropped and the row was
written anyway)."""
import torch
import triton
import triton.language as tl


@triton.jit
def skip_masked_rows_kernel(x_ptr, y_ptr, MASK, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if MASK is not None:
        MASK += row
        keep = tl.load(MASK)
        if keep == 0:
            return
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + offs, x * 3.0, mask=mask)


def skip_masked_rows(x: torch.Tensor, y: torch.Tensor, mask=None):
    n_rows, n_cols = x.shape
    skip_masked_rows_kernel[(n_rows,)](x, y, mask, x.stride(0), n_cols, BLOCK=64)
