"""Host code shapes the Triton host reader must understand (never run; read with `ast`)."""

import torch
import triton
import triton.language as tl


def _configs():
    return [triton.Config({"BLOCK": b}, num_warps=w, num_stages=s)
            for b in [64, 128] for w in [4, 8] for s in [2]]


def _prune(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= 64 or c.num_warps == 8]


@triton.autotune(configs=_configs(), key=["n"], prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, alpha, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.store(out_ptr + offs, x * alpha, mask=offs < n)


@triton.jit
def rows_kernel(X, Y, Rstd, stride, N, BLOCK_N: tl.constexpr, HAS_W: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(Rstd + row, tl.sum(x * x, axis=0))
    tl.store(Y + row * stride + cols, x.to(Y.dtype.element_ty), mask=cols < N)


def scale(x, alpha=2.0):
    out = torch.empty_like(x)
    n = x.numel()

    def grid(META):
        return (triton.cdiv(n, META["BLOCK"]), 1, 1)

    scale_kernel[grid](x, out, n, 1, alpha)
    return out


class _Rows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight=None):
        x2 = x.reshape(-1, x.shape[-1])
        M, N = x2.shape
        y = torch.empty_like(x2)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        BLOCK_N = min(4096 // x.element_size(), triton.next_power_of_2(N))
        ctx.BLOCK_N = BLOCK_N
        rows_kernel[(M,)](x2, y, rstd, x2.stride(0), N, BLOCK_N=BLOCK_N,
                          HAS_W=weight is not None, num_warps=4)
        ctx.save_for_backward(x2, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x2, rstd = ctx.saved_tensors
        dx = torch.empty_like(dy)
        rows_kernel[(dy.shape[0],)](dy, dx, rstd, dy.stride(0), dy.shape[1],
                                    BLOCK_N=ctx.BLOCK_N, HAS_W=True)
        return dx, None
