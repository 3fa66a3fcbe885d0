"""Entry planning of the host-code reader: which host functions to call, with what.

Takes a parsed module; gives its entries (every top-level host function and every
`forward`/`backward` method; functions nobody in the file calls go first), the arguments each
entry is called with (defaults, else the interpreter's typical values), and the option
variants that steer an entry down its other paths (each bool/None option flipped, each
literal a parameter is compared with); `run_variants` calls one entry once per variant.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from transpiler.frontend.host.interpreter import Interpreter
from transpiler.frontend.host.typical import MAX_VARIANTS
from transpiler.frontend.host.values import (
    ClassValue,
    FunctionValue,
    Instance,
    ModuleEnv,
    Unknown,
    is_kernel_def,
)


@dataclass
class Entry:
    label: str
    node: ast.FunctionDef
    owner: str | None  # class name for methods
    root: bool


def op_names(tree: ast.Module) -> list[str]:
    """Names the file gives its ops: registered names (string decorator arguments) first,
    then its public top-level functions."""
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            for deco in stmt.decorator_list:
                if isinstance(deco, ast.Call):
                    names.extend(a.value for a in deco.args if isinstance(a, ast.Constant)
                                 and isinstance(a.value, str))
    names.extend(s.name for s in tree.body if isinstance(s, ast.FunctionDef)
                 and not s.name.startswith("_") and not is_kernel_def(s))
    return names


def plan_entries(tree: ast.Module) -> list[Entry]:
    """Every host function and autograd/module method; roots (unreferenced) first."""
    referenced = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    entries: list[Entry] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and not is_kernel_def(stmt):
            entries.append(Entry(stmt.name, stmt, None, stmt.name not in referenced))
        elif isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef) and item.name in ("forward", "backward"):
                    entries.append(Entry(f"{stmt.name}.{item.name}", item, stmt.name, False))
    return sorted(entries, key=lambda e: not e.root)


def entry_arguments(interp: Interpreter, module: ModuleEnv, entry: Entry,
                    function: object, variant: dict[str, object]) -> list[object]:
    args = entry.node.args
    positional = [*args.posonlyargs, *args.args]
    values: list[object] = []
    first_default = len(positional) - len(args.defaults)
    for index, param in enumerate(positional):
        if param.arg in variant:
            values.append(variant[param.arg])
        elif entry.owner is not None and index == 0:
            values.append(Instance(None, needs_input_grad=(True,) * 8)
                          if param.arg == "ctx" else Unknown("self"))
        elif index >= first_default:
            assert isinstance(function, FunctionValue)
            values.append(interp.default(function, args.defaults[index - first_default]))
        else:
            values.append(interp.typical_argument(module, param))
    return values


def option_variants(entry: Entry, tree: ast.Module) -> list[dict[str, object]]:
    """Argument overrides that take an entry's other paths: each option flipped in turn.

    Options are parameters whose default is True, False or None, and string keys read
    with such a default from the `**kwargs` dict (`kwargs.get("use_x", False)`); then the
    literals the entry (or, for strings, any code of its module `tree`) compares a
    parameter with.
    """
    tables = _module_tables(tree)
    args = entry.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(args.defaults):]],
                        args.defaults, strict=True))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                     if d is not None})
    variants: list[dict[str, object]] = [{}]
    for name, node in defaults.items():
        if isinstance(node, ast.Constant) and node.value in (True, False, None):
            variants.append({name: _flipped(node.value)})
    if args.kwarg is not None:
        for key, default in _kwargs_options(entry.node, args.kwarg.arg):
            variants.append({key: _flipped(default)})
    names = {p.arg for p in (*positional, *args.kwonlyargs)}
    module_wide = [(n, lit) for n, lit in _compared_literals(tree, names, tables)
                   if isinstance(lit, str)]
    for name, literal in [*_compared_literals(entry.node, names, tables), *module_wide]:
        default = defaults.get(name)
        if isinstance(literal, int) and isinstance(default, ast.Constant) \
                and default.value == literal:
            literal *= 2  # the default takes the `== literal` path; this one the other
        if {name: literal} not in variants:
            variants.append({name: literal})
    return variants[:MAX_VARIANTS]


def _compared_literals(fn: ast.AST, names: set[str], tables: dict[str, ast.expr]
                       ) -> list[tuple[str, object]]:
    """(parameter, literal) for each `param == "text"` or `param == 64` test in the function
    and each string of a literal table tested with `param in TABLE`."""
    found: list[tuple[str, object]] = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name)
                and node.left.id in names and len(node.ops) == 1):
            continue
        right = node.comparators[0]
        if isinstance(node.ops[0], ast.Eq | ast.NotEq) and isinstance(right, ast.Constant) \
                and isinstance(right.value, str | int) and not isinstance(right.value, bool):
            literals: list[object] = [right.value]
        elif isinstance(node.ops[0], ast.In | ast.NotIn):
            literals = list(_table_strings(right, tables))
        else:
            continue
        for literal in literals:
            if (node.left.id, literal) not in found:
                found.append((node.left.id, literal))
    return found


def _table_strings(node: ast.expr, tables: dict[str, ast.expr]) -> list[str]:
    """The string keys/items of a literal dict, set, list or tuple (or a module-level name
    bound to one), in source order."""
    if isinstance(node, ast.Name):
        node = tables.get(node.id, node)
    elements: list[ast.expr | None] = []
    if isinstance(node, ast.Dict):
        elements = list(node.keys)
    elif isinstance(node, ast.Set | ast.List | ast.Tuple):
        elements = list(node.elts)
    return [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(
        e.value, str)]


def _module_tables(tree: ast.Module) -> dict[str, ast.expr]:
    """A module's top-level assignments to one name: name -> the assigned expression."""
    return {t.id: stmt.value for stmt in tree.body if isinstance(stmt, ast.Assign)
            for t in stmt.targets if isinstance(t, ast.Name)}


def _flipped(value: object) -> bool:
    return value is not True


def _kwargs_options(fn: ast.FunctionDef, kwargs_name: str) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and isinstance(node.func.value, ast.Name)
                and node.func.value.id == kwargs_name and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[1],
                                                                           ast.Constant)
                and node.args[1].value in (True, False, None)):
            found.append((str(node.args[0].value), node.args[1].value))
    return found


def run_variants(interp: Interpreter, module: ModuleEnv, entry: Entry, problems: list[str]
                 ) -> None:
    """Run one entry with each of its option variants; note why a run stopped early."""
    for variant in option_variants(entry, module.tree):
        function = _entry_function(interp, module, entry)
        if function is None:
            return
        interp.module, interp.frames = module, [module.values]
        args = entry_arguments(interp, module, entry, function, variant)
        label = entry.label + "".join(f" {k}={v}" for k, v in variant.items())
        interp.origin = entry.node.name if entry.owner is None else ""
        stopped = interp.run_entry(module, label, function, args,
                                   {k: v for k, v in variant.items()
                                    if k not in _positional_names(entry)})
        if stopped is not None:
            problems.append(f"{label}: {stopped}")


def _positional_names(entry: Entry) -> set[str]:
    args = entry.node.args
    return {p.arg for p in (*args.posonlyargs, *args.args)}


def _entry_function(interp: Interpreter, module: ModuleEnv, entry: Entry) -> object | None:
    interp.module, interp.frames = module, [module.values]
    try:
        if entry.owner is None:
            return module.lookup(interp, entry.node.name)
        owner = module.lookup(interp, entry.owner)
    except KeyError:
        return None
    if isinstance(owner, ClassValue):
        return owner.attrs.get(entry.node.name)
    return None
