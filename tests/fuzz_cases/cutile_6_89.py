import cuda.tile as ct
import torch

RELAXED = ct.MemoryOrder.RELAXED
TM_VALUE = 16
TN_VALUE = 16
FLAG_VALUE = True

@ct.kernel
def fuzz_kernel(x0, y, z, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v_x0 = ct.load(x0, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
    v1 = ct.transpose(ct.cos(ct.load(x0, index=(bn, bm), shape=(TN, TM), padding_mode=ct.PaddingMode.ZERO).astype(ct.float16)))
    v2 = v_x0
    acc3 = (ct.full((1, TN), 0.5, dtype=ct.float32) + v_x0)
    for i in range(ct.cdiv(n, TN)):
        t4 = ct.load(x0, index=(bm, i), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc3 = acc3 + ct.log2(ct.cumsum(t4, axis=1))
    ct.store(y, index=(bm, bn), tile=(ct.cumsum((-2 - ct.maximum(acc3.astype(ct.int32), ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN)))), axis=0)).astype(ct.float32))
    ct.atomic_add(z, (bm * TM + ct.expand_dims(ct.arange(TM, dtype=ct.int32), 1), bn * TN + ct.arange(TN, dtype=ct.int32)[None, :]), ct.tan(ct.maximum(ct.load(x0, index=(0, bn), shape=(1, TN), padding_mode=ct.PaddingMode.POS_INF), v2)), memory_order=RELAXED)

def fuzz_launch(x0, y, z):
    assert x0.dtype == torch.float32
    assert y.dtype == torch.float32
    assert z.dtype == torch.float32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, y, z, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
