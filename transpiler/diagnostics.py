"""Diagnostics: what the translator says about a source position, rendered like rustc.

Takes source positions and messages from every pass; gives `Diagnostic` records, the
`TranslationError` exception that carries them out of a pass, the `UnhandledConstruct`
record that the LLM fallback consumes, and `render()` for the `file:line:col: error[CODE]`
form with the source line and a caret.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


# Every diagnostic code the translator emits, with a one-line meaning. Codes are stable:
# tests, `--json` consumers and the LLM fallback key on them.
CODES: dict[str, str] = {
    "E0001": "the file is not valid Python (syntax error)",
    "E0002": "the file is not UTF-8 text",
    "E0003": "the file defines no kernel",
    "E0004": "the file is too large to translate",
    "E0100": "a cuda.tile function the translator does not know",
    "E0101": "a cuda.tile function known but not lowered by the deterministic passes",
    "E0102": "wrong number or kind of arguments to a cuda.tile function",
    "E0103": "a compile-time constant is required here",
    "E0104": "a Python construct not allowed in a kernel (try, lambda, ...)",
    "E0105": "a call to a function that is not defined",
    "E0106": "recursion between kernel helpers",
    "E0107": "a value of a kind that cannot be used here",
    "E0108": "shapes or element types do not agree",
    "E0109": "a name that is not defined",
    "E0110": "a construct cuTile Rust cannot express",
    "E0111": "a keyword argument or mode value that is not supported",
    "E0200": "specialization needs a value the source does not give",
    "W0001": "a construct translated with a documented difference",
    "E9000": "an internal error of the translator (a bug)",
}


@dataclass(frozen=True)
class Span:
    """A source position: 1-based line, 0-based column (as Python's ast reports them)."""

    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None


@dataclass
class Diagnostic:
    code: str
    message: str
    path: str
    span: Span | None
    severity: Severity = Severity.ERROR
    notes: list[str] = field(default_factory=list)
    kernel: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.span.line if self.span else None,
            "col": self.span.col + 1 if self.span else None,
            "notes": list(self.notes),
            "kernel": self.kernel,
        }


@dataclass(frozen=True)
class UnhandledConstruct:
    """A construct the deterministic passes could not lower, for the LLM fallback.

    `construct` names the kind (e.g. `call:ct.atan2`, `stmt:while`); `context` holds what
    the pass knew: the types of the values it touches, keyed by their Python names.
    """

    kernel: str
    construct: str
    code: str
    message: str
    span: Span | None
    source_text: str
    context: dict[str, str] = field(default_factory=dict)


class TranslationError(Exception):
    """Raised by a pass that cannot go on; carries the diagnostic and, if any, the record."""

    def __init__(self, diagnostic: Diagnostic, unhandled: UnhandledConstruct | None = None):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.unhandled = unhandled


def render(diag: Diagnostic, source: str | None, source_path: str | None = None) -> str:
    """`path:line:col: error[CODE]: message`, then the source line with a caret under it.

    `source` is the text of `source_path`; a diagnostic in another file (a helper imported
    from a sibling module) reads its line from that file."""
    if source_path is not None and diag.path != source_path:
        try:
            source = Path(diag.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            source = None
    head = f"{diag.severity.value}[{diag.code}]: {diag.message}"
    if diag.span is None:
        out = [f"{diag.path}: {head}"]
    else:
        out = [f"{diag.path}:{diag.span.line}:{diag.span.col + 1}: {head}"]
        line_text = _source_line(source, diag.span.line)
        if line_text is not None:
            gutter = " " * len(str(diag.span.line))
            width = _caret_width(diag.span, line_text)
            out.append(f"{gutter} |")
            out.append(f"{diag.span.line} | {line_text}")
            out.append(f"{gutter} | {' ' * diag.span.col}{'^' * width}")
    for note in diag.notes:
        out.append(f"  = note: {note}")
    return "\n".join(out)


def _source_line(source: str | None, line: int) -> str | None:
    if source is None:
        return None
    lines = source.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1].expandtabs(4)
    return None


def _caret_width(span: Span, line_text: str) -> int:
    if span.end_line == span.line and span.end_col is not None and span.end_col > span.col:
        return span.end_col - span.col
    rest = line_text[span.col :]
    token = rest.split(" ", 1)[0] if rest else ""
    return max(1, len(token))
