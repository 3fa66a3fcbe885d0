"""Row scaling through host-made tensor descriptors: `TensorDescriptor.from_tensor(...)`
arguments whose block shapes an autotune `pre_hook` sets from the config's constexprs
(`nargs["x_desc"].block_shape = [BLOCK_M, BLOCK_N]`), a 2-D and a 1-D descriptor read with
`desc.load` (zero outside the tensor), written with `desc.store` (nothing outside)."""
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _set_blocks(nargs):
    BLOCK_M = nargs["BLOCK_M"]
    BLOCK_N = nargs["BLOCK_N"]
    nargs["x_desc"].block_shape = [BLOCK_M, BLOCK_N]
    nargs["w_desc"].block_shape = [BLOCK_N]
    nargs["y_desc"].block_shape = [BLOCK_M, BLOCK_N]


@triton.autotune(configs=[triton.Config({"BLOCK_M": 4}, pre_hook=_set_blocks),
                          triton.Config({"BLOCK_M": 8}, pre_hook=_set_blocks)],
                 key=["M", "N"])
@triton.jit
def scale_rows_desc(x_desc, w_desc, y_desc, M, N, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    row = tl.program_id(0) * BLOCK_M
    w = w_desc.load([0]).to(tl.float32)
    x = x_desc.load([row, 0]).to(tl.float32)
    total = tl.sum(x * x, axis=1) / N
    y = x * tl.math.rsqrt(total + 1e-5)[:, None] * w[None, :]
    y_desc.store([row, 0], y.to(y_desc.dtype))


def scale_rows(x, w):
    M, N = x.shape
    y = x.new_empty((M, N))
    block = [1, 1]
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]),)
    scale_rows_desc[grid](TensorDescriptor.from_tensor(x, block),
                          TensorDescriptor.from_tensor(w, [1]),
                          TensorDescriptor.from_tensor(y, block), M, N,
                          BLOCK_N=triton.next_power_of_2(N))
    return y
