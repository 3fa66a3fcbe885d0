"""cuTile Python's own repository as a coverage corpus: translation and IR check per kernel.

Takes a snapshot of github.com/NVIDIA/cutile-python (a git directory, read with `git archive`,
or a plain folder; default the mirror at `DEFAULT_REPO`), extracts `samples/*.py`,
`test/kernels/*.py` and `test/test_*.py` into a temporary folder, and gives
`bench/results/cutile_python.json` and `bench/results/cutile_python.md`: one row per
`@ct.kernel` definition (module-level or nested in a function: kernel factories and kernels
defined inside tests) with its translation status, first diagnostic code, IR verdict and the
file's time, plus counts per sub-corpus and by diagnostic code.

Each file is translated and checked by ONE command-line call, as a user would run it:
`python -m transpiler FILE -o OUT.rs --verify --json --quiet` (specializations from the file's
own launch sites). The translator writes no Rust for a file when one of its kernels fails,
so the translated kernels of such a file are checked again "in isolation": a copy of the file
with the failed kernels' definitions blanked out (same lines) goes through the same command.

A kernel counts as one "cuTile Python rejects by design" when every reference to it in the
file sits inside a `with pytest.raises(...)` block: the test expects compiling or launching
it to fail, so it is not a kernel cuTile Python compiles (the done-target's denominator).
Such kernels are still translated and reported; a diagnostic for them is the right answer.

A file that its own host code never launches, launched elsewhere in the package with
constants the host-code reader cannot follow (pytest parametrizations), may have launch
shapes in `bench/cutile_corpus_specs/` (README there): the same command then also gets
`--spec` with them, and the report names the file in the kernel's IR column.

Run: `.venv/bin/python -m bench.cutile_corpus` (`--help` for options). The ratchet
(`bench/results/cutile_python_ratchet.json`, read by `tests/test_cutile_corpus_ratchet.py`)
is raised with `--update-ratchet`, never lowered.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.frontend.nested import nested_kernel_name

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REPO = Path("/work/.mirror/NVIDIA+cutile-python/repo")
RESULTS = REPO / "bench" / "results"
RATCHET = RESULTS / "cutile_python_ratchet.json"
# Launch shapes for corpus files the host-code reader cannot derive (README there).
EXTRA_SPECS = REPO / "bench" / "cutile_corpus_specs"
CLI_TIMEOUT_S = 600
PASSING = ("PASS", "PASS_WITH_NOTES")
# Sub-corpus name -> the glob of its files, relative to the repository root.
SUB_CORPORA: dict[str, str] = {
    "samples": "samples/*.py",
    "test/kernels": "test/kernels/*.py",
    "test/test_*.py": "test/test_*.py",
}
# The folders `git archive` extracts (every sub-corpus lives below one of them).
EXTRACTED = ("samples", "test")


class CorpusUnavailable(RuntimeError):
    """The snapshot is missing or cannot be read."""


# ---- the corpus ----------------------------------------------------------------------------


def extract(repo: Path, into: Path) -> str:
    """Copy the corpus folders of `repo` into `into`; gives the snapshot's revision."""
    if not repo.exists():
        raise CorpusUnavailable(f"no cuTile Python snapshot at {repo}")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    if head.returncode != 0:
        for name in EXTRACTED:
            if (repo / name).is_dir():
                shutil.copytree(repo / name, into / name, dirs_exist_ok=True)
        return "working tree"
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", "HEAD",
                              *EXTRACTED], capture_output=True, check=False)
    if archive.returncode != 0:
        raise CorpusUnavailable(f"`git archive` failed in {repo}: "
                                f"{archive.stderr.decode('utf-8', 'replace')[-400:]}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return head.stdout.strip()


def corpus_files(root: Path) -> list[tuple[str, Path]]:
    """(sub-corpus, file) for every corpus file that defines at least one kernel."""
    found: list[tuple[str, Path]] = []
    for corpus, pattern in SUB_CORPORA.items():
        for path in sorted(root.glob(pattern)):
            if kernel_defs(path):
                found.append((corpus, path))
    return found


@dataclass
class KernelDef:
    name: str
    qualname: str  # `outer.name` for a kernel defined inside a function
    line: int  # the `def` line
    first_line: int  # the first decorator's line
    end_line: int
    nested: bool
    rejected_by_design: bool  # every reference is inside `with pytest.raises(...)`

    @property
    def report_name(self) -> str:
        """The name the translator's report gives the kernel (file-unique when nested)."""
        *scopes, own = self.qualname.split(".")
        return nested_kernel_name(scopes, own)


def kernel_defs(path: Path) -> list[KernelDef]:
    """Every `@ct.kernel` function of a file, nested ones included (read with `ast`)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    defs: list[KernelDef] = []
    raises_spans = _raises_spans(tree)
    for node, outer in _functions(tree, []):
        if not _is_kernel(node):
            continue
        # A nested kernel is referred to within the top-level statement that holds it (many
        # tests define a `kernel` each).
        scope = next((s for s in tree.body if outer and s.lineno <= node.lineno
                      <= (s.end_lineno or s.lineno)), tree)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        refs = [n.lineno for n in ast.walk(scope)
                if (isinstance(n, ast.Name) and n.id == node.name
                    or isinstance(n, ast.Attribute) and n.attr == node.name)  # `self.kernel`
                and not first <= n.lineno <= (node.end_lineno or node.lineno)]
        rejected = bool(refs) and all(any(a <= line <= b for a, b in raises_spans)
                                      for line in refs)
        defs.append(KernelDef(node.name, ".".join([*outer, node.name]), node.lineno, first,
                              node.end_lineno or node.lineno, bool(outer), rejected))
    return defs


def _functions(node: ast.AST, outer: list[str]) -> list[tuple[ast.FunctionDef, list[str]]]:
    found: list[tuple[ast.FunctionDef, list[str]]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef):
            found.append((child, outer))
            found.extend(_functions(child, [*outer, child.name]))
        elif isinstance(child, ast.AsyncFunctionDef | ast.ClassDef):
            found.extend(_functions(child, [*outer, child.name]))
        else:
            found.extend(_functions(child, outer))
    return found


def _is_kernel(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        text = ast.unparse(target)
        if text == "kernel" or text.endswith(".kernel"):
            return True
    return False


def _raises_spans(tree: ast.AST) -> list[tuple[int, int]]:
    """Line ranges of `with pytest.raises(...)` blocks."""
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
                isinstance(item.context_expr, ast.Call)
                and ast.unparse(item.context_expr.func).endswith("raises")
                for item in node.items):
            spans.append((node.lineno, node.end_lineno or node.lineno))
    return spans


# ---- running the command line --------------------------------------------------------------


@dataclass
class FileRun:
    """One `python -m transpiler FILE -o OUT --verify --json --quiet` call."""

    seconds: float
    exit_status: int | None
    report: dict[str, Any] | None
    crash: str | None = None

    @property
    def entry(self) -> dict[str, Any]:
        files = (self.report or {}).get("files") or [{}]
        return files[0]

    @property
    def kernels(self) -> list[dict[str, Any]]:
        return list(self.entry.get("kernels") or [])

    @property
    def rust_written(self) -> bool:
        return self.entry.get("status") == "ok"

    @property
    def verify(self) -> list[dict[str, Any]]:
        return list(self.entry.get("verify") or [])


def extra_specs(rel: str) -> Path | None:
    """The supplementary launch shapes for corpus file `rel` (`EXTRA_SPECS`), if any."""
    path = EXTRA_SPECS / (rel.replace("/", "__").removesuffix(".py") + ".json")
    return path if path.is_file() else None


def run_cli(source: Path, output: Path, verify: bool, spec: Path | None = None) -> FileRun:
    """The translator's command line on one file; never raises."""
    output.unlink(missing_ok=True)
    command = [sys.executable, "-m", "transpiler", str(source), "-o", str(output), "--json",
               "--quiet"] + (["--verify"] if verify else []) + (
                   ["--spec", str(spec)] if verify and spec is not None else [])
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=REPO,
                              timeout=CLI_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return FileRun(time.perf_counter() - start, None, None,
                       crash=f"the command ran longer than {CLI_TIMEOUT_S} s")
    run = FileRun(time.perf_counter() - start, done.returncode, None)
    try:
        run.report = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        run.report = None
    if "Traceback (most recent call last)" in done.stderr:
        run.crash = done.stderr[done.stderr.index("Traceback (most recent call last)"):]
    elif run.report is None or done.returncode not in (0, 1):
        run.crash = f"exit status {done.returncode}, no JSON report: {done.stderr[-600:]}"
    return run


# ---- kernel rows ---------------------------------------------------------------------------


@dataclass
class KernelRow:
    corpus: str
    file: str
    kernel: KernelDef
    status: str = "not reported"  # translated | failed | not reported | translator crash
    code: str | None = None
    message: str | None = None
    line: int | None = None
    seconds: float = 0.0
    ir_mode: str | None = None  # file | isolated | None
    ir: list[dict[str, Any]] = field(default_factory=list)
    ir_note: str | None = None
    extra_spec: str | None = None  # the file's supplementary launch shapes (`EXTRA_SPECS`)

    @property
    def ir_verdict(self) -> str:
        """PASS when every checked specialization cuTile Python accepts passes."""
        if self.ir_mode is None:
            return "NOT RUN"
        valid = [o for o in self.ir if not o.get("reference_rejected")]
        verdicts = [o["verdict"] for o in valid]
        if not self.ir:
            return "NOT RUN"
        if not valid:
            return "REFERENCE REJECTS"
        if all(v in PASSING for v in verdicts):
            return "PASS"
        return "FAIL" if "FAIL" in verdicts else "ERROR"

    @property
    def blocker(self) -> str | None:
        """Why the kernel does not count as done: a diagnostic code or an IR verdict."""
        if self.status != "translated":
            return self.code or self.status
        return None if self.ir_verdict == "PASS" else f"IR {self.ir_verdict}"

    def to_json(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus, "file": self.file, "kernel": self.kernel.qualname,
            "line": self.kernel.line, "nested": self.kernel.nested,
            "rejected_by_design": self.kernel.rejected_by_design, "status": self.status,
            "diagnostic": None if self.code is None else {
                "code": self.code, "message": self.message, "line": self.line},
            "crash": self.message if self.status == "translator crash" else None,
            "file_seconds": round(self.seconds, 3),
            "ir": {"verdict": self.ir_verdict, "mode": self.ir_mode, "note": self.ir_note,
                   "extra_spec": self.extra_spec, "outcomes": self.ir},
        }


def assign_rows(rows: list[KernelRow], run: FileRun) -> None:
    """Match the report's kernels to the definitions: by name, in source order."""
    reported: dict[str, list[dict[str, Any]]] = {}
    for entry in run.kernels:
        reported.setdefault(str(entry.get("name")), []).append(entry)
    for row in rows:
        row.seconds = run.seconds
        if run.crash is not None:
            row.status, row.message = "translator crash", run.crash.strip().splitlines()[-1]
            continue
        queue = reported.get(row.kernel.report_name) or []
        if not queue:
            file_diags = run.entry.get("diagnostics") or []
            if file_diags:
                row.status = "failed"
                row.code, row.message = file_diags[0]["code"], file_diags[0]["message"]
                row.line = file_diags[0].get("line")
            continue
        entry = queue.pop(0)
        row.status = "translated" if entry.get("status") == "translated" else "failed"
        diagnostics = entry.get("diagnostics") or []
        if diagnostics:
            first = diagnostics[0]
            row.code, row.message, row.line = first["code"], first["message"], first["line"]


def assign_verdicts(rows: list[KernelRow], run: FileRun, mode: str) -> None:
    by_kernel: dict[str, list[dict[str, Any]]] = {}
    for outcome in run.verify:
        by_kernel.setdefault(str(outcome["kernel"]), []).append({
            "specialization": outcome["specialization"], "verdict": outcome["verdict"],
            "error": (outcome.get("error") or None) and str(outcome["error"])[:300],
            "reference_rejected": bool(outcome.get("reference_rejected")),
            "differences": [str(d)[:300] for d in (outcome.get("differences") or [])[:3]]})
    for row in rows:
        if row.status != "translated":
            continue
        row.ir_mode = mode
        mine = by_kernel.get(row.kernel.report_name, [])
        row.ir = mine
        if not mine:
            row.ir_note = "the check reported no specialization for this kernel"


def isolated_text(path: Path, drop: list[KernelDef]) -> str:
    """The file with the `drop` kernels' definitions blanked (a `pass` keeps a nested one's
    enclosing block valid); line numbers are kept."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for kernel in drop:
        indent = lines[kernel.line - 1][: len(lines[kernel.line - 1])
                                        - len(lines[kernel.line - 1].lstrip())]
        for index in range(kernel.first_line - 1, kernel.end_line):
            lines[index] = "\n"
        lines[kernel.first_line - 1] = f"{indent}pass\n" if kernel.nested else "\n"
    return "".join(lines)


# ---- one file ------------------------------------------------------------------------------


def run_file(corpus: str, path: Path, root: Path, work: Path, verify: bool) -> list[KernelRow]:
    rel = path.relative_to(root).as_posix()
    rows = [KernelRow(corpus, rel, k) for k in kernel_defs(path)]
    out = work / "out" / Path(rel).with_suffix(".rs")
    out.parent.mkdir(parents=True, exist_ok=True)
    spec = extra_specs(rel)
    run = run_cli(path, out, verify, spec)
    assign_rows(rows, run)
    if spec is not None:
        for row in rows:
            row.extra_spec = spec.name
    if not verify or run.crash is not None:
        return rows
    if run.rust_written:
        assign_verdicts(rows, run, "file")
        return rows
    translated = [r for r in rows if r.status == "translated"]
    if not translated:
        return rows
    copy = work / "isolated" / rel
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(isolated_text(path, [r.kernel for r in rows if r.status != "translated"]),
                    encoding="utf-8")
    isolated = run_cli(copy, copy.with_suffix(".rs"), verify, spec)
    if not isolated.rust_written:
        for row in translated:
            row.ir_mode = "isolated"
            row.ir_note = "the isolated copy did not translate: " + (
                isolated.crash or f"exit status {isolated.exit_status}").strip()[-200:]
        return rows
    assign_verdicts(translated, isolated, "isolated")
    return rows


# ---- the whole corpus ----------------------------------------------------------------------


def run_benchmark(repo: Path, verify: bool = True, only: list[str] | None = None,
                  work: Path | None = None,
                  verify_corpora: list[str] | None = None) -> dict[str, Any]:
    """Translate every corpus file (and `--verify` those of `verify_corpora`, default all)."""
    checked = set(SUB_CORPORA) if verify_corpora is None else set(verify_corpora)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cutile-corpus-") as tmp:
        root = Path(tmp) / "corpus"
        root.mkdir()
        revision = extract(repo, root)
        files = [(c, p) for c, p in corpus_files(root)
                 if not only or any(p.name == o or p.match(o) for o in only)]
        rows: list[KernelRow] = []
        for corpus, path in files:
            rows.extend(run_file(corpus, path, root, work or Path(tmp),
                                 verify and corpus in checked))
    return {
        "corpus": {"repository": "github.com/NVIDIA/cutile-python", "revision": revision,
                   "scope": list(SUB_CORPORA.values()), "files": len(files)},
        "command": "python -m transpiler FILE -o OUT.rs --json --quiet"
                   + (" --verify" if verify else "") + " (one call per file)",
        "verified": sorted(checked) if verify else [],
        "summary": summarize(rows),
        "benchmark_seconds": round(time.perf_counter() - start, 1),
        "kernels": [row.to_json() for row in rows],
    }


def summarize(rows: list[KernelRow]) -> dict[str, Any]:
    per_corpus: dict[str, Any] = {}
    for corpus in SUB_CORPORA:
        mine = [r for r in rows if r.corpus == corpus]
        compiled = [r for r in mine if not r.kernel.rejected_by_design]
        per_corpus[corpus] = {
            "kernels": len(mine),
            "rejected_by_design": len(mine) - len(compiled),
            "translated": sum(r.status == "translated" for r in mine),
            "ir_pass": sum(r.blocker is None for r in mine),
            "compiled_kernels": len(compiled),
            "compiled_translated": sum(r.status == "translated" for r in compiled),
            "compiled_ir_pass": sum(r.blocker is None for r in compiled),
            # Translated, but cuTile Python itself refuses every specialization derived
            # from the file's host code (constants the launch-site reader cannot follow):
            # neither side is checked, so the kernel is not done and not a translator miss.
            "compiled_reference_rejects": sum(r.ir_verdict == "REFERENCE REJECTS"
                                              for r in compiled),
            "files_seconds": round(sum({r.file: r.seconds for r in mine}.values()), 1),
            "by_blocker": dict(Counter(r.blocker for r in compiled if r.blocker)
                               .most_common()),
        }
    return {
        "kernels": len(rows),
        "translated": sum(r.status == "translated" for r in rows),
        "ir_pass": sum(r.blocker is None for r in rows),
        "translator_crash": sum(r.status == "translator crash" for r in rows),
        "internal_errors": sum(r.code == "E9000" for r in rows),
        "per_corpus": per_corpus,
        "by_blocker": dict(Counter(r.blocker for r in rows if r.blocker).most_common()),
    }


# ---- reports -------------------------------------------------------------------------------


def markdown(results: dict[str, Any]) -> str:
    s = results["summary"]
    c = results["corpus"]
    lines = [
        "# cuTile Python's own repository: translation and IR check",
        "",
        f"Generated by `.venv/bin/python -m bench.cutile_corpus` (do not edit). Corpus: "
        f"{c['repository']} at `{c['revision']}`, {', '.join(f'`{g}`' for g in c['scope'])}: "
        f"{c['files']} files with kernels. Each file: {results['command']}; IR-checked "
        f"sub-corpora: {', '.join(results['verified']) or 'none'} (the others: translation "
        "only, so their *done* counts are 0).",
        "",
        "A kernel is *done* when it translates and every specialization cuTile Python accepts "
        "passes the IR check. *Rejected by design*: every reference to the kernel is inside "
        "`pytest.raises` (the test expects cuTile Python to refuse it); the done-target counts "
        "the other kernels (*compiled*).",
        "",
        "*Reference rejects*: translated, but cuTile Python itself refuses every specialization "
        "derived from the file's host code (constants the launch-site reader cannot follow, "
        "so defaults that do not fit together): nothing is checked, so the kernel is not "
        "done, and it is no translation miss either (gaps.md says which and why).",
        "",
        "| corpus | kernels | translated | done | compiled kernels | compiled translated | "
        "compiled done | compiled reference rejects | files' time (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, p in s["per_corpus"].items():
        lines.append(f"| {name} | {p['kernels']} | {p['translated']} | {p['ir_pass']} | "
                     f"{p['compiled_kernels']} | {p['compiled_translated']} | "
                     f"{p['compiled_ir_pass']} | {p.get('compiled_reference_rejects', 0)} | "
                     f"{p['files_seconds']} |")
    lines += [f"| all | {s['kernels']} | {s['translated']} | {s['ir_pass']} | | | | | |", "",
              f"Translator crashes: {s['translator_crash']}; internal errors (E9000): "
              f"{s['internal_errors']}. Benchmark wall time: {results['benchmark_seconds']} s.",
              "", "## What stops the kernels (first diagnostic code, or the IR verdict)", "",
              "| blocker | " + " | ".join(s["per_corpus"]) + " | all |",
              "|---|" + "---:|" * (len(s["per_corpus"]) + 1)]
    for blocker, total in s["by_blocker"].items():
        cells = [str(p["by_blocker"].get(blocker, 0)) for p in s["per_corpus"].values()]
        lines.append(f"| {blocker} | " + " | ".join(cells) + f" | {total} |")
    lines += ["", "(Per-corpus columns count compiled kernels; `all` counts every kernel.)", "",
              "## Kernels", "", "| file | kernel | line | status | diagnostic | IR | s |",
              "|---|---|---:|---|---|---|---:|"]
    for k in results["kernels"]:
        diag = k["diagnostic"]
        diag_text = "" if diag is None else _cell(
            f"{diag['code']} (line {diag['line']}): {diag['message']}")[:220]
        ir = k["ir"]
        ir_text = ir["verdict"] + (f" ({ir['mode']})" if ir["mode"] else "") + (
            f" + shapes of `{ir['extra_spec']}`" if ir.get("extra_spec") else "")
        if ir["verdict"] not in ("PASS", "NOT RUN"):
            detail = next((o.get("error") or "; ".join(o.get("differences") or [])
                           for o in ir["outcomes"] if o["verdict"] not in PASSING), None)
            ir_text += " — " + _cell(detail or ir.get("note") or "")[:160]
        mark = " (rejected by design)" if k["rejected_by_design"] else ""
        lines.append(f"| {k['file']} | `{k['kernel']}`{mark} | {k['line']} | {k['status']} | "
                     f"{diag_text} | {ir_text} | {k['file_seconds']} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_results(results: dict[str, Any], folder: Path = RESULTS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=1).replace(str(REPO) + "/", "")
    (folder / "cutile_python.json").write_text(text + "\n", encoding="utf-8")
    (folder / "cutile_python.md").write_text(markdown(results), encoding="utf-8")


def ratchet_counts(results: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name, p in results["summary"]["per_corpus"].items():
        counts[f"{name}: translated"] = p["translated"]
        if name in results["verified"]:
            counts[f"{name}: done"] = p["ir_pass"]
    return counts


def update_ratchet(results: dict[str, Any], path: Path = RATCHET) -> dict[str, int]:
    """Raise the recorded counts where the new ones are higher; never lower them."""
    old = json.loads(path.read_text()) if path.is_file() else {}
    merged = {**old}
    for key, value in ratchet_counts(results).items():
        merged[key] = max(int(old.get(key, 0)), value)
    path.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return merged


# ---- command line --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cutile_corpus",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=str(DEFAULT_REPO),
                        help="the cuTile Python snapshot (git directory or folder)")
    parser.add_argument("--no-verify", action="store_true", help="translate only")
    parser.add_argument("--verify-corpora", nargs="*", choices=list(SUB_CORPORA),
                        help="IR-check only these sub-corpora (default: all)")
    parser.add_argument("--only", nargs="*", help="file names or globs to run")
    parser.add_argument("--out", default=str(RESULTS), help="results folder")
    parser.add_argument("--update-ratchet", action="store_true",
                        help="raise the ratchet file to the new counts")
    args = parser.parse_args(argv)
    try:
        results = run_benchmark(Path(args.repo), verify=not args.no_verify, only=args.only,
                                verify_corpora=args.verify_corpora)
    except CorpusUnavailable as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not args.only:
        write_results(results, Path(args.out))
    else:
        print(markdown(results))
    if args.update_ratchet and not args.only:
        update_ratchet(results)
    s = results["summary"]
    for name, p in s["per_corpus"].items():
        print(f"{name}: {p['kernels']} kernels, {p['translated']} translated, {p['ir_pass']} "
              f"done; compiled {p['compiled_kernels']}: {p['compiled_translated']} translated, "
              f"{p['compiled_ir_pass']} done, {p['compiled_reference_rejects']} reference "
              "rejects")
    print(f"crashes {s['translator_crash']}, E9000 {s['internal_errors']}, "
          f"{results['benchmark_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
