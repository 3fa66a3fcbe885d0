"""Typical inputs of the host-code reader: what an op's entry parameters are made up as.

Takes nothing; gives data: the kinds of ops (`OP_KINDS`: a typical batch, middle and innermost
size, rank and element types, chosen by a regular expression over the op names a file
defines), which tensor names hold indices, which annotations hold no tensor, the GPU the host
code is read for, and the reader's budgets. A host function's parameter that no caller in the
file gives gets such a typical value (`interpreter.Interpreter.typical_argument`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class Dim(int):
    """A size read from a tensor's shape; `if` tests that compare one run both arms."""


#: The GPU the host code is evaluated for (the IR check targets sm_90).
TARGET_CAPABILITY: tuple[int, int] = (9, 0)
#: Streaming multiprocessors of that GPU (an H100 SXM).
SM_COUNT = 132
FLOAT_DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class OpKind:
    """Typical inputs for one kind of op.

    An input tensor of rank r has the shape (`last`,) for r = 1, (`mid`, `last`) for r = 2,
    and (`lead`, `mid`, ..., `mid`, `last`) above: a small batch, middle sizes (rows,
    heads, sequence), and the innermost size (hidden or head dimension). An `int` input is
    `mid`.
    """

    name: str
    pattern: str  # regular expression over the op names of the file
    lead: int
    mid: int
    last: int
    rank: int  # rank of an input tensor whose rank the code never fixes
    dtypes: tuple[str, ...] = FLOAT_DTYPES

    def dims(self, rank: int) -> tuple[int, ...]:
        if rank <= 0:
            return ()
        if rank == 1:
            return (Dim(self.last),)
        middle = (Dim(self.mid),) * (rank - 1 if rank == 2 else rank - 2)
        return ((Dim(self.lead),) if rank > 2 else ()) + middle + (Dim(self.last),)


#: First match wins; the last entry matches everything.
OP_KINDS: tuple[OpKind, ...] = (
    # float32: the type of the inputs an fp8 op does not quantize (its scales); the
    # float8 type of the quantized operands is the one the kernel fixes for them.
    OpKind("fp8 gemm", r"fp8", 2, 512, 512, 2, ("float32",)),
    OpKind("attention", r"attention|attn|fmha|mla|decod|splitk", 2, 32, 128, 4),
    OpKind("recurrent / chunked scan", r"mamba|delta|recurrent|rope|chunk", 2, 64, 64, 4),
    OpKind("gemm", r"matmul|gemm|bmm|linear|moe|expert", 2, 512, 512, 2),
    OpKind("row-wise", r".", 2, 1024, 1024, 2),
)

#: Tensor parameters whose name says they hold indices get int32 elements.
INDEX_TENSOR_NAME = re.compile(
    r"(^|_)(ids?|idx|index|indices|lens|offsets?|positions?|counts?|seqlens?|cu_seqlens)($|_)")

#: Annotations of parameters that hold no tensor (a typical value cannot be made up):
#: strings, callables and containers, in builtin or `typing` spelling.
CONTAINER_ANNOTATION = re.compile(
    r"(typing\.)?(str|callable|dict|list|tuple|set|sequence|mapping)\b", re.IGNORECASE)

MAX_STEPS = 400_000  # statements + expressions per entry run
MAX_DEPTH = 40  # nested interpreted calls
MAX_ITERATIONS = 64  # iterations of one loop
MAX_EXPLORE_DEPTH = 3  # nested explorations of an `if`'s other arm
EXPLORE_STEPS = 50_000  # steps one exploration may take
MAX_VARIANTS = 12  # runs of one entry (defaults, then each option flipped)
MAX_RANK = 6  # a tensor whose rank only `shape[i]` reads fix grows up to this


def kind_for(op_names: list[str]) -> OpKind:
    """The first kind whose pattern matches one of the op names."""
    for kind in OP_KINDS:
        if any(re.search(kind.pattern, name, re.IGNORECASE) for name in op_names):
            return kind
    return OP_KINDS[-1]


