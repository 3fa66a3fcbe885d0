"""Neutral enumerations and kernel hints of the kernel model.

Takes nothing; gives the closed sets of mode values an op can carry (the padding of an
out-of-bounds load, the rounding of a float operation, the memory order and scope of an
atomic) and `KernelHints`, the launch hints a kernel declares. A front end maps its own
spelling of each to these values; lowering maps these values to the target's spelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Padding(StrEnum):
    """The value an out-of-bounds element of a load reads as."""

    UNDETERMINED = "undetermined"
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class Rounding(StrEnum):
    """The rounding of a float operation's result."""

    NEAREST_EVEN = "nearest_even"
    TOWARD_ZERO = "toward_zero"
    TOWARD_NEG_INF = "toward_neg_inf"
    TOWARD_POS_INF = "toward_pos_inf"
    NEAREST_AWAY = "nearest_away"
    NEAREST_INT_TOWARD_ZERO = "nearest_int_toward_zero"
    FULL = "full"
    APPROX = "approx"


class MemoryOrder(StrEnum):
    """The ordering of a memory access against the other accesses of the block."""

    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class MemoryScope(StrEnum):
    """The set of threads a memory access is ordered with."""

    BLOCK = "block"
    DEVICE = "device"
    SYSTEM = "system"


#: A hint value for every target (`default`) or per target name (`sm_80`).
HintValue = int | dict[str, int]


@dataclass(frozen=True)
class KernelHints:
    """What a kernel asks of its launch: the blocks per multiprocessor it aims for, the
    blocks per cluster, and the worker warps per block; each a value or one per target."""

    occupancy: HintValue | None = None
    ctas_per_cluster: HintValue | None = None
    worker_warps: HintValue | None = None
    extra: dict[str, object] = field(default_factory=dict)
