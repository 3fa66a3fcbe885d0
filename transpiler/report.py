"""`--report FILE.html`: one self-contained page per batch (no network, no script).

Takes, per input file, its source, its translation result and, with `--verify`, each
specialization's outcome and both Tile IR texts; gives HTML: per file the diagnostics with
their source lines, then per kernel the Python source, the Rust, and each specialization's
verdict with the two Tile IRs side by side, the lines of the differences marked red and the
ops that accepted notes are about marked amber, the notes themselves in words.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from transpiler import __version__
from transpiler.diagnostics import render
from transpiler.driver import TranslationResult
from transpiler.ircheck.check import CheckOutcome

VERDICT_CLASS = {"PASS": "pass", "PASS_WITH_NOTES": "notes", "FAIL": "fail", "ERROR": "error"}
# `constant x3`, `div_by<16> x9`: what a rule accepted, as `_counts` in compare.py writes it.
_COUNTED = re.compile(r"([A-Za-z_][\w<>.]*) x\d+")
_OP_AT = re.compile(r"^\s*(?:%[\w#:]+(?:, %[\w#:]+)* = )?([a-z_][\w.]*)")

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{background:#1f2937;color:#fff;padding:12px 20px}
header h1{margin:0;font-size:20px} header p{margin:4px 0 0;color:#cbd5e1}
main{padding:12px 20px}
section.file{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:0 0 16px;
padding:8px 16px}
h2{font-size:17px;margin:8px 0} h3{font-size:15px;margin:12px 0 6px}
pre{background:#f6f8fa;border:1px solid #e1e4e8;border-radius:4px;padding:6px;margin:4px 0;
overflow:auto;font:12px/1.35 ui-monospace,monospace;max-height:420px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.cols>div{min-width:0}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-weight:600;font-size:12px;
color:#fff}
.pass{background:#1a7f37} .notes{background:#2f81f7} .fail{background:#cf222e}
.error{background:#9a6700} .translated{background:#1a7f37} .failed{background:#cf222e}
pre .ln{display:block;white-space:pre} pre .diff{background:#ffd7d5}
pre .noted{background:#fff1c2}
ul.notes li{margin:2px 0} ul.diffs li{margin:2px 0;color:#82071e}
table.summary{border-collapse:collapse;margin:6px 0}
table.summary td,table.summary th{border:1px solid #d0d7de;padding:2px 8px;text-align:left}
.diag{border-left:4px solid #cf222e}
"""


@dataclass
class FileReport:
    path: str
    source: str
    result: TranslationResult | None
    outcomes: list[CheckOutcome] = field(default_factory=list)
    irs: list[tuple[str, str] | None] = field(default_factory=list)  # per outcome


def report_files(sources: list[tuple[str, bytes]], results: list[TranslationResult],
                 checks: dict[str, tuple[list[CheckOutcome], list[tuple[str, str] | None]]]
                 ) -> list[FileReport]:
    """One `FileReport` per input, in input order."""
    out: list[FileReport] = []
    for (path, data), result in zip(sources, results, strict=True):
        outcomes, irs = checks.get(path, ([], []))
        out.append(FileReport(path, data.decode("utf-8", errors="replace"), result,
                              outcomes, irs))
    return out


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _pre(text: str, marks: dict[int, str] | None = None) -> str:
    marks = marks or {}
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        body = _esc(line) or " "
        cls = marks.get(number)
        # One block per line (no newlines between them), so a marked line is one band.
        lines.append(f'<span class="ln {cls}">{body}</span>' if cls
                     else f'<span class="ln">{body}</span>')
    return "<pre>" + "".join(lines) + "</pre>"


def _kernel_source(source: str, kernel: str) -> str:
    """The lines of `def kernel` with its decorators (the whole file if not found)."""
    lines = source.splitlines()
    header = next((i for i, line in enumerate(lines)
                   if re.match(rf"\s*def {re.escape(kernel)}\s*\(", line)), None)
    if header is None:
        return source
    start = header
    while start > 0 and lines[start - 1].lstrip().startswith("@"):
        start -= 1
    end = header + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t#"):
        end += 1
    return "\n".join(lines[start:end]).rstrip()


def _rust_entries(rust: str, kernel: str) -> str:
    """The Rust functions translating `kernel` (its entry and per-dtype variants)."""
    chunks = re.split(r"(?m)^(?=    (?:#\[|///|// transpiler-manifest))", rust)
    picked = [c for c in chunks if re.search(rf"\bfn {re.escape(kernel)}\w*\s*[<(]", c)]
    return "".join(picked).rstrip() if picked else rust


def _ir_marks(ir: str, texts: list[str], noted_ops: set[str]) -> dict[int, str]:
    marks: dict[int, str] = {}
    # Op texts as the comparison reports them: spacing may differ from the printed line.
    wanted = [" ".join(t.split()) for t in texts if t and t.strip()]
    for number, line in enumerate(ir.splitlines(), start=1):
        code = " ".join(line.split(" loc(", 1)[0].split())
        if code and any(w == code or w in code for w in wanted):
            marks[number] = "diff"
            continue
        op = _OP_AT.match(line)
        if op and op.group(1) in noted_ops:
            marks[number] = "noted"
    return marks


