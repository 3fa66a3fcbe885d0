"""Element-wise vector addition: c = a + b.

The simplest possible cuTile kernel: one 1-D tile per block, no padding needed because the
store ignores out-of-bounds lanes and the loads of the tail tile are padded with zeros.
"""

import cuda.tile as ct
import torch

BLOCK = 1024


@ct.kernel
def vector_add_kernel(a, b, c, TILE: ct.Constant[int]):
    """Add two 1-D arrays tile by tile; the element type follows the inputs."""
    pid = ct.bid(0)
    ta = ct.load(a, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(pid,), tile=ta + tb)


def vector_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Launch one block per BLOCK elements. Supports float32, float16 and bfloat16."""
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.dtype in (torch.float32, torch.float16, torch.bfloat16)
    c = torch.empty_like(a)
    n = a.numel()
    grid = (ct.cdiv(n, BLOCK), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, BLOCK))
    return c


if __name__ == "__main__":
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn_like(x)
    torch.testing.assert_close(vector_add(x, y), x + y)
