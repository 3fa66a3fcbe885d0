"""Split requests: what one translation of a kernel cannot fix for every launch.

Takes the analyzer's view of the statement being typed (`SplitState`: the static `if`
conditions around it, the conditions around each array's first ranked use, the element types
fixed under static `if`s); gives `SplitRequest` values: the kernel's code depends on a
`ct.Constant`'s value or on the outcome of a condition over constants (`ConstSplit`), or on the
launch-time element type of some arrays (`DtypeSplit`). cuTile Python compiles only what a
launch selects, while rustc checks every arm, so such a kernel is translated once per value.

A typing rule that meets a split cannot type the rest of the body for every variant at once (its
result's type, rank or very existence differs per value), so it stops the analysis of this
variant with `SplitNeeded`, which carries the request; the variant loop
(`transpiler.frontend.variants`) turns the request into the variants to analyze next. A pass
after typing (fma contraction) returns its requests instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from transpiler.diagnostics import Span

#: The construct of a store that narrows a variant's element type (typing_rules.py).
NARROWING_STORE = "store:narrowing"
#: The construct of an atomic on an element type cuTile Python refuses (typing_rules.py).
ATOMIC_DTYPE = "atomic:dtype"
#: Constructs that refuse a variant's element types as cuTile Python refuses them: a variant
#: failing on one of them is a launch cuTile Python cannot compile either.
DTYPE_REFUSALS = frozenset({NARROWING_STORE, ATOMIC_DTYPE})


@dataclass(frozen=True)
class ConstSplit:
    """Which code exists depends on `ct.Constant` parameters in a way Rust cannot type-check
    for every value: translate once per value of the bools among `params` (the launch sites'
    value of an int), or once per outcome of `condition` (`BLOCK == 1`) when it reads
    integers."""

    params: tuple[str, ...]
    what: str
    span: Span | None
    condition: object = None


@dataclass(frozen=True)
class DtypeSplit:
    """The code depends on the launch-time element type shared by the arrays `params`:
    translate once per element type."""

    params: tuple[str, ...]
    what: str
    span: Span | None


SplitRequest = ConstSplit | DtypeSplit


class SplitNeeded(Exception):  # noqa: N818 - a signal to the variant loop, not a failure
    """The analysis of this variant stops at `request`: the rest of the body types
    differently per value."""

    def __init__(self, request: SplitRequest) -> None:
        super().__init__(request.what)
        self.request = request

    @property
    def params(self) -> list[str]:
        return list(self.request.params)

    @property
    def what(self) -> str:
        return self.request.what

    @property
    def span(self) -> Span | None:
        return self.request.span


class ConstDependentError(SplitNeeded):
    """`SplitNeeded` for a `ConstSplit` (the analyzer's and typing rules' spelling)."""

    def __init__(self, params: Sequence[str], what: str, span: Span | None,
                 condition: object = None) -> None:
        super().__init__(ConstSplit(tuple(params), what, span, condition))

    @property
    def condition(self) -> object:
        request = self.request
        assert isinstance(request, ConstSplit)
        return request.condition


class DtypeDependentError(SplitNeeded):
    """`SplitNeeded` for a `DtypeSplit`."""

    def __init__(self, params: Sequence[str], what: str, span: Span | None) -> None:
        super().__init__(DtypeSplit(tuple(params), what, span))


class SplitState(Protocol):
    """What the split rules read of the analysis in progress."""

    # The compile-time conditions of the static `if`s around the statement (innermost last).
    static_conditions: list[object]
    # The static `if` conditions around each array's first ranked use.
    array_rank_conditions: dict[str, list[object]]
    # Arrays whose element type a store under a static `if` fixed: that `if`'s condition.
    static_dtype_pins: dict[str, object]
    # Array parameters whose `.dtype` the kernel body reads.
    dtype_read_arrays: frozenset[str]

    def span(self, node: cst.CSTNode) -> Span | None: ...

    def params_in(self, value: object) -> list[str]:
        """The `ct.Constant` parameters a compile-time value reads, in order of mention."""
        ...


# ---- the rules ------------------------------------------------------------------------------


def innermost_condition(state: SplitState, conditions: list[object]) -> object | None:
    """The innermost of `conditions` (outermost first) that reads a `ct.Constant` parameter,
    or None."""
    return next((c for c in reversed(conditions) if state.params_in(c)), None)


def rank_conflict(state: SplitState, name: str, span: Span | None) -> None:
    """Stop with a `ConstSplit` when an array's two ranks are used under compile-time
    conditions (Python compiles one arm, launched with an array of that rank): the kernel
    is then translated per outcome of the innermost such condition."""
    condition = innermost_condition(state, state.static_conditions)
    if condition is None:
        condition = innermost_condition(state, state.array_rank_conditions.get(name, []))
    if condition is not None:
        raise ConstDependentError(state.params_in(condition), f"array `{name}` has a "
                                  "different rank under each compile-time condition", span,
                                  condition)


def note_static_dtype_pin(state: SplitState, array: str) -> None:
    """Record that a store under static `if`s fixes `array`'s launch-time element type."""
    condition = innermost_condition(state, state.static_conditions)
    if condition is not None:
        state.static_dtype_pins.setdefault(array, condition)


def static_pin_split(state: SplitState, array: str, node: cst.CSTNode) -> None:
    """Stop with a `ConstSplit` when a store or atomic under a static `if` would fix the
    element type of an array whose `.dtype` the kernel reads: Python compiles that arm only
    for the launches taking it, and the others may pass any element type, so the kernel is
    translated per outcome rather than fixed for all of them."""
    if array in state.dtype_read_arrays:
        split_per_static_outcome(state, f"array `{array}` gets a fixed element type under a "
                                 "compile-time condition", node)


def split_per_static_outcome(state: SplitState, what: str, node: cst.CSTNode) -> None:
    """Stop with a `ConstSplit` for the innermost enclosing compile-time condition, if any:
    what `what` says holds only for the launches taking this arm."""
    condition = innermost_condition(state, state.static_conditions)
    if condition is not None:
        raise ConstDependentError(state.params_in(condition), what, state.span(node), condition)


def static_dtype_conflict(state: SplitState, array: str, node: cst.CSTNode) -> None:
    """Stop with a `ConstSplit` when `array`'s element type was fixed under a static `if`
    (`note_static_dtype_pin`) and a store now needs another one."""
    condition = state.static_dtype_pins.get(array)
    if condition is not None:
        raise ConstDependentError(state.params_in(condition), f"array `{array}` gets a "
                                  "different element type under each compile-time condition",
                                  state.span(node), condition)
