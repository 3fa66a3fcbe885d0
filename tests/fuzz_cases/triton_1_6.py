import triton
import triton.language as tl

@triton.jit
def fuzz_kernel(x0_ptr, x1_ptr, x2_ptr, y_ptr, n, BLOCK: tl.constexpr, FLAG: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v_x0 = tl.load(x0_ptr + offs, mask=mask, other=1)
    v_x1 = tl.load(x1_ptr + offs, mask=mask, other=float('-inf'))
    v_x2 = tl.load(x2_ptr + offs, mask=mask)
    v1 = tl.where(tl.where(v_x2 < v_x2, v_x0, v_x0) < v_x1.to(tl.int32) & v_x1.to(tl.int32), v_x1 + tl.full((BLOCK,), 1.5, tl.float32), v_x1)
