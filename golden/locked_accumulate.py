"""Partial column sums merged under a per-group spin lock: each block sums its rows' tile,
takes its group's lock with `ct.atomic_cas` (acquiring), adds the tile into the group's
accumulator (a load and a store of another array), counts its visit with a gather and a
scatter, and releases the lock with `ct.atomic_xchg` (releasing). An acquiring or releasing
atomic orders every memory access of the block, so all accesses share one token chain.
A second kernel claims slots with a default-order (`ACQ_REL`) compare-and-swap per element."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def locked_accumulate_kernel(x, acc, visits, locks, TM: ConstInt, TN: ConstInt):
    bid = ct.bid(0)
    groups = acc.shape[0]
    group = bid % groups
    part = ct.sum(ct.load(x, index=(bid, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO),
                  axis=0, keepdims=True)
    while ct.atomic_cas(locks, group, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    part += ct.load(acc, index=(group, 0), shape=(1, TN))
    ct.store(acc, index=(group, 0), tile=part.astype(acc.dtype))
    seen = ct.gather(visits, group)
    ct.scatter(visits, group, seen + 1)
    ct.atomic_xchg(locks, group, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def claim_slots_kernel(slots, owners, TILE: ConstInt):
    bid = ct.bid(0)
    offs = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    old = ct.atomic_cas(slots, (offs,), 0, bid + 1)
    ct.scatter(owners, (offs,), ct.where(old == 0, bid + 1, old))


def locked_accumulate(x: torch.Tensor, groups: int, tn: int = 256, tm: int = 16):
    acc = torch.zeros(groups, tn, dtype=x.dtype, device=x.device)
    visits = torch.zeros(groups, dtype=torch.int32, device=x.device)
    locks = torch.zeros(groups, dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tm), 1, 1),
              locked_accumulate_kernel, (x, acc, visits, locks, tm, tn))
    return acc, visits


def claim_slots(slots: torch.Tensor, tile: int = 128):
    owners = torch.zeros_like(slots)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(slots.shape[0], tile), 1, 1),
              claim_slots_kernel, (slots, owners, tile))
    return owners
