import cuda.tile as ct
import torch
RELAXED = ct.MemoryOrder.RELAXED

@ct.kernel
def fuzz_kernel(x0, x1, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v_x0 = ct.load(x0, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.POS_INF)
    v_x1 = ct.load(x1, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.POS_INF)
    v1 = v_x1.astype(ct.float32) - ct.full((TM, TN), 2.0, dtype=ct.float32)
    v4 = v_x0.astype(ct.int32) ^ ct.where(v1.astype(ct.int32) == ct.load(x1, index=(0, bn), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO).astype(ct.int32), v1.astype(ct.int32), ct.full((1, TN), 1, dtype=ct.int32))
    ct.atomic_min(z, (bm * TM + ct.expand_dims(ct.arange(TM, dtype=ct.int32), 1), bn * TN + ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN))), v4 << 1, memory_order=RELAXED)

def fuzz_launch(x0, x1, y, z):
    assert x0.dtype == torch.float16
    assert x1.dtype == torch.float16
    assert y.dtype == torch.float16
    assert z.dtype == torch.int32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, x1, y, z, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
