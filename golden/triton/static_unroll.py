"""A `tl.static_range` loop, unrolled: four strided chunks summed per program."""
import triton
import triton.language as tl


@triton.jit
def sum4_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(4):
        offs = (pid * 4 + i) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    out = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + out, acc, mask=out < n)
