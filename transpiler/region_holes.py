"""Statement and helper holes for the LLM fallback: the analysis side.

Takes a `KernelAnalyzer` that runs with `allow_holes`: its statement methods, wrapped by
`guarded`, hand over a statement of the kernel's own code (a small statement such as an
assignment or a store, or a compound one such as `while`) whose analysis raised an
unhandled-construct error; gives either a hole in the analyzer's output, in place of what
the failed statement had emitted, or the error again, with a note that says why the fallback
was not tried. The innermost failing statement decides; an enclosing one does not retry.

Two kinds of hole come from here (the expression kind comes from `KernelAnalyzer.hole`):

- `function`: `name = helper(args)` where `helper` is defined in this file but its body
  holds a construct the passes cannot lower, every argument is a runtime tile or scalar, and
  `name` is loop-carried, so its type after the statement is the type it had before (the
  analysis already requires loop-carried names to keep their type). The call becomes a call
  of a Rust helper function with that signature, which the model writes.
- `statements`: any other statement (`while`, a store with an unsupported keyword, ...) whose
  inputs are runtime values, arrays or compile-time values of the kernel, and whose outputs
  (the names it assigns that later code reads) already hold a runtime value whose type cannot
  change: names the statement's own loop carries (`while`), or names carried by an enclosing
  `for`. The outputs become `let mut` and the model's statements assign them in place.

Everything else keeps its error: a name first bound by the construct and used after it
(its type would have to be guessed), a statement that leaves the kernel (`return`), a call
to a helper whose Python source is not in this file (the IR check could not compile the
reference side), and compile-time or array arguments of a helper. A construct inside an
inlined helper's body is decided at the kernel statement that calls the helper.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

import libcst as cst

from transpiler.diagnostics import TranslationError
from transpiler.model import (
    ConstType,
    DimExpr,
    DimSym,
    DType,
    ScalarType,
    TAssign,
    TEffect,
    TExpr,
    TIf,
    TileType,
)

if TYPE_CHECKING:
    from transpiler.analysis import KernelAnalyzer

NOT_TRIED = "LLM fallback not attempted: "
P = ParamSpec("P")
N = TypeVar("N", bound=cst.CSTNode)
_LEAVES_KERNEL = ("stmt:early_return", "stmt:return")
_WRITES = ("store", "scatter", "atomic")


@dataclass
class Mark:
    """The analyzer state a failed statement is rolled back to before its hole is made."""

    out_len: int
    names: dict[str, TExpr]
    rename: dict[str, str]
    hole_count: int

    @classmethod
    def of(cls, an: KernelAnalyzer) -> Mark:
        return cls(len(an.out), dict(an.scope.names), dict(an.scope.rename), an.hole_count)

    def restore(self, an: KernelAnalyzer) -> None:
        del an.out[self.out_len:]
        an.scope.names = dict(self.names)
        an.scope.rename = dict(self.rename)
        an.hole_count = self.hole_count


class _Refused(Exception):
    """No hole for this statement; the message says why (it becomes a diagnostic note)."""


def guarded(method: Callable[Concatenate[KernelAnalyzer, N, P], None]
            ) -> Callable[Concatenate[KernelAnalyzer, N, P], None]:
    """A statement method of the analyzer that, with holes allowed and outside an inlined
    helper, turns its unhandled-construct error into a hole (see `hole_for_statement`)."""

    @functools.wraps(method)
    def run(an: KernelAnalyzer, node: N, *args: P.args, **kwargs: P.kwargs) -> None:
        if not an.allow_holes or an.helper_stack:
            method(an, node, *args, **kwargs)
            return
        mark = Mark.of(an)
        try:
            method(an, node, *args, **kwargs)
        except TranslationError as err:
            hole_for_statement(an, node, err, mark)  # type: ignore[arg-type]

    return run


def hole_for_statement(an: KernelAnalyzer, stmt: cst.CSTNode, err: TranslationError,
                       mark: Mark) -> None:
    """Append a `statements` or `function` hole for `stmt` in place of its failed analysis,
    or raise `err` (noted, and marked so that an enclosing statement does not retry)."""
    if err.unhandled is None or getattr(err, "hole_refused", False):
        raise err
    mark.restore(an)
    try:
        if err.unhandled.construct in _LEAVES_KERNEL:
            raise _Refused("a statement that leaves the kernel early cannot be replaced by "
                           "a region of statements")
        call = _helper_call(an, stmt, err)
        if call is not None:
            _function_hole(an, stmt, err, *call)
        else:
            _statements_hole(an, stmt, err)
    except _Refused as why:
        note = NOT_TRIED + str(why)
        if note not in err.diagnostic.notes:
            err.diagnostic.notes.append(note)
        err.hole_refused = True  # type: ignore[attr-defined]
        raise err from None


# ---- helper (function) holes ---------------------------------------------------------------


def _helper_call(an: KernelAnalyzer, small: cst.CSTNode, err: TranslationError
                 ) -> tuple[str, cst.Call] | None:
    """`(target, call)` when `small` is `target = helper(...)` and the error is the helper's:
    an undefined name, or a construct inside the helper's body."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Name)):
        return None
    name = small.value.func.value
    if err.diagnostic.code == "E0105" and err.unhandled is not None and \
            err.unhandled.construct == f"call:{name}":
        return small.targets[0].target.value, small.value
    fn = an.source.functions.get(name)
    span, where = err.diagnostic.span, an.span(fn) if fn is not None else None
    if span is None or where is None or where.end_line is None:
        return None
    if where.line <= span.line <= where.end_line:
        return small.targets[0].target.value, small.value
    return None


