"""Dequantize per-row symmetric int8 weights to bfloat16: w[i, j] = q[i, j] * scale[i].

Fixed-dtype kernel: int8 in, float32 scales, bfloat16 out.
"""

import cuda.tile as ct
import torch


@ct.kernel
def dequant_int8_kernel(q, scales, w, BLOCK_R: ct.Constant[int], BLOCK_C: ct.Constant[int]):
    """One (BLOCK_R, BLOCK_C) tile per block."""
    r = ct.bid(0)
    c = ct.bid(1)
    qt = ct.load(q, index=(r, c), shape=(BLOCK_R, BLOCK_C), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(scales, index=(r,), shape=(BLOCK_R,), padding_mode=ct.PaddingMode.ZERO)
    vals = qt.astype(ct.float32) * s[:, None]
    ct.store(w, index=(r, c), tile=vals.astype(ct.bfloat16))


@ct.kernel
def quant_int8_kernel(w, q, scales, BLOCK_R: ct.Constant[int], COLS: ct.Constant[int]):
    """Inverse: per-row absmax scale, round-to-nearest, clamp to [-127, 127]."""
    r = ct.bid(0)
    wt = ct.load(w, index=(r, 0), shape=(BLOCK_R, COLS), padding_mode=ct.PaddingMode.ZERO)
    wf = wt.astype(ct.float32)
    amax = ct.max(ct.abs(wf), axis=1, keepdims=True)
    scale = ct.maximum(amax, 1e-8) / 127.0
    qf = ct.floor(wf / scale + 0.5)
    qf = ct.minimum(ct.maximum(qf, -127.0), 127.0)
    ct.store(q, index=(r, 0), tile=qf.astype(ct.int8))
    ct.store(scales, index=(r,), tile=ct.reshape(scale, (BLOCK_R,)))


def dequantize(q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    rows, cols = q.shape
    w = torch.empty((rows, cols), dtype=torch.bfloat16, device=q.device)
    grid = (ct.cdiv(rows, 16), ct.cdiv(cols, 256))
    ct.launch(torch.cuda.current_stream(), grid, dequant_int8_kernel, (q, scales, w, 16, 256))
    return w


def quantize(w: torch.Tensor):
    rows, cols = w.shape
    q = torch.empty((rows, cols), dtype=torch.int8, device=w.device)
    scales = torch.empty(rows, dtype=torch.float32, device=w.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(rows, 8),), quant_int8_kernel,
              (w, q, scales, 8, cols))
    return q, scales
