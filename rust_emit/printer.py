"""Print a `rust_emit.tree.SourceFile` as Rust text in rustfmt's default style.

Takes a Rust syntax tree; gives text that `rustfmt --edition 2021` leaves unchanged (tests check
this on every golden output). Layout follows rustfmt's rules for the constructs the tree has:
4-space indent, 100-column lines, a call whose arguments do not fit broken one argument per
line with a trailing comma, a method chain that does not fit broken before each `.`.
"""

from __future__ import annotations

from rust_emit import tree as t

MAX_WIDTH = 100
INDENT = "    "

_PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 3,
    ">": 3,
    "<=": 3,
    ">=": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "<<": 7,
    ">>": 7,
    "+": 8,
    "-": 8,
    "*": 9,
    "/": 9,
    "%": 9,
}


def print_source(source: t.SourceFile) -> str:
    lines: list[str] = list(source.header)
    for attr in source.inner_attributes:
        lines.append(f"#![{attr}]")
    for module in source.modules:
        if lines:
            lines.append("")
        lines.extend(_module(module))
    return "\n".join(lines) + "\n"


def _module(module: t.Module) -> list[str]:
    out = [f"/// {d}".rstrip() for d in module.doc]
    out += [f"#[{a}]" for a in module.attributes]
    vis = "pub " if module.public else ""
    out.append(f"{vis}mod {module.name} {{")
    previous: type | None = None
    for item in module.items:
        if previous is not None and not (previous is t.Use and isinstance(item, t.Use)):
            out.append("")
        if isinstance(item, t.Use):
            out.append(f"{INDENT}use {item.path};")
        else:
            out.extend(_function(item, 1))
        previous = type(item)
    out.append("}")
    return out


def _function(fn: t.Function, depth: int) -> list[str]:
    pad = INDENT * depth
    out = [f"{pad}/// {d}".rstrip() for d in fn.doc]
    out += [f"{pad}// {c}".rstrip() for c in fn.comments]
    out += [f"{pad}#[{a}]" for a in fn.attributes]
    vis = "pub " if fn.public else ""
    unsafe = "unsafe " if fn.unsafe else ""
    generics = ""
    if fn.generics:
        generics = "<" + ", ".join(g.text for g in fn.generics) + ">"
    params = [f"{p.name}: {p.ty.text}" for p in fn.params]
    ret = f" -> {fn.ret.text}" if fn.ret else ""
    head = f"{pad}{vis}{unsafe}fn {fn.name}{generics}("
    flat = head + ", ".join(params) + f"){ret} {{"
    if len(flat) <= MAX_WIDTH and len(generics) + len(head) <= MAX_WIDTH:
        out.append(flat)
    else:
        if len(head) > MAX_WIDTH and fn.generics:
            out.append(f"{pad}{vis}{unsafe}fn {fn.name}<")
            out += [f"{pad}{INDENT}{g.text}," for g in fn.generics]
            out.append(f"{pad}>(")
        else:
            out.append(head)
        out += [f"{pad}{INDENT}{p}," for p in params]
        out.append(f"{pad}){ret} {{")
    out += _block_body(fn.body, depth + 1)
    out.append(f"{pad}}}")
    return out


# ---- statements ----------------------------------------------------------------------------


def _block_body(block: t.BlockExpr, depth: int) -> list[str]:
    out: list[str] = []
    for stmt in block.stmts:
        out += _stmt(stmt, depth)
    if block.tail is not None:
        out += _expr_lines(block.tail, depth, INDENT * depth, "")
    return out


def _stmt(stmt: t.Stmt, depth: int) -> list[str]:
    pad = INDENT * depth
    if isinstance(stmt, t.Comment):
        return [f"{pad}// {stmt.text}".rstrip()]
    out: list[str] = []
    comment = getattr(stmt, "comment", None)
    if comment:
        out += [f"{pad}// {c}".rstrip() for c in comment.split("\n")]
    if isinstance(stmt, t.Let):
        mut = "mut " if stmt.mutable else ""
        ty = f": {stmt.ty.text}" if stmt.ty else ""
        head = f"{pad}let {mut}{stmt.pattern}{ty}"
        if stmt.value is None:
            return out + [head + ";"]
        return out + _expr_lines(stmt.value, depth, head + " = ", ";")
    if isinstance(stmt, t.Assign):
        return out + _expr_lines(stmt.value, depth, f"{pad}{stmt.target} = ", ";")
    if isinstance(stmt, t.ExprStmt):
        if isinstance(stmt.expr, t.IfExpr | t.BlockExpr):
            return out + _expr_lines(stmt.expr, depth, pad, ";" if stmt.semicolon else "")
        return out + _expr_lines(stmt.expr, depth, pad, ";" if stmt.semicolon else "")
    if isinstance(stmt, t.ForLoop):
        head = f"{pad}for {stmt.var} in "
        lines = _expr_lines(stmt.iterable, depth, head, " {")
        return out + lines + _block_body(stmt.body, depth + 1) + [f"{pad}}}"]
    if isinstance(stmt, t.WhileLoop):
        lines = [f"{pad}loop {{"] if stmt.cond is None else _expr_lines(
            stmt.cond, depth, f"{pad}while ", " {")
        return out + lines + _block_body(stmt.body, depth + 1) + [f"{pad}}}"]
    if isinstance(stmt, t.Jump):
        return out + [f"{pad}{stmt.kind};"]
    raise TypeError(f"unknown statement {stmt!r}")


