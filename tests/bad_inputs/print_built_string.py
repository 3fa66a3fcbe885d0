import cuda.tile as ct


@ct.kernel
def show_built(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    label = f"tile {t}"
    print(label + "!")
