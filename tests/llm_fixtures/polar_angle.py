"""Polar angle of (x, y) pairs: theta = atan2(y, x)."""
import cuda.tile as ct


@ct.kernel
def polar_angle_kernel(y, x, out, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    yt = ct.load(y, index=(pid,), shape=(TILE,))
    xt = ct.load(x, index=(pid,), shape=(TILE,))
    theta = ct.atan2(yt, xt)
    ct.store(out, index=(pid,), tile=theta)
