import cuda.tile as ct


def halve(t, depth):
    return halve(t * 0.5, depth - 1)


@ct.kernel
def recursive(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=halve(t, 3))
