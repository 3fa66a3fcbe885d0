"""cuTile Python front end: source text -> `SourceModule` (the file's kernel-relevant syntax).

Takes the text of a Python file; gives the names `cuda.tile` is bound to (module aliases and
`from cuda.tile import X as Y` names), the module-level constants, every top-level function,
which of them are `@ct.kernel`s (with their decorator options), and the `ct.launch(...)`
sites of the host code. Nothing in the file is imported or run. Every node keeps its
source span through libcst's position metadata.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from transpiler.diagnostics import Diagnostic, Span, TranslationError
from transpiler.frontend.local_modules import local_module
from transpiler.frontend.nested import nested_kernel_name


@dataclass
class KernelDef:
    name: str
    node: cst.FunctionDef
    options: dict[str, cst.BaseExpression]


@dataclass
class LaunchSite:
    """One `ct.launch(stream, grid, kernel, args)` call in host code."""

    kernel: str | None
    grid: cst.BaseExpression
    args: list[cst.BaseExpression]
    host_function: str | None
    span: Span


@dataclass
class SourceModule:
    path: str
    text: str
    module: cst.Module
    positions: dict[cst.CSTNode, Span]
    tile_aliases: set[str] = field(default_factory=set)
    tile_names: dict[str, str] = field(default_factory=dict)
    module_aliases: dict[str, str] = field(default_factory=dict)
    constants: dict[str, cst.BaseExpression] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    # `from .gelu import f as g`: g -> ("gelu", "f"), a helper in a sibling file
    sibling_imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    # sibling modules parsed so far, by module name (see `sibling`)
    siblings: dict[str, SourceModule] = field(default_factory=dict)
    kernels: list[KernelDef] = field(default_factory=list)
    launches: list[LaunchSite] = field(default_factory=list)

    def span(self, node: cst.CSTNode) -> Span | None:
        return self.positions.get(node)


def sibling(source: SourceModule, module: str) -> SourceModule | None:
    """The parsed sibling module `module` of `source` (`from .module import f`), or None
    when the source has no folder (stdin) or the file does not exist."""
    if module not in source.siblings:
        if source.path.startswith("<"):
            return None
        path = Path(source.path).parent / f"{module.replace('.', '/')}.py"
        if not path.is_file():
            return None
        source.siblings[module] = parse_source(path.read_text(encoding="utf-8"), str(path))
    return source.siblings[module]


def parse_source(text: str, path: str) -> SourceModule:
    """Parse and index a cuTile Python file; raises `TranslationError` on a syntax error."""
    # CPython's parser first: it bounds nesting (200 brackets) and recursion itself, where
    # libcst's native parser overflows its stack on deeply nested input (a crash, not an
    # error); whatever CPython rejects is no Python this interpreter runs.
    check_python_parses(text, path)
    try:
        module = cst.parse_module(text)
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        raw = wrapper.resolve(PositionProvider)
    except cst.ParserSyntaxError as err:
        raise TranslationError(syntax_diagnostic(text, path, err)) from None
    except RecursionError:
        raise TranslationError(Diagnostic("E0001", "the file nests expressions too deeply "
                                          "to translate", path, None)) from None
    positions = {
        node: Span(pos.start.line, pos.start.column, pos.end.line, pos.end.column)
        for node, pos in raw.items()
    }
    source = SourceModule(path, text, module, positions)
    for stmt in module.body:
        _index_statement(source, stmt)
    _find_launches(source)
    return source


def check_python_parses(text: str, path: str) -> None:
    """A diagnostic (`TranslationError`) for what CPython's own parser rejects, nesting
    too deep included."""
    try:
        ast.parse(text, filename=path)
    except SyntaxError as err:
        span = Span(err.lineno, max((err.offset or 1) - 1, 0)) if err.lineno else None
        raise TranslationError(Diagnostic("E0001", f"invalid syntax: {err.msg}", path,
                                          span)) from None
    except (RecursionError, MemoryError):
        raise TranslationError(Diagnostic("E0001", "the file nests expressions too deeply "
                                          "for Python's parser", path, None)) from None
    except ValueError as err:  # NUL bytes, which the driver reports first for a main file
        raise TranslationError(Diagnostic("E0002", f"not Python source: {err}", path,
                                          None)) from None


def syntax_diagnostic(text: str, path: str, err: cst.ParserSyntaxError) -> Diagnostic:
    # CPython's own parser words syntax errors best ("'(' was never closed"); libcst's
    # position is the fallback when CPython accepts what libcst rejects.
    try:
        ast.parse(text, filename=path)
    except SyntaxError as py_err:
        line = py_err.lineno or err.raw_line
        col = max((py_err.offset or 1) - 1, 0)
        return Diagnostic("E0001", f"invalid syntax: {py_err.msg}", path, Span(line, col))
    return Diagnostic("E0001", "invalid syntax (this Python grammar is not supported)", path,
                      Span(err.raw_line, err.raw_column))


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def tile_attr(source: SourceModule, node: cst.BaseExpression) -> str | None:
    """The cuda.tile name an expression refers to (`ct.load` -> `load`), else None."""
    name = dotted_name(node)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head in source.tile_aliases and rest:
        return rest
    if head in source.tile_names:
        base = source.tile_names[head]
        return f"{base}.{rest}" if rest else base
    return None


# ---- indexing ------------------------------------------------------------------------------


def _index_statement(source: SourceModule, stmt: cst.CSTNode) -> None:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Import):
                _index_import(source, small)
            elif isinstance(small, cst.ImportFrom):
                _index_import_from(source, small)
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    source.constants[target.value] = small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                if isinstance(small.target, cst.Name):
                    source.constants[small.target.value] = small.value
    elif isinstance(stmt, cst.FunctionDef):
        source.functions[stmt.name.value] = stmt
        options = _kernel_decorator(source, stmt)
        if options is not None:
            source.kernels.append(KernelDef(stmt.name.value, stmt, options))
        else:
            _index_nested_kernels(source, stmt, (stmt.name.value,))
    elif isinstance(stmt, cst.ClassDef):
        _index_nested_kernels(source, stmt, (stmt.name.value,))
    elif isinstance(stmt, cst.If):
        # `if TYPE_CHECKING:` / feature checks at module level: index both arms' imports.
        for inner in stmt.body.body:
            _index_statement(source, inner)


def _index_nested_kernels(source: SourceModule, scope: cst.CSTNode,
                          scopes: tuple[str, ...]) -> None:
    """Kernels defined inside a function or class (test bodies, kernel factories), each
    under its file-unique name (`transpiler.frontend.nested`)."""
    for child in scope.children:
        if isinstance(child, cst.FunctionDef):
            options = _kernel_decorator(source, child)
            if options is not None:
                name = nested_kernel_name(scopes, child.name.value)
                source.kernels.append(KernelDef(name, child, options))
            else:
                _index_nested_kernels(source, child, (*scopes, child.name.value))
        elif isinstance(child, cst.ClassDef):
            _index_nested_kernels(source, child, (*scopes, child.name.value))
        else:
            _index_nested_kernels(source, child, scopes)


def _index_import(source: SourceModule, node: cst.Import) -> None:
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        bound = alias.asname.name.value if alias.asname else name.split(".")[0]
        if name == "cuda.tile" and alias.asname:
            source.tile_aliases.add(bound)
        elif alias.asname is None and name == "cuda.tile":
            source.module_aliases["cuda"] = "cuda"
            source.tile_aliases.add("cuda.tile")
        else:
            source.module_aliases[bound] = name


def _index_import_from(source: SourceModule, node: cst.ImportFrom) -> None:
    module = dotted_name(node.module) if node.module else None
    if module is None or isinstance(node.names, cst.ImportStar):
        return
    if len(node.relative) == 1:
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is not None:
                bound = alias.asname.name.value if alias.asname else name
                source.sibling_imports[bound] = (module, name)
        return
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        bound = alias.asname.name.value if alias.asname else name
        if module == "cuda" and name == "tile":
            source.tile_aliases.add(bound)
        elif module == "cuda.tile" or module.startswith("cuda.tile."):
            source.tile_names[bound] = name
        elif (local := local_module(source.path, module)) is not None:
            # `from kernels.matmul import f`: a module of the user's own folder tree.
            source.sibling_imports[bound] = (local, name)
        else:
            source.module_aliases[bound] = f"{module}.{name}"


def _kernel_decorator(
    source: SourceModule, fn: cst.FunctionDef
) -> dict[str, cst.BaseExpression] | None:
    for deco in fn.decorators:
        expr = deco.decorator
        call_args: list[cst.Arg] = []
        if isinstance(expr, cst.Call):
            call_args = list(expr.args)
            expr = expr.func
        if _resolves_to(source, expr, "kernel"):
            return {a.keyword.value: a.value for a in call_args if a.keyword is not None}
    return None


def _resolves_to(source: SourceModule, node: cst.BaseExpression, tile_name: str) -> bool:
    name = dotted_name(node)
    if name is None:
        return False
    if name.startswith("cuda.tile."):
        return name[len("cuda.tile.") :] == tile_name
    return tile_attr(source, node) == tile_name


# ---- launch sites --------------------------------------------------------------------------


class _LaunchFinder(cst.CSTVisitor):
    def __init__(self, source: SourceModule) -> None:
        self.source = source
        self.function_stack: list[str] = []
        self.scope_stack: list[str] = []  # functions and classes, for nested kernel names
        self.kernel_names = {k.name for k in source.kernels}
        # Kernels defined below module level (their translation names join the scopes'):
        # only those are found through an enclosing scope, never a module-level kernel
        # whose name happens to read like one (`transpose` + `kernel`).
        self.nested_names = {k.name for k in source.kernels if k.node.name.value != k.name}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.function_stack.append(node.name.value)
        self.scope_stack.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.function_stack.pop()
        self.scope_stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope_stack.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope_stack.pop()

    def resolve_kernel(self, name: str | None) -> str | None:
        """A launched name as a kernel of the file: a local `kernel` or `self.kernel` is the
        nested kernel of the innermost enclosing scope that defines one of that name."""
        if name is None or name in self.kernel_names:
            return name
        own = name.split(".")[-1] if name.count(".") == 1 else name
        for depth in range(len(self.scope_stack), 0, -1):
            candidate = nested_kernel_name(self.scope_stack[:depth], own)
            if candidate in self.nested_names:
                return candidate
        return name

    def visit_Call(self, node: cst.Call) -> None:
        if not _resolves_to(self.source, node.func, "launch"):
            return
        positional = [a.value for a in node.args if a.keyword is None and a.star == ""]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        values = dict(zip(("stream", "grid", "kernel", "kernel_args"), positional, strict=False))
        values.update(keywords)
        kernel_node = values.get("kernel")
        kernel = self.resolve_kernel(dotted_name(kernel_node) if kernel_node is not None
                                     else None)
        args_node = values.get("kernel_args")
        args: list[cst.BaseExpression] = []
        if isinstance(args_node, cst.Tuple | cst.List):
            args = [e.value for e in args_node.elements]
        grid = values.get("grid")
        span = self.source.span(node) or Span(1, 0)
        host = self.function_stack[-1] if self.function_stack else None
        if grid is not None:
            self.source.launches.append(LaunchSite(kernel, grid, args, host, span))


def _find_launches(source: SourceModule) -> None:
    """Every `ct.launch(...)` call, in source order, with its host function; a launched
    local name resolves to the nested kernel of the innermost scope that defines it."""
    source.module.visit(_LaunchFinder(source))

