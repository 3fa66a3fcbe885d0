import cuda.tile as ct


@ct.kernel
def show(x, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,))
    ct.print(f"tile[{bid}] = {t:.3f}")
