"""Chunks of a row decayed into a running tile, in a loop inside a loop.

Each step reads values computed before both loops: a 0-d gain and a column of weights, both
broadcast to the chunk's shape, and the block's first chunk index times the chunk count.
cuTile Python hoists those broadcasts and that product out of the loops (its
`hoist_loop_invariants` pass), so the translation writes them before the outer loop; what
depends on a loop index, what reads the loop-carried tile, the loads and stores, and the
broadcast under the runtime `if` stay where they are.
"""

import cuda.tile as ct
import torch

TILE = 64
CHUNK = 32


@ct.kernel
def decayed_chunks_kernel(x, w, y, scale: float, n_chunks: int, TILE: ct.Constant[int],
                          CHUNK: ct.Constant[int]):
    """y[:, chunk] = the running sum over x's chunk pairs, decayed by exp(scale * sum(w)),
    scaled again on odd chunks."""
    row = ct.bid(0)
    block = ct.bid(1)
    wcol = ct.load(w, index=(0,), shape=(TILE,)).astype(ct.float32)
    wmat = ct.expand_dims(wcol, axis=1)
    gain = ct.exp(ct.sum(wcol, axis=0) * scale)
    acc = ct.zeros((TILE, CHUNK), dtype=ct.float32)
    for i in range(n_chunks):
        step = block * n_chunks + i
        for j in range(2):
            xt = ct.load(x, index=(row, step * 2 + j), shape=(TILE, CHUNK)).astype(ct.float32)
            acc = acc * gain + xt * wmat
        if i % 2 == 1:
            out = acc * scale
        else:
            out = acc
        ct.store(y, index=(row, step), tile=out.astype(y.dtype))


def decayed_chunks(x: torch.Tensor, w: torch.Tensor, n_chunks: int) -> torch.Tensor:
    """x: (rows, blocks * n_chunks * 2 * CHUNK) float32 or bfloat16, w: (TILE,) the same."""
    rows = x.shape[0] // TILE
    blocks = x.shape[1] // (CHUNK * 2 * n_chunks)
    y = torch.empty((x.shape[0], blocks * n_chunks * CHUNK), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (rows, blocks), decayed_chunks_kernel,
              (x, w, y, 0.5, n_chunks, TILE, CHUNK))
    return y
