"""Plain tiled GEMM: C = A @ B with a float32 accumulator.

The 2-D grid maps block (i, j) to output tile (i, j); the K loop accumulates with ct.mma.
"""

import cuda.tile as ct
import torch


@ct.kernel
def matmul_kernel(A, B, C, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                  TILE_K: ct.Constant[int]):
    """One (TILE_M, TILE_N) output tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    k_tiles = ct.num_tiles(A, axis=1, shape=(TILE_M, TILE_K))

    acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for kt in range(k_tiles):
        a = ct.load(A, index=(bm, kt), shape=(TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(kt, bn), shape=(TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(M, K) @ (K, N) for float16 / bfloat16 inputs."""
    m, k = a.shape
    _, n = b.shape
    tm, tn, tk = 128, 128, 64
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (a, b, c, tm, tn, tk))
    return c
