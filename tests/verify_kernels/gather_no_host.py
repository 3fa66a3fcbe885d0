"""A kernel file with no host code: a gather padded with a float constant, whose element
type only the kernel's own use decides (no launch site names one)."""

import cuda.tile as ct


@ct.kernel
def gather_scale_kernel(src, dst, TILE: ct.Constant[int], SCALE_BY_TWO: ct.Constant[bool]):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    values = ct.gather(src, idx, padding_value=0.0)
    if SCALE_BY_TWO:
        values = values * 2.0
    ct.scatter(dst, idx, values.astype(dst.dtype))
