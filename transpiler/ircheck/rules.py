"""Reference producers and the accepted-noise rule set each one is compared under.

Takes nothing; gives `ReferenceProducer`, what the IR check needs of whatever produces the
reference Tile IR of a kernel (a compiler of the source language), the producers there are
(`PRODUCERS`, by name), and `RULE_SETS`: per producer, the names of the rules of
`canonicalize.RULES` that relate its IR to cuTile Rust's. Rules describe one compiler's
habits (`flattened-gather` and `early-exit` are cuTile Python's), so a second producer
comes with its own set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from transpiler.ircheck.canonicalize import RULE_NAMES
from transpiler.ircheck.reference import ReferenceIrError, reference_ir
from transpiler.ircheck.spec import KernelSpec


class ReferenceProducer(Protocol):
    """A compiler that gives the reference Tile IR of one specialization of a kernel."""

    #: The producer's name (a key of `RULE_SETS`).
    name: str
    #: The errors by which it says that it rejects a specialization.
    rejections: tuple[type[Exception], ...]

    def reference_ir(self, source_path: Path, spec: KernelSpec) -> str:
        """The disassembled Tile IR, with debug locations into `source_path`."""
        ...


class CutilePyReference:
    """cuTile Python (`cuda.tile`), on the kernel lifted out of its file
    (`ircheck/reference.py`)."""

    name = "cutile_py"
    rejections: tuple[type[Exception], ...] = (ReferenceIrError, ValueError, TypeError)

    def reference_ir(self, source_path: Path, spec: KernelSpec) -> str:
        return reference_ir(source_path, spec)


CUTILE_PY = CutilePyReference()
PRODUCERS: dict[str, ReferenceProducer] = {CUTILE_PY.name: CUTILE_PY}

#: Per producer, the accepted-noise rules (by name) its IR is compared under.
RULE_SETS: dict[str, frozenset[str]] = {CUTILE_PY.name: RULE_NAMES}
