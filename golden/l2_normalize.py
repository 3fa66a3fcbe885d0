"""Row-wise L2 normalization: y = x / max(||x||_2, eps).

Used for cosine-similarity embeddings. The norm is computed with ct.sqrt (not rsqrt) so that the
eps floor applies to the norm itself, matching torch.nn.functional.normalize.
"""

import cuda.tile as ct
import torch

EPS = 1e-12


@ct.kernel
def l2_normalize_kernel(x, y, ROWS: ct.Constant[int], DIM: ct.Constant[int]):
    """ROWS rows per block; DIM is the full (power-of-two) embedding width."""
    blk = ct.bid(0)
    t = ct.load(x, index=(blk, 0), shape=(ROWS, DIM), padding_mode=ct.PaddingMode.ZERO)
    tf = t.astype(ct.float32)
    sq_sum = ct.sum(tf * tf, axis=1, keepdims=True)           # (ROWS, 1)
    norm = ct.maximum(ct.sqrt(sq_sum), EPS)
    y_t = tf / ct.broadcast_to(norm, (ROWS, DIM))
    ct.store(y, index=(blk, 0), tile=y_t.astype(y.dtype))


def l2_normalize(x: torch.Tensor, rows_per_block: int = 8) -> torch.Tensor:
    """x: (N, D) float32 / bfloat16 with D a power of two (<= 4096)."""
    n, d = x.shape
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, rows_per_block),), l2_normalize_kernel,
              (x, y, rows_per_block, d))
    return y
