"""Rows strided by the grid with a 64-bit row index (`tl.program_id(1)` widened to int64,
stepped by `tl.num_programs(1)`): a loop over int64 bounds with a runtime step, which
cuTile Rust writes as a counted `loop` (its `step_by` takes an i32 step only); column
partial sums are stored per program."""
import torch
import triton
import triton.language as tl


@triton.jit
def strided_rows_kernel(x_ptr, y_ptr, part_ptr, n_rows, N: tl.constexpr,
                        BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    first_row = tl.cast(tl.program_id(1), tl.int64)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for row in range(first_row, n_rows, tl.num_programs(1)):
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        acc += x
        tl.store(y_ptr + row * N + cols, x * 2.0, mask=mask)
    tl.store(part_ptr + first_row * N + cols, acc, mask=mask)


def strided_rows(x: torch.Tensor, programs: int = 4):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    part = torch.empty((programs, n_cols), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(n_cols, 64), programs)
    strided_rows_kernel[grid](x, y, part, n_rows, N=n_cols, BLOCK_N=64)
    return y, part
