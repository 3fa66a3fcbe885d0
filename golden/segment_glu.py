"""SiLU-gated linear unit over packed variable-length segments, one scale per segment.

The rows of several segments are packed into `x` (T, 2 * D): the gate half of a row is
columns [0, D), the value half [D, 2 * D). Each program takes one tile of rows of one
segment. Slicing the arrays to the segment's rows (a runtime range) pads the loads and
clips the stores of a segment's last tile at the segment's end, not at the end of the packed
array; slicing the halves (a compile-time range) does the same at the end of each half.
"""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def segment_glu_kernel(x, y, offsets, scales, D: ConstInt, TM: ConstInt, TD: ConstInt):
    """y[r, :] = scales[s] * silu(x[r, :D]) * x[r, D:] for the rows r of segment s."""
    row_tile = ct.bid(0)
    seg = ct.bid(1)
    start = ct.load(offsets, index=(seg,), shape=(1,)).item()
    stop = ct.load(offsets, index=(seg + 1,), shape=(1,)).item()
    rows = x.slice(axis=0, start=start, stop=stop)
    gate = rows.slice(axis=1, start=0, stop=D)
    up = rows.slice(axis=1, start=D, stop=2 * D)
    out = y.slice(axis=0, start=start, stop=stop)
    # The grid covers the longest segment; shorter ones skip the tiles past their end.
    if row_tile * TM < out.shape[0]:
        scale = ct.load(scales, index=(seg,), shape=(1,)).astype(ct.float32)
        for j in range(ct.cdiv(gate.shape[1], TD)):
            g = ct.load(gate, index=(row_tile, j), shape=(TM, TD),
                        padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
            v = ct.load(up, index=(row_tile, j), shape=(TM, TD),
                        padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
            h = g / (1.0 + ct.exp(-g)) * v * scale
            ct.store(out, index=(row_tile, j), tile=h.astype(y.dtype))


def segment_glu(x: torch.Tensor, offsets: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """x: (T, 2 * D) float32/float16/bfloat16 packed rows; offsets: (S + 1,) int32 row
    starts of the S segments (offsets[S] == T); scales: (S,) float32."""
    total, width = x.shape
    d = width // 2
    y = torch.empty((total, d), dtype=x.dtype, device=x.device)
    segments = offsets.shape[0] - 1
    longest = int((offsets[1:] - offsets[:-1]).max())
    tm, td = 32, 128
    grid = (ct.cdiv(longest, tm), segments, 1)
    ct.launch(torch.cuda.current_stream(), grid, segment_glu_kernel,
              (x, y, offsets, scales, d, tm, td))
    return y
