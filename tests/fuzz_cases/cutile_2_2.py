import cuda.tile as ct
import torch
RELAXED = ct.MemoryOrder.RELAXED

@ct.kernel
def fuzz_kernel(x0, x1, x2, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v_x2 = ct.load(x2, index=(bm, bn), shape=(TM, TN))
    ct.atomic_add(z, (bm * TM + ct.arange(TM, dtype=ct.int32)[:, None], bn * TN + ct.arange(TN, dtype=ct.int32)[None, :]), v_x2 % 5, memory_order=RELAXED)

def fuzz_launch(x0, x1, x2, y, z):
    assert x0.dtype == torch.float16
    assert x1.dtype == torch.int32
    assert x2.dtype == torch.int32
    assert y.dtype == torch.float32
    assert z.dtype == torch.int32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, x1, x2, y, z, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