def _function_hole(an: KernelAnalyzer, stmt: cst.CSTNode, err: TranslationError,
                   target: str, call: cst.Call) -> None:
    name = call.func.value  # type: ignore[attr-defined]
    fn = an.source.functions.get(name)
    if fn is None:
        raise _Refused(f"`{name}` is not defined in this file, so the IR check could not "
                       "compile cuTile Python's side of a helper written for it")
    if any(arg.star or arg.keyword is not None for arg in call.args):
        raise _Refused(f"the call of `{name}` passes keyword or starred arguments")
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    if len(call.args) != len(params):
        raise _Refused(f"the call of `{name}` does not pass every parameter positionally")
    args = [an.expr(arg.value) for arg in call.args]
    for param, arg in zip(params, args, strict=True):
        if not isinstance(arg.type, TileType | ScalarType):
            raise _Refused(f"the argument `{param}` of `{name}` is not a runtime tile or "
                           "scalar, so it has no Rust parameter type")
    result = _fixed_type(an, target, loop=False)
    if result is None:
        raise _Refused(f"the type of `{name}(...)` cannot be inferred: its value is not "
                       "assigned to a loop-carried name whose type is already known")
    where, call_at = an.span(fn), an.span(stmt)
    hole = _new_hole(an, err, "function", args, result, {
        "params": params, "helper": name, "helper_params": params,
        "helper_lines": (where.line, where.end_line) if where else None,
        "call_line": call_at.line if call_at else None})
    an.bind_name(target, hole, an.span(stmt))


# ---- statement holes -----------------------------------------------------------------------


def _statements_hole(an: KernelAnalyzer, stmt: cst.CSTNode,
                     err: TranslationError) -> None:
    reads, calls = _names_read(stmt)
    for name in sorted(calls):
        if name in an.source.functions:
            raise _Refused(f"the statement calls the helper `{name}`, whose body would "
                           "have to be part of the region")
    assigned = an._assigned_names([stmt])
    is_loop = isinstance(stmt, cst.While)
    if is_loop:
        an._materialize_loop_constants(assigned, stmt)  # type: ignore[arg-type]
    live = _live_after(an, stmt)
    # A loop's own carried names are outputs too, read after it or not: the loop assigns
    # them in place, keeping their types.
    outputs = [n for n in sorted(assigned)
               if n in live or (is_loop and _fixed_type(an, n, loop=True) is not None)]
    out_vars: list[TExpr] = []
    for name in outputs:
        vtype = _fixed_type(an, name, loop=is_loop)
        if vtype is None:
            raise _Refused(_output_problem(an, name))
        out_vars.append(_mutable(an, name, stmt))
    inputs, arrays, constants = _inputs(an, reads - set(outputs), assigned)
    written = sorted(_arrays_written(stmt) & {a.type.param for a in arrays})  # type: ignore
    an.written_arrays.update(written)
    hole = _new_hole(an, err, "statements", inputs + arrays + out_vars, ConstType(None), {
        "params": [v.attrs.get("py_name", "") for v in inputs + arrays],
        "outputs": outputs, "n_inputs": len(inputs) + len(arrays),
        "constants": constants, "written": written,
        "end_line": (an.span(stmt).end_line if an.span(stmt) else None)})
    an.out.append(TEffect(hole, an.span(stmt)))
    for name, var in zip(outputs, out_vars, strict=True):
        an.scope.names[name] = TExpr("var", [], var.type, var.span,
                                     {**var.attrs, "assigned_by": None})


def _output_problem(an: KernelAnalyzer, name: str) -> str:
    if name not in an.scope.names:
        return (f"`{name}` is first assigned here and used after it; its type cannot be "
                "inferred without lowering the statement")
    return (f"`{name}` is reassigned here and used after it; its type afterwards cannot be "
            "inferred (only names carried by a loop keep their type)")


