"""Row updates steered by runtime flags: `and`, `or` and a chained comparison on runtime
booleans and block ids (short-circuit: the right operand is evaluated only when needed), and a
conditional expression choosing between two tiles by a runtime `bool`."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def runtime_flags_kernel(x, y, lo: int, hi: int, bump: bool, damp: bool, TILE: ConstInt):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE))
    in_band = lo <= row < hi
    if in_band and bump:
        t = t + 1.0
    if damp or row == 0:
        t = t * 0.5
    t = t - 1.0 if bump else ct.abs(t)
    ct.store(y, index=(row, 0), tile=t)


def runtime_flags(x: torch.Tensor, lo: int, hi: int, bump: bool, damp: bool,
                  tile: int = 128) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), runtime_flags_kernel,
              (x, y, lo, hi, bump, damp, tile))
    return y
