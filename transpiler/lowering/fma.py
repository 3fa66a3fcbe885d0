"""Multiply-add contraction: typed `KernelModel` -> the same model with `fma` nodes.

Takes a typed kernel; gives it back with every float `a * b + c` / `a * b - c` (and the mirrored
forms) whose product has no other use rewritten to `fma`, exactly where cuTile Python's
compiler contracts them (its `fuse_mul_addsub` rewrite): the add/sub checks its left operand
for a float multiply first, then its right; both operations must agree on rounding mode and
flush-to-zero; a subtraction negates the accumulator (`a*b - c` -> fma(a, b, -c)) or the
product's left factor (`c - a*b` -> fma(-a, b, c)). cuTile Rust never contracts, so the
translation must say `fma` itself to compute the same (single-rounding) result.

A sum `c + convert(a * b)` with `a * b` of a launch-time element type (a dtype variable) is
an `fma` exactly when that conversion is the identity, and `a * b + c` of such a type exactly
when the launch makes it a float, which only the launch decides: it is left as it is, and
its element type is returned as a request (the analysis then translates
the kernel once per element type, and each variant is contracted with the type known).
"""

from __future__ import annotations

from transpiler.model import (
    DType,
    KernelModel,
    ScalarType,
    TAssign,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TStmt,
    TWhile,
    statement_exprs,
)

_UNRESTRICTED_FLOATS = {"float16", "bfloat16", "float32", "float64"}


def contract_fma(model: KernelModel) -> list[object]:
    """Contract in place; give the element types (dtype variables, in program order) of the
    products whose contraction depends on the launch: `c + convert(a * b)`, left as it is."""
    uses: dict[int, int] = {}
    _count_uses(model.body, uses)
    removed: set[int] = set()
    undecided: list[object] = []
    _rewrite_block(model.body, uses, removed, undecided)
    model.body[:] = _drop_removed(model.body, removed)
    return undecided


def _count_uses(stmts: list[TStmt], uses: dict[int, int]) -> None:
    for expr in statement_exprs(stmts):
        _count_expr(expr, uses)


def _count_expr(expr: TExpr, uses: dict[int, int]) -> None:
    if expr.op == "var":
        binding = expr.attrs.get("binding")
        if binding is not None:
            uses[id(binding)] = uses.get(id(binding), 0) + 1
    for arg in expr.args:
        _count_expr(arg, uses)


def _rewrite_block(stmts: list[TStmt], uses: dict[int, int], removed: set[int],
                   undecided: list[object]) -> None:
    for stmt in stmts:
        if isinstance(stmt, TAssign | TEffect):
            stmt.value = _rewrite(stmt.value, uses, removed, undecided)
        elif isinstance(stmt, TFor | TWhile):
            _rewrite_block(stmt.body, uses, removed, undecided)
        elif isinstance(stmt, TIf):
            _rewrite_block(stmt.then, uses, removed, undecided)
            _rewrite_block(stmt.orelse, uses, removed, undecided)


def _rewrite(expr: TExpr, uses: dict[int, int], removed: set[int],
             undecided: list[object]) -> TExpr:
    expr.args = [_rewrite(a, uses, removed, undecided) for a in expr.args]
    if not _is_float_binary(expr, ("+", "-")):
        return expr
    left, right = expr.args
    for operand in (left, right):
        deciding = _converted_product(operand, expr, uses, removed)
        if deciding is not None:
            undecided.append(deciding)
    if not isinstance(expr.type.dtype, DType):
        # A multiply-add of a launch-time element type is contracted only when the launch
        # makes it a float (cuTile Python leaves integer `a * b + c` alone): decided per
        # element type.
        if _float_mul_of(left, expr) is not None or _float_mul_of(right, expr) is not None:
            undecided.append(expr.type.dtype)
        return expr
    # cuTile Python matches the left operand first and commits to it: a left product with
    # another use (or other modes) means no contraction at all, not a try on the right.
    if _float_mul_of(left, expr) is not None:
        product = _product(left, expr, uses, removed)
        rhs_is_mul = False
        acc = right
    else:
        product = _product(right, expr, uses, removed)
        rhs_is_mul = True
        acc = left
    if product is None:
        return expr
    mul, source = product
    a, b = mul.args
    if expr.attrs["op"] == "-":
        if rhs_is_mul:
            a = TExpr("neg", [a], a.type, a.span)
        else:
            acc = TExpr("neg", [acc], acc.type, acc.span)
    if source is not None:
        removed.add(id(source))
    attrs = {"rounding": expr.attrs.get("rounding"), "ftz": expr.attrs.get("ftz")}
    return TExpr("fma", [a, b, acc], expr.type, expr.span, attrs)


