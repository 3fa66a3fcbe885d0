"""The front-end interface: what a source language contributes to the driver.

Takes nothing; gives `FrontEnd`, the contract each input language (cuTile Python, Triton)
implements, and `PassProfile`, the compiler habits of that language's own compiler that the
later passes reproduce or not. A front end says whether a file's text is written in its
language (by content: what it imports), parses the text to a source index (its kernels,
each with a span, and the host code's launch sites), and analyzes one kernel into the
neutral typed `KernelModel`s (one per variant the kernel needs). Nothing is imported or run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from transpiler.diagnostics import Span
from transpiler.model import KernelModel


@dataclass(frozen=True)
class PassProfile:
    """Which habits of the source language's compiler the translation reproduces.

    `contract_fma`: `a * b + c` becomes one `fma` where that compiler contracts it;
    `split_loops`: a loop that branches on its index becomes two loops; `hoist_invariants`:
    loop-invariant pure operations move out of loops; `token_order`: how memory accesses are
    ordered (`"per-array"`: every access to an array after the previous write to it, as
    cuTile Python orders them; `"per-pointer-parameter"`: the same, keyed by the pointer
    parameter an address derives from, with a barrier or an atomic ordering everything).
    """

    contract_fma: bool
    split_loops: bool
    hoist_invariants: bool
    token_order: str


class KernelSource(Protocol):
    """One kernel of a source index: its name and its function's syntax."""

    name: str
    node: cst.FunctionDef


class SourceIndex(Protocol):
    """A parsed file: path, text, module syntax, its kernels, spans of its nodes."""

    path: str
    text: str
    module: cst.Module

    @property
    def kernels(self) -> Sequence[KernelSource]: ...

    def span(self, node: cst.CSTNode) -> Span | None: ...


class FrontEnd(ABC):
    """One input language."""

    #: The `--from` name of the language.
    name: str
    #: Its compiler's habits (see `PassProfile`).
    profile: PassProfile
    #: The diagnostic when a file of this language defines no kernel.
    no_kernel_message: str

    @abstractmethod
    def detect(self, text: str) -> bool:
        """Whether the text is (at least partly) written in this language."""

    @abstractmethod
    def parse(self, text: str, path: str) -> SourceIndex:
        """The source index; raises `TranslationError` on a syntax error."""

    def analysis_state(self, source: SourceIndex) -> object:
        """What the analysis of one file's kernels may share (facts of the file's syntax
        that every kernel and variant asks); None when nothing is shared."""
        return None

    @abstractmethod
    def analyze(self, source: SourceIndex, kernel: KernelSource, allow_holes: bool,
                state: object = None) -> Iterable[KernelModel]:
        """The typed models of one kernel (one per variant), given the file's
        `analysis_state`; raises `TranslationError`."""
