"""Diagnostics: what the translator says about a source position, rendered like rustc.

Takes source positions and messages from every pass; gives `Diagnostic` records (codes and
their `--explain` texts in `CODES` / `EXPLANATIONS`), the
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
    "E0120": "a Triton construct cuTile Rust 0.5.0 cannot express (inline assembly, block "
             "pointers, a libdevice function the crate lacks, an atomic mode it has not)",
    "E0121": "a Triton function or form known but not translated by the deterministic passes",
    "E0122": "a `triton.language` or libdevice name the translator does not know",
    "E0123": "a Triton parameter whose kind the source does not decide (a string, float or "
             "dtype `tl.constexpr`, a heuristic for a name that is not a parameter)",
    "E0200": "specialization needs a value the source does not give",
    "W0001": "a construct translated with a documented difference",
    "E9000": "an internal error of the translator (a bug)",
}

# `--explain CODE`: what each code means, why the translator stops there, and what the kernel
# author can do about it (rustc's convention). One entry per code of `CODES`.
EXPLANATIONS: dict[str, str] = {
    "E0001": """The file does not parse as Python 3. The position points at the first token the
parser could not accept. Fix the syntax (run `python -m py_compile FILE`); the translator
reads the file as text and never imports it, so the error is in the file itself.""",
    "E0002": """The file is not UTF-8 text: it holds a byte sequence that is not UTF-8 (a
latin-1 or UTF-16 file, a binary) or a NUL byte. Python source is UTF-8; re-save the file as
UTF-8 (a leading UTF-8 byte-order mark is accepted).""",
    "E0003": """No function decorated with `@ct.kernel` (cuTile Python, `import cuda.tile as
ct`) was found, so there is nothing to translate. Check the decorator and the import: the
translator recognizes `cuda.tile` through the file's import of it.""",
    "E0004": """The file is larger than the translator's input limit. Kernel files are small;
split a very large file into one module per group of kernels (helpers can be imported from a
sibling module: `from .common import f`).""",
    "E0100": """The kernel calls a `cuda.tile` function the translator does not know (it is not
in cuTile Python's API as the translator's table records it). Check the spelling against the
cuTile Python documentation; if it is a newer API, it has no mapping to cuTile Rust yet.""",
    "E0101": """The function or operator is part of cuTile Python, but the deterministic passes
do not lower it to cuTile Rust yet. Write it with supported operations (the message names the
construct), or let the LLM fallback propose a checked fragment (`ANTHROPIC_API_KEY`, see the
README); a fragment is kept only if it compiles and passes the IR check.""",
    "E0102": """A `cuda.tile` function got the wrong number of arguments, an unknown keyword,
or an argument of the wrong kind (a tile where a shape tuple is expected). cuTile Python would
reject the same call when it compiles the kernel; fix the call as the message says.""",
    "E0103": """This position needs a value known when the kernel is compiled: a literal, a
`ct.Constant` parameter, or arithmetic on them (tile shapes, axis numbers, loop steps that
become generics). Pass the value as a `ct.Constant[int]` parameter or write it as a literal.""",
    "E0104": """The statement or expression is not allowed in a kernel (`while`, `try`,
`lambda`, comprehensions, `global`, ...): cuTile Python's kernel language does not accept it.
Rewrite it with `for ... in range(...)`, `if`, and tile operations.""",
    "E0105": """The kernel calls a function that is neither a `cuda.tile` function, a helper
defined in the file, nor a helper imported from a sibling module (`from .common import f`).
Define or import the helper; the translator inlines helpers and never imports the file.""",
    "E0106": """A helper calls itself, directly or through other helpers, or helper calls nest
deeper than the translator inlines. Kernels inline every call, so recursion cannot be
compiled; write the recursion as a loop.""",
    "E0107": """A value of the wrong kind is used here: for example a tile where a scalar is
needed, an array indexed like a Python list, a subscript the kernel language has no meaning
for. The message says which kind was expected.""",
    "E0108": """The shapes or element types of the operands do not agree: tiles of different
shapes that do not broadcast, a store whose tile shape is not the view's, or operands of an
operation whose element types cuTile Python would not unify. Add the `ct.astype`,
`ct.reshape` or `ct.broadcast_to` that makes them agree.""",
    "E0109": """A name is used that is not defined in the kernel, its helpers, the module's
constants, or its imports (for example `np.inf` when `numpy` is not imported, or a host
variable). Kernels see only their parameters, local names and module-level constants.""",
    "E0110": """The construct is valid cuTile Python, but cuTile Rust (crate `cutile` 0.5.0)
cannot express it: a runtime value used where Rust needs a type-level constant, an operation
the Rust API lacks. The message names it; the translation writes nothing rather than Rust that
would compute something else.""",
    "E0111": """A keyword argument or mode value (a padding mode, memory order, rounding mode,
`order=` permutation) is not supported, or not supported with the other arguments given. The
message lists the accepted values.""",
    "E0120": """The Triton construct is valid Triton, but cuTile Rust (crate `cutile` 0.5.0)
cannot express it: inline assembly, block pointers (`tl.make_block_ptr`), a libdevice function
the crate has no counterpart for, an atomic mode it lacks. The translation writes nothing
rather than Rust that would compute something else; `bench/results/gaps.md` gives the crate's
evidence where one is known.""",
    "E0121": """The Triton function or form is known, and cuTile Rust could express it, but the
deterministic passes do not translate it yet (the message names it). Rewrite the kernel
around it, or let the LLM fallback try it where the analysis can type the construct.""",
    "E0122": """The name is not a `triton.language` (or libdevice) function or value the
translator knows: a misspelling, or an API of another Triton version. The translator reads
the file as text, so only names it knows as Triton's are resolved.""",
    "E0123": """Triton decides this parameter's kind at launch from the value passed (a string,
float or dtype `tl.constexpr`, or a heuristic for a name that is no parameter), and the
source alone does not say which. cuTile Rust needs it fixed per entry; give the constexpr an
int or bool value, or launch the kernel with the values you use.""",
    "E0200": """Translating the kernel needs a value its source does not give: a constant that
changes a type or a branch, whose launches the translator cannot read, or more variants
(element types times constant values) than it generates. Launch the kernel with literal or
module-level constants, or pass `--spec FILE` with the specializations you use.""",
    "W0001": """The construct was translated, with a difference from cuTile Python the
translator documents (the note says which). The IR check relates the two with a named rule;
see `--explain RULE`.""",
    "E9000": """An internal error: a bug in the translator, not in your kernel. Nothing was
written. Please report it with the input file (the message names the exception).""",
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
