"""Triton front end, part 1: source text -> `TritonSource` (the file's kernel-relevant syntax).

Takes the text of a Python file; gives the names `triton`, `triton.language` and libdevice
are bound to (whatever they are imported as), the module-level constants (`X = 4`,
`X: tl.constexpr = 4`, `X = tl.constexpr(4)`), every top-level function, which of them are
`@triton.jit` (the kernels and their helpers), and the `@triton.autotune` /
`@triton.heuristics` decorators stacked on each, recorded as syntax (another pass evaluates
configs and launch sites). Nothing in the file is imported or run; every node keeps its
source span.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from transpiler.diagnostics import Span, TranslationError
from transpiler.frontend.cutile_py import check_python_parses, dotted_name, syntax_diagnostic

# Module paths and what they are to the front end.
LANGUAGE_MODULES = ("triton.language", "triton.language.core", "triton.language.math",
                    "triton.language.standard")
LIBDEVICE_MODULES = ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                     "triton.language.math", "triton.language.extra.cuda")


@dataclass
class TritonKernel:
    """One `@triton.jit` function launched from host code (a kernel)."""

    name: str
    node: cst.FunctionDef
    # `@triton.autotune(...)` / `@triton.heuristics(...)` keyword arguments, as syntax.
    autotune: dict[str, cst.BaseExpression] | None = None
    heuristics: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # Keyword options of the `@triton.jit(...)` call (`do_not_specialize`, ...).
    options: dict[str, cst.BaseExpression] = field(default_factory=dict)


@dataclass
class TritonSource:
    path: str
    text: str
    module: cst.Module
    positions: dict[cst.CSTNode, Span]
    # Names bound to the `triton` package, to `triton.language`, and to libdevice.
    triton_names: set[str] = field(default_factory=set)
    language_names: set[str] = field(default_factory=set)
    libdevice_names: set[str] = field(default_factory=set)
    # `from triton.language import arange as ar`: ar -> "arange".
    language_members: dict[str, str] = field(default_factory=dict)
    # `from triton.language.extra.libdevice import tanh as th`: th -> "tanh".
    libdevice_members: dict[str, str] = field(default_factory=dict)
    constants: dict[str, cst.BaseExpression] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    jit_functions: set[str] = field(default_factory=set)
    kernels: list[TritonKernel] = field(default_factory=list)

    def span(self, node: cst.CSTNode) -> Span | None:
        return self.positions.get(node)

    def language_attr(self, node: cst.BaseExpression) -> str | None:
        """The `triton.language` member an expression names (`tl.load` -> `load`,
        `triton.language.math.exp` -> `math.exp`), else None."""
        name = dotted_name(node)
        if name is None:
            return None
        for prefix in sorted(self.language_names, key=len, reverse=True):
            if name.startswith(prefix + "."):
                return name[len(prefix) + 1:]
        for prefix in sorted(self.triton_names, key=len, reverse=True):
            if name.startswith(prefix + ".language."):
                return name[len(prefix) + len(".language."):]
        head, _, rest = name.partition(".")
        if head in self.language_members:
            return self.language_members[head] + (f".{rest}" if rest else "")
        return None

    def libdevice_attr(self, node: cst.BaseExpression) -> str | None:
        """The libdevice function an expression names (`libdevice.erf` -> `erf`)."""
        name = dotted_name(node)
        if name is None:
            return None
        if name in self.libdevice_members:
            return self.libdevice_members[name]
        head, _, rest = name.rpartition(".")
        if head in self.libdevice_names:
            return rest
        member = self.language_attr(node)
        for prefix in ("extra.libdevice.", "extra.cuda.libdevice.", "math."):
            if member is not None and member.startswith(prefix):
                return member[len(prefix):]
        return None

    def triton_attr(self, node: cst.BaseExpression) -> str | None:
        """The `triton` member an expression names (`triton.jit` -> `jit`)."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in self.triton_names and rest:
            return rest
        return None


def detect(text: str) -> bool:
    """Whether the file imports Triton (a cheap textual test before parsing)."""
    return any(line.lstrip().startswith(("import triton", "from triton"))
               for line in text.splitlines())


def parse_source(text: str, path: str) -> TritonSource:
    """Parse and index a Triton file; raises `TranslationError` on a syntax error."""
    check_python_parses(text, path)  # bounds nesting before libcst's native parser
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        raise TranslationError(syntax_diagnostic(text, path, err)) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = {node: Span(pos.start.line, pos.start.column, pos.end.line, pos.end.column)
                 for node, pos in wrapper.resolve(PositionProvider).items()}
    source = TritonSource(path, text, module, positions)
    for stmt in module.body:
        _index_statement(source, stmt)
    _find_kernels(source)
    return source


def _constant_value(source: TritonSource, value: cst.BaseExpression) -> cst.BaseExpression:
    """`X = tl.constexpr(4)`, the form Triton's compiler requires of a global that a kernel
    reads, is the constant 4."""
    if isinstance(value, cst.Call) and len(value.args) == 1 and value.args[0].keyword is None \
            and source.language_attr(value.func) == "constexpr":
        return value.args[0].value
    return value


def _index_small_import(source: TritonSource, small: cst.BaseSmallStatement) -> bool:
    """Index `small` if it is an import; whether it was."""
    if isinstance(small, cst.Import):
        _index_import(source, small)
    elif isinstance(small, cst.ImportFrom):
        _index_import_from(source, small)
    else:
        return False
    return True


