import cuda.tile as ct


@ct.kernel
def broken(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,)
