"""Loops that count down (`range(a, b, -s)`: a constant step, and `-BLOCK` over a constexpr),
and a libdevice function imported under a guard (`try`/`except`, as libraries do to support
several Triton versions)."""
import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import tanh
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import tanh


@triton.jit
def reverse_decay_kernel(x_ptr, y_ptr, n_cols, stride, decay, BLOCK: tl.constexpr):
    """Per row, from the last column block to the first: y = decay * carry + tanh(x)."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = tl.zeros((BLOCK,), dtype=tl.float32)
    last = ((n_cols - 1) // BLOCK) * BLOCK
    for start in range(last, -1, -BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        carry = carry * decay + tanh(x)
        tl.store(y_ptr + row * stride + cols, carry, mask=mask)
    weight = 0.0
    for k in tl.range(n_cols, 0, -3):
        weight += k % 5
    for k in tl.static_range(4, 0, -2):
        weight = weight * 0.5 + k
    tl.store(y_ptr + row * stride + offs, carry + weight, mask=offs < n_cols)


def reverse_decay(x, y, decay):
    rows, cols = x.shape
    reverse_decay_kernel[(rows,)](x, y, cols, x.stride(0), decay, BLOCK=64)
