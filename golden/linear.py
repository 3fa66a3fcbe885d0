"""nn.Linear forward: y = x @ W^T (+ bias), with W stored (out_features, in_features).

The W tile is loaded in its natural (TN, TK) layout and transposed in registers with
`.transpose()` before the MMA.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def linear_kernel(x, weight, bias, y, HAS_BIAS: ConstBool, TM: ConstInt, TN: ConstInt,
                  TK: ConstInt):
    """x: (M, K), weight: (N, K), bias: (N,), y: (M, N)."""
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for kk in range(ct.num_tiles(x, axis=1, shape=(TM, TK))):
        xt = ct.load(x, index=(pid_m, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        wt = ct.load(weight, index=(pid_n, kk), shape=(TN, TK), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(xt, wt.transpose(), acc)
    if HAS_BIAS:
        b = ct.load(bias, index=(pid_n,), shape=(TN,), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + b.astype(ct.float32)[None, :]
    ct.store(y, index=(pid_m, pid_n), tile=acc.astype(y.dtype))


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None):
    """float16 / bfloat16 activations and weights."""
    m, _ = x.shape
    n = weight.shape[0]
    tm, tn, tk = 128, 64, 64
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn))
    has_bias = bias is not None
    bias_arg = bias if has_bias else y.new_empty((n,))   # never read when HAS_BIAS is False
    ct.launch(torch.cuda.current_stream(), grid, linear_kernel,
              (x, weight, bias_arg, y, has_bias, tm, tn, tk))
    return y
