import cuda.tile as ct


@ct.kernel
def with_lambda(x, y, TILE: ct.Constant[int]):
    f = lambda v: v * 2  # noqa: E731
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=f(t))
