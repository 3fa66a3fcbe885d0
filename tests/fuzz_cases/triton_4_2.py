import torch
import triton
import triton.language as tl


@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask)
    v_x1 = tl.load(x1_ptr + offs, mask=mask, other=float('-inf'))
    if BLOCK >= 128:
        v1 = (v_x1 * (v_x1 + v_x1))
    else:
        v1 = v_x1
    v2 = v_x0
    v3 = (tl.cumsum(v_x0, axis=0) + 1)
    v4 = tl.log2(tl.log2(v_x0.to(tl.float32)))
    tl.store(y_ptr + offs, (((tl.full((BLOCK,), 1.5, tl.float16) - v1) - tl.cumsum(v_x1, axis=0))).to(tl.float32) + v_x0.to(tl.float32) + v_x1.to(tl.float32) + v1.to(tl.float32) + v2.to(tl.float32) + v3.to(tl.float32) + v4, mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.int32, device="cuda")
    x1 = torch.empty(n, dtype=torch.float16, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(n, 128),)
    fuzz_kernel[grid](x0, x1, y, n, BLOCK=128, FLAG=False)
