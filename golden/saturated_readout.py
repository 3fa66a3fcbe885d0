"""A leaky state read out through a saturating helper at every step.

The helper's parameter has the name of the caller's loop-carried state and the helper
rebinds it. Python passes values: the helper's `state` is its own, and the caller's
`state` keeps its value for the update that follows the call. The assignment inside the
helper is therefore a local of the helper, not a reassignment of the caller's carried
variable.
"""

import cuda.tile as ct
import torch

D = 512
T = 8


def _saturate(state, limit):
    """The state clipped to [-limit, limit]."""
    state = ct.minimum(state, limit)
    return ct.maximum(state, -limit)


@ct.kernel
def saturated_readout_kernel(x, y, leak: float, T: ct.Constant[int], D: ct.Constant[int]):
    """y[b, t] = clip(s_t, -1, 1) with s_t = leak * s_(t-1) + x[b, t] and s_0 = 0."""
    b = ct.bid(0)
    state = ct.zeros((1, 1, D), dtype=ct.float32)
    for t in range(T):
        xt = ct.load(x, index=(b, t, 0), shape=(1, 1, D)).astype(ct.float32)
        readout = _saturate(state, 1.0)
        ct.store(y, index=(b, t, 0), tile=readout.astype(y.dtype))
        state = state * leak + xt


def saturated_readout(x: torch.Tensor, leak: float) -> torch.Tensor:
    """x: (batch, T, D) float32 or bfloat16."""
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), saturated_readout_kernel,
              (x, y, leak, T, D))
    return y