# ---- expressions ---------------------------------------------------------------------------


def _expr_lines(expr: t.Expr, depth: int, prefix: str, suffix: str) -> list[str]:
    """Lay out `prefix + expr + suffix`, breaking the expression when it does not fit."""
    if isinstance(expr, t.IfExpr):
        return _if_lines(expr, depth, prefix, suffix)
    if isinstance(expr, t.BlockExpr) and (expr.stmts or expr.tail is None or len(
            prefix + flat_expr(expr) + suffix) > MAX_WIDTH):
        return _block_lines(expr, depth, prefix, suffix)
    flat = prefix + flat_expr(expr) + suffix
    if len(flat) <= MAX_WIDTH:
        return [flat]
    if prefix.rstrip().endswith("=") and not prefix.lstrip().startswith("for "):
        # rustfmt moves the right-hand side of `let x = ...;` to the next line when it
        # fits there whole.
        next_line = INDENT * (depth + 1) + flat_expr(expr) + suffix
        if len(next_line) <= MAX_WIDTH:
            return [prefix.rstrip(), next_line]
        if isinstance(expr, t.Binary):
            return [prefix.rstrip()] + _broken(expr, depth + 1, INDENT * (depth + 1), suffix)
    return _broken(expr, depth, prefix, suffix)


def _broken(expr: t.Expr, depth: int, prefix: str, suffix: str) -> list[str]:
    pad = INDENT * depth
    inner = INDENT * (depth + 1)
    if isinstance(expr, t.Call | t.MacroCall):
        if isinstance(expr, t.Call):
            opener = expr.func + _turbofish(expr.turbofish) + "("
            closer = ")"
        else:
            opener = f"{expr.name}!{expr.delimiter}"
            closer = "]" if expr.delimiter == "[" else ")"
        lines = [prefix + opener]
        for arg in expr.args:
            lines += _expr_lines(arg, depth + 1, inner, ",")
        lines.append(pad + closer + suffix)
        return lines
    if isinstance(expr, t.MethodCall):
        chain = _chain(expr)
        base, calls = chain[0], chain[1:]
        first = prefix + flat_expr(base, 100)
        lines = [first]
        for call in calls:
            text = f"{inner}.{call.method}{_turbofish(call.turbofish)}("
            args = ", ".join(flat_expr(a) for a in call.args)
            if len(text + args + ")") <= MAX_WIDTH:
                lines.append(text + args + ")")
            else:
                lines.append(text)
                for arg in call.args:
                    lines += _expr_lines(arg, depth + 2, INDENT * (depth + 2), ",")
                lines.append(inner + ")")
        lines[-1] += suffix
        return lines
    if isinstance(expr, t.Binary):
        return _binary_lines(expr, depth, prefix, suffix)
    return [prefix + flat_expr(expr) + suffix]


def _binary_lines(expr: t.Binary, depth: int, prefix: str, suffix: str) -> list[str]:
    # rustfmt breaks a chain of same-precedence operators before each operator, one
    # operand a line, indented one level; an operand that still does not fit is broken
    # in turn.
    prec = _PRECEDENCE[expr.op]
    operands: list[tuple[str, t.Expr]] = []
    node: t.Expr = expr
    while isinstance(node, t.Binary) and _PRECEDENCE[node.op] == prec:
        operands.append((node.op, node.right))
        node = node.left
    operands.append(("", node))
    operands.reverse()
    inner = INDENT * (depth + 1)
    lines = _operand_lines(operands[0][1], prec, depth, prefix, "")
    for index, (_op, operand) in enumerate(operands[1:], start=1):
        end = suffix if index == len(operands) - 1 else ""
        lines += _operand_lines(operand, prec + 1, depth + 1, f"{inner}{operands[index][0]} ",
                                end)
    return lines


def _operand_lines(expr: t.Expr, min_prec: int, depth: int, prefix: str,
                   suffix: str) -> list[str]:
    text = flat_expr(expr, min_prec)
    if len(prefix + text + suffix) <= MAX_WIDTH:
        return [prefix + text + suffix]
    if isinstance(expr, t.Binary) and _PRECEDENCE[expr.op] < min_prec:
        inner_lines = _binary_lines(expr, depth, prefix + "(", ")" + suffix)
        return inner_lines
    return _broken(expr, depth, prefix, suffix)


