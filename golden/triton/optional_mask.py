"""An optional pointer (`mask_ptr=None` from the host, `if mask_ptr is not None` in the kernel):
Triton compiles a None argument as a constexpr, so there is one entry for None and one for a
tensor."""
import triton
import triton.language as tl


@triton.jit
def masked_scale(x_ptr, y_ptr, mask_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = o < n
    x = tl.load(x_ptr + o, mask=inb, other=0.0)
    if mask_ptr is not None:
        keep = tl.load(mask_ptr + o, mask=inb, other=0)
        x = tl.where(keep != 0, x, 0.0)
    tl.store(y_ptr + o, x * 2.0, mask=inb)


def run(x, y, m=None):
    n = x.numel()
    masked_scale[(triton.cdiv(n, 128),)](x, y, m, n, BLOCK=128)
