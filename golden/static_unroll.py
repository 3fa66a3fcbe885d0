"""Unrolled code over tuples of tiles: a tuple comprehension over `ct.static_iter(range(..))`
loading column blocks, a filtered comprehension with two generators, a `ct.static_iter` loop
over `enumerate` of a tuple that accumulates and concatenates tuples (`acc += (t,)`), and
`len` of a tuple of tiles. cuTile Python unrolls all of it; the Rust is straight-line code."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
N_PARTS = 3


@ct.kernel
def static_unroll_kernel(x, y, z, TILE: ConstInt, PARTS: ConstInt):
    row = ct.bid(0)
    parts = tuple(ct.load(x, index=(row, j), shape=(1, TILE))
                  for j in ct.static_iter(range(PARTS)))
    weighted = ct.zeros((1, TILE), dtype=ct.float32)
    scaled = ()
    for k, t in ct.static_iter(enumerate(parts, 1)):
        weighted += k * t.astype(ct.float32)
        scaled += (t * 2,)
    pairs = tuple(u - v for i, u in ct.static_iter(enumerate(parts)) if i % 2 == 0
                  for v in ct.static_iter(scaled))
    for j in ct.static_iter(range(len(pairs))):
        ct.store(z, index=(row, j), tile=pairs[j])
    ct.store(y, index=(row, 0), tile=weighted.astype(y.dtype))


def static_unroll(x: torch.Tensor, tile: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    rows, parts = x.shape[0], N_PARTS
    y = torch.empty((rows, tile), dtype=x.dtype, device=x.device)
    z = torch.empty((rows, tile * ((parts + 1) // 2) * parts), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (rows, 1, 1), static_unroll_kernel,
              (x, y, z, tile, N_PARTS))
    return y, z
