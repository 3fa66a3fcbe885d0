"""Kernels defined inside functions and classes: their file-unique names and hoisted text.

Takes a Python file's text; gives, for every `@ct.kernel` defined below module level (inside
a test function, a kernel factory, a class body), the name the translation gives it (the
enclosing scopes' names and its own, joined with `_`: two tests may each define a `kernel`)
and a copy of the file in which that kernel stands at module level under that name, on its
own lines (decorators and body dedented, every other line of the statement that held it
blank), for tools that need the kernel at module level (the IR check's reference lift).
Nothing in the file is imported or run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class NestedKernel:
    name: str  # the file-unique name
    own_name: str  # the name of the `def`
    scopes: tuple[str, ...]  # enclosing functions / classes, outermost first
    first_line: int  # first decorator line
    def_line: int
    end_line: int


def nested_kernel_name(scopes: tuple[str, ...] | list[str], name: str) -> str:
    """The translation's name of kernel `name` defined inside `scopes`."""
    return "_".join([*scopes, name])


def nested_kernels(text: str) -> list[NestedKernel]:
    """Every function below module level that a decorator named `kernel` marks, in order."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found: list[NestedKernel] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            _collect(stmt, (stmt.name,), found)
    return found


def _collect(scope: ast.AST, scopes: tuple[str, ...], found: list[NestedKernel]) -> None:
    for node in ast.iter_child_nodes(scope):
        if isinstance(node, ast.FunctionDef) and _has_kernel_decorator(node):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found.append(NestedKernel(nested_kernel_name(scopes, node.name), node.name, scopes,
                                      first, node.lineno, node.end_lineno or node.lineno))
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            _collect(node, (*scopes, node.name), found)
        elif isinstance(node, ast.stmt):
            _collect(node, scopes, found)


def _has_kernel_decorator(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Attribute) and target.attr == "kernel":
            return True
        if isinstance(target, ast.Name) and target.id == "kernel":
            return True
    return False


def hoisted_text(text: str, name: str) -> str | None:
    """The file with nested kernel `name` at module level (same lines, renamed to `name`),
    or None when `name` is no nested kernel or its lines cannot be dedented."""
    kernel = next((k for k in nested_kernels(text) if k.name == name), None)
    if kernel is None:
        return None
    tree = ast.parse(text)
    outer = next(s for s in tree.body if s.lineno <= kernel.def_line <= (s.end_lineno or 0))
    outer_first = min([outer.lineno, *(d.lineno for d in getattr(outer, "decorator_list", []))])
    lines = text.splitlines(keepends=True)
    def_text = lines[kernel.def_line - 1]
    indent = def_text[: len(def_text) - len(def_text.lstrip())]
    for number in range(outer_first, (outer.end_lineno or outer.lineno) + 1):
        if not kernel.first_line <= number <= kernel.end_line:
            lines[number - 1] = "\n"
            continue
        line = lines[number - 1]
        if line.startswith(indent):
            lines[number - 1] = line[len(indent):]
        elif line.strip():
            return None  # a line (a string's continuation) left of the kernel's indentation
    own = lines[kernel.def_line - 1]
    lines[kernel.def_line - 1] = own.replace(f"def {kernel.own_name}(", f"def {name}(", 1)
    return "".join(lines)
