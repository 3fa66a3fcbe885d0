"""Causal block sums: block `pid` adds up the key blocks at or before it, masking the diagonal.

The loop over key blocks branches on its own index (`if j >= pid`): cuTile Python compiles
such a loop as two loops split at `pid`, and the Rust is written the same way. With a
compile-time flag in the condition (`MASKED and j >= pid`), only the specializations where
the flag holds are split.
"""

import cuda.tile as ct
import torch

TILE = 256


@ct.kernel
def causal_block_sum_kernel(x, y, n_blocks: int, TILE: ct.Constant[int],
                            MASKED: ct.Constant[bool]):
    """y[r] = sum of x[c] over the c <= r (any c of the same block unless MASKED) of the
    same or earlier blocks, per block lane."""
    pid = ct.bid(0)
    rows = pid * TILE + ct.arange(TILE, dtype=ct.int32)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    end = min(pid + 1, n_blocks)
    for j in range(0, end):
        t = ct.load(x, index=(j,), shape=(TILE,)).astype(ct.float32)
        if MASKED and j >= pid:
            cols = j * TILE + ct.arange(TILE, dtype=ct.int32)
            t = ct.where(cols <= rows, t, 0.0)
        acc += t
    ct.store(y, index=(pid,), tile=acc.astype(y.dtype))


def causal_block_sum(x: torch.Tensor, masked: bool = True) -> torch.Tensor:
    """x: 1-D float32 or bfloat16 whose length is a multiple of TILE."""
    y = torch.empty_like(x)
    n_blocks = x.numel() // TILE
    ct.launch(torch.cuda.current_stream(), (n_blocks,), causal_block_sum_kernel,
              (x, y, n_blocks, TILE, masked))
    return y
