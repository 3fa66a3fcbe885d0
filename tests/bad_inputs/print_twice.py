import cuda.tile as ct


@ct.kernel
def show_twice(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.print(t)
    ct.print("done")
