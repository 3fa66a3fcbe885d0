"""Reference Tile IR: compile one specialization of a cuTile Python kernel without running its file.

Takes a Python source file and a `KernelSpec`; gives the `tileirdisasm` text of the Tile IR
that cuda-tile produces for that specialization (`reference_ir`).

The user's file is never imported. `lift_kernel` keeps only what the kernel needs: the
`@ct.kernel` function, the module-level helper functions, classes and constants it
references (transitively), and the imports of `cuda.tile` (under any alias, or `from
cuda.tile import X`) and `math` that bind names it uses. Every other top-level statement
becomes a blank line, so the lifted module has the kernel on its original lines. Host-side
parts are left out in place: decorators stacked on the kernel other than cuda.tile's, and
type hints naming only other modules' things (`x: torch.Tensor`); dtypes the kernel reads from
torch / numpy (`torch.float32`, `np.int32`) are read from cuda.tile, whose dtypes have the
same names (the import binds the name to `cuda.tile`; nothing else of torch / numpy may be
used). The lifted
source is compiled under the original file name, so cuda-tile reads the kernel's source from
the original file and the debug locations (`tileirdisasm -g`) point into it. The module is
then built from that code object alone and handed to
`cuda.tile.compilation.export_kernel(..., output_format="tileir_bytecode",
bytecode_version="13.3")`.

`tileirdisasm` is found through the `TILEIRDISASM` environment variable, else in
`nvidia/cu13/bin/` of the running interpreter's site-packages, else on PATH.
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.frontend.local_modules import local_module
from transpiler.frontend.nested import hoisted_text
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, Layout, ScalarSpec

BYTECODE_VERSION = "13.3"
#: Modules the lifted code may import (numpy is pinned: its constants, `np.inf`, are read).
ALLOWED_MODULES: tuple[str, ...] = ("cuda.tile", "math", "numpy")
#: Modules whose dtypes a kernel may name (`torch.float32`, `np.int32`): read from cuda.tile.
DTYPE_MODULES: tuple[str, ...] = ("torch", "numpy")
#: The dtypes of cuda.tile, by name (torch and numpy name theirs the same way).
CUDA_TILE_DTYPES: frozenset[str] = frozenset({
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2",
    "float8_e5m3fnu", "float8_e8m0fnu", "float4_e2m1fn",
})
DISASM_ENV = "TILEIRDISASM"


class ReferenceIrError(RuntimeError):
    """The reference IR could not be produced; the message says why (cuda-tile's text)."""


# ---------------------------------------------------------------------------------------------
# Lifting


@dataclass(frozen=True)
class _Binding:
    stmt: ast.stmt
    index: int


@dataclass
class _Lift:
    """What lifting changes in the kept statements, besides dropping the others."""

    skip: set[int]  # ids of AST nodes that are host-side only (dropped decorators, annotations)
    blank: list[tuple[int, int]]  # byte ranges of the source replaced by spaces
    imports: dict[int, set[str]]  # kept import statement index -> the names it must bind
    mapped: dict[str, str]  # torch / numpy name read for its dtypes -> its module
    # helpers imported from a sibling module (`from .gelu import f`): module -> {name: as}
    siblings: dict[str, dict[str, str]] = field(default_factory=dict)


def lift_kernel(source: str, kernel: str, filename: str = "<kernel>") -> str:
    """The kernel's own lifted file (`lifted_parts` without the sibling modules)."""
    return lifted_parts(source, kernel, filename)[-1][1]


def lifted_parts(source: str, kernel: str, filename: str = "<kernel>") -> list[tuple[str, str]]:
    """(file name, source) of a standalone module holding `kernel` and what it references:
    the lifted helpers of sibling modules it imports (`from .gelu import f`) first, each
    with its own file's line numbers, then the kernel's file.

    Lines are preserved: statements not needed become blank lines. Two host-side parts of
    the kernel are left out: decorators other than cuda.tile's (`@experimental_kernel`
    stacked on `@ct.kernel`: a host wrapper) and parameter / return annotations of kept
    functions that name only things imported from other modules (`x: torch.Tensor`); both
    are blanked in place. Dtypes read from torch or numpy (`torch.float32`, `np.int32`,
    `from numpy import float16`) are read from cuda.tile instead: the import binds the same
    name to `cuda.tile` (whose dtypes have those names), which is allowed only when every
    use of the name is such a dtype read. Raises `ReferenceIrError` if the kernel is missing
    or needs anything else from a module other than cuda.tile / math.
    """
    # A kernel defined inside a function or class is lifted from a copy of the file that
    # holds it at module level, on the same lines.
    source = hoisted_text(source, kernel) or source
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise ReferenceIrError(f"{filename} is not valid Python: {exc}") from exc
    bindings = _top_level_bindings(tree)
    target = _find_kernel(tree, kernel, bindings, filename)
    lift = _Lift(set(), [], {}, {})
    _drop_host_decorators(target, bindings, lift)
    _drop_tileiras_options(target, bindings, source.encode(), lift)
    keep = _needed_statements(tree, target, bindings, kernel, source, lift, filename)
    keep.update(i for i, s in enumerate(tree.body) if _is_future_import(s))
    lifted = _render_lifted(source, tree, keep, lift, filename)
    return [*_lift_siblings(lift.siblings, filename, {filename}), (filename, lifted)]


def _lift_siblings(siblings: dict[str, dict[str, str]], filename: str,
                   done: set[str]) -> list[tuple[str, str]]:
    """The helpers imported from sibling modules, lifted from their files (the modules they
    import from first)."""
    out: list[tuple[str, str]] = []
    for module, names in sorted(siblings.items()):
        sibling = Path(filename).parent / f"{module.replace('.', '/')}.py"
        path = str(sibling)
        if path in done:
            continue
        if not sibling.is_file():
            raise ReferenceIrError(f"{filename} imports from `{sibling.name}`, which is not "
                                   "a file beside it")
        text = sibling.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=path)
        bindings = _top_level_bindings(tree)
        lift = _Lift(set(), [], {}, {})
        keep: set[int] = set()
        for name in names:
            found = next((b.stmt for b in bindings.get(name, []) if isinstance(
                b.stmt, ast.FunctionDef | ast.Assign | ast.AnnAssign)), None)
            if found is None:
                raise ReferenceIrError(f"`{name}` is not a function or constant of "
                                       f"`{sibling.name}`")
            keep |= _needed_statements(tree, found, bindings, name, text, lift, path)
        out.extend(_lift_siblings(lift.siblings, path, done | {path}))
        aliases = "".join(f"{alias} = {name}\n" for name, alias in sorted(names.items())
                          if alias != name)
        out.append((path, _render_lifted(text, tree, keep, lift, path) + aliases))
    return out


