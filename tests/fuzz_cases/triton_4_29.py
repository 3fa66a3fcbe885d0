import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=0)
    v_x1 = tl.load(x1_ptr + offs, mask=mask, other=float('-inf'))
    if FLAG:
        v1 = (tl.ceil(v_x1.to(tl.float16)) - tl.where((v_x1 != v_x1), v_x0.to(tl.float16), tl.full((BLOCK,), 1.5, tl.float16)))
    else:
        v1 = tl.cumsum((v_x1.to(tl.float16) + tl.sum(tl.where(mask, v_x0.to(tl.float16), 0), axis=0)), axis=0)
    tl.store(y_ptr + offs, (tl.floor(v1.to(tl.float32))) + v_x0.to(tl.float32) + v_x1 + v1.to(tl.float32), mask=mask)
    tl.atomic_add(z_ptr + offs, (v1.to(tl.float32) + v_x1), mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.int32, device="cuda")
    x1 = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    z = torch.empty(n, dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(n, 32),)
    fuzz_kernel[grid](x0, x1, y, z, n, BLOCK=32, FLAG=False)