def _chain(expr: t.Expr) -> list:
    parts: list = []
    while isinstance(expr, t.MethodCall):
        parts.append(expr)
        expr = expr.receiver
    parts.append(expr)
    return list(reversed(parts))


def _if_lines(expr: t.IfExpr, depth: int, prefix: str, suffix: str) -> list[str]:
    pad = INDENT * depth
    lines = [f"{prefix}if {flat_expr(expr.cond)} {{"]
    lines += _block_body(expr.then, depth + 1)
    orelse = expr.orelse
    while orelse is not None:
        if isinstance(orelse, t.IfExpr):
            lines.append(f"{pad}}} else if {flat_expr(orelse.cond)} {{")
            lines += _block_body(orelse.then, depth + 1)
            orelse = orelse.orelse
        else:
            lines.append(f"{pad}}} else {{")
            lines += _block_body(orelse, depth + 1)
            orelse = None
    lines.append(f"{pad}}}{suffix}")
    return lines


def _block_lines(block: t.BlockExpr, depth: int, prefix: str, suffix: str) -> list[str]:
    pad = INDENT * depth
    opener = "unsafe {" if block.unsafe else "{"
    if not block.stmts and block.tail is not None:
        flat = f"{prefix}{opener} {flat_expr(block.tail)} }}{suffix}"
        if len(flat) <= MAX_WIDTH:
            return [flat]
    lines = [prefix + opener]
    lines += _block_body(block, depth + 1)
    lines.append(f"{pad}}}{suffix}")
    return lines


def _turbofish(args: tuple[str, ...]) -> str:
    return f"::<{', '.join(args)}>" if args else ""


def flat_expr(expr: t.Expr, min_prec: int = 0) -> str:
    """The expression on one line, parenthesized where precedence needs it."""
    if isinstance(expr, t.Path | t.Lit):
        return expr.text
    if isinstance(expr, t.Call):
        args = ", ".join(flat_expr(a) for a in expr.args)
        return f"{expr.func}{_turbofish(expr.turbofish)}({args})"
    if isinstance(expr, t.MethodCall):
        args = ", ".join(flat_expr(a) for a in expr.args)
        recv = flat_expr(expr.receiver, 100)
        return f"{recv}.{expr.method}{_turbofish(expr.turbofish)}({args})"
    if isinstance(expr, t.Field):
        return f"{flat_expr(expr.base, 100)}.{expr.name}"
    if isinstance(expr, t.Binary):
        prec = _PRECEDENCE[expr.op]
        text = f"{flat_expr(expr.left, prec)} {expr.op} {flat_expr(expr.right, prec + 1)}"
        return f"({text})" if prec < min_prec else text
    if isinstance(expr, t.Unary):
        text = f"{expr.op}{flat_expr(expr.operand, 50)}"
        return f"({text})" if min_prec > 50 else text
    if isinstance(expr, t.Cast):
        text = f"{flat_expr(expr.expr, 40)} as {expr.ty}"
        return f"({text})" if min_prec > 40 else text
    if isinstance(expr, t.Ref):
        return ("&mut " if expr.mutable else "&") + flat_expr(expr.expr, 50)
    if isinstance(expr, t.TupleExpr):
        items = ", ".join(flat_expr(i) for i in expr.items)
        return f"({items},)" if len(expr.items) == 1 else f"({items})"
    if isinstance(expr, t.ArrayExpr):
        return "[" + ", ".join(flat_expr(i) for i in expr.items) + "]"
    if isinstance(expr, t.StructLit):
        fields = ", ".join(f"{name}: {flat_expr(value)}" for name, value in expr.fields)
        return f"{expr.path} {{ {fields} }}"
    if isinstance(expr, t.MacroCall):
        close = "]" if expr.delimiter == "[" else ")"
        return f"{expr.name}!{expr.delimiter}{', '.join(flat_expr(a) for a in expr.args)}{close}"
    if isinstance(expr, t.Range):
        text = f"{flat_expr(expr.start, 20)}..{flat_expr(expr.end, 20)}"
        return f"({text})" if min_prec > 0 else text
    if isinstance(expr, t.BlockExpr):
        opener = "unsafe { " if expr.unsafe else "{ "
        if expr.stmts or expr.tail is None:
            raise ValueError("multi-statement block in a flat position")
        return f"{opener}{flat_expr(expr.tail)} }}"
    if isinstance(expr, t.IfExpr) and isinstance(expr.orelse, t.BlockExpr):
        # A value `if` inside an expression (a scalar select in an offset).
        text = (f"if {flat_expr(expr.cond)} {flat_expr(expr.then)} else "
                f"{flat_expr(expr.orelse)}")
        return f"({text})" if min_prec > 0 else text
    raise TypeError(f"cannot print {expr!r}")