def _top_level_bindings(tree: ast.Module) -> dict[str, list[_Binding]]:
    bindings: dict[str, list[_Binding]] = {}
    for index, stmt in enumerate(tree.body):
        for name in _bound_names(stmt):
            bindings.setdefault(name, []).append(_Binding(stmt, index))
    return bindings


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [_import_binding(alias) for alias in stmt.names if alias.name != "*"]
    return []


def _import_binding(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def _find_kernel(tree: ast.Module, kernel: str, bindings: dict[str, list[_Binding]],
                 filename: str) -> ast.FunctionDef:
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            if any(_is_kernel_decorator(d, bindings) for d in stmt.decorator_list):
                return stmt
            raise ReferenceIrError(f"{filename}: `{kernel}` is not decorated with @ct.kernel")
    raise ReferenceIrError(f"{filename}: no top-level kernel named `{kernel}`")


def _is_kernel_decorator(node: ast.expr, bindings: dict[str, list[_Binding]]) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr == "kernel"
    if isinstance(node, ast.Name):
        return _name_origin(node.id, bindings) == "cuda.tile"
    return False


def _is_future_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


# -- host-side parts: decorators and annotations ----------------------------------------------


def _root_name(node: ast.expr) -> str | None:
    """`ct` of `ct.kernel(occupancy=2)`, `experimental_kernel` of `experimental_kernel`."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            return node.id
        else:
            return None


def _import_module(stmt: ast.Import | ast.ImportFrom, name: str) -> str | None:
    """The module an import statement binds `name` from (`from cuda import tile`: cuda.tile)."""
    if isinstance(stmt, ast.ImportFrom):
        module = stmt.module or ""
        for alias in stmt.names:
            if _import_binding(alias) == name:
                return f"{module}.{alias.name}" if module == "cuda" else module
        return None
    for alias in stmt.names:
        if _import_binding(alias) == name:
            return alias.name
    return None


def _name_origin(name: str, bindings: dict[str, list[_Binding]],
                 seen: frozenset[str] = frozenset()) -> str:
    """"cuda.tile" (imported from cuda.tile, or a module-level alias such as
    `kernel = ct.kernel`), "allowed" (math), "foreign" (imported from any other module) or
    "local" (defined in the file, a builtin, or unknown)."""
    for binding in bindings.get(name, []):
        stmt = binding.stmt
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            module = _import_module(stmt, name) or ""
            if _within(module, "cuda.tile"):
                return "cuda.tile"
            return "allowed" if _is_allowed_import(module) else "foreign"
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Attribute | ast.Name):
            root = _root_name(stmt.value)
            if root is not None and root not in seen | {name} and \
                    _name_origin(root, bindings, seen | {name}) == "cuda.tile":
                return "cuda.tile"
    return "local"


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _drop_host_decorators(kernel: ast.FunctionDef, bindings: dict[str, list[_Binding]],
                          lift: _Lift) -> None:
    """Decorators of the kernel other than cuda.tile's are host-side wrappers: left out."""
    for decorator in kernel.decorator_list:
        root = _root_name(decorator)
        if _is_kernel_decorator(decorator, bindings) or (
                root is not None and _name_origin(root, bindings) == "cuda.tile"):
            continue
        lift.skip.add(id(decorator))


# `@ct.kernel` keywords cuTile Python hands to tileiras alone (`-O{opt_level}`,
# cuda/tile/_compile.py): the bytecode does not depend on them, and their value is often host
# code (`opt_level=0 if get_tileiras_version() < ...`) that the lift cannot keep.
TILEIRAS_OPTIONS = frozenset({"opt_level"})


def _drop_tileiras_options(kernel: ast.FunctionDef, bindings: dict[str, list[_Binding]],
                           data: bytes, lift: _Lift) -> None:
    """Blank the tileiras-only keywords of the kernel's `@ct.kernel(...)` (with the comma
    that joins each to its neighbour)."""
    offsets = _line_offsets(data)
    for decorator in kernel.decorator_list:
        if not (isinstance(decorator, ast.Call) and _is_kernel_decorator(decorator, bindings)):
            continue
        items: list[ast.expr | ast.keyword] = [*decorator.args, *decorator.keywords]
        items.sort(key=lambda n: (n.lineno, n.col_offset))

        def start(node: ast.expr | ast.keyword) -> int:
            return _offset(offsets, node.lineno, node.col_offset)

        def end(node: ast.expr | ast.keyword) -> int:
            return _offset(offsets, node.end_lineno or node.lineno, node.end_col_offset or 0)

        dropped = [i for i, n in enumerate(items)
                   if isinstance(n, ast.keyword) and n.arg in TILEIRAS_OPTIONS]
        for i in dropped:
            node = items[i]
            assert isinstance(node, ast.keyword)
            lift.skip.add(id(node.value))
            if i + 1 < len(items):  # up to the next argument: the comma goes too
                lift.blank.append((start(node), start(items[i + 1])))
            elif i > 0 and i - 1 not in dropped:  # from the end of the previous one
                lift.blank.append((end(items[i - 1]), end(node)))
            else:
                lift.blank.append((start(node), end(node)))


def _host_annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef,
                      bindings: dict[str, list[_Binding]]) -> list[tuple[ast.arg | None, ast.expr]]:
    """Annotations (of a parameter, or None: the return) naming only things imported from
    modules other than cuda.tile / math (`torch.Tensor`, `Optional[np.ndarray]`): host-side
    type hints, which cuda.tile reads as no annotation."""
    out: list[tuple[ast.arg | None, ast.expr]] = []
    pairs: list[tuple[ast.arg | None, ast.expr | None]] = [
        (a, a.annotation) for a in _all_args(fn.args)]
    pairs.append((None, fn.returns))
    for arg, annotation in pairs:
        if annotation is None:
            continue
        origins = {_name_origin(n, bindings) for n in _annotation_names(annotation)}
        if "foreign" in origins and "cuda.tile" not in origins:
            out.append((arg, annotation))
    return out


