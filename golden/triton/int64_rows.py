"""Rows per program with a 64-bit program id (`tl.program_id(0).to(tl.int64)`, the idiom
that keeps pointer offsets from overflowing): the row loop runs over int64 bounds."""
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, y_ptr, w_ptr, stride, n_rows, n_cols,
                     ROWS_PER_PROGRAM: tl.constexpr, BLOCK: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    row_start = block * ROWS_PER_PROGRAM
    row_end = min((block + 1) * ROWS_PER_PROGRAM, n_rows)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    for row in range(row_start, row_end):
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * stride + cols, x * w, mask=mask)


def row_scale(x, w, y):
    n_rows, n_cols = x.shape
    rows_per_program = 4
    grid = (triton.cdiv(n_rows, rows_per_program),)
    row_scale_kernel[grid](x, y, w, x.stride(0), n_rows, n_cols,
                           ROWS_PER_PROGRAM=rows_per_program, BLOCK=128)
