import torch
import triton
import triton.language as tl


@triton.jit
def to_int_saturated(x):
    x = tl.where(x == x, x, 0.0)
    return tl.minimum(tl.maximum(x, -60000.0), 60000.0).to(tl.int32)


@triton.jit
def fuzz_kernel(x0_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=0.0)
    v1 = v_x0
    tl.store(y_ptr + offs, (tl.where((tl.full((BLOCK,), 2, tl.int32) < (tl.minimum(to_int_saturated(v1), tl.full((BLOCK,), 2, tl.int32)) + tl.sum(tl.where(mask, (to_int_saturated(v_x0) ^ to_int_saturated(v_x0)), 0), axis=0))), v_x0, v_x0)) + v_x0 + v1, mask=mask)
    tl.atomic_add(z_ptr + offs, (tl.maximum(v_x0, v1) + tl.sum(tl.where(mask, tl.full((BLOCK,), 1.5, tl.float32), 0), axis=0)), mask=mask)


def fuzz_launch(n):
    x0 = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    z = torch.empty(n, dtype=torch.float32, device="cuda")
    grid = (triton.cdiv(n, 32),)
    fuzz_kernel[grid](x0, y, z, n, BLOCK=32, FLAG=False)