def _annotation_names(annotation: ast.expr) -> set[str]:
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            parsed = ast.parse(annotation.value, mode="eval")
        except SyntaxError:
            return names
        names |= {n.id for n in ast.walk(parsed) if isinstance(n, ast.Name)}
    return names


def _strip_host_annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef,
                            bindings: dict[str, list[_Binding]], offsets: list[int],
                            data: bytes, lift: _Lift) -> None:
    for arg, annotation in _host_annotations(fn, bindings):
        lift.skip.add(id(annotation))
        end = _offset(offsets, annotation.end_lineno or annotation.lineno,
                      annotation.end_col_offset or 0)
        if arg is not None:  # from just after the parameter's name, i.e. with the colon
            start = _offset(offsets, arg.lineno, arg.col_offset) + len(arg.arg.encode())
        else:  # from the arrow
            start = _arrow_before(data, _offset(offsets, annotation.lineno,
                                                annotation.col_offset))
        lift.blank.append((start, end))


def _line_offsets(data: bytes) -> list[int]:
    offsets = [0, 0]  # 1-based lines
    for index, byte in enumerate(data):
        if byte == 0x0A:
            offsets.append(index + 1)
    return offsets


def _offset(offsets: list[int], line: int, col: int) -> int:
    return offsets[line] + col


