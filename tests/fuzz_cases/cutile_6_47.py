import cuda.tile as ct
import torch

RELAXED = ct.MemoryOrder.RELAXED
TM_VALUE = 16
TN_VALUE = 32
FLAG_VALUE = True

@ct.kernel
def fuzz_kernel(x0, x1, x2, y, n: int, TM: ct.Constant[int], TN: ct.Constant[int], FLAG: ct.Constant[bool]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    v_x0 = ct.load(x0, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.POS_INF)
    v_x1 = ct.load(x1, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    v_x2 = ct.load(x2, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.POS_INF)
    v1 = (ct.minimum(ct.load(x1, index=(0, bn), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO), v_x1) >> 2)
    ct.store(y, index=(bm, bn), tile=(ct.where(((v_x2 + v_x2) > ct.minimum(v_x2, ct.load(x2, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.NAN))), ct.minimum(ct.sum(v_x2, axis=0, keepdims=True), (ct.load(x0, index=(0, bn), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO) - ct.full((1, TN), 2.0, dtype=ct.float32))), (ct.log(ct.load(x1, index=(bm, 0), shape=(TM, 1), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)) - ct.full((1, TN), 2.0, dtype=ct.float32)))).astype(ct.float32))

def fuzz_launch(x0, x1, x2, y):
    assert x0.dtype == torch.float32
    assert x1.dtype == torch.int32
    assert x2.dtype == torch.float32
    assert y.dtype == torch.float32
    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)
    ct.launch(torch.cuda.current_stream(), grid, fuzz_kernel, (x0, x1, x2, y, y.shape[1], TM_VALUE, TN_VALUE, FLAG_VALUE))
