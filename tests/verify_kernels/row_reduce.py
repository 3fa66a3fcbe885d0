"""A square-tile reduction, so that the reduce axis can change without changing a type."""
import cuda.tile as ct


@ct.kernel
def row_sum_kernel(x, out, T: ct.Constant[int]):
    """out[block] = sum over columns of a (T, T) tile of x."""
    b = ct.bid(0)
    t = ct.load(x, index=(b, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO)
    s = ct.sum(t.astype(ct.float32), axis=1)
    ct.store(out, index=(b,), tile=s.astype(out.dtype))
