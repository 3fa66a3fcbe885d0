"""A 2-D block copy through device-side tensor descriptors: `tl.make_tensor_descriptor`,
`desc.load` (zero outside the tensor) and `desc.store` (nothing written outside)."""
import triton
import triton.language as tl


@triton.jit
def scaled_copy_2d(x_ptr, y_ptr, M, N, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    row = tl.program_id(0) * BLOCK_M
    col = tl.program_id(1) * BLOCK_N
    tile = x_desc.load([row, col])
    y_desc.store([row, col], tile * scale)
