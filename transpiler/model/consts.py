"""The compile-time value language: constants decided when a kernel is launched.

Takes nothing; gives the values a front end folds a kernel's compile-time Python into (a
constant parameter known only at launch, an expression over such parameters, a number with
an explicit element type), the JSON trees that record conditions and float expressions in
the manifest, their evaluation for given parameter values, and `PY_OPS`, the one table of
Python's binary operator semantics every evaluator uses.

Tree forms: a condition is `["==", ["param", "BLOCK_W"], 1]`, a float expression
`["/", 1.0, ["param", "scale"]]`; leaves are Python values.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

from transpiler.diagnostics import Span
from transpiler.model.ir import ConstType, DimExpr, DimSym, DType, TExpr

I32 = DType("int32")
F32 = DType("float32")
BOOL = DType("bool_")

#: Python's binary operators by their source spelling, as Python evaluates them.
PY_OPS: dict[str, Callable[[object, object], object]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}

#: Each comparison and the comparison that holds exactly when it fails.
NEGATED: dict[str, str] = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


@dataclass(frozen=True)
class ConstParam:
    """A non-integer constant parameter (`kind` "bool" or "float"): known only at launch.
    Integer constant parameters are `DimSym`, since they can size tiles."""

    name: str
    kind: str = "bool"


@dataclass(frozen=True)
class TypedConst:
    """A number with an explicit element type (`float8_e4m3fn(0.0)` in the source)."""

    value: object
    dtype: DType


@dataclass(frozen=True)
class ConstExpr:
    """A compile-time expression over constant parameters, decided at launch: `op` is a
    key of `PY_OPS`."""

    op: str
    left: object
    right: object


def const(value: object, span: Span | None = None) -> TExpr:
    """A compile-time value as an expression node."""
    return TExpr("const", [], ConstType(value), span)


def is_const(expr: TExpr) -> bool:
    return isinstance(expr.type, ConstType)


def is_float_const(value: TExpr) -> bool:
    return is_const(value) and isinstance(value.type.value, float)


def is_concrete(value: object) -> bool:
    """Whether a compile-time value is known now (not a parameter or an expression over
    parameters)."""
    return not isinstance(value, DimSym | DimExpr | ConstParam | ConstExpr)


def condition_tree(value: object) -> object:
    """JSON form of a condition: ["==", ["param", "BLOCK_W"], 1]."""
    if isinstance(value, ConstParam | DimSym):
        return ["param", value.name]
    if isinstance(value, ConstExpr | DimExpr):
        return [value.op, condition_tree(value.left), condition_tree(value.right)]
    return value


def evaluate_condition(tree: object, values: dict[str, object]) -> object:
    """The value of a `condition_tree` for given constants (Python semantics)."""
    if isinstance(tree, list) and tree[0] == "param":
        return values[tree[1]]
    if isinstance(tree, list):
        left, right = evaluate_condition(tree[1], values), evaluate_condition(tree[2], values)
        return PY_OPS[tree[0]](left, right)
    return tree


def is_equality_pin(tree: object, outcome: bool) -> bool:
    """Whether this outcome of the condition fixes a constant: `P == c` holding, or
    `P != c` failing."""
    return (isinstance(tree, list) and tree[0] == ("==" if outcome else "!=")
            and isinstance(tree[1], list) and tree[1][0] == "param"
            and isinstance(tree[2], int | bool))


def params_in(value: object) -> list[str]:
    """The constant parameters a compile-time value reads, in order of first use."""
    if isinstance(value, ConstParam | DimSym):
        return [value.name]
    if isinstance(value, DimExpr | ConstExpr):
        out = params_in(value.left)
        return out + [p for p in params_in(value.right) if p not in out]
    return []


def first_param(value: object) -> str | None:
    """The first constant parameter a `ConstExpr` (or `DimExpr`) tree reads, or None."""
    if isinstance(value, ConstParam | DimSym):
        return value.name
    if isinstance(value, ConstExpr | DimExpr):
        return first_param(value.left) or first_param(value.right)
    return None


#: Integer arithmetic on dimensions whose float value is the same sum, difference or product.
_EXACT_DIM_OPS = ("+", "-", "*")


def is_float_expression(value: object) -> bool:
    """A `ConstExpr` tree of + - * / over float constant parameters, numbers and integer
    constants (`N * 1.0` with `N: ct.Constant[int]`; integer `+ - *` of them inside)."""
    if isinstance(value, ConstExpr):
        return value.op in ("+", "-", "*", "/") and is_float_expression(
            value.left) and is_float_expression(value.right)
    if isinstance(value, ConstParam):
        return value.kind == "float"
    if isinstance(value, DimSym):
        return True
    if isinstance(value, DimExpr):
        return value.op in _EXACT_DIM_OPS and is_float_expression(
            value.left) and is_float_expression(value.right)
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_bool_expression(value: object) -> bool:
    """A `ConstExpr` condition over constant parameters (and, or, not, comparisons)."""
    if isinstance(value, ConstExpr):
        if value.op in ("&", "|", "^", "==", "!=", "<", "<=", ">", ">="):
            return all(is_bool_expression(v) or isinstance(v, int | float | DimSym | DimExpr)
                       for v in (value.left, value.right))
        return False
    if isinstance(value, ConstParam):
        return value.kind == "bool"
    return isinstance(value, bool | DimSym | DimExpr | int)


def expression_tree(value: object) -> object:
    """JSON-ready form of a float expression: ["/", 1.0, ["param", "p"]]."""
    if isinstance(value, ConstExpr | DimExpr):
        return [value.op, expression_tree(value.left), expression_tree(value.right)]
    if isinstance(value, ConstParam | DimSym):
        return ["param", value.name]
    return float(value)


def evaluate_expression(tree: object, values: dict[str, float]) -> float:
    """The value of an `expression_tree` for given parameter values, in double precision
    (a division by zero gives infinity, as the reference compiler folds it)."""
    if isinstance(tree, list) and tree[0] == "param":
        return float(values[tree[1]])
    if isinstance(tree, list):
        left = evaluate_expression(tree[1], values)
        right = evaluate_expression(tree[2], values)
        return {"+": left + right, "-": left - right, "*": left * right}.get(
            tree[0], left / right if right else math.inf)
    return float(tree)
