"""Embedding gather: rows chosen by an index tensor."""
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    tok = tl.program_id(0)
    row = tl.load(ids_ptr + tok)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < dim
    vals = tl.load(table_ptr + row * dim + cols, mask=mask)
    tl.store(out_ptr + tok * dim + cols, vals, mask=mask)
