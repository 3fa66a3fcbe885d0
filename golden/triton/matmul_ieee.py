"""f32 matmul in full precision (`input_precision="ieee"`: no tf32), one block per program."""
import triton
import triton.language as tl


@triton.jit
def matmul_ieee_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :]).to(tl.float32)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * (BN * tl.num_programs(1)) + rn[None, :])
        acc += tl.dot(a, b.to(tl.float32), input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * (BN * tl.num_programs(1)) + rn[None, :], acc)
