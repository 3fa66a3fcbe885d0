"""Scaled copy with a fast path for full tiles and a masked path for the ragged tail.

Blocks whose tile lies fully inside the array take the unmasked branch; only the last block
builds an index mask and uses gather/scatter. The branch is on a runtime condition.
"""

import cuda.tile as ct
import torch

TILE = 512


@ct.kernel
def scaled_copy_kernel(src, dst, n: int, scale: float, TILE_SIZE: ct.Constant[int]):
    """dst[i] = src[i] * scale for i < n."""
    pid = ct.bid(0)
    full_tiles = n // TILE_SIZE
    if pid < full_tiles:
        t = ct.load(src, index=(pid,), shape=(TILE_SIZE,), allow_tma=True, latency=1)
        ct.store(dst, index=(pid,), tile=(t.astype(ct.float32) * scale).astype(dst.dtype))
    else:
        idx = pid * TILE_SIZE + ct.arange(TILE_SIZE, dtype=ct.int32)
        in_range = idx < n
        t = ct.gather(src, idx, mask=in_range, padding_value=0, check_bounds=False)
        out = (t.astype(ct.float32) * scale).astype(dst.dtype)
        ct.scatter(dst, idx, out, mask=in_range, check_bounds=False)


def scaled_copy(src: torch.Tensor, scale: float) -> torch.Tensor:
    """src: 1-D float32 or bfloat16."""
    dst = torch.empty_like(src)
    n = src.numel()
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, TILE),), scaled_copy_kernel,
              (src, dst, n, scale, TILE))
    return dst