def _arrow_before(data: bytes, pos: int) -> int:
    i = pos
    while i > 0 and data[i - 1:i] in (b" ", b"\t", b"\n", b"\r", b"\\", b"\x0c"):
        i -= 1
    if data[i - 2:i] != b"->":
        raise ReferenceIrError("cannot find the `->` of a return annotation")
    return i - 2


# -- what the kernel needs ---------------------------------------------------------------------


def _sibling_module(stmt: ast.stmt, filename: str) -> str | None:
    """The module below the file's folder a `from .m import f` (or an absolute import of
    the user's own module, `from pkg.m import f`) reads, else None."""
    if not isinstance(stmt, ast.ImportFrom) or not stmt.module:
        return None
    if stmt.level == 1:
        return stmt.module
    return local_module(filename, stmt.module) if stmt.level == 0 and filename else None


def _needed_statements(tree: ast.Module, kernel: ast.stmt,
                       bindings: dict[str, list[_Binding]], kernel_name: str, source: str,
                       lift: _Lift, filename: str = "") -> set[int]:
    data = source.encode()
    offsets = _line_offsets(data)
    keep: set[int] = set()
    stripped: set[int] = set()
    foreign: dict[str, tuple[ast.Import | ast.ImportFrom, str]] = {}

    def strip(stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and id(stmt) not in stripped:
            stripped.add(id(stmt))
            _strip_host_annotations(stmt, bindings, offsets, data, lift)

    strip(kernel)
    pending = list(_free_names(kernel, lift.skip))
    seen: set[str] = {kernel_name}
    keep.update(b.index for b in bindings[kernel_name])
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for binding in bindings.get(name, []):
            sibling = _sibling_module(binding.stmt, filename)
            if sibling is not None:
                # `from .gelu import f`: f is lifted from the sibling file (`_lift_siblings`).
                for alias in binding.stmt.names:
                    if _import_binding(alias) == name:
                        lift.siblings.setdefault(sibling, {})[alias.name] = name
                continue
            if isinstance(binding.stmt, ast.Import | ast.ImportFrom):
                module = _import_module(binding.stmt, name) or ""
                # A dtype module is read from cuda.tile when only its dtypes are read;
                # numpy is imported itself when the kernel reads its constants (`np.pi`).
                if not _is_allowed_import(module) or module in DTYPE_MODULES:
                    foreign[name] = (binding.stmt, module)
                lift.imports.setdefault(binding.index, set()).add(name)
            else:
                strip(binding.stmt)
                pending.extend(_free_names(binding.stmt, lift.skip))
            keep.add(binding.index)
    kept = [tree.body[i] for i in sorted(keep)
            if not isinstance(tree.body[i], ast.Import | ast.ImportFrom)]
    for name, (stmt, module) in foreign.items():
        try:
            _map_dtype_import(name, stmt, module, kept, kernel_name, lift)
        except ReferenceIrError:
            if not _is_allowed_import(module):
                raise
    return keep


def _is_allowed_import(module: str) -> bool:
    return any(_within(module, m) for m in ALLOWED_MODULES)


def _map_dtype_import(name: str, stmt: ast.Import | ast.ImportFrom, module: str,
                      kept: list[ast.stmt], kernel: str, lift: _Lift) -> None:
    """Allow `name`, imported from torch / numpy, when it is only read for dtypes that
    cuda.tile has under the same name; else raise."""
    refusal = (f"kernel `{kernel}` uses `{name}`, imported from `{module}`; the reference "
               f"compiler lifts only code that imports {' / '.join(ALLOWED_MODULES)}, and "
               f"reads from {' / '.join(DTYPE_MODULES)} only dtypes that cuda.tile has "
               f"under the same name (`torch.float32`, `np.int32`)")
    if isinstance(stmt, ast.ImportFrom):
        alias = next(a for a in stmt.names if _import_binding(a) == name)
        if module in DTYPE_MODULES and alias.name in CUDA_TILE_DTYPES:
            lift.mapped[name] = module
            return
        raise ReferenceIrError(refusal)
    if module not in DTYPE_MODULES:
        raise ReferenceIrError(refusal)
    for stmt_ in kept:
        for node, parent in _walk_with_parents(stmt_, lift.skip):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            dtype_read = (isinstance(parent, ast.Attribute) and parent.value is node
                          and isinstance(parent.ctx, ast.Load)
                          and parent.attr in CUDA_TILE_DTYPES)
            if not dtype_read:
                what = (f"`{ast.unparse(parent)}`" if isinstance(parent, ast.Attribute)
                        else f"`{name}`")
                raise ReferenceIrError(f"{refusal}; line {node.lineno} reads {what}")
    lift.mapped[name] = module


def _walk_with_parents(node: ast.AST, skip: set[int]) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """(node, parent) pairs below `node`, not entering the nodes in `skip`."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(node, None)]
    while stack:
        current, parent = stack.pop()
        if id(current) in skip:
            continue
        yield current, parent
        stack.extend((child, current) for child in ast.iter_child_nodes(current))


def _walk(node: ast.AST, skip: set[int]) -> list[ast.AST]:
    return [n for n, _ in _walk_with_parents(node, skip)]


def _free_names(node: ast.AST, skip: set[int] | None = None) -> set[str]:
    """Names a statement reads that it does not bind itself (over-approximate, no builtins).

    Nodes in `skip` (host-side decorators and annotations left out of the lifted code) are
    not read."""
    skip = skip or set()
    loaded: set[str] = set()
    stored: set[str] = set()
    for sub in _walk(node, skip):
        if isinstance(sub, ast.Name):
            (loaded if isinstance(sub.ctx, ast.Load) else stored).add(sub.id)
        elif isinstance(sub, ast.arg):
            stored.add(sub.arg)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        outer = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
        outer += [a.annotation for a in _all_args(node.args) if a.annotation is not None]
        outer.append(node.returns)
        outer_names = {n.id for expr in outer if expr is not None
                       for n in _walk(expr, skip) if isinstance(n, ast.Name)}
        loaded |= outer_names
        stored -= outer_names
        return (loaded - stored) - set(dir(builtins))
    return loaded - set(dir(builtins))


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


# -- rendering ---------------------------------------------------------------------------------


def _render_lifted(source: str, tree: ast.Module, keep: set[int], lift: _Lift,
                   filename: str) -> str:
    data = bytearray(source.encode())
    for start, end in lift.blank:  # spaces, keeping line breaks and line continuations
        for i in range(start, end):
            continuation = data[i] == 0x5C and data[i + 1:i + 2] in (b"\n", b"\r")
            if data[i] not in (0x0A, 0x0D) and not continuation:
                data[i] = 0x20
    lines = data.decode(errors="replace").splitlines()
    out = [""] * len(lines)
    spans = [_span(stmt) for stmt in tree.body]
    dropped_lines = _dropped_decorator_lines(tree, keep, lift)
    for index in sorted(keep):
        stmt = tree.body[index]
        start, end = spans[index]
        _check_alone(index, spans, keep, filename)
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            out[start - 1] = _render_import(stmt, lift.imports.get(index), lift.mapped)
        else:
            out[start - 1:end] = ["" if n in dropped_lines else lines[n - 1]
                                  for n in range(start, end + 1)]
    return "\n".join(out) + "\n"


def _dropped_decorator_lines(tree: ast.Module, keep: set[int], lift: _Lift) -> set[int]:
    lines: set[int] = set()
    for index in keep:
        for decorator in getattr(tree.body[index], "decorator_list", []):
            if id(decorator) in lift.skip:
                lines.update(range(decorator.lineno, (decorator.end_lineno or
                                                       decorator.lineno) + 1))
    return lines


def _render_import(stmt: ast.Import | ast.ImportFrom, needed: set[str] | None,
                   mapped: dict[str, str]) -> str:
    """The import, binding only the names the kept code needs; a torch / numpy name read
    for dtypes is bound to cuda.tile (see `lift_kernel`)."""
    if needed is None or _is_future_import(stmt):
        return ast.unparse(stmt)
    names = [a for a in stmt.names if _import_binding(a) in needed]
    notes = sorted({mapped[_import_binding(a)] for a in names if _import_binding(a) in mapped})
    if isinstance(stmt, ast.ImportFrom):
        module = "cuda.tile" if notes else stmt.module
        node: ast.stmt = ast.ImportFrom(module=module, names=names, level=stmt.level)
    else:
        node = ast.Import(names=[
            ast.alias("cuda.tile", _import_binding(a)) if _import_binding(a) in mapped else a
            for a in names])
    text = ast.unparse(node)
    if notes:
        text += f"  # dtypes read from {' / '.join(notes)}: cuda.tile's of the same name"
    return text


def _span(stmt: ast.stmt) -> tuple[int, int]:
    start = stmt.lineno
    for decorator in getattr(stmt, "decorator_list", []):
        start = min(start, decorator.lineno)
    return start, stmt.end_lineno or stmt.lineno


def _check_alone(index: int, spans: list[tuple[int, int]], keep: set[int], filename: str) -> None:
    start, end = spans[index]
    for other, (ostart, oend) in enumerate(spans):
        if other != index and other not in keep and ostart <= end and oend >= start:
            raise ReferenceIrError(f"{filename}:{start}: a needed statement shares its line "
                                   f"with another statement; put it on its own line")


def load_lifted_kernel(source_path: Path, kernel: str) -> Any:
    """Build the lifted module from code alone and return its kernel object."""
    source = source_path.read_text()
    module = types.ModuleType(f"_ircheck_lifted_{kernel}")
    module.__file__ = str(source_path)
    try:
        for filename, lifted in lifted_parts(source, kernel, str(source_path)):
            code = compile(lifted, filename, "exec")
            exec(code, module.__dict__)  # noqa: S102 - the lifted defs/constants only
    except Exception as exc:
        raise ReferenceIrError(f"{source_path}: lifting `{kernel}` failed: "
                               f"{type(exc).__name__}: {exc}") from exc
    return module.__dict__[kernel]


# ---------------------------------------------------------------------------------------------
# Specialization -> KernelSignature


def kernel_signature(spec: KernelSpec, param_names: list[str]) -> Any:
    """The cuda-tile `KernelSignature` for a specialization, checked against the parameters."""
    from cuda.tile.compilation import CallingConvention, KernelSignature

    names = [name for name, _ in spec.params]
    if names != param_names:
        raise ReferenceIrError(f"specialization {spec.label()} lists parameters {names}, the "
                               f"kernel has {param_names}")
    constraints = [_constraint(p, spec.layout) for _, p in spec.params]
    return KernelSignature(constraints, calling_convention=CallingConvention.cutile_python_v2())


def _constraint(param: ArraySpec | ScalarSpec | ConstSpec, layout: Layout) -> Any:
    from cuda.tile.compilation import ConstantConstraint, ScalarConstraint

    if isinstance(param, ArraySpec):
        return array_constraint(param, layout)
    if isinstance(param, ScalarSpec):
        return ScalarConstraint(_dtype(param.dtype))
    return ConstantConstraint(param.value)


def array_constraint(param: ArraySpec, layout: Layout) -> Any:
    """`ArrayConstraint` for an array parameter under the shared layout assumptions.

    int32 indices, non-negative strides, no aliasing; the last stride is the constant 1 when
    `layout.last_stride_one` (its divisibility is then 1), other strides divisible by
    `layout.stride_divisible_by`, shapes by `layout.shape_divisible_by`, the base address by
    `layout.base_addr_divisible_by`.
    """
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint

    ndim = param.ndim
    if layout.last_stride_one and ndim > 0:
        stride_constant: list[int | None] | None = [None] * (ndim - 1) + [1]
        stride_div: list[int] | int = [layout.stride_divisible_by] * (ndim - 1) + [1]
    else:
        stride_constant = None
        stride_div = layout.stride_divisible_by
    return ArrayConstraint(
        _dtype(param.dtype), ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
        alias_groups=(), may_alias_internally=False, stride_constant=stride_constant,
        stride_divisible_by=stride_div, shape_divisible_by=layout.shape_divisible_by,
        base_addr_divisible_by=layout.base_addr_divisible_by)


def _dtype(name: str) -> Any:
    import cuda.tile as ct

    dtype = getattr(ct, name, None)
    if dtype is None:
        raise ReferenceIrError(f"unknown cuda.tile dtype `{name}`")
    return dtype


# ---------------------------------------------------------------------------------------------
# Compiling and disassembling


def reference_bytecode(source_path: Path, spec: KernelSpec) -> bytes:
    """Tile IR bytecode (version 13.3) of one specialization of the kernel."""
    from cuda.tile.compilation import export_kernel

    source_path = Path(source_path).resolve()
    kernel = load_lifted_kernel(source_path, spec.kernel)
    params = _param_names(source_path, spec.kernel)
    signature = kernel_signature(spec, params)
    buffer = io.BytesIO()
    try:
        export_kernel(kernel, [signature], buffer, output_format="tileir_bytecode",
                      bytecode_version=BYTECODE_VERSION)
    except Exception as exc:
        raise ReferenceIrError(f"cuda-tile rejected {spec.label()}: "
                               f"{type(exc).__name__}: {exc}") from exc
    return buffer.getvalue()


def _param_names(source_path: Path, kernel: str) -> list[str]:
    text = source_path.read_text()
    tree = ast.parse(hoisted_text(text, kernel) or text)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            return [a.arg for a in _all_args(stmt.args)]
    raise ReferenceIrError(f"{source_path}: no top-level kernel named `{kernel}`")


def find_tileirdisasm() -> Path:
    """Path of `tileirdisasm` (env TILEIRDISASM, site-packages nvidia/cu13/bin, PATH)."""
    override = os.environ.get(DISASM_ENV)
    if override:
        return Path(override)
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    dirs.append(str(Path(sys.executable).parent.parent / "lib" /
                    f"python{sys.version_info.major}.{sys.version_info.minor}" /
                    "site-packages"))
    for directory in dirs:
        candidate = Path(directory) / "nvidia" / "cu13" / "bin" / "tileirdisasm"
        if candidate.is_file():
            return candidate
    found = shutil.which("tileirdisasm")
    if found:
        return Path(found)
    raise ReferenceIrError("tileirdisasm not found: set TILEIRDISASM or install the "
                           "nvidia-cuda-tileiras wheel (--no-deps)")


def disassemble(bytecode: bytes, *, debug_info: bool = True) -> str:
    """`tileirdisasm` text of Tile IR bytecode (`-g` adds `loc(...)` source locations)."""
    tool = find_tileirdisasm()
    with tempfile.TemporaryDirectory(prefix="ircheck-") as tmp:
        path = Path(tmp) / "kernel.tileirbc"
        path.write_bytes(bytecode)
        command = [str(tool), *(["-g"] if debug_info else []), str(path)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ReferenceIrError(f"tileirdisasm failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def reference_ir(source_path: Path, spec: KernelSpec, *, debug_info: bool = True) -> str:
    """Disassembled reference Tile IR for one specialization of one kernel in a file."""
    return disassemble(reference_bytecode(Path(source_path), spec), debug_info=debug_info)
