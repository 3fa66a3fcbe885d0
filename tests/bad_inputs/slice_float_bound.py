import cuda.tile as ct


@ct.kernel
def slice_float_bound(x, y, TILE: ct.Constant[int]):
    rows = x.slice(axis=0, start=0, stop=1.5)
    t = ct.load(rows, index=(0, ct.bid(0)), shape=(TILE, TILE))
    ct.store(y, index=(0, ct.bid(0)), tile=t)
