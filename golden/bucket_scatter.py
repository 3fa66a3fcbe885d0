"""Distributes keys into fixed-capacity buckets, counting-sort style: each key claims a slot
in its bucket with a relaxed `ct.atomic_add` on the bucket's cursor (the old value is the
slot), is written to that slot, and adds its weight to the bucket's total (a float atomic
add); the largest key per bucket is kept with `ct.atomic_max`, whose old values are read back
through the cursor's token. Keys past the end go to bucket -1, which `check_bounds` masks off.
A second kernel adds a tile of rows into a matrix at rows picked by an index tile (a 2-D
atomic add, the row stride passed by the launcher)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
RELAXED = ct.MemoryOrder.RELAXED


@ct.kernel
def bucket_scatter_kernel(keys, weights, cursor, peaks, totals, sorted_keys, n: int,
                          NUM_BUCKETS: ConstInt, CAPACITY: ConstInt, TILE: ConstInt):
    block = ct.bid(0)
    offs = block * TILE + ct.arange(TILE, dtype=ct.int32)
    k = ct.gather(keys, (offs,))
    w = ct.gather(weights, (offs,))
    bucket = ct.where(offs < n, k % NUM_BUCKETS, -1)
    slot = ct.atomic_add(cursor, (bucket,), 1, memory_order=RELAXED)
    ct.scatter(sorted_keys, (bucket * CAPACITY + slot,), k)
    ct.atomic_add(totals, (bucket,), w, memory_order=RELAXED)
    previous = ct.atomic_max(peaks, (bucket,), k, memory_order=RELAXED,
                             memory_scope=ct.MemoryScope.DEVICE)
    ct.atomic_xchg(peaks, (bucket,), ct.maximum(previous, k), memory_order=RELAXED)


@ct.kernel
def row_scatter_add_kernel(rows, values, out, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    picked = ct.load(rows, index=(bm,), shape=(TM,))
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    tile = ct.load(values, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.atomic_add(out, (picked[:, None], cols[None, :]), tile.astype(out.dtype), check_bounds=True,
                  memory_order=RELAXED)


def bucket_scatter(keys: torch.Tensor, weights: torch.Tensor, num_buckets: int,
                   capacity: int, tile: int = 128):
    cursor = torch.zeros(num_buckets, dtype=torch.int32, device=keys.device)
    peaks = torch.full((num_buckets,), -1, dtype=torch.int32, device=keys.device)
    totals = torch.zeros(num_buckets, dtype=weights.dtype, device=keys.device)
    sorted_keys = torch.full((num_buckets * capacity,), -1, dtype=torch.int32,
                             device=keys.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(keys.shape[0], tile), 1, 1),
              bucket_scatter_kernel,
              (keys, weights, cursor, peaks, totals, sorted_keys, keys.shape[0], num_buckets,
               capacity, tile))
    return cursor, peaks, totals, sorted_keys


def row_scatter_add(rows: torch.Tensor, values: torch.Tensor, out: torch.Tensor,
                    tm: int = 32, tn: int = 64) -> torch.Tensor:
    grid = (ct.cdiv(values.shape[0], tm), ct.cdiv(values.shape[1], tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, row_scatter_add_kernel, (rows, values, out,
                                                                         tm, tn))
    return out
