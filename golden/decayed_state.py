"""A decayed running state: each step scales the state, reads it, then adds a product.

The scaled state is a product with a second use, and the update adds a product to it: cuTile
Python looks at the left operand of the add first, finds the product with another use, and
contracts nothing, so the Rust must not write an `fma` for the right-hand product either.
"""

import cuda.tile as ct
import torch

D = 256


@ct.kernel
def decayed_state_kernel(k, v, out, decay: float, T: ct.Constant[int], D: ct.Constant[int]):
    """out[b, t] = sum(state_t) for the state s_t = decay * s_(t-1) + k_t * v_t of row b."""
    b = ct.bid(0)
    state = ct.zeros((D,), dtype=ct.float32)
    for t in range(T):
        kt = ct.load(k, index=(b, t, 0), shape=(1, 1, D)).reshape((D,)).astype(ct.float32)
        vt = ct.load(v, index=(b, t, 0), shape=(1, 1, D)).reshape((D,)).astype(ct.float32)
        state = state * decay
        seen = ct.sum(state, axis=0)
        state = state + kt * vt
        total = (ct.sum(state, axis=0) + seen * 0.0).reshape((1, 1))
        ct.store(out, index=(b, t), tile=total.astype(out.dtype))


def decayed_state(k: torch.Tensor, v: torch.Tensor, decay: float) -> torch.Tensor:
    """k, v: (batch, 16, D) float32 or bfloat16."""
    out = torch.empty(k.shape[:2], dtype=k.dtype, device=k.device)
    ct.launch(torch.cuda.current_stream(), (k.shape[0],), decayed_state_kernel,
              (k, v, out, decay, 16, D))
    return out
