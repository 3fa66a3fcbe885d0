"""Element-wise helpers shared by the kernels of the activation files beside this one."""

import cuda.tile as ct

HALF = 0.5


def sigmoid_tile(x):
    return 1.0 / (1.0 + ct.exp(-x))


def silu_tile(x):
    return x * sigmoid_tile(x)
