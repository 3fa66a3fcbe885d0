import cuda.tile as ct


@ct.kernel
def with_generator(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    total = sum(v for v in (1, 2, 3))
    ct.store(y, index=(ct.bid(0),), tile=t * total)
