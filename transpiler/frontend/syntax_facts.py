"""Facts about a kernel file's syntax that do not depend on a variant, computed once.

Takes libcst nodes of one `SourceModule` (a kernel, a helper, a block of statements); gives
what the analyzer asks of their text alone: the names a block assigns, the parameters a kernel
uses only as integers, the arrays whose `.dtype` a kernel (or a helper it calls) reads, and
the host code's dtypes and launch constants (`host_values`). The
variant loop analyzes a kernel once per element type and constant it splits on, and every
such analysis asks the same questions of the same nodes: a `SyntaxFacts` answers each once
per node (libcst nodes are immutable, so a node's facts never change), which makes a variant
cost only its typing, not a new walk of the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import libcst as cst

from transpiler.frontend.cst_walk import children, walk
from transpiler.frontend.cutile_py import SourceModule
from transpiler.frontend.host_values import host_dtypes, launch_constants

_Fact = TypeVar("_Fact")

#: `ct` calls whose first argument is an array (so that argument is not an integer).
ARRAY_CALLS = frozenset({
    "load", "store", "gather", "scatter", "num_tiles", "atomic_add", "atomic_and",
    "atomic_or", "atomic_xor", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas",
    "load_advanced_indexing", "store_advanced_indexing"})
#: Attributes that only an array has.
_ARRAY_ATTRS = frozenset({"shape", "dtype", "ndim"})


def collect_target_names(target: cst.BaseExpression, names: set[str]) -> None:
    """Add the plain names an assignment target binds (through tuples and lists)."""
    if isinstance(target, cst.Name):
        names.add(target.value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            collect_target_names(element.value, names)


def assigned_names(stmts: Iterable[cst.CSTNode]) -> frozenset[str]:
    """The names `stmts` assign (plain, augmented and annotated assignments, nested blocks
    included)."""
    names: set[str] = set()
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign):
                collect_target_names(node.target, names)
    return frozenset(names)


def integer_uses(fn: cst.FunctionDef) -> frozenset[str]:
    """Names `fn` uses only as integers: in `range(...)`, arithmetic or comparisons, never as
    the array of a memory operation or through `.shape`/`.dtype`."""
    numeric: set[str] = set()
    array: set[str] = set()
    for node in walk(fn.body):
        if isinstance(node, cst.Call):
            callee = node.func.attr.value if isinstance(node.func, cst.Attribute) else (
                node.func.value if isinstance(node.func, cst.Name) else "")
            if callee in ARRAY_CALLS and node.args and isinstance(node.args[0].value, cst.Name):
                array.add(node.args[0].value.value)
            if callee == "range":
                numeric.update(a.value.value for a in node.args if isinstance(a.value, cst.Name))
        elif isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.attr.value in _ARRAY_ATTRS:
                array.add(node.value.value)
        elif isinstance(node, cst.BinaryOperation):
            numeric.update(s.value for s in (node.left, node.right) if isinstance(s, cst.Name))
        elif isinstance(node, cst.Comparison):
            sides = (node.left, *(c.comparator for c in node.comparisons))
            numeric.update(s.value for s in sides if isinstance(s, cst.Name))
    return frozenset(numeric - array)


def dtype_read_arrays(fn: cst.FunctionDef, source: SourceModule) -> frozenset[str]:
    """The parameters of `fn` whose `.dtype` its body, or a helper it calls (directly or
    through other helpers), reads (`x.astype(y.dtype)`); helpers are matched by parameter
    name, as they usually take an array under the kernel's name for it (a miss only keeps
    the earlier behaviour). Host functions are not read: their `x.dtype` is torch's."""
    params = {p.name.value for p in fn.params.params}
    found: set[str] = set()
    called: list[str] = []

    def read(body: cst.CSTNode) -> None:
        for node in walk(body):
            if isinstance(node, cst.Attribute):
                if (node.attr.value == "dtype" and isinstance(node.value, cst.Name)
                        and node.value.value in params):
                    found.add(node.value.value)
            elif isinstance(node, cst.Call):
                if isinstance(node.func, cst.Name) and node.func.value not in called:
                    called.append(node.func.value)

    read(fn.body)
    kernels = {k.name for k in source.kernels}
    for name in called:  # grows while helpers are read
        helper = source.functions.get(name)
        if helper is not None and name not in kernels:
            read(helper.body)
    return frozenset(found)


def has_return(node: cst.CSTNode) -> bool:
    """Whether a `return` statement occurs in `node`."""
    return any(isinstance(n, cst.Return) for n in walk(node))


class SyntaxFacts:
    """The facts above for the nodes of one source module, each computed on first use.
    One instance serves every variant analyzed of that module's kernels."""

    def __init__(self, source: SourceModule) -> None:
        self.source = source
        # (question, node ids) -> (the nodes, kept alive so that their ids stay theirs; fact)
        self._memo: dict[tuple[str, tuple[int, ...]], tuple[tuple, object]] = {}

    def _cached(self, question: str, nodes: tuple, compute: Callable[[], _Fact]) -> _Fact:
        key = (question, tuple(id(n) for n in nodes))
        hit = self._memo.get(key)
        if hit is None:
            hit = (nodes, compute())
            self._memo[key] = hit
        return hit[1]  # type: ignore[return-value]

    def assigned_names(self, stmts: Iterable[cst.CSTNode]) -> frozenset[str]:
        nodes = tuple(stmts)
        return self._cached("assigned", nodes, lambda: frozenset().union(
            *(self._assigned_in(n) for n in nodes)))

    def _assigned_in(self, node: cst.CSTNode) -> frozenset[str]:
        """`assigned_names([node])`, from the memoized answers of the compound statements
        inside it (the analyzer asks of a loop's body, then of each `if` in it: one walk)."""
        def compute() -> frozenset[str]:
            names: set[str] = set()
            stack = [node]
            while stack:
                current = stack.pop()
                if current is not node and isinstance(current, cst.BaseCompoundStatement):
                    names |= self._assigned_in(current)
                    continue
                if isinstance(current, cst.AssignTarget | cst.AugAssign | cst.AnnAssign):
                    collect_target_names(current.target, names)
                stack.extend(children(current))
            return frozenset(names)
        return self._cached("assigned_in", (node,), compute)

    def integer_uses(self, fn: cst.FunctionDef) -> frozenset[str]:
        return self._cached("integer", (fn,), lambda: integer_uses(fn))

    def dtype_read_arrays(self, fn: cst.FunctionDef) -> frozenset[str]:
        return self._cached("dtype_read", (fn,), lambda: dtype_read_arrays(fn, self.source))

    def has_return(self, node: cst.CSTNode) -> bool:
        return self._cached("return", (node,), lambda: has_return(node))

    def host_dtypes(self) -> list[str]:
        """`host_values.host_dtypes` of the module (a new list each call)."""
        return list(self._cached("host_dtypes", (), lambda: host_dtypes(self.source)))

    def launch_constants(self, kernel: str) -> dict[str, object]:
        """`host_values.launch_constants` of the kernel named `kernel` (a new dict each
        call)."""
        fn = next((k.node for k in self.source.kernels if k.name == kernel), None)
        nodes = (fn,) if fn is not None else ()
        return dict(self._cached("launch_constants", nodes,
                                 lambda: launch_constants(self.source, kernel)))
