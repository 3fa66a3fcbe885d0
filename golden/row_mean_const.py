"""Row means and unbiased variances where the row length is a `ct.Constant[int]` used as a
float (`N * 1.0`, `(N - 1) * 1.0`): cuTile Python folds each such expression when it compiles
the kernel; cuTile Rust has no float const generics, so the launcher computes it on the host
and passes it as an `f32` argument (recorded in the manifest with its expression)."""

import cuda.tile as ct
import numpy as np
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_stats_kernel(x, mean, var, TM: ConstInt, N: ConstInt):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid, 0), shape=(TM, N), padding_mode=ct.PaddingMode.ZERO)
    total = ct.sum(t.astype(ct.float32), axis=1, keepdims=True)
    m = total / ct.full((TM, 1), N * 1.0, dtype=np.float32)
    d = t.astype(ct.float32) - m
    v = ct.sum(d * d, axis=1, keepdims=True) / ((N - 1) * 1.0)
    ct.store(mean, index=(bid, 0), tile=m)
    ct.store(var, index=(bid, 0), tile=v)


def row_stats(x: torch.Tensor, tm: int = 16):
    m = torch.empty(x.shape[0], 1, dtype=torch.float32, device=x.device)
    v = torch.empty_like(m)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tm), 1, 1), row_stats_kernel,
              (x, m, v, tm, x.shape[1]))
    return m, v
