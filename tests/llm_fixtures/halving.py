"""Halve a row until a counter reaches STEPS (a `while` loop)."""
import cuda.tile as ct


@ct.kernel
def halving_kernel(x, out, TILE: ct.Constant[int], STEPS: ct.Constant[int]):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(TILE,))
    k = 0
    while k < STEPS:
        t = t * 0.5
        k += 1
    ct.store(out, index=(pid,), tile=t)