def _converted_product(operand: TExpr, consumer: TExpr, uses: dict[int, int],
                       removed: set[int]) -> object | None:
    """The launch-time element type that decides whether `operand`, a converted float
    multiply, contracts with `consumer` (it does when the conversion is the identity): the
    multiply's type when that is a dtype variable, else the conversion's target type when
    that is one. The conversion is written in place (`c + convert(a * b)`) or bound to a name
    with no other use (`p = convert(a * b)` ... `c + p`); the multiply likewise (`p = a * b`
    ... `c + convert(p)`): cuTile Python sees through names, its IR has none."""
    convert = operand
    if operand.op == "var":
        binding = operand.attrs.get("binding")
        if isinstance(binding, TAssign) and binding.first and not binding.mutable and \
                uses.get(id(binding), 0) == 1 and id(binding) not in removed:
            convert = binding.value
    if convert.op != "convert":
        return None
    product = _product(convert.args[0], consumer, uses, removed, same_type=False)
    if product is None:
        return None
    for dtype in (product[0].type.dtype, convert.type.dtype):
        if not isinstance(dtype, DType):
            return dtype
    return None


def _product(operand: TExpr, consumer: TExpr, uses: dict[int, int], removed: set[int],
             same_type: bool = True) -> tuple[TExpr, TAssign | None] | None:
    """The float multiply feeding `operand`, if it has no other use, with its binding.
    `same_type=False` accepts a multiply of another type than `consumer` (one the
    consumer reads through a conversion)."""
    source: TAssign | None = None
    mul = operand
    if operand.op == "var":
        binding = operand.attrs.get("binding")
        if not isinstance(binding, TAssign) or not binding.first or binding.mutable:
            return None
        if uses.get(id(binding), 0) != 1 or id(binding) in removed:
            return None
        mul, source = binding.value, binding
    if not _is_float_binary(mul, ("*",)) or (same_type and mul.type != consumer.type):
        return None
    if source is not None and _reads_mutable(mul):
        # Moving the product to its use could read a reassigned loop variable.
        return None
    same_rounding = mul.attrs.get("rounding") == consumer.attrs.get("rounding")
    same_ftz = bool(mul.attrs.get("ftz")) == bool(consumer.attrs.get("ftz"))
    if not (same_rounding and same_ftz):
        return None
    return mul, source


def _float_mul_of(operand: TExpr, consumer: TExpr) -> TExpr | None:
    """The float multiply `operand` is (directly or through its binding), whatever its uses."""
    mul = operand
    if operand.op == "var":
        # The statement that gave the variable its current value: cuTile Python sees the
        # multiply's result there even when the name is a reassigned loop variable.
        assigned = operand.attrs["assigned_by"] if "assigned_by" in operand.attrs else (
            operand.attrs.get("binding"))
        if not isinstance(assigned, TAssign):
            return None
        mul = assigned.value
    if _is_float_binary(mul, ("*",)) and mul.type == consumer.type:
        return mul
    return None


def _reads_mutable(expr: TExpr) -> bool:
    if expr.op == "var":
        binding = expr.attrs.get("binding")
        return binding is None or bool(getattr(binding, "mutable", True))
    return any(_reads_mutable(a) for a in expr.args)


def _is_float_binary(expr: TExpr, ops: tuple[str, ...]) -> bool:
    if expr.op != "binary" or expr.attrs.get("op") not in ops:
        return False
    if not isinstance(expr.type, TileType | ScalarType):
        return False
    dtype = expr.type.dtype
    return isinstance(dtype, DType) and dtype.name in _UNRESTRICTED_FLOATS or not isinstance(
        dtype, DType)


def _drop_removed(stmts: list[TStmt], removed: set[int]) -> list[TStmt]:
    out: list[TStmt] = []
    for stmt in stmts:
        if id(stmt) in removed:
            continue
        if isinstance(stmt, TFor | TWhile):
            stmt.body = _drop_removed(stmt.body, removed)
        elif isinstance(stmt, TIf):
            stmt.then = _drop_removed(stmt.then, removed)
            stmt.orelse = _drop_removed(stmt.orelse, removed)
        out.append(stmt)
    return out
