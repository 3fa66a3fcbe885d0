"""Block-scaled float8 GEMM: C = dequant(A @ B^T), one float32 scale per row of A and K block,
one per (N block, K block) of B.

A (M, K) and B (N, K) hold float8_e4m3fn values that `quantize_blocks` made from float32 or
bfloat16 tensors; the product accumulates in float32 and is scaled block by block.
"""

import cuda.tile as ct
import torch

FP8_MAX = 448.0


@ct.kernel
def fp8_block_matmul_kernel(A, B, C, A_scale, B_scale, BLOCK_M: ct.Constant[int],
                            BLOCK_N: ct.Constant[int], BLOCK_K: ct.Constant[int]):
    """BLOCK_N and BLOCK_K are the quantization block: one B scale per tile."""
    pid_m = ct.bid(0)
    pid_n = ct.bid(1)
    rows = pid_m * BLOCK_M + ct.arange(BLOCK_M, dtype=ct.int32)
    cols = pid_n * BLOCK_N + ct.arange(BLOCK_N, dtype=ct.int32)
    acc = ct.zeros((BLOCK_M, BLOCK_N), dtype=ct.float32)
    for kb in range(ct.cdiv(A.shape[1], BLOCK_K)):
        ks = kb * BLOCK_K + ct.arange(BLOCK_K, dtype=ct.int32)
        a = ct.gather(A, (rows[:, None], ks[None, :]), padding_value=ct.float8_e4m3fn(0.0))
        b = ct.gather(B, (cols[:, None], ks[None, :]), padding_value=ct.float8_e4m3fn(0.0))
        row_scale = ct.gather(A_scale, (rows, kb), padding_value=0.0)
        tile_scale = ct.gather(B_scale, (pid_n, kb), padding_value=0.0)
        partial = ct.mma(a, ct.permute(b, (1, 0)),
                         acc=ct.zeros((BLOCK_M, BLOCK_N), dtype=ct.float32))
        acc = acc + partial * (row_scale[:, None] * tile_scale)
    ct.scatter(C, (rows[:, None], cols[None, :]), ct.astype(acc, ct.bfloat16))


def quantize_blocks(x: torch.Tensor, block: int) -> tuple[torch.Tensor, torch.Tensor]:
    """float8 values and float32 scales, one scale per `block` columns of each row."""
    rows, cols = x.shape
    groups = x.float().reshape(rows, cols // block, block)
    scale = groups.abs().amax(dim=-1).clamp(min=1e-12) / FP8_MAX
    q = (groups / scale[..., None]).to(torch.float8_e4m3fn).reshape(rows, cols)
    return q, scale.to(torch.float32)


def fp8_block_matmul(a: torch.Tensor, b: torch.Tensor, block: int = 128) -> torch.Tensor:
    """bfloat16 result of a @ b.T through float8 operands (b's scales per block of rows)."""
    qa, a_scale = quantize_blocks(a, block)
    qb, b_row_scale = quantize_blocks(b, block)
    b_scale = b_row_scale.reshape(b.shape[0] // block, block, -1).amax(dim=1)
    m, n = a.shape[0], b.shape[0]
    c = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    grid = (ct.cdiv(m, 64), ct.cdiv(n, block), 1)
    ct.launch(torch.cuda.current_stream(), grid, fp8_block_matmul_kernel,
              (qa, qb, c, a_scale, b_scale, 64, block, block))
    return c
