import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask)
    if BLOCK >= 128:
        v1 = v_x0 * 3.0
    else:
        v1 = v_x0.to(tl.float32) * 3.0 + 0.001
    tl.store(y_ptr + offs, v1.to(tl.float32), mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.float16, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(n, 64),)
    fuzz_kernel[grid](x0, y, n, BLOCK=64, FLAG=True)