def _noted_ops(outcome: CheckOutcome) -> set[str]:
    return {m.group(1).split("<", 1)[0] for note in outcome.notes
            for m in _COUNTED.finditer(note)}


def _outcome_html(outcome: CheckOutcome, ir: tuple[str, str] | None) -> str:
    verdict = outcome.verdict
    if getattr(outcome, "spec", None) is None:  # an entry no specialization reached
        return (f'<h3><span class="badge error">{verdict}</span> '
                f"{_esc(outcome.line().removeprefix(verdict).strip())}</h3>")
    parts = [f'<h3><span class="badge {VERDICT_CLASS.get(verdict, "error")}">{verdict}</span> '
             f"{_esc(outcome.spec.label())}</h3>"]
    if outcome.error:
        parts.append(f"<pre>{_esc(outcome.error)}</pre>")
    if outcome.differences:
        items = "".join(f"<li>[{_esc(d['kind'])}] {_esc(d['message'])}</li>"
                        for d in outcome.differences)
        parts.append(f'<ul class="diffs">{items}</ul>')
    if outcome.notes:
        items = "".join(f"<li>{_esc(n)}</li>" for n in outcome.notes)
        parts.append(f'<details><summary>{len(outcome.notes)} accepted notes '
                     f'(<code>--explain RULE</code>)</summary><ul class="notes">{items}</ul>'
                     "</details>")
    if ir is not None:
        reference, generated = ir
        noted = _noted_ops(outcome)
        ref_marks = _ir_marks(reference, [d.get("reference") or "" for d in
                                          outcome.differences], noted)
        gen_marks = _ir_marks(generated, [d.get("generated") or "" for d in
                                          outcome.differences], noted)
        parts.append('<div class="cols"><div><b>cuTile Python Tile IR</b>'
                     f"{_pre(reference, ref_marks)}</div><div><b>cuTile Rust Tile IR</b>"
                     f"{_pre(generated, gen_marks)}</div></div>")
    return "\n".join(parts)


def _file_html(report: FileReport) -> str:
    result = report.result
    parts = [f'<section class="file"><h2>{_esc(report.path)}</h2>']
    diagnostics = result.all_diagnostics() if result is not None else []
    if diagnostics:
        parts.append("<h3>Diagnostics</h3>")
        for diag in diagnostics:
            parts.append(f'<pre class="diag">{_esc(render(diag, report.source, report.path))}'
                         "</pre>")
    kernels = result.kernels if result is not None else []
    if kernels:
        rows = "".join(
            f"<tr><td>{_esc(k.name)}</td><td><span class=\"badge {_esc(k.status)}\">"
            f"{_esc(k.status)}</span></td><td>{_verdict_counts(report, k.name)}</td></tr>"
            for k in kernels)
        parts.append('<table class="summary"><tr><th>kernel</th><th>translation</th>'
                     f"<th>IR check</th></tr>{rows}</table>")
    irs = report.irs or [None] * len(report.outcomes)
    outcome_ir = list(zip(report.outcomes, irs, strict=True))
    for kernel in kernels:
        parts.append(f"<h3>kernel <code>{_esc(kernel.name)}</code></h3>")
        parts.append('<div class="cols"><div><b>Python</b>'
                     f"{_pre(_kernel_source(report.source, kernel.name))}</div>")
        rust = result.rust if result is not None and result.rust else ""
        parts.append("<div><b>Rust</b>"
                     f"{_pre(_rust_entries(rust, kernel.name)) if rust else '<p>none</p>'}"
                     "</div></div>")
        for outcome, ir in outcome_ir:
            if outcome.kernel == kernel.name:
                parts.append(_outcome_html(outcome, ir))
    parts.append("</section>")
    return "\n".join(parts)


def _verdict_counts(report: FileReport, kernel: str) -> str:
    counts: dict[str, int] = {}
    for outcome in report.outcomes:
        if outcome.kernel == kernel:
            counts[outcome.verdict] = counts.get(outcome.verdict, 0) + 1
    if not counts:
        return "not run"
    return " ".join(f'<span class="badge {VERDICT_CLASS.get(v, "error")}">{v} {n}</span>'
                    for v, n in sorted(counts.items()))


def render_report(files: list[FileReport]) -> str:
    kernels = sum(len(f.result.kernels) for f in files if f.result is not None)
    checks = sum(len(f.outcomes) for f in files)
    body = "\n".join(_file_html(f) for f in files)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>transpiler report</title><style>{STYLE}</style></head><body>"
            f"<header><h1>transpiler report</h1><p>transpiler {__version__}: {len(files)} "
            f"files, {kernels} kernels, {checks} IR checks</p></header>"
            f"<main>{body}</main></body></html>\n")
