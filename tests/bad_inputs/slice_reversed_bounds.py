import cuda.tile as ct


@ct.kernel
def slice_reversed_bounds(x, y, TILE: ct.Constant[int]):
    rows = x.slice(axis=0, start=2 * TILE, stop=TILE)
    t = ct.load(rows, index=(0, ct.bid(0)), shape=(TILE, TILE))
    ct.store(y, index=(0, ct.bid(0)), tile=t)
