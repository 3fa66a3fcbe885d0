import cuda.tile as ct


@ct.kernel
def unroll_forever(x, TILE: ct.Constant[int]):
    for j in ct.static_iter(range(5000)):
        ct.store(x, index=(j,), tile=ct.zeros((TILE,), dtype=x.dtype))
