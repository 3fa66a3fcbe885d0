"""Writes two results of one input tile into the left and right halves of one output array,
each half a slice of it (`out.slice(axis=1, ...)`), then reads the left half back: cuTile
Python orders the accesses to `out` through one token whichever slice they go through, so the
second store and the load wait on the store before them (raw view ops with that token)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def split_halves_kernel(x, out, checksum, D: ConstInt, TM: ConstInt, TD: ConstInt):
    bm = ct.bid(0)
    bd = ct.bid(1)
    t = ct.load(x, index=(bm, bd), shape=(TM, TD))
    left = out.slice(axis=1, start=0, stop=D)
    right = out.slice(axis=1, start=D, stop=2 * D)
    ct.store(left, index=(bm, bd), tile=t * 2.0)
    ct.store(right, index=(bm, bd), tile=t * t)
    back = ct.load(left, index=(bm, bd), shape=(TM, TD))
    ct.store(checksum, index=(bm, bd), tile=back - t)


def split_halves(x: torch.Tensor, tm: int = 32, td: int = 64):
    d = x.shape[1]
    out = torch.empty((x.shape[0], 2 * d), dtype=x.dtype, device=x.device)
    checksum = torch.empty_like(x)
    grid = (ct.cdiv(x.shape[0], tm), ct.cdiv(d, td), 1)
    ct.launch(torch.cuda.current_stream(), grid, split_halves_kernel, (x, out, checksum, d, tm,
                                                                       td))
    return out, checksum
