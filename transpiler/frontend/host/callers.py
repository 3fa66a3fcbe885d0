"""Callers across the package: where a launch's missing constants come from.

Takes the interpreter after it ran a file's own entries; when every launch of a kernel left a
`ct.Constant` argument unknown (it depends on a parameter only a caller gives, such as a
config dict), looks in the whole package for the callers of the functions that launched it
(by the function's name or a name its decorators register it under), then their callers, and
runs them from the outermost one with typical arguments; a call by a name found on the way
runs the function it was found for (the caller may see a dispatch stub under that name).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from transpiler.frontend.host.interpreter import Interpreter
from transpiler.frontend.host.kernels import constant_params, constant_value, kernel_params
from transpiler.frontend.host.planning import Entry, run_variants
from transpiler.frontend.host.values import FunctionValue, ModuleEnv, Record, is_kernel_def

MAX_CALLER_DEPTH = 4  # levels of callers followed outward from a launching function


MAX_CALLERS = 8  # caller functions run per file and dtype


@dataclass(frozen=True)
class Caller:
    """A top-level function of another module of the package that calls, by one of its
    names, a function of interest (depth 1: a launching function of the op file; depth
    k: a caller of depth k - 1)."""

    path: Path
    name: str
    depth: int


@dataclass(frozen=True)
class _FunctionSummary:
    """What the caller search needs of one top-level function: the names it calls and the
    names it is known by (its own and the strings its decorators register it under)."""

    name: str
    calls: frozenset[str]
    names: frozenset[str]


def follow_callers(interp: Interpreter, module: ModuleEnv, problems: list[str]) -> None:
    """Run the package's callers of the functions whose launches left a kernel's constants
    unknown (a parameter only a caller gives, such as a config dict), outermost first.

    A call by a name found on the way runs the function that name was found for (the
    caller's name may be bound to a dispatch stub); entries get typical arguments as the
    op file's own entries do.
    """
    if unresolved_origins(interp.records, module.tree):
        run_main_block(interp, module, problems)
    summaries = _summaries(module.path)
    names = {alias: (module.path, origin)
             for origin in unresolved_origins(interp.records, module.tree)
             if origin in summaries for alias in summaries[origin].names}
    callers = find_callers(interp.package.root, module.path, names) if names else []
    if not callers:
        return
    interp.redirects = _redirects(interp, names, callers)
    try:
        for caller in callers:
            _run_caller(interp, caller, problems)
    finally:
        interp.redirects = {}


def main_blocks(tree: ast.Module) -> list[ast.If]:
    """The module's `if __name__ == "__main__":` blocks (the file's own caller: a sample's
    configuration, which its host functions take as parameters)."""
    blocks: list[ast.If] = []
    for stmt in tree.body:
        test = stmt.test if isinstance(stmt, ast.If) else None
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
                test.left.id == "__name__" and len(test.comparators) == 1 and isinstance(
                    test.comparators[0], ast.Constant) and test.comparators[0].value == \
                "__main__" and isinstance(test.ops[0], ast.Eq):
            assert isinstance(stmt, ast.If)
            blocks.append(stmt)
    return blocks


def run_main_block(interp: Interpreter, module: ModuleEnv, problems: list[str]) -> None:
    """Run the module's `__main__` blocks as an entry without parameters."""
    for block in main_blocks(module.tree):
        node = ast.FunctionDef(name="__main__", args=ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[]), body=block.body, decorator_list=[], returns=None, type_params=[])
        ast.copy_location(node, block)
        interp.module, interp.frames = module, [module.values]
        interp.origin = ""
        stopped = interp.run_entry(module, "__main__", FunctionValue(node, module, []), [],
                                   {})
        if stopped is not None:
            problems.append(f"__main__: {stopped}")


