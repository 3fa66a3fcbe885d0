"""GELU activation, tanh approximation (as in GPT-2 / BERT):

    gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
"""

import math

import cuda.tile as ct
import torch

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_COEF = 0.044715
BLOCK_M = 4
BLOCK_N = 256


@ct.function
def gelu_tanh(x):
    """GELU on a float32 tile."""
    inner = SQRT_2_OVER_PI * (x + GELU_COEF * x * x * x)
    return 0.5 * x * (1.0 + ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX))


@ct.kernel
def gelu_kernel(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    """Apply GELU to a 2-D activation, one (TM, TN) tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    out = gelu_tanh(t.astype(ct.float32))
    ct.store(y, index=(bm, bn), tile=out.astype(y.dtype))


def gelu(x: torch.Tensor) -> torch.Tensor:
    """x: (tokens, hidden) in float32, float16 or bfloat16."""
    m, n = x.shape
    y = torch.empty_like(x)
    grid = (ct.cdiv(m, BLOCK_M), ct.cdiv(n, BLOCK_N), 1)
    ct.launch(torch.cuda.current_stream(), grid, gelu_kernel, (x, y, BLOCK_M, BLOCK_N))
    return y
