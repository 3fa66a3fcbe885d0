import cuda.tile as ct
RELAXED = ct.MemoryOrder.RELAXED

@ct.function
def helper_2(p0):
    return ct.sin(p0) + p0

@ct.kernel
def fuzz_kernel(x0, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v1 = helper_2(ct.load(x0, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.NAN))
    ct.atomic_add(z, (bm * TM + ct.expand_dims(ct.arange(TM, dtype=ct.int32), 1), bn * TN + ct.arange(TN, dtype=ct.int32)[None, :]), v1 + ct.full((1, TN), 0.5, dtype=ct.float32), memory_order=RELAXED)
