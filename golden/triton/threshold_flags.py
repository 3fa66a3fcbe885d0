"""Comparisons stored as flags through pointers of a launch-time element type: a 0-d bool
tensor (`x0 > 0.5`) and a scalar bool (`total > 1.0`, of a sum) become 1 or 0 of the
pointer's type, on 0-d tiles (the cuTile Rust compiler has no scalar of a generic type); a
0-d bool in arithmetic (`x0 * (x0 > 0.5)`) is a `select` of 0-d tiles."""
import torch
import triton
import triton.language as tl


@triton.jit
def threshold_flags_kernel(x_ptr, flag_ptr, count_ptr, kept_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x0 = tl.load(x_ptr + pid)
    tl.store(flag_ptr + pid, x0 > 0.5)
    tl.store(kept_ptr + pid, x0.to(tl.float32) * (x0 > 0.5))
    offs = tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32))
    tl.store(count_ptr + pid, total > 1.0)


def threshold_flags(x: torch.Tensor):
    n = x.numel()
    flags = torch.empty_like(x)
    counts = torch.empty((n,), dtype=torch.int32, device=x.device)
    kept = torch.empty((n,), dtype=torch.float32, device=x.device)
    threshold_flags_kernel[(n,)](x, flags, counts, kept, n, BLOCK=64)
    return flags, counts, kept
