"""Causal-free flash attention forward (single head dim, online softmax in base 2).

Q, K, V, O are (batch*heads, seq, HEAD_DIM). Each block owns BLOCK_M query rows of one head and
streams over K/V in BLOCK_N chunks, keeping the running row max `m_i`, row sum `l_i` and the
unnormalized output accumulator. K is loaded already transposed via `order=`.
"""

import math

import cuda.tile as ct
import torch

INV_LN2 = 1.0 / math.log(2.0)
ConstInt = ct.Constant[int]


@ct.kernel(occupancy=2)
def flash_attn_fwd_kernel(Q, K, V, O, sm_scale: float, seq_kv: int,
                          BLOCK_M: ConstInt, BLOCK_N: ConstInt, HEAD_DIM: ConstInt):
    """O = softmax(Q K^T * sm_scale) V, computed tile by tile."""
    m_blk = ct.bid(0)
    bh = ct.bid(1)
    qk_scale = sm_scale * INV_LN2

    q = ct.load(Q, index=(bh, m_blk, 0), shape=(1, BLOCK_M, HEAD_DIM),
                padding_mode=ct.PaddingMode.ZERO)
    q = ct.reshape(q, (BLOCK_M, HEAD_DIM))

    m_i = ct.full((BLOCK_M, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((BLOCK_M, 1), dtype=ct.float32)
    acc = ct.zeros((BLOCK_M, HEAD_DIM), dtype=ct.float32)

    num_kv = ct.cdiv(seq_kv, BLOCK_N)
    for j in range(num_kv):
        # (HEAD_DIM, BLOCK_N) view of K[bh, j*BLOCK_N:, :] via a permuted load.
        k_t = ct.load(K, index=(bh, 0, j), shape=(1, HEAD_DIM, BLOCK_N), order=(0, 2, 1),
                      padding_mode=ct.PaddingMode.ZERO, latency=2)
        k_t = ct.reshape(k_t, (HEAD_DIM, BLOCK_N))
        s = ct.mma(q, k_t, ct.zeros((BLOCK_M, BLOCK_N), dtype=ct.float32))
        cols = j * BLOCK_N + ct.arange(BLOCK_N, dtype=ct.int32)
        s = ct.where(ct.expand_dims(cols, 0) < seq_kv, s * qk_scale, -math.inf)

        m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp2(s - m_new, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)

        v = ct.load(V, index=(bh, j, 0), shape=(1, BLOCK_N, HEAD_DIM),
                    padding_mode=ct.PaddingMode.ZERO, latency=2)
        v = ct.reshape(v, (BLOCK_N, HEAD_DIM))
        acc = ct.mma(p.astype(V.dtype), v, acc * alpha)
        m_i = m_new

    out = ct.truediv(acc, l_i, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
    ct.store(O, index=(bh, m_blk, 0), tile=ct.reshape(out.astype(O.dtype),
                                                       (1, BLOCK_M, HEAD_DIM)))


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """q, k, v: (B*H, S, D) float16 / bfloat16 with D in {64, 128}."""
    bh, seq_q, head_dim = q.shape
    seq_kv = k.shape[1]
    block_m, block_n = 128, 64
    o = torch.empty_like(q)
    grid = (ct.cdiv(seq_q, block_m), bh, 1)
    ct.launch(torch.cuda.current_stream(), grid, flash_attn_fwd_kernel,
              (q, k, v, o, 1.0 / math.sqrt(head_dim), seq_kv, block_m, block_n, head_dim))
    return o
