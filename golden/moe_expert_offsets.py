"""MoE routing bookkeeping: count tokens per expert and turn counts into start offsets.

A single block sees all TOKENS routed expert ids (top-1 routing, padded with -1). The histogram
is a one-hot compare reduced over tokens; the offsets are an exclusive prefix sum (ct.cumsum).
"""

import cuda.tile as ct
import torch

@ct.kernel
def expert_offsets_kernel(expert_ids, counts, offsets, TOKENS: ct.Constant[int],
                          EXPERTS: ct.Constant[int]):
    """counts[e] = #{t : ids[t] == e}; offsets[e] = sum_{e' < e} counts[e']."""
    ids = ct.load(expert_ids, index=(0,), shape=(TOKENS,), padding_mode=ct.PaddingMode.ZERO)
    tok = ct.arange(TOKENS, dtype=ct.int32)
    ids = ct.where(tok < expert_ids.shape[0], ids, -1)   # ignore padding lanes
    experts = ct.arange(EXPERTS, dtype=ct.int32)

    one_hot = ids[:, None] == experts[None, :]            # (TOKENS, EXPERTS) bool
    ones = ct.ones((TOKENS, EXPERTS), dtype=ct.int32)
    zeros = ct.zeros((TOKENS, EXPERTS), dtype=ct.int32)
    per_expert = ct.sum(ct.where(one_hot, ones, zeros), axis=0)   # (EXPERTS,)

    inclusive = ct.cumsum(per_expert, axis=0)
    exclusive = inclusive - per_expert
    ct.store(counts, index=(0,), tile=per_expert)
    ct.store(offsets, index=(0,), tile=exclusive)


def expert_offsets(expert_ids: torch.Tensor, num_experts: int):
    """expert_ids: (T,) int32 with T <= 4096; returns (counts, offsets), both int32."""
    tokens = 1 << (expert_ids.numel() - 1).bit_length()
    counts = torch.empty(num_experts, dtype=torch.int32, device=expert_ids.device)
    offsets = torch.empty_like(counts)
    experts = 1 << (num_experts - 1).bit_length()
    ct.launch(torch.cuda.current_stream(), (1,), expert_offsets_kernel,
              (expert_ids, counts, offsets, tokens, experts))
    return counts, offsets
