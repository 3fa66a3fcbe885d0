"""The import graph of the product packages: no cycles, no function-local imports, no
imports of another module's private names.

The graph is read from the source (stdlib `ast`), not by importing: an edge is an import
at module level (outside `if TYPE_CHECKING:`), and importing `a.b.c` also runs the
`__init__` of `a` and `a.b`. Packages are compared at the level of subpackages
(`transpiler.model` is its own node, the modules directly in `transpiler/` another).

`ALLOWED_LOCAL` lists the function-local imports that stay, each with its reason.
`KNOWN` lists what still breaks the rules; the tests require the found set to equal it,
so a new violation fails, and so does a fixed one until it is struck from the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("transpiler", "rust_emit", "specialization", "llm_fallback")

IMPORT_COST = "keeps the IR check (lark, its grammar) out of a plain translation's start-up"
ALLOWED_LOCAL: dict[tuple[str, str], str] = {
    ("transpiler.cli", "transpiler.verify_cmd"): IMPORT_COST,
    ("transpiler.cli", "transpiler.emit_launcher"): "the launcher generator loads only "
                                                    "for `--emit`",
    ("transpiler.cli", "transpiler.ircheck.check"): IMPORT_COST,
    ("llm_fallback.verify", "transpiler.ircheck.generated"): IMPORT_COST,
    ("llm_fallback.verify", "transpiler.ircheck.check"): IMPORT_COST,
    ("llm_fallback.verify", "transpiler.frontend.cutile_py"): IMPORT_COST,
    ("transpiler.ircheck.reference", "cuda.tile.compilation"): "cuda-tile is the optional "
                                                               "`verify` dependency",
    ("transpiler.ircheck.reference", "cuda.tile"): "cuda-tile is the optional `verify` "
                                                   "dependency",
    ("llm_fallback.client", "anthropic"): "the Anthropic client is the optional `llm` "
                                          "dependency",
    # The wrapper's runtime (copied into generated wrappers, not run by the product):
    ("transpiler.hostglue.pyruntime", "torch"): "the wrapper reads torch's dtypes on its "
                                                "first launch, not when it is imported",
    ("transpiler.hostglue.pyruntime", "importlib"): "cuda.tile is loaded only for a host "
                                                    "name the runtime does not provide",
    ("transpiler.hostglue.triton_pyruntime", "torch"): "the Triton wrapper finds the caller's "
        "stream and times autotune configs with torch at launch; it imports without torch",
    ("transpiler.cli", "transpiler.numeric_check.translation"): "the Tile IR interpreter "
        "(numpy, ml_dtypes) loads only for `--verify`, never for a plain translation",
    ("transpiler.parallel_verify", "transpiler.numeric_check.inputs"): "the numeric "
        "check (numpy, ml_dtypes) loads only for `--numeric`",
    ("transpiler.parallel_verify", "transpiler.numeric_check.run"): "the numeric check "
        "(numpy, ml_dtypes) loads only for `--numeric`",
    ("transpiler.parallel_verify", "transpiler.numeric_check.translation"): "the Triton "
        "proof (numpy, Triton's interpreter) loads only for a Triton file",
    ("transpiler.verify_cmd", "transpiler.numeric_check.inputs"): "the numeric check "
        "(numpy, ml_dtypes) loads only for `verify --numeric`",
    ("transpiler.verify_cmd", "transpiler.numeric_check.run"): "the numeric check "
        "(numpy, ml_dtypes) loads only for `verify --numeric`",
    ("transpiler.verify_cmd", "transpiler.numeric_check.triton_proof"): "the Triton proof "
        "(numpy, ml_dtypes, the Tile IR interpreter) loads only for a Triton source",
}

#: Violations still in the code, each with what has to change.
KNOWN_CYCLES: set[frozenset[str]] = {
    # `transpiler/` holds both the bottom (diagnostics: Span, every package reads it) and
    # the top (cli, driver: they import every package), so each package that reads a
    # Span closes a cycle through it; specialization reads the model and lowering and the
    # driver read specialization; llm_fallback calls the driver and the cli starts it.
    frozenset({"transpiler", "transpiler.model", "transpiler.frontend", "transpiler.lowering",
               "transpiler.ircheck", "transpiler.hostglue", "specialization", "llm_fallback",
               "transpiler.frontend.host", "transpiler.frontend.triton"}),
}
KNOWN_LOCAL: set[tuple[str, str]] = {
    # analysis and the cuTile typing rules import each other; the dialect interface
    # (typing rules handed to the analyzer) removes these.
    ("transpiler.analysis", "transpiler.lowering.typing_rules"),
    # The IR check's own modules and the driver, imported inside check.py's functions and
    # verify_cmd's to dodge the cycle above and lark's import cost; a split of check.py
    # (specializations / running checks) removes these.
    ("transpiler.ircheck.check", "transpiler.driver"),
    ("transpiler.ircheck.check", "transpiler.ircheck.compare"),
    ("transpiler.ircheck.check", "transpiler.ircheck.generated"),
    ("transpiler.ircheck.check", "transpiler.ircheck.parse"),
    ("transpiler.verify_cmd", "transpiler.ircheck.check"),
}
KNOWN_PRIVATE: set[tuple[str, str]] = {
    ("transpiler.verify_cmd", "transpiler.ircheck.check._collect_specs"),
    ("transpiler.analysis", "transpiler.lowering.typing_rules._index_scalars"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The product module that an import of `name` runs (a module, or its package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


class _Imports(ast.NodeVisitor):
    """Every import of one module: (target, imported name or None, function-local?)."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.depth = 0
        self.found: list[tuple[str, str | None, bool]] = []

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.orelse:
                self.visit(stmt)
            return
        self.generic_visit(node)

    def _nested(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _nested

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append((alias.name, None, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")[:len(self.package.split(".")) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        for alias in node.names:
            full = f"{base}.{alias.name}"
            self.found.append((full if full in MODULES else base, alias.name, self.depth > 0))


def _imports() -> dict[str, list[tuple[str, str | None, bool]]]:
    out = {}
    for module, path in MODULES.items():
        visitor = _Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        out[module] = visitor.found
    return out


IMPORTS = _imports()


def _module_edges(parents: bool = True) -> dict[str, set[str]]:
    """Module -> the product modules its module-level imports run (with `parents`, the
    `__init__` of each package on the way too)."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, found in IMPORTS.items():
        for target, _, local in found:
            owner = _owner(target)
            if local or owner is None or owner == module:
                continue
            parts = owner.split(".")
            for i in range(1 if parents else len(parts), len(parts) + 1):
                step = ".".join(parts[:i])
                if step in MODULES and step != module and not module.startswith(step + "."):
                    edges[module].add(step)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(edges.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


def _package_of(module: str) -> str:
    """The subpackage a module belongs to (`transpiler.model.ir` -> `transpiler.model`)."""
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0] or module


def test_no_module_cycle() -> None:
    assert _cycles(_module_edges()) == []


def test_package_cycles_are_the_known_ones() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in _module_edges(parents=False).items():
        source = _package_of(module)
        packages.setdefault(source, set()).update(
            _package_of(t) for t in targets if _package_of(t) != source)
    assert set(_cycles(packages)) == KNOWN_CYCLES


def test_function_local_imports_have_a_reason() -> None:
    found = set()
    for module, imports in IMPORTS.items():
        for target, _, local in imports:
            if local and (module, target) not in ALLOWED_LOCAL:
                found.add((module, target))
    assert found == KNOWN_LOCAL
    assert all(len(reason) > 20 for reason in ALLOWED_LOCAL.values())


def test_no_imports_of_private_names() -> None:
    found = set()
    for module, imports in IMPORTS.items():
        for target, name, _ in imports:
            if name and name.startswith("_") and not name.startswith("__") and _owner(target):
                found.add((module, f"{target}.{name}"))
    assert found == KNOWN_PRIVATE


def test_the_walker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        frozenset({"a", "b", "c"})]
