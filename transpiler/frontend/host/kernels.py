"""What the host-code reader needs of a file's kernels, read from their signatures.

Takes a parsed module; gives each `@ct.kernel`'s parameter names, which of them are
`ct.Constant` (directly or through an alias such as `ConstInt = ct.Constant[int]`), and
`constant_value`: the plain Python constant an abstract argument value stands for, as a
constant of one kind (`int`, `bool`, `float`, or `any`), or None when it is not known.
"""

from __future__ import annotations

import ast

from transpiler.frontend.host.typical import Dim
from transpiler.frontend.host.values import Cond, FakeTensor, bound_names, is_kernel_def


def kernel_params(tree: ast.Module) -> dict[str, list[str]]:
    """Parameter names of every kernel of a parsed file, in order."""
    out: dict[str, list[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and is_kernel_def(stmt):
            out[stmt.name] = [a.arg for a in (*stmt.args.posonlyargs, *stmt.args.args)]
    return out


def constant_params(tree: ast.Module) -> dict[str, set[str]]:
    """Per kernel, the parameters annotated `ct.Constant[...]` (directly or via an alias)."""
    aliases = {n for stmt in tree.body if isinstance(stmt, ast.Assign)
               and "Constant" in ast.unparse(stmt.value) for n in bound_names(stmt)}
    out: dict[str, set[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and is_kernel_def(stmt):
            out[stmt.name] = {a.arg for a in (*stmt.args.posonlyargs, *stmt.args.args)
                              if a.annotation is not None and _is_constant_annotation(
                                  a.annotation, aliases)}
    return out


def _is_constant_annotation(node: ast.expr, aliases: set[str]) -> bool:
    text = ast.unparse(node)
    return "Constant" in text or text in aliases


def constant_value(value: object, kind: str) -> int | bool | float | None:
    if isinstance(value, FakeTensor) and value.poly:
        value = Dim(value.size)
    if isinstance(value, Cond):
        value = value.value
    if isinstance(value, bool):
        return value if kind == "bool" else int(value)
    if isinstance(value, int):
        if kind == "float":
            return float(value)
        return bool(value) if kind == "bool" else int(value)
    if isinstance(value, float):
        return value if kind in ("float", "any") else None
    return None
