"""Holes and what a request needs to know about one: the construct, its types, its Rust.

Takes typed kernel models (through the driver's hole hook), the Python source and the Rust
that the pipeline printed around the holes; gives `Hole` records (one per construct left to
the model, with the live `hole` node whose attributes the lowering fills in: the Rust names
and types of its operands and of its result) and the pieces of a prompt: the Python lines
around the construct (comments and docstrings removed, so text in them never reaches the
model as prose), the types of the values it touches, and the kernel's Rust with the hole
marked (`__HOLE_<id>__`).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

from transpiler.diagnostics import Diagnostic, UnhandledConstruct
from transpiler.model import KernelModel, TAssign, TEffect, TExpr, TFor, TIf, TStmt, TWhile

PY_BEFORE = 8
PY_AFTER = 4
RUST_MAX_LINES = 90
RUST_WINDOW = 35


@dataclass(frozen=True)
class Fill:
    """An accepted (or candidate) fragment for a hole, with its provenance comment."""

    code: str
    provenance: str


@dataclass
class Hole:
    kernel: str
    id: int
    construct: str
    params: list[str]
    unhandled: UnhandledConstruct
    diagnostic: Diagnostic
    node: TExpr

    @property
    def key(self) -> tuple[str, int]:
        return (self.kernel, self.id)

    @property
    def line(self) -> int | None:
        return self.unhandled.span.line if self.unhandled.span else None

    @property
    def inputs(self) -> list[tuple[str, str]]:
        return list(self.node.attrs.get("inputs", []))

    @property
    def rust_type(self) -> str:
        return str(self.node.attrs.get("rust_type") or "_")

    @property
    def marker(self) -> str:
        return f"__HOLE_{self.id}__"

    @property
    def kind(self) -> str:
        """`expression`, `statements` (a region of statements) or `function` (a helper)."""
        return str(self.node.attrs.get("kind", "expression"))

    @property
    def outputs(self) -> list[tuple[str, str]]:
        """A region's outputs: Rust name and type of each `let mut` it must assign."""
        return list(self.node.attrs.get("outputs_rust", []))

    @property
    def signature(self) -> str | None:
        """A helper hole's required signature (`fn NAME<...>(...) -> R`)."""
        value = self.node.attrs.get("signature")
        return str(value) if value else None

    @property
    def constants(self) -> list[tuple[str, str]]:
        """A region's compile-time inputs: Python name and Rust form."""
        return list(self.node.attrs.get("constants", []))

    def label(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{self.kernel}: {self.construct}{where}"


@dataclass
class HoleCollector:
    """The driver's hole hook: records every hole and stamps the fills it is given.

    A kernel translated once per element type (dtype variants) has the same holes in each
    variant: they share one key, one request and one fill; `holes` keeps the first.
    """

    fills: dict[tuple[str, int], Fill] = field(default_factory=dict)
    holes: list[Hole] = field(default_factory=list)

    def __call__(self, model: KernelModel) -> None:
        seen = {h.key for h in self.holes}
        for node in _hole_nodes(model.body):
            unhandled = node.attrs["unhandled"]
            hole = Hole(model.name, int(node.attrs["id"]), str(node.attrs["construct"]),
                        list(node.attrs.get("params", [])), unhandled,
                        node.attrs["diagnostic"], node)
            fill = self.fills.get(hole.key)
            if fill is not None:
                node.attrs["fragment"] = fill.code
                node.attrs["provenance"] = fill.provenance
            if hole.key not in seen:
                seen.add(hole.key)
                self.holes.append(hole)


def _hole_nodes(stmts: list[TStmt]) -> Iterator[TExpr]:
    for stmt in stmts:
        if isinstance(stmt, TAssign | TEffect):
            yield from _expr_holes(stmt.value)
        elif isinstance(stmt, TFor):
            for expr in (stmt.start, stmt.stop, stmt.step):
                yield from _expr_holes(expr)
            yield from _hole_nodes(stmt.body)
        elif isinstance(stmt, TWhile):
            if stmt.cond is not None:
                yield from _expr_holes(stmt.cond)
            yield from _hole_nodes(stmt.body)
        elif isinstance(stmt, TIf):
            yield from _expr_holes(stmt.cond)
            yield from _hole_nodes(stmt.then)
            yield from _hole_nodes(stmt.orelse)


def _expr_holes(expr: TExpr) -> Iterator[TExpr]:
    for arg in expr.args:
        yield from _expr_holes(arg)
    if expr.op == "hole":
        yield expr


# ---- Python side ---------------------------------------------------------------------------


def strip_python_comments(source: str) -> str:
    """The source with comments removed and docstrings replaced by `"..."` (lines kept)."""
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return "\n".join(line.split("#", 1)[0].rstrip() for line in lines)
    edits: list[tuple[int, int, int, int, str]] = []
    previous = tokenize.NEWLINE
    for index, tok in enumerate(tokens):
        if tok.type == tokenize.COMMENT:
            edits.append((*tok.start, *tok.end, ""))
        elif tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT,
                                                          tokenize.DEDENT, tokenize.NL):
            following = tokens[index + 1].type if index + 1 < len(tokens) else None
            if following in (tokenize.NEWLINE, tokenize.ENDMARKER):
                edits.append((*tok.start, *tok.end, '"..."'))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok.type
    for start_line, start_col, end_line, end_col, text in reversed(edits):
        head = lines[start_line - 1][:start_col]
        tail = lines[end_line - 1][end_col:]
        lines[start_line - 1:end_line] = [head + text + tail] + [""] * (end_line - start_line)
    return "\n".join(line.rstrip() for line in lines)


