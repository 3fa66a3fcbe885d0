"""Host-side values: what a `ct.launch(...)` site passes for each kernel parameter, when the
host code makes it a compile-time fact.

Takes a `SourceModule` and a kernel name; gives, per parameter, the Python value every launch
site of that kernel passes, when it can be read without running anything: literals, module
constants, host-function locals assigned once,
unary minus, `int()/float()/bool()` and arithmetic on those. A parameter whose launch sites
disagree, or whose value depends on runtime data (tensor shapes), is left out.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import libcst as cst

from transpiler.frontend.cst_walk import in_source_order, walk
from transpiler.frontend.cutile_py import SourceModule, dotted_name

_MAX_DEPTH = 12
_BINOPS: dict[type, Callable[[object, object], object]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow,
}
_UNKNOWN = object()


def launch_constants(source: SourceModule, kernel: str) -> dict[str, object]:
    """Parameter name -> the value all launch sites agree on (only known values)."""
    fn = next((k.node for k in source.kernels if k.name == kernel), None)
    if fn is None:
        return {}
    names = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    agreed: dict[str, object] = {}
    disagree: set[str] = set()
    sites = [s for s in source.launches if s.kernel == kernel and len(s.args) == len(names)]
    for site in sites:
        host = source.functions.get(site.host_function or "")
        for name, arg in zip(names, site.args, strict=True):
            value = evaluate(source, host, arg)
            if value is _UNKNOWN:
                disagree.add(name)
            elif name in agreed and agreed[name] != value:
                disagree.add(name)
            else:
                agreed.setdefault(name, value)
    return {k: v for k, v in agreed.items() if k not in disagree}


def evaluate(source: SourceModule, host: cst.FunctionDef | None, node: cst.BaseExpression,
             depth: int = 0) -> object:
    """The value of a host expression, or `_UNKNOWN`."""
    if depth > _MAX_DEPTH:
        return _UNKNOWN
    if isinstance(node, cst.Integer | cst.Float):
        return node.evaluated_value
    if isinstance(node, cst.Name):
        return _name_value(source, host, node.value, depth)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = evaluate(source, host, node.expression, depth + 1)
        return -inner if isinstance(inner, int | float) else _UNKNOWN
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _BINOPS:
        left = evaluate(source, host, node.left, depth + 1)
        right = evaluate(source, host, node.right, depth + 1)
        if isinstance(left, int | float) and isinstance(right, int | float):
            try:
                return _BINOPS[type(node.operator)](left, right)
            except (ZeroDivisionError, OverflowError):
                return _UNKNOWN
        return _UNKNOWN
    if isinstance(node, cst.Call) and len(node.args) == 1:
        func = dotted_name(node.func)
        if func in ("int", "float", "bool"):
            inner = evaluate(source, host, node.args[0].value, depth + 1)
            if isinstance(inner, int | float | bool):
                return {"int": int, "float": float, "bool": bool}[func](inner)
    if isinstance(node, cst.Attribute) and dotted_name(node) in ("math.pi", "math.e",
                                                                   "math.inf"):
        return getattr(math, node.attr.value)
    return _UNKNOWN


def _name_value(source: SourceModule, host: cst.FunctionDef | None, name: str,
                depth: int) -> object:
    if name in ("True", "False"):
        return name == "True"
    if host is not None:
        assigned = _single_assignment(host, name)
        if assigned is not None:
            return evaluate(source, host, assigned, depth + 1)
        if _is_parameter(host, name):
            # A host parameter's default is only what callers get when they pass nothing:
            # the value is decided by the caller.
            return _UNKNOWN
    if name in source.constants:
        return evaluate(source, None, source.constants[name], depth + 1)
    return _UNKNOWN


def _single_assignment(host: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    found: list[cst.BaseExpression | None] = []
    for node in walk(host):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    found.append(node.value)
                elif isinstance(target.target, cst.Tuple | cst.List):
                    for element in target.target.elements:
                        if isinstance(element.value, cst.Name) and element.value.value == name:
                            found.append(None)
        elif isinstance(node, cst.AugAssign | cst.For):
            if isinstance(node.target, cst.Name) and node.target.value == name:
                found.append(None)
    return found[0] if len(found) == 1 else None


def _is_parameter(host: cst.FunctionDef, name: str) -> bool:
    return any(p.name.value == name for p in
               (*host.params.posonly_params, *host.params.params, *host.params.kwonly_params))


# Element types a host's tensors are made with, as torch / numpy / cuda.tile name them.
_NAMED_DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "int8", "int16", "uint8",
                 "float8_e4m3fn", "float8_e5m2")


def host_dtypes(source: SourceModule) -> list[str]:
    """The dtypes the host code names (`torch.float16`, `np.float32`, `ct.bfloat16`,
    `torch.int32`), in order of first mention."""
    found: list[str] = []
    kernels = {k.name for k in source.kernels}
    for fn_name, fn in source.functions.items():
        if fn_name in kernels:
            continue
        named = [n for n in walk(fn)
                 if isinstance(n, cst.Attribute) and n.attr.value in _NAMED_DTYPES]
        for node in in_source_order(named, source.span):
            name = dotted_name(node)
            attr = node.attr.value
            if name is None or attr in found:
                continue
            head = name.split(".")[0]
            module = source.module_aliases.get(head)
            if module in ("torch", "numpy") or head in source.tile_aliases:
                found.append(attr)
    return found
