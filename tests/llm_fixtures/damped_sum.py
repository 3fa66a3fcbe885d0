"""Accumulate rows, damping the running sum after each (a helper with a `while` loop)."""
import cuda.tile as ct


def damp(v):
    k = 0
    while k < 3:
        v = v * 0.5
        k += 1
    return v


@ct.kernel
def damped_sum_kernel(x, out, TILE: ct.Constant[int], STEPS: ct.Constant[int]):
    pid = ct.bid(0)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for i in range(STEPS):
        t = ct.load(x, index=(pid * STEPS + i,), shape=(TILE,))
        acc = damp(acc + ct.astype(t, ct.float32))
    ct.store(out, index=(pid,), tile=ct.astype(acc, out.dtype))