def python_snippet(source: str, hole: Hole) -> str:
    """Numbered Python lines around the construct (to the end of a region's statement),
    its line marked."""
    line = hole.line or 1
    end = int(hole.node.attrs.get("end_line") or line)  # type: ignore[call-overload]
    return python_lines(source, line - PY_BEFORE, max(line, end) + PY_AFTER, line, hole.marker)


def python_lines(source: str, start: int, end: int, marked: int | None, marker: str) -> str:
    """Numbered Python lines `start..end` (comments removed), line `marked` marked."""
    lines = strip_python_comments(source).splitlines()
    out: list[str] = []
    for number in range(max(1, start), min(len(lines), end) + 1):
        mark = f"  # <- {marker}" if number == marked else ""
        out.append(f"{number:>4} | {lines[number - 1]}{mark}")
    return "\n".join(out)


def touched_values(hole: Hole) -> list[str]:
    """`name: type` for every Python name the construct's text mentions."""
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", hole.unhandled.source_text))
    return [f"{name}: {desc}" for name, desc in sorted(hole.unhandled.context.items())
            if name in names]


# ---- Rust side -----------------------------------------------------------------------------


def kernel_rust(rust: str, kernel: str, marker: str) -> str:
    """The kernel's `#[cutile::entry]` function from the printed file, comments dropped
    (except the hole markers), windowed around `marker` when long."""
    lines = rust.splitlines()
    start = _fn_start(lines, kernel)
    if start is None:
        return ""
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(" " * indent + "}") and
                len(lines[i]) - len(lines[i].lstrip()) == indent), len(lines) - 1)
    head = start
    while head > 0 and lines[head - 1].strip().startswith("#["):
        head -= 1
    body = [line[indent:] for line in lines[head:end + 1]
            if not _is_comment(line) or "HOLE" in line]
    return "\n".join(_window(body, marker))


def _fn_start(lines: list[str], kernel: str) -> int | None:
    pattern = re.compile(rf"^\s*(?:pub\s+)?(?:unsafe\s+)?fn\s+{re.escape(kernel)}\b")
    return next((i for i, line in enumerate(lines) if pattern.match(line)), None)


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("//")


def _window(lines: list[str], marker: str) -> list[str]:
    if len(lines) <= RUST_MAX_LINES:
        return lines
    at = next((i for i, line in enumerate(lines) if marker in line), len(lines) // 2)
    start, end = max(0, at - RUST_WINDOW), min(len(lines), at + RUST_WINDOW + 1)
    gap = ["    // ... (lines omitted)"]
    out = lines[:4] + (gap if start > 4 else []) + lines[max(4, start):end]
    if end < len(lines):
        out += [*gap, lines[-1]]
    return out
