"""Compile-time choices of a Triton kernel on its `tl.constexpr` values: one entry per value.

Takes what the analyzer meets when a `tl.constexpr` decides the kernel's code in a way one
Rust entry generic over it cannot type (a string compared with `ACTIVATION == "relu"`, a
choice between dtypes `tl.float8e5 if FP8 else tl.float16`, a choice between constants on
a condition `hd if ROPE == 0 else ROPE`), raised as `NeedsChoice`. Gives the values the
variant loop translates the kernel for: per parameter, the values the file's launch sites,
autotune configs and heuristics pass (read by `frontend/triton_host.py`, nothing run), both
values of a bool no launch fixes; per condition, both outcomes. Each value becomes one Rust
entry: its manifest records the value (`const_variant`) or the outcome (`conditions`).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from transpiler.frontend.triton_host import HostReport, read_host
from transpiler.model import DimExpr, DimSym

# A value whose text is a Rust identifier fragment (the entry is named after it).
_ENTRY_TEXT = re.compile(r"^[A-Za-z0-9_]*$")


@dataclass(frozen=True)
class BoolSym:
    """A `tl.constexpr` parameter holding a bool (a `const NAME: bool` generic)."""

    name: str
    kind: str = "bool"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FloatSym:
    """A float `tl.constexpr` parameter (a launch passes a float, or the kernel compares it
    with one): cuTile Rust has no float const generics, so the entry takes its f32 bits
    (`NAME_BITS`) and reinterprets them; a comparison of it is decided per entry."""

    name: str
    kind: str = "float"

    def __str__(self) -> str:
        return self.name


def reads_float(value: object) -> bool:
    """Whether a compile-time value reads a float constexpr."""
    if isinstance(value, FloatSym):
        return True
    return isinstance(value, DimExpr) and (reads_float(value.left) or reads_float(value.right))


def float_constexprs(report: HostReport | None, kernel: str) -> set[str]:
    """The constexprs some launch of `kernel` passes a float (not a bool)."""
    found: set[str] = set()
    for spec in report.specializations.get(kernel, []) if report is not None else []:
        found |= {name for name, value in spec.constexprs
                  if isinstance(value, float) and not isinstance(value, bool)}
    return found


class NeedsChoice(Exception):
    """The kernel's code depends on a constexpr's value (`param`) or on the outcome of a
    condition over constexprs (`condition`, a symbolic value)."""

    def __init__(self, param: str | None = None, condition: object = None,
                 truth: bool = False, dtype: bool = False, nullable: bool = False) -> None:
        super().__init__(param or condition_text(condition))
        self.param = param
        self.condition = condition
        # The parameter is used as a truth value (`not P`, `a if P else b`): when no launch
        # says its value, both bools get an entry.
        self.truth = truth
        # The parameter is used as an element type (`x.to(P)`): when no launch says its
        # value, the float types get an entry each.
        self.dtype = dtype
        # A pointer parameter tested against None: one entry takes None, one a tensor.
        self.nullable = nullable


@dataclass(frozen=True)
class Outcome:
    """A condition over constexprs fixed for one entry."""

    text: str
    tree: object
    value: bool


@functools.lru_cache(maxsize=4)
def host_report(text: str, path: str) -> HostReport | None:
    """The file's launch sites as read by the host reader, None when it cannot read them
    (kept for the last few files: every analysis of a kernel's variants asks again)."""
    try:
        return read_host(text, path)
    except (SyntaxError, ValueError, RecursionError):
        return None


def launch_values(report: HostReport | None, kernel: str, param: str) -> list[object]:
    """The values launches pass for `param`, in a stable order (None, bools, ints, text)."""
    found: list[object] = []
    if report is not None:
        for spec in report.specializations.get(kernel, []):
            for name, value in spec.constexprs:
                if name == param and not any(value == v and type(value) is type(v)
                                             for v in found):
                    found.append(value)
    return sorted(found, key=lambda v: (_rank(v), str(v)))


def _rank(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        return 1
    return 2 if isinstance(value, int | float) else 3


def is_entry_text(value: object) -> bool:
    """Whether an entry can be named after this value."""
    if isinstance(value, float):
        return math.isfinite(value)  # named as `0p5` (`specialization.plan`)
    return isinstance(value, bool | int | str | type(None)) and bool(
        _ENTRY_TEXT.match(str(value)))


def condition_text(value: object) -> str:
    """A condition over constexprs as text (`rope_hd == 0`)."""
    if isinstance(value, DimExpr):
        return f"{condition_text(value.left)} {value.op} {condition_text(value.right)}"
    if isinstance(value, DimSym | BoolSym | FloatSym):
        return value.name
    return repr(value)


def condition_tree(value: object) -> object:
    """The JSON tree of a condition (`["==", ["param", "rope_hd"], 0]`), as the manifest's
    conditions hold it."""
    if isinstance(value, DimExpr):
        return [value.op, condition_tree(value.left), condition_tree(value.right)]
    if isinstance(value, DimSym | BoolSym | FloatSym):
        return ["param", value.name]
    return value
