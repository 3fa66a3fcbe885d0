import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=1)
    v_x1 = tl.load(x1_ptr + offs, mask=mask, other=float('-inf'))
    v1 = ((v_x1 / v_x1) + tl.sin(v_x0.to(tl.float32)))
    tl.store(y_ptr + offs, (tl.log((v1 + tl.max(tl.where(mask, v1, 0), axis=0)))).to(tl.float16) + v_x0.to(tl.float16) + v_x1.to(tl.float16) + v1.to(tl.float16), mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.int32, device="cuda")
    x1 = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float16, device="cuda")
    grid = (triton.cdiv(n, 32),)
    fuzz_kernel[grid](x0, x1, y, n, BLOCK=32, FLAG=False)
