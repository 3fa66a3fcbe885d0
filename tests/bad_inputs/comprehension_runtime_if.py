import cuda.tile as ct


@ct.kernel
def keep_positive(x, y, n: int, TILE: ct.Constant[int]):
    parts = tuple(ct.load(x, index=(j,), shape=(TILE,)) for j in ct.static_iter(range(4))
                  if j < n)
    ct.store(y, index=(0,), tile=parts[0])