def unresolved_origins(records: list[Record], tree: ast.Module) -> list[str]:
    """The top-level functions whose runs launched a kernel none of whose launches has every
    `ct.Constant` argument known, in the order of their records."""
    params, constants = kernel_params(tree), constant_params(tree)
    complete: set[str] = set()
    for record in records:
        names = params.get(record.kernel, [])
        if len(names) == len(record.args) and all(
                constant_value(value, "any") is not None
                for name, value in zip(names, record.args, strict=True)
                if name in constants.get(record.kernel, set())):
            complete.add(record.kernel)
    origins: list[str] = []
    for record in records:
        if record.kernel not in complete and record.origin and record.origin not in origins:
            origins.append(record.origin)
    return origins


def find_callers(root: Path, skip: Path, names: dict[str, tuple[Path, str]]) -> list[Caller]:
    """Top-level functions of the package's modules (`skip` aside) that call one of `names`,
    then their callers, up to `MAX_CALLER_DEPTH` levels; outermost first."""
    found: list[Caller] = []
    seen: set[tuple[Path, str]] = set()
    wanted = set(names)
    for depth in range(1, MAX_CALLER_DEPTH + 1):
        following: set[str] = set()
        for path in _package_sources(root):
            if path == skip.resolve():
                continue
            for summary in _summaries(path).values():
                if (path, summary.name) in seen or not summary.calls & wanted:
                    continue
                seen.add((path, summary.name))
                found.append(Caller(path, summary.name, depth))
                following |= summary.names
        wanted = following
        if not wanted:
            break
    found.sort(key=lambda c: (-c.depth, str(c.path), c.name))
    return found[:MAX_CALLERS]


def _redirects(interp: Interpreter, names: dict[str, tuple[Path, str]],
               callers: list[Caller]) -> dict[str, FunctionValue]:
    """Called name -> the function found for it: the op file's launching functions, then
    each caller under every name it is known by."""
    located = dict(names)
    for caller in callers:
        for alias in _summaries(caller.path)[caller.name].names:
            located.setdefault(alias, (caller.path, caller.name))
    out: dict[str, FunctionValue] = {}
    for alias, (path, name) in located.items():
        try:
            function = interp.package.module_at(path).lookup(interp, name)
        except KeyError:
            continue
        if isinstance(function, FunctionValue):
            out[alias] = function
    return out


def _run_caller(interp: Interpreter, caller: Caller, problems: list[str]) -> None:
    module = interp.package.module_at(caller.path)
    node = next((s for s in module.tree.body if isinstance(s, ast.FunctionDef)
                 and s.name == caller.name), None)
    if node is None:
        return
    rel = caller.path.relative_to(interp.package.root.resolve()).with_suffix("")
    label = ".".join([*rel.parts, caller.name])
    run_variants(interp, module, Entry(label, node, None, True), problems)


def _package_sources(root: Path) -> list[Path]:
    """The package's Python files (resolved, sorted)."""
    return _sources_under(str(root.resolve()))


@functools.lru_cache(maxsize=8)
def _sources_under(root: str) -> list[Path]:
    return sorted(p.resolve() for p in Path(root).rglob("*.py"))


@functools.lru_cache(maxsize=512)
def _summaries(path: Path) -> dict[str, _FunctionSummary]:
    """The top-level host functions of one file, by name (none if it does not parse)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return {}
    return {s.name: _FunctionSummary(s.name, _called_names(s), _known_names(s))
            for s in tree.body if isinstance(s, ast.FunctionDef) and not is_kernel_def(s)}


def _called_names(fn: ast.FunctionDef) -> frozenset[str]:
    """The names a function calls: `f(..)` and `x.f(..)` give `f`."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                out.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                out.add(node.func.attr)
    return frozenset(out)


def _known_names(fn: ast.FunctionDef) -> frozenset[str]:
    """A function's name and each identifier its decorators register it under
    (`@register("op_name", ...)`)."""
    registered = {a.value for d in fn.decorator_list if isinstance(d, ast.Call)
                  for a in d.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                  and a.value.isidentifier()}
    return frozenset({fn.name, *registered})
