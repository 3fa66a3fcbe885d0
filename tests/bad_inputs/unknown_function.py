import cuda.tile as ct


@ct.kernel
def sigmoid_kernel(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=ct.sigmoid(t))
