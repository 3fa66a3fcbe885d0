import cuda.tile as ct
import torch
RELAXED = ct.MemoryOrder.RELAXED

@ct.function
def helper_3(p0):
    return p0 * 3 + p0

@ct.kernel
def fuzz_kernel(x0, x1, x2, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v_x1 = ct.load(x1, index=(bm, bn), shape=(TM, TN))
    acc1 = -v_x1.astype(ct.float32)
    ct.store(y, index=(bm, bn), tile=helper_3(v_x1 * v_x1).astype(ct.float32))
    ct.atomic_max(z, (bm * TM + ct.arange(TM, dtype=ct.int32)[:, None], bn * TN + ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN))), ct.full((TM, TN), 1, dtype=ct.int32) & ct.full((1, TN), 7, dtype=ct.int32), memory_order=RELAXED)

def fuzz_launch(x0, x1, x2, y, z):
    assert x0.dtype == torch.float32
    assert x1.dtype == torch.int32
    assert x2.dtype == torch.float16
    assert y.dtype == torch.float32
    assert z.dtype == torch.int32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, x1, x2, y, z, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
