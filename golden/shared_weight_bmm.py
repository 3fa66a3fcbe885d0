"""One weight matrix applied to a batch of tiles: `ct.matmul` of a (1, M, K) tile with a
(B, K, N) tile broadcasts the batch of 1 to B, as cuTile Python does (Tile IR's `mma`
takes equal batches, so the translation broadcasts the operand first)."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def shared_weight_bmm_kernel(w, x, y, B: ConstInt, M: ConstInt, K: ConstInt, N: ConstInt):
    bid = ct.bid(0)
    wt = ct.reshape(ct.load(w, index=(0, 0), shape=(M, K)), (1, M, K))
    xt = ct.load(x, index=(bid, 0, 0), shape=(B, K, N))
    ct.store(y, index=(bid, 0, 0), tile=ct.matmul(wt, xt))


def shared_weight_bmm(w: torch.Tensor, x: torch.Tensor, b: int = 4) -> torch.Tensor:
    y = torch.empty(x.shape[0], w.shape[0], x.shape[2], dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], b), 1, 1),
              shared_weight_bmm_kernel, (w, x, y, b, w.shape[0], w.shape[1], x.shape[2]))
    return y
