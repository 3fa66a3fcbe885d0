import torch
import triton
import triton.language as tl

@triton.jit
def helper_3(a, b):
    return a * 2 + b

@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, x2_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=float('-inf'))
    v_x1 = tl.load(x1_ptr + offs, mask=mask)
    v_x2 = tl.load(x2_ptr + offs, mask=mask, other=float('-inf'))
    v1 = v_x0
    v2 = tl.where(tl.full((BLOCK,), 1.5, tl.float16).to(tl.int32) > v_x1 * v_x1, helper_3(v_x1, v_x1), v_x1 // -5)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.float32, device="cuda")
    x1 = torch.empty(n, dtype=torch.int32, device="cuda")
    x2 = torch.empty(n, dtype=torch.float16, device="cuda")
    y = torch.empty(n, dtype=torch.float16, device="cuda")
    grid = (triton.cdiv(n, 64),)
    fuzz_kernel[grid](x0, x1, x2, y, n, BLOCK=64, FLAG=True)
