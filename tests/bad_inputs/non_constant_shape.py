import cuda.tile as ct


@ct.kernel
def runtime_shape(x, y, n: int):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=t)
