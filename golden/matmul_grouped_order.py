"""GEMM with group-M block swizzling for L2 reuse.

The grid is 1-D. Consecutive block ids walk down GROUP_M tile rows before moving to the next tile
column, so blocks that run together share the same B panel (and nearby A panels) in L2.
"""

import cuda.tile as ct
import torch

GROUP_M = 8


def swizzle_tile_index(pid, m, n, tm: int, tn: int, group_m: int):
    """Map a linear block id to a (tile_row, tile_col) pair, grouped along M."""
    grid_m = ct.cdiv(m, tm)
    grid_n = ct.cdiv(n, tn)
    width = group_m * grid_n
    group_id = pid // width
    first_m = group_id * group_m
    rows_in_group = min(grid_m - first_m, group_m)
    tile_m = first_m + (pid % width) % rows_in_group
    tile_n = (pid % width) // rows_in_group
    return tile_m, tile_n


@ct.kernel
def grouped_matmul_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int],
                          TK: ct.Constant[int]):
    """C = A @ B with swizzled tile order; fp32 accumulation."""
    pid = ct.bid(0)
    M = A.shape[0]
    N = B.shape[1]
    tile_m, tile_n = swizzle_tile_index(pid, M, N, TM, TN, group_m=GROUP_M)

    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(tile_m, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO,
                    latency=3)
        b = ct.load(B, index=(k, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO,
                    latency=3)
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(tile_m, tile_n), tile=acc.astype(C.dtype))


def grouped_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, _ = a.shape
    n = b.shape[1]
    tm, tn, tk = 128, 256, 64
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, tm) * ct.cdiv(n, tn), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, grouped_matmul_kernel, (a, b, c, tm, tn, tk))
    return c
