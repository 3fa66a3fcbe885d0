import cuda.tile as ct


@ct.kernel
def with_closure(x, y, TILE: ct.Constant[int]):
    def twice(v):
        return v * 2

    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=twice(t))
