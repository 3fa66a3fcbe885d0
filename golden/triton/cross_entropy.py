"""Per-row cross entropy: logsumexp minus the target's logit (a scalar load at a loaded index)."""
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_cols, stride,
                         BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride + cols, mask=cols < n_cols,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    target = tl.load(target_ptr + row)
    picked = tl.load(logits_ptr + row * stride + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - picked)
