"""Element-wise hypotenuse of two vectors."""
import cuda.tile as ct


@ct.kernel
def hypot_kernel(a, b, out, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    at = ct.load(a, index=(pid,), shape=(TILE,))
    bt = ct.load(b, index=(pid,), shape=(TILE,))
    ct.store(out, index=(pid,), tile=ct.sqrt(at * at + bt * bt))
