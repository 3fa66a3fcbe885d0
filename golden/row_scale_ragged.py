"""Row scaling that walks each row in column tiles, bounds-checking only when it must.

Whether the column tiles cover a row exactly is known at compile time (`N % TILE != 0`):
cuTile Python compiles the gathers with or without bounds checks, so the Rust has one entry
per outcome of that condition and the host picks the one the launch constants select.
The float constant `offset` shares its name with a cuTile Rust function.
"""

import cuda.tile as ct
import torch


@ct.kernel
def row_scale_kernel(x, w, y, N: ct.Constant[int], offset: ct.Constant[float],
                     TILE: ct.Constant[int]):
    """y[r, c] = x[r, c] * (offset + w[c]) for the c < N of row r = ct.bid(0)."""
    row = ct.bid(0)
    ragged = N % TILE != 0
    for j in range(ct.cdiv(N, TILE)):
        cols = j * TILE + ct.arange(TILE, dtype=ct.int32)
        xj = ct.gather(x, (row, cols), check_bounds=ragged)
        wj = ct.gather(w, cols, check_bounds=ragged)
        out = xj.astype(ct.float32) * (offset + wj.astype(ct.float32))
        ct.scatter(y, (row, cols), out.astype(y.dtype), check_bounds=ragged)


def row_scale(x: torch.Tensor, w: torch.Tensor, offset: float = 0.0) -> torch.Tensor:
    """x: (M, N) float32 or float16; w: (N,) of the same dtype."""
    y = torch.empty_like(x)
    m, n = x.shape
    tile = min(1024, 1 << (n - 1).bit_length())
    ct.launch(torch.cuda.current_stream(), (m,), row_scale_kernel, (x, w, y, n, offset, tile))
    return y
