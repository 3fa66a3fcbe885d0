import cuda.tile as ct


@ct.kernel
def slice_runtime_axis(x, y, axis: int, TILE: ct.Constant[int]):
    rows = x.slice(axis=axis, start=0, stop=TILE)
    t = ct.load(rows, index=(0, ct.bid(0)), shape=(TILE, TILE))
    ct.store(y, index=(0, ct.bid(0)), tile=t)
