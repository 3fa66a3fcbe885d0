"""Read-only walks over a libcst tree.

Takes a libcst node; gives the nodes below it in source order (with the name of the innermost
enclosing function, for `walk_in_functions`). A `cst.CSTVisitor` rebuilds every node it passes
(libcst's visit is a transform), which costs several times more than reading the nodes' fields:
the questions the front end asks of a whole file (launch sites, assigned names, dtype names)
only read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

import libcst as cst

from transpiler.diagnostics import Span

_Node = TypeVar("_Node", bound=cst.CSTNode)


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes directly below `node`."""
    out: list[cst.CSTNode] = []
    for name in type(node).__dataclass_fields__:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            out.append(value)
        elif isinstance(value, tuple | list):
            out.extend(v for v in value if isinstance(v, cst.CSTNode))
    return out


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, parents first, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def walk_in_functions(node: cst.CSTNode, function: str | None = None
                      ) -> Iterator[tuple[cst.CSTNode, str | None]]:
    """Like `walk`, each node with the name of the innermost function definition around it
    (a function's own node counts as inside it; None: at module level)."""
    stack: list[tuple[cst.CSTNode, str | None]] = [(node, function)]
    while stack:
        current, inside = stack.pop()
        if isinstance(current, cst.FunctionDef):
            inside = current.name.value
        yield current, inside
        stack.extend((child, inside) for child in reversed(children(current)))


def in_source_order(nodes: list[_Node], span: Callable[[cst.CSTNode], Span | None]
                    ) -> list[_Node]:
    """`nodes` (found by a walk) ordered by where they start in the source, as a visitor
    meets them: a node's fields are not always declared in source order (`IfExp` declares
    its test before its body). Nodes starting at one place keep the walk's order (outer
    first); a node without a position sorts first."""
    def start(node: cst.CSTNode) -> tuple[int, int]:
        where = span(node)
        return (where.line, where.col) if where is not None else (0, 0)
    return sorted(nodes, key=start)
