"""The fallback loop: unhandled constructs -> model fragments -> compile check -> IR check.

Takes a file's bytes, its display path and the deterministic pipeline's failed result;
gives a new `TranslationResult`: translated, with every fragment marked by a provenance
comment, when each hole's fragment parsed, the file compiled and each kernel with a hole
passed the IR check on all its specializations; otherwise the first result, unchanged but
for a note on the diagnostics (nothing is written then). Also keeps the report of every
request (tokens, cache hits, outcome) per construct, kernel and file.

The loop, per file: translate again with holes allowed (`HoleCollector`); ask the model for
each hole, one construct per request, re-asking with the rejection as feedback until a
fragment passes `fragment.accept` (each request counts against `attempts`); splice all and
compile; blame compiler errors on the hole whose lines they point at and re-ask that hole;
then the IR check, blamed the same way (by the Rust lines in the differences, else every hole
of the failing kernel). A hole out of attempts ends the file's fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_fallback import cutile_api, examples, prompt
from llm_fallback.cache import ResponseCache, redact
from llm_fallback.client import (
    DEFAULT_MODEL,
    LlmRequestError,
    LlmUnavailable,
    ModelClient,
)
from llm_fallback.context import Fill, Hole, HoleCollector
from llm_fallback.fragment import FragmentRejected, accept
from llm_fallback.verify import HarnessVerifier, IrResult, Problem, Verifier
from transpiler.diagnostics import Diagnostic, UnhandledConstruct
from transpiler.driver import TranslationResult, translate_bytes
from transpiler.region_holes import NOT_TRIED

DEFAULT_ATTEMPTS = 3
# E0100 (no such cuda.tile function) cannot pass: cuTile Python cannot compile it either.
INELIGIBLE_CODES = ("E0100",)
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
_SAFE_TEXT = re.compile(r"[^\x20-\x7e]")


@dataclass
class FallbackOptions:
    model: str = DEFAULT_MODEL
    attempts: int = DEFAULT_ATTEMPTS
    cache_dir: Path | None = None
    spec_files: list[str] = field(default_factory=list)
    examples_dir: Path | None = GOLDEN
    sdk: Any = None  # an `anthropic.Anthropic` (tests); None: built from ANTHROPIC_API_KEY
    verifier: Verifier | None = None
    timeout_s: float = 120.0
    max_retries: int = 2


@dataclass
class Attempt:
    number: int
    input_tokens: int
    output_tokens: int
    cached: bool
    outcome: str = "asked"

    def to_json(self) -> dict[str, Any]:
        return {"attempt": self.number, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "cached": self.cached,
                "outcome": self.outcome}


@dataclass
class ConstructReport:
    kernel: str
    hole: int
    construct: str
    line: int | None
    model: str
    kind: str = "expression"
    status: str = "pending"  # accepted | failed | pending
    fragment: str | None = None
    verdict: str | None = None
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(a.input_tokens for a in self.attempts)

    @property
    def output_tokens(self) -> int:
        return sum(a.output_tokens for a in self.attempts)

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "hole": self.hole, "construct": self.construct,
                "kind": self.kind, "line": self.line, "model": self.model, "status": self.status,
                "fragment": self.fragment, "ir_verdict": self.verdict,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "attempts": [a.to_json() for a in self.attempts]}


@dataclass
class FileReport:
    path: str
    constructs: list[ConstructReport] = field(default_factory=list)
    note: str | None = None

    def totals(self) -> dict[str, int]:
        attempts = [a for c in self.constructs for a in c.attempts]
        return {"input_tokens": sum(a.input_tokens for a in attempts),
                "output_tokens": sum(a.output_tokens for a in attempts),
                "requests": len(attempts), "cache_hits": sum(a.cached for a in attempts)}

    def to_json(self) -> dict[str, Any]:
        kernels: dict[str, dict[str, int]] = {}
        for c in self.constructs:
            entry = kernels.setdefault(c.kernel, {"input_tokens": 0, "output_tokens": 0,
                                                  "requests": 0})
            entry["input_tokens"] += c.input_tokens
            entry["output_tokens"] += c.output_tokens
            entry["requests"] += len(c.attempts)
        return {"note": self.note, "constructs": [c.to_json() for c in self.constructs],
                "kernels": kernels, "total": self.totals()}


class _GiveUp(Exception):
    """The fallback cannot finish this file; the message goes into a diagnostic note."""


@dataclass
class _HoleState:
    hole: Hole
    report: ConstructReport
    messages: list[dict[str, str]] = field(default_factory=list)
    allow_unsafe: bool = False
    last_problem: str = ""


class FallbackSession:
    """One CLI run's fallback: the client, the cache, and every file's report."""

    def __init__(self, options: FallbackOptions) -> None:
        self.options = options
        cache = ResponseCache(options.cache_dir) if options.cache_dir else None
        self.client = ModelClient(options.model, cache, options.sdk, options.timeout_s,
                                  options.max_retries)
        self.verifier = options.verifier or HarnessVerifier(list(options.spec_files))
        self.files: list[FileReport] = []

    def repair(self, data: bytes, display: str, first: TranslationResult) -> TranslationResult:
        """`first` with its unhandled constructs filled and checked, else `first` + a note."""
        if not first.unhandled or first.source is None:
            return first
        report = FileReport(display)
        self.files.append(report)
        if not all(_eligible(u) for u in first.unhandled):
            return _noted(first, report, "not attempted: `cuda.tile` has no such function, "
                          "so cuTile Python could not compile the reference either")
        if self.client.cache is None and not self.client.can_call():
            return _noted(first, report, "skipped: ANTHROPIC_API_KEY is not set and no "
                          "--llm-cache was given")
        collector = HoleCollector()
        draft = translate_bytes(data, display, collector)
        if not draft.ok or not collector.holes:
            return _noted(first, report, _why_not(draft))
        run = _FileRun(self, data, display, first.source, collector.holes, report)
        try:
            return run.execute()
        except (_GiveUp, LlmUnavailable, LlmRequestError) as err:
            for state in run.states:
                if state.report.status == "pending":
                    state.report.status = "failed"
            prefix = {LlmUnavailable: "skipped: ", LlmRequestError: "stopped: the model "
                      "request failed: "}.get(type(err), "")
            return _noted(first, report, prefix + redact(str(err)))

    def report_json(self) -> dict[str, Any]:
        totals = [f.totals() for f in self.files]
        return {"model": self.options.model,
                "constructs": sum(len(f.constructs) for f in self.files),
                "accepted": sum(c.status == "accepted" for f in self.files
                                for c in f.constructs),
                "input_tokens": sum(t["input_tokens"] for t in totals),
                "output_tokens": sum(t["output_tokens"] for t in totals),
                "requests": sum(t["requests"] for t in totals),
                "cache_hits": sum(t["cache_hits"] for t in totals),
                "network_calls": self.client.network_calls}

    def file_json(self, display: str) -> dict[str, Any] | None:
        found = [f for f in self.files if f.path == display]
        return found[-1].to_json() if found else None

    def summary_line(self) -> str | None:
        """One line for stderr, or None when no construct went to the fallback."""
        if not any(f.constructs for f in self.files):
            return None
        data = self.report_json()
        kernels = {(f.path, c.kernel) for f in self.files for c in f.constructs}
        return (f"llm-fallback ({data['model']}): {data['accepted']} of {data['constructs']} "
                f"construct(s) accepted in {len(kernels)} kernel(s); {data['requests']} "
                f"request(s), {data['cache_hits']} from cache; {data['input_tokens']} input + "
                f"{data['output_tokens']} output tokens")


def _eligible(unhandled: UnhandledConstruct) -> bool:
    return unhandled.code not in INELIGIBLE_CODES


def _why_not(draft: TranslationResult) -> str:
    """The analysis' reason for leaving a construct without a hole (from the translation
    with holes allowed), else a general one."""
    for diag in draft.all_diagnostics():
        for note in diag.notes:
            if note.startswith(NOT_TRIED):
                where = f"line {diag.span.line}: " if diag.span else ""
                return "not attempted: " + where + note[len(NOT_TRIED):]
    return ("not attempted: a construct is neither an element-wise call nor a statement "
            "or helper call whose inputs and outputs the analysis can type")


def _noted(result: TranslationResult, report: FileReport, note: str) -> TranslationResult:
    report.note = note
    text = f"LLM fallback {note}"
    for diag in _unhandled_diagnostics(result):
        if text not in diag.notes:
            diag.notes.append(text)
    return result


def _unhandled_diagnostics(result: TranslationResult) -> list[Diagnostic]:
    spans = {(u.kernel, u.span) for u in result.unhandled}
    return [d for d in result.all_diagnostics() if (d.kernel, d.span) in spans]


class _FileRun:
    """The loop for one file (see the module docstring)."""

    def __init__(self, session: FallbackSession, data: bytes, display: str, source: str,
                 holes: list[Hole], report: FileReport) -> None:
        self.session = session
        self.client = session.client
        self.attempts = max(1, session.options.attempts)
        self.data, self.display, self.source = data, display, source
        self.fills: dict[tuple[str, int], Fill] = {}
        self.states: list[_HoleState] = []
        for hole in holes:
            construct = ConstructReport(hole.kernel, hole.id, hole.construct, hole.line,
                                        session.options.model, hole.kind)
            report.constructs.append(construct)
            self.states.append(_HoleState(hole, construct))
        self.examples = examples.pick(session.options.examples_dir, source,
                                      exclude=Path(display).name)

    def execute(self) -> TranslationResult:
        pending = list(self.states)
        while pending:
            for state in pending:
                self._ask(state)
            rust = self._render(self.fills).rust or ""
            problems = self.session.verifier.compile_problems(rust)
            if problems:
                pending = self._blame(problems, rust, "compile")
                if not pending:
                    raise _GiveUp(f"stopped: {_first_line(problems[0].text)}")
                continue
            ir = self.session.verifier.ir_check(self.source, self.display, rust,
                                                sorted({s.hole.kernel for s in self.states}))
            fatal = [p for p in ir.problems if not p.fixable]
            if fatal:
                raise _GiveUp(f"stopped: {fatal[0].text.splitlines()[0]}")
            if ir.problems:
                pending = self._blame(ir.problems, rust, "ir")
                if not pending:
                    raise _GiveUp(f"stopped: {_first_line(ir.problems[0].text)}")
                continue
            return self._finish(ir)
        raise _GiveUp("stopped: no hole left to ask")

    # ---- asking ----------------------------------------------------------------------------

    def _ask(self, state: _HoleState) -> None:
        while True:
            if len(state.report.attempts) >= self.attempts:
                raise _GiveUp(f"({self.client.model}) found no fragment for "
                              f"`{state.hole.construct}` that passes after {self.attempts} "
                              f"attempt(s); last problem: {state.last_problem}")
            if not state.messages:
                state.messages.append({"role": "user", "content": self._first_prompt(state)})
            reply = self.client.complete(prompt.system_text(state.hole.kind), state.messages)
            attempt = Attempt(len(state.report.attempts) + 1, reply.input_tokens,
                              reply.output_tokens, reply.cached)
            state.report.attempts.append(attempt)
            state.messages.append({"role": "assistant", "content": reply.text or "(empty)"})
            hole = state.hole
            try:
                fragment = accept(reply.text, hole.kind, state.allow_unsafe,
                                  outputs=tuple(name for name, _ in hole.outputs),
                                  signature=hole.signature)
            except FragmentRejected as err:
                self._reject(state, "fragment", str(err))
                continue
            attempt.outcome = "parsed"
            state.report.fragment = fragment.code
            code = fragment.body if hole.kind == "function" else fragment.code
            self.fills[hole.key] = Fill(code, self._provenance(state, "pending"))
            return

    def _first_prompt(self, state: _HoleState) -> str:
        others = {k: v for k, v in self.fills.items() if k != state.hole.key}
        collector = HoleCollector(others)
        draft = translate_bytes(self.data, self.display, collector)
        hole = next(h for h in collector.holes if h.key == state.hole.key)
        state.hole = hole
        name = hole.construct.split(".", 1)[-1].split(":")[-1]
        api = cutile_api.relevant(name)
        state.allow_unsafe = any(i.signature.startswith("pub unsafe fn") for i in api) or \
            bool(hole.node.attrs.get("written"))
        return prompt.request_text(hole, self.source, draft.rust or "", api, self.examples)

    def _reject(self, state: _HoleState, stage: str, detail: str) -> None:
        detail = redact(detail)
        state.report.attempts[-1].outcome = f"{stage}: {_first_line(detail)}"
        state.last_problem = f"{stage}: {_first_line(detail)}"
        state.messages.append({"role": "user", "content": prompt.feedback_text(
            stage, detail, state.hole.kind)})
        self.fills.pop(state.hole.key, None)

    # ---- checking --------------------------------------------------------------------------

    def _render(self, fills: dict[tuple[str, int], Fill]) -> TranslationResult:
        return translate_bytes(self.data, self.display, HoleCollector(dict(fills)))

    def _blame(self, problems: list[Problem], rust: str, stage: str) -> list[_HoleState]:
        ranges = self._hole_ranges(rust)
        blamed: dict[tuple[str, int], list[str]] = {}
        for problem in problems:
            for key in self._culprits(problem, ranges):
                blamed.setdefault(key, []).append(problem.text)
        pending: list[_HoleState] = []
        for state in self.states:
            texts = blamed.get(state.hole.key)
            if texts:
                self._reject(state, stage, "\n\n".join(texts))
                pending.append(state)
        return pending

    def _culprits(self, problem: Problem, ranges: list[tuple[int, int, tuple[str, int]]]
                  ) -> list[tuple[str, int]]:
        """The holes a problem points at: by its lines, else its kernel's, else the nearest
        hole above its first line, else every hole."""
        hit = {k for lo, hi, k in ranges if any(lo <= n <= hi for n in problem.lines)}
        if not hit and problem.kernel is not None:
            hit = {k for _, _, k in ranges if k[0] == problem.kernel}
        if not hit and problem.lines:
            above = [(lo, k) for lo, _, k in ranges if lo <= min(problem.lines)]
            hit = {max(above)[1]} if above else set()
        return sorted(hit) if hit else sorted({k for _, _, k in ranges})

    def _hole_ranges(self, rust: str) -> list[tuple[int, int, tuple[str, int]]]:
        """1-based line ranges of the code after each provenance comment: the spliced `let`,
        the region's block, or the helper function (up to the first line where its braces
        balance and it ends with `;` or `}`); a hole appears once per dtype variant of its
        kernel, and a helper hole at its call and at its function."""
        lines = rust.splitlines()
        tags = {f"llm-fallback {s.hole.kernel}#{s.hole.id}:": s.hole.key for s in self.states}
        ranges: list[tuple[int, int, tuple[str, int]]] = []
        for index, line in enumerate(lines):
            key = next((k for tag, k in tags.items() if tag in line), None)
            if key is not None:
                ranges.append((index + 2, _code_end(lines, index + 1) + 1, key))
        return ranges

    def _provenance(self, state: _HoleState, verdict: str) -> str:
        hole = state.hole
        line = f" (line {hole.line})" if hole.line else ""
        what = {"statements": " as statements",
                "function": f" in helper `{hole.node.attrs.get('helper')}`"}.get(hole.kind, "")
        text = (f"llm-fallback {hole.kernel}#{hole.id}: {hole.construct}{line}{what} by "
                f"{self.client.model}; IR check {verdict}")
        return _SAFE_TEXT.sub("?", text)

    def _finish(self, ir: IrResult) -> TranslationResult:
        for state in self.states:
            verdict = ir.verdict_of(state.hole.kernel)
            state.report.status = "accepted"
            state.report.verdict = verdict
            state.report.attempts[-1].outcome = "accepted"
            fill = self.fills[state.hole.key]
            self.fills[state.hole.key] = Fill(fill.code, self._provenance(state, verdict))
        return self._render(self.fills)


def _code_end(lines: list[str], start: int) -> int:
    """The index of the line where the code starting at `start` ends."""
    depth = 0
    for index in range(start, len(lines)):
        text = lines[index].rstrip()
        depth += text.count("{") - text.count("}")
        if depth <= 0 and text.endswith((";", "}")):
            return index
    return start


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""
