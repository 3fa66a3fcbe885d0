"""Command line: `python -m transpiler INPUT [-o OUTPUT] [--check] [--diff] [--json] ...`.

Takes command-line arguments; gives translated files, diagnostics on stderr, an optional JSON
report on stdout, and the exit status: 0 when everything translated (and, with `--check`,
nothing would change; with `--verify`, every IR verdict passed), 1 on translation errors,
differences under `--check`, or an IR check FAIL, 2 on usage errors. Output files are written
atomically (a temp file in the same folder, then a rename), so a failed run leaves an existing
output untouched. `verify SOURCE.py RUST.rs` checks an existing translation (see
`transpiler.verify_cmd`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from llm_fallback import add_arguments as add_llm_arguments
from llm_fallback import session_from_args as llm_session
from transpiler import __version__
from transpiler.batch import default_workers, interrupt_on_sigterm, ordered_map
from transpiler.diagnostics import CODES, UnhandledConstruct, render
from transpiler.doctor import main as doctor_main
from transpiler.driver import TranslationResult, translate_bytes
from transpiler.emit_kinds import EMIT_KINDS, emit_path
from transpiler.explain import explanation
from transpiler.ircheck.canonicalize import RULE_NAMES
from transpiler.ircheck.check import CheckOutcome
from transpiler.ircheck.spec import SpecFileError, load_spec_file
from transpiler.ircheck.toolchain import ToolchainError, ensure_harness
from transpiler.parallel_verify import FileCheck, verify_files
from transpiler.progress import Progress
from transpiler.report import render_report, report_files

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


_FILE_MODE = 0o666


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@dataclass
class Job:
    source: Path | None  # None: stdin
    output: Path | None  # None: stdout
    display: str
    # A file of a folder: skipped when it defines no kernel (a helper module, `__init__.py`),
    # as the pre-commit hooks skip it; asked for by name, it is error E0003.
    in_folder: bool = False


#: The diagnostic of a file that defines no kernel.
NO_KERNEL = "E0003"


def defines_no_kernel(result: TranslationResult) -> bool:
    """Whether a translation failed only because the file defines no kernel."""
    codes = {d.code for d in result.all_diagnostics()}
    return not result.ok and codes == {NO_KERNEL}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m transpiler",
        description="Translate cuTile Python kernels to cuTile Rust.",
        epilog="Exit status: 0 success, 1 translation errors / --check differences / IR "
        "check FAIL, 2 usage errors. `python -m transpiler verify SRC.py OUT.rs` checks an "
        "existing translation.",
    )
    parser.add_argument("input", nargs="?",
                        help="a .py file, a folder of them, or - for stdin")
    parser.add_argument("-o", "--output", help="output .rs file, folder, or - for stdout")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if an output file differs from what "
                        "would be generated")
    parser.add_argument("--diff", action="store_true",
                        help="write nothing; print a unified diff against the output on disk")
    parser.add_argument("--json", action="store_true",
                        help="print a machine-readable report (per file and kernel) on stdout")
    parser.add_argument("--verify", action="store_true",
                        help="check each translation's Tile IR against cuTile Python's")
    parser.add_argument("--spec", action="append", default=[],
                        help="JSON file of extra specializations for --verify")
    parser.add_argument("--numeric", action="store_true",
                        help="with --verify, also interpret both sides' Tile IR on seeded "
                        "inputs and compare the outputs")
    parser.add_argument("--emit", choices=EMIT_KINDS, default="kernels",
                        help="kernels: the Rust kernels (default); launcher: their C-ABI "
                        "launchers; pywrapper: a Python drop-in for the host functions")
    parser.add_argument("--keep-ir", metavar="DIR",
                        help="with --verify, write both IR texts of each check to DIR")
    parser.add_argument("--from", dest="language", choices=("cutile", "triton"),
                        help="the input language (default: detected per file by its imports; "
                        "a file may hold kernels of both)")
    parser.add_argument("--no-raise", dest="raise_pointers", action="store_false",
                        help="Triton input: keep every memory access a pointer tile (by default "
                        "affine accesses proven to be tiles of a tensor view become view "
                        "loads and stores)")
    parser.add_argument("--no-jit-facts", dest="jit_facts", action="store_false",
                        help="Triton input: emit only the entries correct for every argument "
                        "(by default each is followed by entries for Triton's JIT "
                        "specializations, 16-byte aligned pointers, unit strides, ints "
                        "divisible by 16, which the launcher selects when the arguments "
                        "hold them)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    add_tool_arguments(parser)
    add_llm_arguments(parser)
    parser.add_argument("--version", action="version", version=f"transpiler {__version__}")
    return parser


def add_tool_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags for editors, batches and reports (`--explain`, `--stdin-filename`, `-j`,
    `--report`)."""
    parser.add_argument("--explain", metavar="CODE_OR_RULE",
                        help="explain a diagnostic code (E0100) or an IR-check rule "
                        "(dead-code) and exit")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="with input -, the path the text comes from: sibling modules "
                        "(`from .common import f`) resolve beside it and diagnostics name it")
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help="worker processes for folders and --verify (default: the cores)")
    parser.add_argument("--report", metavar="FILE.html",
                        help="write a self-contained HTML report (sources, Rust, both Tile "
                        "IRs, verdicts, diagnostics)")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    interrupt_on_sigterm()
    # Python's warnings about the input's own text (`1if`, an invalid escape) are not the
    # translator's output: what the translator rejects is a diagnostic, the rest is the
    # source author's (as black and ruff leave them to the interpreter).
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    if argv and argv[0] == "verify":
        from transpiler.verify_cmd import main as verify_main

        return verify_main(argv[1:])
    if argv and argv[0] == "doctor":
        return doctor_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if exit_.code in (0, None) else EXIT_USAGE
    if args.explain is not None:
        return explain(args.explain)
    try:
        for spec_file in args.spec:
            load_spec_file(Path(spec_file))
        jobs = plan_jobs(args)
        return run_jobs(jobs, args)
    except (UsageError, SpecFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except VerifyUnavailable as err:
        print(f"error: the IR check cannot run: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        # Output files are replaced whole or not at all (write_atomic): nothing is partial.
        print("\ninterrupted; files already written are complete, rerun to finish",
              file=sys.stderr)
        return EXIT_INTERRUPTED


def explain(name: str) -> int:
    """`--explain CODE` / `--explain RULE`: print the text, exit 0; 2 for an unknown name."""
    text = explanation(name)
    if text is None:
        print(f"error: no diagnostic code or IR-check rule named `{name}` (codes: "
              f"{', '.join(CODES)}; rules: {', '.join(sorted(RULE_NAMES))})", file=sys.stderr)
        return EXIT_USAGE
    print(text)
    return EXIT_OK


class UsageError(Exception):
    pass


class VerifyUnavailable(Exception):
    """A tool the IR check needs is missing or broken; the message says how to get it."""


def plan_jobs(args: argparse.Namespace) -> list[Job]:
    if args.input is None:
        raise UsageError("an INPUT (file, folder, or - for stdin) is required")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("-j takes a number of processes >= 1")
    if args.stdin_filename is not None and args.input != "-":
        raise UsageError("--stdin-filename goes with input `-`")
    if args.input == "-":
        out = None if args.output in (None, "-") else Path(args.output)
        if args.verify:
            raise UsageError("--verify needs the source as a file (cuTile Python compiles "
                             "the kernel from it), not stdin")
        return [Job(None, out, args.stdin_filename or "<stdin>")]
    src = Path(args.input)
    if src.is_dir():
        if args.output in (None, "-"):
            raise UsageError("a folder input needs `-o OUTPUT_FOLDER`")
        out_dir = Path(args.output)
        if out_dir.exists() and not out_dir.is_dir():
            raise UsageError(f"`{out_dir}` exists and is not a folder")
        files = sorted(p for p in src.rglob("*.py") if p.is_file())
        return [Job(p, emit_path(out_dir / p.relative_to(src), args.emit), str(p), in_folder=True)
                for p in files]
    if not src.exists():
        raise UsageError(f"`{src}` does not exist")
    if args.output in (None, "-"):
        if args.check or args.diff:
            return [Job(src, emit_path(src, args.emit), str(src))]
        return [Job(src, None, str(src))]
    out = Path(args.output)
    if out.is_dir():
        out = out / emit_path(src, args.emit).name
    return [Job(src, out, str(src))]


def run_jobs(jobs: list[Job], args: argparse.Namespace) -> int:
    status = EXIT_OK
    report: list[dict[str, object]] = []
    workers = args.jobs or default_workers()
    progress = Progress.for_terminal(args.quiet or (len(jobs) <= 1 and not args.verify))
    progress.update(files=len(jobs))
    # Verdict lines: stdout, unless stdout holds the JSON report or the Rust itself.
    human = sys.stderr if args.json or any(j.output is None for j in jobs) else sys.stdout
    llm = llm_session(args)
    inputs = [(job, read_input(job), args.language, args.raise_pointers, args.jit_facts)
              for job in jobs]
    translated: list[tuple[Job, TranslationResult, dict[str, object]]] = []
    results: list[TranslationResult] = []
    for (job, data, *_options), result in zip(inputs, ordered_map(translate_input, inputs,
                                                                      workers),
                                   strict=True):
        if llm is not None and result.unhandled:
            result = llm.repair(data, job.display, result)
        results.append(result)
        progress.update(files_done=progress.counts.files_done + 1,
                        kernels=progress.counts.kernels + len(result.kernels))
        entry: dict[str, object] = {
            "path": job.display,
            "output": str(job.output) if job.output else None,
            "status": "ok" if result.ok else "error",
            "kernels": [k.to_json() for k in result.kernels],
            "diagnostics": [d.to_json() for d in result.diagnostics],
            "unhandled": [unhandled_json(u) for u in result.unhandled],
        }
        _attach_unhandled(entry, result.unhandled)
        if job.in_folder and defines_no_kernel(result):
            entry.update(status="skipped", output=None, diagnostics=[])
            entry["reason"] = "defines no kernel (a helper module): nothing to translate"
            report.append(entry)
            continue
        for diag in result.all_diagnostics():
            progress.print(render(diag, result.source, job.display), sys.stderr)
        if not result.ok:
            status = EXIT_ERRORS
        else:
            outcome = deliver(job, emit_output(result, args.emit), args)
            entry["changed"] = outcome
            if args.check and outcome:
                status = EXIT_ERRORS
            if args.verify:
                translated.append((job, result, entry))
        if llm is not None and llm.file_json(job.display) is not None:
            entry["llm"] = llm.file_json(job.display)
        report.append(entry)
    checks, irs = run_verify_all(translated, args, workers, progress, human)
    if any(o.verdict in ("FAIL", "ERROR") for outcomes in checks for o in outcomes):
        status = EXIT_ERRORS
    progress.finish()
    summary = llm.summary_line() if llm is not None else None
    if summary and not args.quiet:
        print(summary, file=sys.stderr)
    if args.report:
        kept = [(job.display, data, result) for (job, data, *_options), result
                in zip(inputs, results, strict=True)
                if not (job.in_folder and defines_no_kernel(result))]
        write_atomic(Path(args.report), render_report(report_files(
            [(display, data) for display, data, _result in kept], [r for *_, r in kept],
            {job.display: (o, ir) for (job, _r, _e), o, ir in zip(translated, checks, irs,
                                                                    strict=True)})))
    if args.json:
        doc: dict[str, object] = {"version": __version__, "files": report}
        if llm is not None and llm.files:
            doc["llm"] = llm.report_json()
        print(json.dumps(doc, indent=2))
    return status


def read_input(job: Job) -> bytes:
    return sys.stdin.buffer.read() if job.source is None else job.source.read_bytes()


def translate_input(job_and_data: tuple[Job, bytes, str | None, bool, bool]
                    ) -> TranslationResult:
    """One file's translation (run in a worker process with `-j`) in the language `--from`
    names (None: detected), raising pointer accesses unless `--no-raise`, with JIT fact
    entries unless `--no-jit-facts`."""
    job, data, language, raise_pointers, jit_facts = job_and_data
    return translate_bytes(data, job.display, language=language, raise_pointers=raise_pointers,
                           jit_facts=jit_facts)


def emit_output(result: TranslationResult, kind: str) -> TranslationResult:
    """The `--emit` output of a translation; the launcher generator (a large module) is
    imported only when something other than the kernels is asked for."""
    if kind == "kernels":
        return result
    from transpiler.emit_launcher import emit_result

    return emit_result(result, kind)


def unhandled_json(record: UnhandledConstruct) -> dict[str, object]:
    """An unhandled-construct record as the `--json` report gives it: the fields of
    `UnhandledConstruct`, the span as `line`/`col` (1-based, like the diagnostics) and
    `end_line`/`end_col` (1-based, `end_col` one past the last column), or nulls."""
    span = record.span
    return {
        "kernel": record.kernel,
        "construct": record.construct,
        "code": record.code,
        "message": record.message,
        "line": span.line if span else None,
        "col": span.col + 1 if span else None,
        "end_line": span.end_line if span else None,
        "end_col": span.end_col + 1 if span and span.end_col is not None else None,
        "source_text": record.source_text,
        "context": dict(record.context),
    }


def _attach_unhandled(entry: dict[str, object], records: list[UnhandledConstruct]) -> None:
    """Each kernel entry also carries its own record (or null), so that a consumer keyed by
    kernel (`bench/corpus.py`) finds it without a second translation."""
    by_kernel: dict[str, dict[str, object]] = {}
    for record in records:
        by_kernel.setdefault(record.kernel, unhandled_json(record))
    for kernel in entry["kernels"]:  # type: ignore[attr-defined]
        if isinstance(kernel, dict) and "name" in kernel:
            kernel.setdefault("unhandled", by_kernel.get(str(kernel["name"])))


def deliver(job: Job, result: TranslationResult, args: argparse.Namespace) -> bool:
    """Write, check or diff one result; returns whether the output differs from disk."""
    assert result.rust is not None
    if job.output is None:
        if not args.json:
            sys.stdout.write(result.rust)
        return False
    old = job.output.read_text(encoding="utf-8") if job.output.exists() else None
    changed = old != result.rust
    if args.check or args.diff:
        if changed and args.diff:
            diff = difflib.unified_diff((old or "").splitlines(keepends=True),
                                        result.rust.splitlines(keepends=True),
                                        f"{job.output} (on disk)", f"{job.output} (generated)")
            sys.stdout.writelines(diff)
        if changed and args.check and not args.quiet:
            print(f"would update {job.output}", file=sys.stderr)
        return changed
    if changed:
        write_atomic(job.output, result.rust)
    return changed


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, then rename it over `path`: a reader, a
    concurrent writer or an interruption sees the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        # mkstemp makes the file private (0600); give it the mode a plain `open` would.
        os.chmod(tmp, _FILE_MODE & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


IrPair = tuple[str, str]  # (cuTile Python's Tile IR, cuTile Rust's)


def run_verify_all(translated: list[tuple[Job, TranslationResult, dict[str, object]]],
                   args: argparse.Namespace, workers: int, progress: Progress,
                   human: TextIO) -> tuple[list[list[CheckOutcome]], list[list[IrPair | None]]]:
    """`--verify` of every translated file, its (kernel, specialization) checks spread over
    `workers` processes (`parallel_verify`); prints each file's verdict lines in order. Per
    file: the outcomes, and both IR texts of each (with `--report`)."""
    if not translated:
        return [], []
    try:
        # Here, not in each worker: a first use builds the harness once, with one line.
        ensure_harness()
    except ToolchainError as err:
        raise VerifyUnavailable(str(err)) from None
    numeric = bool(getattr(args, "numeric", False))
    files = [FileCheck(job.display, result.source, result.rust or "", tuple(args.spec),
                       args.keep_ir, numeric, want_ir=bool(args.report),
                       rust_path=str(job.output) if job.output else None)
             for job, result, _entry in translated]
    checks: list[list[CheckOutcome]] = []
    irs: list[list[IrPair | None]] = []
    for (job, _result, entry), done in zip(translated, verify_files(files, workers, progress),
                                           strict=True):
        if done.error is not None:
            raise VerifyUnavailable(done.error)
        outcomes = joined(job.display, done.outcomes, done.numeric) if numeric else \
            done.outcomes
        for outcome in outcomes:
            if not args.quiet:
                progress.print(f"{job.display}: {outcome.line()}", human)
                if outcome.verdict == "FAIL" and getattr(outcome, "text", ""):
                    progress.print(outcome.text, human)
        entry["verify"] = [o.to_json() for o in outcomes]
        checks.append(outcomes)
        irs.append(done.ir)
    return checks, irs


def joined(display: str, outcomes: list[CheckOutcome], numeric: list[object]) -> list[object]:
    """Each structural outcome with the numeric check of its specialization (`--numeric`)."""
    # Imported here: the interpreter (numpy, ml_dtypes) loads only for `--numeric`.
    from transpiler.numeric_check.translation import join_numeric

    return join_numeric(display, outcomes, numeric)