def _inputs(an: KernelAnalyzer, reads: set[str], assigned: set[str]
            ) -> tuple[list[TExpr], list[TExpr], list[tuple[str, str]]]:
    """Runtime values, arrays, and compile-time values (`name`, Rust text) the statement
    reads; a name it neither finds in scope nor assigns is left to the Python snippet."""
    runtime: list[TExpr] = []
    arrays: list[TExpr] = []
    constants: list[tuple[str, str]] = []
    for name in sorted(reads):
        value = an.scope.names.get(name)
        if value is None:
            continue
        if value.op == "array":
            arrays.append(_named(value, name))
        elif value.op == "var" and isinstance(value.type, TileType | ScalarType):
            runtime.append(_named(value, name))
        elif isinstance(value.type, ConstType):
            text = _const_text(value.type.value)
            if text is None:
                raise _Refused(f"`{name}` holds a compile-time value with no Rust form")
            constants.append((name, text))
        elif name not in assigned:
            raise _Refused(f"`{name}` is not a tile, scalar, array or compile-time value")
    return runtime, arrays, constants


def _named(value: TExpr, py_name: str) -> TExpr:
    return TExpr(value.op, value.args, value.type, value.span, {**value.attrs,
                                                               "py_name": py_name})


def _const_text(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}i32"
    if isinstance(value, float):
        return f"{value!r}f32"
    if isinstance(value, DimSym):
        return value.name
    if isinstance(value, DimExpr):
        return str(value)
    if isinstance(value, DType):
        return f"the dtype {value.name}"
    if isinstance(value, tuple) and all(_const_text(v) for v in value):
        return "(" + ", ".join(str(_const_text(v)) for v in value) + ")"
    return None


def _mutable(an: KernelAnalyzer, name: str, stmt: cst.CSTNode) -> TExpr:
    """The current binding of an output, made `let mut` (a parameter is copied first)."""
    value = an.scope.names[name]
    binding = value.attrs.get("binding")
    if isinstance(binding, TAssign | TIf):
        binding.mutable = True
        return _named(value, name)
    rust = an._fresh(name)
    copy = TAssign(rust, value, an.span(stmt), mutable=True)
    an.out.append(copy)
    var = TExpr("var", [], value.type, an.span(stmt), {"name": rust, "binding": copy,
                                                        "assigned_by": copy})
    an.scope.names[name] = var
    return _named(var, name)


def _fixed_type(an: KernelAnalyzer, name: str, loop: bool) -> TileType | ScalarType | None:
    """The type `name` must keep when assigned here: it holds a runtime value now, and it is
    carried by the statement's own loop (`loop`) or by an enclosing `for`."""
    value = an.scope.names.get(name)
    if value is None or value.op != "var" or not isinstance(value.type, TileType | ScalarType):
        return None
    if loop or any(name in carried for carried in an.carried_stack):
        return value.type
    return None


def _new_hole(an: KernelAnalyzer, err: TranslationError, kind: str, args: list[TExpr],
              vtype: object, attrs: dict[str, object]) -> TExpr:
    assert err.unhandled is not None
    an.hole_count += 1
    return TExpr("hole", list(args), vtype, err.diagnostic.span, {  # type: ignore[arg-type]
        "kind": kind, "construct": err.unhandled.construct, "id": an.hole_count,
        "unhandled": err.unhandled, "diagnostic": err.diagnostic, **attrs})


# ---- name uses -----------------------------------------------------------------------------


class _Reads(cst.CSTVisitor):
    """Names a statement reads (not attribute members or keyword names), and called names."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.calls: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.calls.add(node.func.value)


def _names_read(stmt: cst.CSTNode) -> tuple[set[str], set[str]]:
    reads = _Reads()
    stmt.visit(reads)
    return reads.names, reads.calls


def _live_after(an: KernelAnalyzer, stmt: cst.CSTNode) -> set[str]:
    """Names the kernel mentions after the statement's last line, and names an enclosing
    loop carries (read again by its next iteration)."""
    span = an.span(stmt)
    end = span.end_line if span is not None and span.end_line is not None else None
    later: set[str] = set()

    class Finder(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            where = an.span(node)
            if end is None or (where is not None and where.line > end):
                later.add(node.value)

    an.kernel.node.body.visit(Finder())
    for carried in an.carried_stack:
        later |= carried
    return later


def _arrays_written(stmt: cst.CSTNode) -> set[str]:
    """Names passed first to a store/scatter/atomic call, or receivers of a method chain
    that stores: the arrays the statement writes."""
    found: set[str] = set()

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if not isinstance(func, cst.Attribute):
                return
            if any(word in func.attr.value for word in _WRITES):
                if node.args and isinstance(node.args[0].value, cst.Name):
                    found.add(node.args[0].value.value)
                root = func.value
                while isinstance(root, cst.Call | cst.Attribute):
                    root = root.func if isinstance(root, cst.Call) else root.value
                if isinstance(root, cst.Name):
                    found.add(root.value)

    stmt.visit(Finder())
    return found
