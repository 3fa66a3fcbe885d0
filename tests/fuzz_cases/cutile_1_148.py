import cuda.tile as ct
import torch
RELAXED = ct.MemoryOrder.RELAXED

@ct.kernel
def fuzz_kernel(x0, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    g3 = ct.gather(x0, (bm * TM + ct.expand_dims(ct.arange(TM, dtype=ct.int32), 1), bn * TN + ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN))), mask=bn * TN + ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN)) < n)
    ct.store(y, index=(bm, bn), tile=g3.astype(ct.float32).astype(ct.float16))
    ct.atomic_add(z, (bm * TM + ct.arange(TM, dtype=ct.int32)[:, None], bn * TN + ct.arange(TN, dtype=ct.int32)[None, :]), g3.astype(ct.float32), memory_order=RELAXED)

def fuzz_launch(x0, y, z):
    assert x0.dtype == torch.int32
    assert y.dtype == torch.float16
    assert z.dtype == torch.float32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, y, z, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
