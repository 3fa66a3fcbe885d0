"""What both generators share: the generated kernel record, typed tile values, a seeded
chooser with the size knob.

Takes nothing; gives `GeneratedKernel` (source text, spec object, features), `TileType`
(element type and a symbolic shape), `Scope` (the typed variables in scope), `KernelParts`
(the kernel being written) and `Chooser`
(a `random.Random` seeded from the campaign seed and the kernel's index, so that one
kernel is reproducible alone).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

#: Symbolic tile shapes, by name: the tile constants they are made of.
SHAPES: dict[str, tuple[str, ...]] = {
    "full": ("TM", "TN"), "col": ("TM", "1"), "row": ("1", "TN"), "tr": ("TN", "TM"),
}
#: Shapes that broadcast to `full` in a binary operation, as operand pairs.
BROADCAST_PAIRS: tuple[tuple[str, str], ...] = (
    ("full", "full"), ("full", "col"), ("row", "full"), ("col", "row"), ("full", "row"),
)


@dataclass(frozen=True)
class TileType:
    dtype: str  # "float32", "float16", "int32", "bool"
    shape: str  # a key of SHAPES

    @property
    def is_float(self) -> bool:
        return self.dtype.startswith("float")


@dataclass
class GeneratedKernel:
    """One generated source file and what the campaign needs to check it."""

    ident: str
    language: str
    source: str
    spec: dict[str, Any]
    features: set[str] = field(default_factory=set)

    def spec_text(self) -> str:
        return json.dumps(self.spec, indent=1)


@dataclass
class Scope:
    """Typed variables in scope, in definition order."""

    variables: list[tuple[str, TileType]] = field(default_factory=list)

    def of_type(self, ty: TileType) -> list[str]:
        return [name for name, t in self.variables if t == ty]

    def of_shape(self, shape: str) -> list[tuple[str, TileType]]:
        return [(name, t) for name, t in self.variables if t.shape == shape]

    def copy(self) -> Scope:
        return Scope(list(self.variables))


@dataclass
class KernelParts:
    """A kernel being written: its arrays (name -> dtype) and their launch dims, body lines,
    helper definitions and the features used."""

    arrays: dict[str, str] = field(default_factory=dict)
    array_dims: dict[str, list[str]] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        """A new name: `prefix` and a number not used before in this kernel."""
        self.counter += 1
        return f"{prefix}{self.counter}"


class Chooser:
    """Seeded choices; `size` scales statement counts and expression depth."""

    def __init__(self, seed: int, index: int, size: int) -> None:
        self.rng = random.Random(f"{seed}:{index}")
        self.size = max(1, size)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: Any) -> Any:
        return self.rng.choice(list(items))

    def weighted(self, table: dict[str, float]) -> str:
        names = list(table)
        return self.rng.choices(names, weights=[table[n] for n in names])[0]

    def between(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)
