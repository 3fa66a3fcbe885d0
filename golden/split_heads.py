"""Reshape a fused QKV projection into per-head layout.

qkv is (batch, seq, 3 * heads * head_dim) as produced by one GEMM; the kernel writes
q/k/v as (batch, heads, seq, head_dim). Each block moves SEQ_BLOCK tokens of one head of one
of q/k/v: load (1, SEQ_BLOCK, HEAD_DIM) -> permute to (1, 1, SEQ_BLOCK, HEAD_DIM) order.
"""

import cuda.tile as ct
import torch

SEQ_BLOCK = 64


@ct.kernel
def split_heads_kernel(qkv, q, k, v, HEADS: ct.Constant[int], BLOCK_S: ct.Constant[int],
                       HEAD_DIM: ct.Constant[int]):
    """Grid: (seq_blocks, batch * heads, 3)."""
    sb = ct.bid(0)
    bh = ct.bid(1)
    which = ct.bid(2)
    b = bh // HEADS
    h = bh % HEADS
    col_tile = which * HEADS + h                          # in units of HEAD_DIM columns
    t = ct.load(qkv, index=(b, sb, col_tile), shape=(1, BLOCK_S, HEAD_DIM))
    t4 = ct.reshape(t, (1, BLOCK_S, 1, HEAD_DIM))
    t4 = ct.permute(t4, (0, 2, 1, 3))                     # (1, 1, BLOCK_S, HEAD_DIM)
    if which == 0:
        ct.store(q, index=(b, h, sb, 0), tile=t4)
    elif which == 1:
        ct.store(k, index=(b, h, sb, 0), tile=t4)
    else:
        ct.store(v, index=(b, h, sb, 0), tile=t4)


def split_heads(qkv: torch.Tensor, heads: int):
    batch, seq, width = qkv.shape
    head_dim = width // (3 * heads)
    q, k, v = (torch.empty((batch, heads, seq, head_dim), dtype=qkv.dtype, device=qkv.device)
               for _ in range(3))
    grid = (ct.cdiv(seq, SEQ_BLOCK), batch * heads, 3)
    ct.launch(torch.cuda.current_stream(), grid, split_heads_kernel,
              (qkv, q, k, v, heads, SEQ_BLOCK, head_dim))
    return q, k, v
