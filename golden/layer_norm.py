"""LayerNorm forward with affine weight and bias.

One block normalizes one row of a (M, N) input with N <= BLOCK_N. The statistics are computed
in float32 on a zero-padded tile; padding lanes are masked out of the variance explicitly.
Mean and reciprocal std are saved for the backward pass.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstFloat = ct.Constant[float]


@ct.kernel
def layer_norm_fwd_kernel(X, W, B, Y, Mean, Rstd, N: int, eps: ConstFloat, BLOCK_N: ConstInt):
    """Y = (X - mean) * rstd * W + B for one row per block."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, BLOCK_N), padding_mode=ct.PaddingMode.ZERO)
    x = x.astype(ct.float32)

    mean = ct.sum(x, axis=1) / N                       # shape (1,)
    cols = ct.arange(BLOCK_N, dtype=ct.int32)
    in_row = cols[None, :] < N
    centered = ct.where(in_row, x - mean[:, None], 0.0)
    var = ct.sum(centered * centered, axis=1) / N
    rstd = ct.rsqrt(var + eps)

    w = ct.load(W, index=(0,), shape=(BLOCK_N,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(B, index=(0,), shape=(BLOCK_N,), padding_mode=ct.PaddingMode.ZERO)
    y = centered * rstd[:, None] * w.astype(ct.float32) + b.astype(ct.float32)

    ct.store(Y, index=(row, 0), tile=y.astype(Y.dtype))
    ct.store(Mean, index=(row,), tile=mean)
    ct.store(Rstd, index=(row,), tile=rstd)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5):
    """Returns (y, mean, rstd). x is (M, N) in float32/float16/bfloat16; stats are float32."""
    M, N = x.shape
    block_n = 1 << (N - 1).bit_length()
    y = torch.empty_like(x)
    mean = torch.empty(M, dtype=torch.float32, device=x.device)
    rstd = torch.empty(M, dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (M,), layer_norm_fwd_kernel,
              (x, weight, bias, y, mean, rstd, N, eps, block_n))
    return y, mean, rstd
