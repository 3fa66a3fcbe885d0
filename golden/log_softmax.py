"""Log-softmax and per-row negative log-likelihood (cross-entropy) in one pass.

log_softmax(x) = x - max - log(sum(exp(x - max))), computed in base 2 and converted back with
ln(2). The loss for the row's target class is gathered from the same tile.
"""

import math

import cuda.tile as ct
import torch

LN2 = math.log(2.0)
LOG2E = 1.4426950408889634


@ct.kernel
def log_softmax_nll_kernel(logits, targets, logp, loss, TILE_C: ct.Constant[int]):
    """One row per block; rows are padded to TILE_C with -inf."""
    row = ct.bid(0)
    x = ct.load(logits, index=(row, 0), shape=(1, TILE_C), padding_mode=ct.PaddingMode.NEG_INF)
    x2 = x.astype(ct.float32) * LOG2E
    mx = ct.max(x2, axis=1, keepdims=True)
    sum_exp = ct.sum(ct.exp2(x2 - mx), axis=1, keepdims=True)
    lse2 = mx + ct.log2(sum_exp)                 # log2-sum-exp2
    out = (x2 - lse2) * LN2
    ct.store(logp, index=(row, 0), tile=out.astype(logp.dtype))

    target = ct.load(targets, index=(row,), shape=(1,))
    cls = ct.arange(TILE_C, dtype=ct.int32)
    picked = ct.where(cls[None, :] == target[:, None], out, 0.0)
    nll = -ct.sum(picked, axis=1)
    ct.store(loss, index=(row,), tile=nll)


@ct.kernel
def logsumexp_kernel(x, lse, TILE_C: ct.Constant[int]):
    """Natural-log logsumexp of each row, using ct.log and ct.exp directly."""
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_C), padding_mode=ct.PaddingMode.NEG_INF)
    t = t.astype(ct.float32)
    m = ct.max(t, axis=1)
    s = ct.sum(ct.exp(t - m[:, None]), axis=1)
    ct.store(lse, index=(row,), tile=m + ct.log(s))


def log_softmax_nll(logits: torch.Tensor, targets: torch.Tensor):
    """logits: (N, C) float32/bfloat16; targets: (N,) int32. Returns (log_probs, loss)."""
    n, c = logits.shape
    tile_c = 1 << (c - 1).bit_length()
    logp = torch.empty_like(logits)
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    ct.launch(torch.cuda.current_stream(), (n,), log_softmax_nll_kernel,
              (logits, targets, logp, loss, tile_c))
    return logp, loss


def logsumexp(x: torch.Tensor) -> torch.Tensor:
    n, c = x.shape
    out = torch.empty(n, dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (n,), logsumexp_kernel,
              (x, out, 1 << (c - 1).bit_length()))
    return out
