"""A scaled copy written through a transposing store: `ct.store(.., order=(1, 0))`.

cuTile Python stores through a partition view whose dimension map is the order; cuTile
Rust's mutable partitions take no dimension map, so the translation makes the read-side
partition view with `const_array![1, 0]` as its `dim_map` and stores through it with the raw
store op (`store_view_raw`), which computes the same Tile IR.
"""

import cuda.tile as ct
import torch

TM = 64
TN = 32


@ct.kernel
def scaled_transpose_kernel(x, y, alpha: float, TM: ct.Constant[int], TN: ct.Constant[int]):
    """y[j*TN:(j+1)*TN, i*TM:(i+1)*TM] = alpha * x[i*TM:(i+1)*TM, j*TN:(j+1)*TN]^T."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(TM, TN))
    ct.store(y, index=(j, i), tile=(t * alpha).astype(y.dtype), order=(1, 0))


def scaled_transpose(x: torch.Tensor, alpha: float) -> torch.Tensor:
    """x: (M, N) float32 or bfloat16, M a multiple of TM and N of TN."""
    y = torch.empty((x.shape[1], x.shape[0]), dtype=x.dtype, device=x.device)
    grid = (x.shape[0] // TM, x.shape[1] // TN, 1)
    ct.launch(torch.cuda.current_stream(), grid, scaled_transpose_kernel, (x, y, alpha, TM, TN))
    return y
