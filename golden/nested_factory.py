"""A kernel built inside a host function (a kernel factory), with a bare `ct.Constant`.

`make_row_max` defines its kernel locally and launches it; the translation names the kernel
after the function that holds it (`make_row_max_row_max_kernel`). The kernel reads numpy's
`-np.inf` as the start of a running maximum and a whole-tile `ct.max` (every dimension
reduced).
"""

import cuda.tile as ct
import numpy as np
import torch


def make_row_max(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    @ct.kernel
    def row_max_kernel(x, out, n_tiles: int, TILE: ct.Constant):
        row = ct.bid(0)
        best = ct.full((1, 1), -np.inf, dtype=np.float32)
        for k in range(n_tiles):
            t = ct.load(x, index=(row, k), shape=(1, TILE)).astype(ct.float32)
            best = ct.maximum(best, ct.max(t))
        ct.store(out, index=(row, 0), tile=best.astype(out.dtype))

    rows, cols = x.shape
    ct.launch(torch.cuda.current_stream(), (rows,), row_max_kernel, (x, out, cols // 256, 256))
    return out
