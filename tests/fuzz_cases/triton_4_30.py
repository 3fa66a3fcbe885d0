import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=0)
    v_x1 = tl.load(x1_ptr + offs, mask=mask)
    v1 = (tl.cos(tl.full((BLOCK,), 1.5, tl.float32)) + 2.0)
    v2 = ((v1 + tl.sum(tl.where(mask, v1, 0), axis=0)) * tl.log2(v1))
    v3 = v_x0.to(tl.float32)
    for i in range(0, 3):
        v3 = v3 + (v1 + tl.max(tl.where(mask, tl.full((BLOCK,), 1.5, tl.float32), 0), axis=0))
    tl.store(y_ptr + offs, (tl.exp((v_x1.to(tl.float32) + tl.sum(tl.where(mask, v1, 0), axis=0)))) + v_x0.to(tl.float32) + v_x1.to(tl.float32) + v1 + v2 + v3, mask=mask)
    tl.atomic_add(z_ptr + offs, v_x0, mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.int32, device="cuda")
    x1 = torch.empty(n, dtype=torch.float16, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    z = torch.empty(n, dtype=torch.int32, device="cuda")
    grid = (triton.cdiv(n, 64),)
    fuzz_kernel[grid](x0, x1, y, z, n, BLOCK=64, FLAG=True)
