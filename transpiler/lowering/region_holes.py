"""Lowering of the LLM fallback's `statements` and `function` holes (transpiler/region_holes.py).

Takes a `hole` node of either kind, the kernel's lowerer and the statement context; gives the
Rust at the hole, and records on the node what the fallback's prompt needs (`inputs`,
`outputs_rust`, `signature`):

- `statements`: a block `{ ... }` holding the accepted fragment's statements (or the marker
  `__HOLE_n__;` in a draft), after a provenance comment. The outputs are the `let mut`
  bindings the analysis chose; the fragment assigns them in place.
- `function`: a call of a module-level helper `fn NAME<generics>(params) -> R`, whose
  generics are the kernel's generic parameters its types mention. The helper item itself
  (the fragment's body under that signature, or the marker) is left on the node as
  `helper_item`; `helper_items` collects them for the module.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rust_emit import tree as t
from transpiler.lowering.rust_names import rust_ident
from transpiler.model import ArrayType, KernelModel, TExpr, statement_exprs

if TYPE_CHECKING:
    from transpiler.lowering.lower import KernelLowerer


def lower_region_hole(lw: KernelLowerer, e: TExpr, ctx: Any) -> t.Expr:
    """The Rust for a `statements` or `function` hole."""
    if e.attrs["kind"] == "function":
        return _lower_function(lw, e, ctx)
    return _lower_statements(lw, e, ctx)


def _marker(e: TExpr) -> str:
    return f"__HOLE_{e.attrs['id']}__"


def _value_name_type(lw: KernelLowerer, arg: TExpr) -> tuple[str, str]:
    if isinstance(arg.type, ArrayType):
        return str(arg.attrs["name"]), lw.spec.param_types[arg.type.param]
    return str(arg.attrs["name"]), lw.rust_type(arg.type, arg.span) or "_"


def _lower_statements(lw: KernelLowerer, e: TExpr, ctx: Any) -> t.Expr:
    count = int(e.attrs["n_inputs"])  # type: ignore[call-overload]
    e.attrs["inputs"] = [_value_name_type(lw, a) for a in e.args[:count]]
    e.attrs["outputs_rust"] = [_value_name_type(lw, a) for a in e.args[count:]]
    fragment = e.attrs.get("fragment")
    if fragment is None:
        body: tuple[t.Stmt, ...] = (
            t.Comment(f"HOLE {e.attrs['id']}: {e.attrs['construct']}"),
            t.ExprStmt(t.Path(_marker(e)), semicolon=True))
        return t.BlockExpr(body)
    ctx.stmts.append(t.Comment(str(e.attrs.get("provenance", "llm-fallback fragment"))))
    return t.BlockExpr((t.ExprStmt(t.Path(str(fragment)), semicolon=False),))


def _lower_function(lw: KernelLowerer, e: TExpr, ctx: Any) -> t.Expr:
    args: list[t.Expr] = []
    inputs: list[tuple[str, str]] = []
    for param, arg in zip(e.attrs["helper_params"], e.args, strict=True):  # type: ignore
        lowered = lw.expr(arg, ctx)
        ty = lw.rust_type(arg.type, e.span) or "_"
        inputs.append((rust_ident(str(param)), ty))
        args.append(lowered)
    e.attrs["inputs"] = inputs
    ret = lw.rust_type(e.type, e.span) or "_"
    e.attrs["rust_type"] = ret
    name = _helper_name(lw, str(e.attrs["helper"]))
    text = " ".join(ty for _, ty in inputs) + " " + ret
    generics = [g for g in lw.spec.generics if re.search(rf"\b{re.escape(g.name)}\b", text)]
    generic_text = [f"{g.name}: ElementType" if g.kind == "type" else f"const {g.name}: {g.kind}"
                    for g in generics]
    params = ", ".join(f"{n}: {ty}" for n, ty in inputs)
    angle = f"<{', '.join(generic_text)}>" if generic_text else ""
    e.attrs["signature"] = f"fn {name}{angle}({params}) -> {ret}"
    fragment = e.attrs.get("fragment")
    comment = str(e.attrs.get("provenance", "llm-fallback fragment")) if fragment else \
        f"HOLE {e.attrs['id']}: {e.attrs['construct']} in helper `{e.attrs['helper']}`"
    e.attrs["helper_item"] = t.Function(
        name, tuple(t.Param(n, t.RType(ty)) for n, ty in inputs),
        t.BlockExpr((), t.Path(str(fragment) if fragment else _marker(e))),
        tuple(t.GenericParam(g) for g in generic_text), t.RType(ret), comments=(comment,))
    ctx.stmts.append(t.Comment(comment if fragment else f"{comment}: {_marker(e)} below"))
    return t.Call(name, tuple(args))


def _helper_name(lw: KernelLowerer, helper: str) -> str:
    """The helper's Python name; per entry when the kernel is translated in variants (each
    variant's signature may differ)."""
    model = lw.spec.model
    if model.dtype_variant or model.const_variant or model.cond_variant:
        return rust_ident(f"{helper}_{lw.spec.entry_name}")
    return rust_ident(helper)


def helper_items(model: KernelModel, existing: list[t.Function]) -> list[t.Function]:
    """The helper functions of a lowered kernel's `function` holes not yet in `existing`."""
    names = {f.name for f in existing}
    items: list[t.Function] = []
    for expr in statement_exprs(model.body):
        for hole in _holes(expr):
            item = hole.attrs.get("helper_item")
            if isinstance(item, t.Function) and item.name not in names:
                names.add(item.name)
                items.append(item)
    return items


def _holes(expr: TExpr) -> list[TExpr]:
    found = [h for a in expr.args for h in _holes(a)]
    return [*found, expr] if expr.op == "hole" else found
