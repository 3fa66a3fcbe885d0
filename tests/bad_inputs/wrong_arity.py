import cuda.tile as ct


@ct.kernel
def too_many(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (TILE,), 0)
    ct.store(y, index=(ct.bid(0),), tile=t)
