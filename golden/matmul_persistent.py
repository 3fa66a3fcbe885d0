"""Persistent GEMM: a fixed grid of num_sms blocks loops over all output tiles.

Each block takes tiles bid, bid + nblocks, bid + 2*nblocks, ... and runs the full K loop for each.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel(occupancy=1)
def persistent_matmul_kernel(A, B, C, BM: ConstInt, BN: ConstInt, BK: ConstInt):
    """C = A @ B for float16 / bfloat16 operands, fp32 accumulation."""
    tiles_n = ct.cdiv(C.shape[1], BN)
    total = ct.cdiv(C.shape[0], BM) * tiles_n
    k_steps = ct.num_tiles(A, axis=1, shape=(BM, BK))
    for tile_id in range(ct.bid(0), total, ct.num_blocks(0)):
        row = tile_id // tiles_n
        col = tile_id % tiles_n
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for k in range(k_steps):
            a = ct.load(A, index=(row, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO,
                        latency=4)
            b = ct.load(B, index=(k, col), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO,
                        latency=4)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(row, col), tile=acc.astype(C.dtype), latency=2)


def persistent_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    bm, bn, bk = 128, 128, 64
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    grid = (num_sms,)
    ct.launch(torch.cuda.current_stream(), grid, persistent_matmul_kernel, (a, b, c, bm, bn, bk))
    return c
