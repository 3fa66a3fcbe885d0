"""Compile-time choices on `tl.constexpr` values, one Rust entry per value: a string
activation, a bool that picks the output dtype, and a choice between ints on a condition."""
import torch
import triton
import triton.language as tl


@triton.jit
def activate(x_ptr, y_ptr, n, ACTIVATION: tl.constexpr, HALF_OUT: tl.constexpr,
             WIDTH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if ACTIVATION == "relu":
        x = tl.maximum(x, 0.0)
    elif ACTIVATION == "leaky_relu":
        x = tl.where(x >= 0, x, 0.01 * x)
    out_dtype = tl.float16 if HALF_OUT else tl.float32
    scale = BLOCK if WIDTH == 0 else WIDTH
    tl.store(y_ptr + offs, (x * scale).to(out_dtype), mask=mask)


def apply(x: torch.Tensor, activation: str = "") -> torch.Tensor:
    y = torch.empty(x.shape, dtype=torch.float16, device=x.device)
    n = x.numel()
    activate[(triton.cdiv(n, 256),)](x, y, n, ACTIVATION=activation, HALF_OUT=True, WIDTH=0,
                                     BLOCK=256)
    return y


def relu(x: torch.Tensor) -> torch.Tensor:
    return apply(x, "relu")


def leaky_relu(x: torch.Tensor) -> torch.Tensor:
    return apply(x, "leaky_relu")
