"""Rotary position embedding (rotate-half / NeoX layout), applied in place to Q or K.

x has shape (tokens, heads, HEAD_DIM); cos and sin are (tokens, HEAD_DIM // 2) tables. The two
halves of each head vector are loaded as separate tiles:
    out1 = x1 * cos - x2 * sin
    out2 = x2 * cos + x1 * sin
"""

import cuda.tile as ct
from cuda.tile import PaddingMode
import torch

HEADS_PER_BLOCK = 8


@ct.kernel
def rope_kernel(x, cos, sin, HEADS: ct.Constant[int], HALF: ct.Constant[int]):
    """Block (token, head_block) rotates HEADS heads of one token."""
    tok = ct.bid(0)
    hb = ct.bid(1)
    x1 = ct.load(x, index=(tok, hb, 0), shape=(1, HEADS, HALF), padding_mode=PaddingMode.ZERO)
    x2 = ct.load(x, index=(tok, hb, 1), shape=(1, HEADS, HALF), padding_mode=PaddingMode.ZERO)
    c = ct.load(cos, index=(tok, 0), shape=(1, HALF)).astype(ct.float32)
    s = ct.load(sin, index=(tok, 0), shape=(1, HALF)).astype(ct.float32)
    c = ct.reshape(c, (1, 1, HALF))
    s = ct.reshape(s, (1, 1, HALF))

    a = x1.astype(ct.float32)
    b = x2.astype(ct.float32)
    out1 = a * c - b * s
    out2 = b * c + a * s
    ct.store(x, index=(tok, hb, 0), tile=out1.astype(x.dtype))
    ct.store(x, index=(tok, hb, 1), tile=out2.astype(x.dtype))


def apply_rope_(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: (T, H, D) float32/bfloat16, modified in place; cos/sin: (T, D // 2)."""
    tokens, heads, head_dim = x.shape
    grid = (tokens, ct.cdiv(heads, HEADS_PER_BLOCK), 1)
    ct.launch(torch.cuda.current_stream(), grid, rope_kernel,
              (x, cos, sin, HEADS_PER_BLOCK, head_dim // 2))
    return x
