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
from dataclasses import dataclass
from pathlib import Path

from llm_fallback import add_arguments as add_llm_arguments
from llm_fallback import session_from_args as llm_session
from transpiler import __version__
from transpiler.diagnostics import UnhandledConstruct, render
from transpiler.driver import TranslationResult, translate_bytes
from transpiler.emit_kinds import EMIT_KINDS, emit_path
from transpiler.ircheck.spec import SpecFileError, load_spec_file

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2


@dataclass
class Job:
    source: Path | None  # None: stdin
    output: Path | None  # None: stdout
    display: str


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m transpiler",
        description="Translate cuTile Python kernels to cuTile Rust.",
        epilog="Exit status: 0 success, 1 translation errors / --check differences / IR "
        "check FAIL, 2 usage errors. `python -m transpiler verify SRC.py OUT.rs` checks an "
        "existing translation.",
    )
    parser.add_argument("input", help="a .py file, a folder of them, or - for stdin")
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
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    add_llm_arguments(parser)
    parser.add_argument("--version", action="version", version=f"transpiler {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "verify":
        from transpiler.verify_cmd import main as verify_main

        return verify_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if exit_.code in (0, None) else EXIT_USAGE
    try:
        for spec_file in args.spec:
            load_spec_file(Path(spec_file))
        jobs = plan_jobs(args)
    except (UsageError, SpecFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    return run_jobs(jobs, args)


class UsageError(Exception):
    pass


def plan_jobs(args: argparse.Namespace) -> list[Job]:
    if args.input == "-":
        out = None if args.output in (None, "-") else Path(args.output)
        return [Job(None, out, "<stdin>")]
    src = Path(args.input)
    if src.is_dir():
        if args.output in (None, "-"):
            raise UsageError("a folder input needs `-o OUTPUT_FOLDER`")
        out_dir = Path(args.output)
        if out_dir.exists() and not out_dir.is_dir():
            raise UsageError(f"`{out_dir}` exists and is not a folder")
        files = sorted(p for p in src.rglob("*.py") if p.is_file())
        return [Job(p, emit_path(out_dir / p.relative_to(src), args.emit), str(p)) for p in files]
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
    show_progress = len(jobs) > 1 and not args.quiet and sys.stderr.isatty()
    llm = llm_session(args)
    for index, job in enumerate(jobs, start=1):
        if show_progress:
            print(f"\r[{index}/{len(jobs)}] {job.display}"[:120].ljust(80), end="",
                  file=sys.stderr, flush=True)
        data = sys.stdin.buffer.read() if job.source is None else job.source.read_bytes()
        result = translate_bytes(data, job.display, language=args.language)
        if llm is not None and result.unhandled:
            result = llm.repair(data, job.display, result)
        entry: dict[str, object] = {
            "path": job.display,
            "output": str(job.output) if job.output else None,
            "status": "ok" if result.ok else "error",
            "kernels": [k.to_json() for k in result.kernels],
            "diagnostics": [d.to_json() for d in result.diagnostics],
            "unhandled": [unhandled_json(u) for u in result.unhandled],
        }
        _attach_unhandled(entry, result.unhandled)
        for diag in result.all_diagnostics():
            print(render(diag, result.source, job.display), file=sys.stderr)
        if not result.ok:
            status = EXIT_ERRORS
        else:
            outcome = deliver(job, emit_output(result, args.emit), args)
            entry["changed"] = outcome
            if args.check and outcome:
                status = EXIT_ERRORS
            if args.verify:
                verdicts = run_verify(job, result, args)
                entry["verify"] = verdicts
                if any(v["verdict"] == "FAIL" or v["verdict"] == "ERROR" for v in verdicts):
                    status = EXIT_ERRORS
        if llm is not None and llm.file_json(job.display) is not None:
            entry["llm"] = llm.file_json(job.display)
        report.append(entry)
    if show_progress:
        print(file=sys.stderr)
    summary = llm.summary_line() if llm is not None else None
    if summary and not args.quiet:
        print(summary, file=sys.stderr)
    if args.json:
        doc: dict[str, object] = {"version": __version__, "files": report}
        if llm is not None and llm.files:
            doc["llm"] = llm.report_json()
        print(json.dumps(doc, indent=2))
    return status


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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_verify(job: Job, result: TranslationResult,
               args: argparse.Namespace) -> list[dict[str, object]]:
    from transpiler.ircheck.check import verify_translation
    from transpiler.numeric_check.translation import verify_with_numeric

    if args.numeric:
        return verify_with_numeric(job.display, result, args.spec, args.keep_ir,
                                   quiet=args.quiet)
    return verify_translation(job.display, result, args.spec, args.keep_ir, quiet=args.quiet)
