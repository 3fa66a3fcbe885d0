import cuda.tile as ct


@ct.kernel
def spin(x, TILE: ct.Constant[int]):
    i = 0
    while i < 4:
        i = i + 1
