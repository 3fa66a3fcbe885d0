"""Embedding lookup and its gradient scatter, with explicit index tiles.

Forward: out[t, :] = table[ids[t], :] for a block of BLOCK_T tokens, built from a token-index tile
(gathered ids) and a column-index tile from ct.arange, broadcast against each other.
Backward (no duplicate ids assumed, e.g. for a unique-id sparse update): table_grad[ids[t], :] =
grad[t, :].
"""

import cuda.tile as ct
import torch


@ct.kernel
def embedding_fwd_kernel(ids, table, out, BLOCK_T: ct.Constant[int], DIM: ct.Constant[int]):
    """Gather BLOCK_T rows of `table` (dim DIM) selected by int32 token ids."""
    blk = ct.bid(0)
    tok = blk * BLOCK_T + ct.arange(BLOCK_T, dtype=ct.int32)
    row_ids = ct.gather(ids, tok, padding_value=0)               # (BLOCK_T,)
    cols = ct.arange(DIM, dtype=ct.int32)
    vecs = ct.gather(table, (row_ids[:, None], cols[None, :]))    # (BLOCK_T, DIM)
    ct.scatter(out, (tok[:, None], cols[None, :]), vecs)


@ct.kernel
def embedding_bwd_kernel(ids, grad, table_grad, BLOCK_T: ct.Constant[int],
                         DIM: ct.Constant[int]):
    """Scatter BLOCK_T gradient rows back to the table rows they came from."""
    blk = ct.bid(0)
    tok = ct.arange(BLOCK_T, dtype=ct.int32) + blk * BLOCK_T
    row_ids = ct.gather(ids, tok, padding_value=-1)   # out-of-range tokens get id -1
    g = ct.load(grad, index=(blk, 0), shape=(BLOCK_T, DIM), padding_mode=ct.PaddingMode.ZERO)
    cols = ct.expand_dims(ct.arange(DIM, dtype=ct.int32), axis=0)
    ct.scatter(table_grad, (ct.expand_dims(row_ids, axis=1), cols), g, check_bounds=True)


def embedding(ids: torch.Tensor, table: torch.Tensor, block_t: int = 16) -> torch.Tensor:
    """ids: (T,) int32; table: (V, D) with D a power of two; returns (T, D)."""
    (t,) = ids.shape
    dim = table.shape[1]
    out = torch.empty((t, dim), dtype=table.dtype, device=table.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(t, block_t),), embedding_fwd_kernel,
              (ids, table, out, block_t, dim))
    return out


def embedding_backward(ids: torch.Tensor, grad: torch.Tensor, vocab: int, block_t: int = 16):
    table_grad = torch.zeros((vocab, grad.shape[1]), dtype=grad.dtype, device=grad.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(ids.numel(), block_t),),
              embedding_bwd_kernel, (ids, grad, table_grad, block_t, grad.shape[1]))
    return table_grad