def _index_statement(source: TritonSource, stmt: cst.CSTNode) -> None:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if _index_small_import(source, small):
                continue
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
                    small.targets[0].target, cst.Name):
                source.constants[small.targets[0].target.value] = _constant_value(
                    source, small.value)
            elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(
                    small.target, cst.Name):
                source.constants[small.target.value] = _constant_value(source, small.value)
    elif isinstance(stmt, cst.FunctionDef):
        source.functions[stmt.name.value] = stmt
    elif isinstance(stmt, cst.If | cst.Try):
        for inner in stmt.body.body:
            _index_statement(source, inner)
        # The other branches (`else`, `except`) of a guarded import import the same
        # function from another path (`triton.language.extra.cuda.libdevice`, an older
        # `triton.language.math`): their imports are indexed too; their other statements
        # are not, so that one definition of a name stays the one read.
        for block in _other_branches(stmt):
            for inner in block.body:
                _index_imports_only(source, inner)


def _other_branches(stmt: cst.If | cst.Try) -> list[cst.BaseSuite]:
    """The blocks of an `if`'s `elif`/`else` chain, or of a `try`'s handlers and `else`."""
    if isinstance(stmt, cst.If):
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            return [orelse.body, *_other_branches(orelse)]
        return [orelse.body] if orelse is not None else []
    blocks = [handler.body for handler in stmt.handlers]
    return blocks + ([stmt.orelse.body] if stmt.orelse is not None else [])


def _index_imports_only(source: TritonSource, stmt: cst.CSTNode) -> None:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            _index_small_import(source, small)
    elif isinstance(stmt, cst.If | cst.Try):
        for block in [stmt.body, *_other_branches(stmt)]:
            for inner in block.body:
                _index_imports_only(source, inner)


def _bind_module(source: TritonSource, module: str, bound: str) -> None:
    if module == "triton":
        source.triton_names.add(bound)
    elif module in LANGUAGE_MODULES[:1] or module in ("triton.language.core",):
        source.language_names.add(bound)
    if module in LIBDEVICE_MODULES:
        source.libdevice_names.add(bound)


def _index_import(source: TritonSource, node: cst.Import) -> None:
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        if alias.asname is not None:
            _bind_module(source, name, alias.asname.name.value)
        elif name == "triton" or name.startswith("triton."):
            # `import triton.language` binds `triton`, through which the rest is reached.
            source.triton_names.add("triton")


def _index_import_from(source: TritonSource, node: cst.ImportFrom) -> None:
    module = dotted_name(node.module) if node.module else None
    if module is None or isinstance(node.names, cst.ImportStar) or node.relative:
        return
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        bound = alias.asname.name.value if alias.asname else name
        full = f"{module}.{name}"
        if full in ("triton.language", *LIBDEVICE_MODULES) or full == "triton.language.math":
            _bind_module(source, full, bound)
        elif module in LANGUAGE_MODULES[:2]:
            source.language_members[bound] = name
        elif module in LIBDEVICE_MODULES:
            source.libdevice_members[bound] = name
        elif module == "triton" and name == "jit":
            source.language_members.setdefault(bound, "@jit")
        elif module == "triton":
            source.language_members.setdefault(bound, f"@{name}")


def _decorator_name(source: TritonSource, expr: cst.BaseExpression) -> str | None:
    """`jit`, `autotune`, `heuristics` for a decorator naming one, else None."""
    name = source.triton_attr(expr)
    if name is not None:
        return name
    dotted = dotted_name(expr)
    member = source.language_members.get(dotted or "")
    return member[1:] if member and member.startswith("@") else None


def _find_kernels(source: TritonSource) -> None:
    for name, fn in source.functions.items():
        kernel = TritonKernel(name, fn)
        jit = False
        for deco in fn.decorators:
            expr = deco.decorator
            args: list[cst.Arg] = list(expr.args) if isinstance(expr, cst.Call) else []
            what = _decorator_name(source, expr.func if isinstance(expr, cst.Call) else expr)
            keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
            if what == "jit":
                jit = True
                kernel.options = keywords
            elif what == "autotune":
                kernel.autotune = keywords
            elif what == "heuristics" and args:
                kernel.heuristics = _heuristics(args[0].value)
        if jit:
            source.jit_functions.add(name)
            if _is_kernel(source, kernel):
                source.kernels.append(kernel)


def _heuristics(node: cst.BaseExpression) -> dict[str, cst.BaseExpression]:
    if not isinstance(node, cst.Dict):
        return {}
    out: dict[str, cst.BaseExpression] = {}
    for element in node.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
            key = element.key.evaluated_value
            if isinstance(key, str):
                out[key] = element.value
    return out


def _is_kernel(source: TritonSource, kernel: TritonKernel) -> bool:
    """A jit function is a kernel unless another jit function calls it or passes it (the
    combine function of `tl.reduce` / `tl.associative_scan`) and nothing launches it
    (`f[grid](...)`); a helper is inlined where it is called."""
    launched = _LaunchedNames()
    source.module.visit(launched)
    if kernel.name in launched.names or kernel.autotune is not None or kernel.heuristics:
        return True
    called = _CalledNames()
    for other in source.jit_functions | _jit_names(source):
        if other != kernel.name and other in source.functions:
            source.functions[other].visit(called)
    return kernel.name not in called.names


def _jit_names(source: TritonSource) -> set[str]:
    names: set[str] = set()
    for name, fn in source.functions.items():
        for deco in fn.decorators:
            expr = deco.decorator.func if isinstance(deco.decorator, cst.Call) else deco.decorator
            if _decorator_name(source, expr) == "jit":
                names.add(name)
    return names


class _LaunchedNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name):
            self.names.add(node.func.value.value)


class _CalledNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.names.add(node.func.value)
        # A function passed by name (`tl.associative_scan(x, 0, combine)`).
        self.names.update(a.value.value for a in node.args if isinstance(a.value, cst.Name))
