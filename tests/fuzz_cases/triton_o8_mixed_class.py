import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask)
    v_x1 = tl.load(x1_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, v_x0 * 2.0 + v_x1, mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.float16, device="cuda")
    x1 = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(n, 64),)
    fuzz_kernel[grid](x0, x1, y, n, BLOCK=64)
