"""Float `tl.constexpr` parameters: `TEMPERATURE` (the launch passes the host's default 0.9)
divides, `BETA` (a value the host only knows at run time) is compared with `0.0` and scales
a penalty, and `MODE` picks a branch in which `flagged` is a bool tensor or the number 0.0.
cuTile Rust has no float const generics: each entry takes a float's f32 bits; a comparison
of constexprs is decided per entry, as Triton's compiler folds it."""
import torch
import triton
import triton.language as tl


@triton.jit
def penalty_kernel(x_ptr, ref_ptr, out_ptr, flag_ptr, n, TEMPERATURE: tl.constexpr,
                   BETA: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32) / TEMPERATURE
    if MODE == 0:
        y = tl.maximum(x, 0.0)
        flagged = x < 0.0
    elif MODE == 1:
        y = tl.minimum(x, 1 - BETA)
        flagged = 0.0
    if BETA != 0.0:
        ref = tl.load(ref_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y += BETA * (ref - x)
    tl.store(out_ptr + offs, y, mask=mask)
    tl.store(flag_ptr + offs, flagged, mask=mask)


def penalty(x: torch.Tensor, ref: torch.Tensor, beta: float, mode: int,
            temperature: float = 0.9):
    out = torch.empty_like(x)
    flag = torch.empty_like(x)
    n = x.numel()
    penalty_kernel[(triton.cdiv(n, 128),)](x, ref, out, flag, n, TEMPERATURE=temperature,
                                           BETA=beta, MODE=mode, BLOCK=128)
    return out, flag
