"""Triton corpus benchmark: Triton's tutorials, TileGym's and Liger-Kernel's Triton ops.

Takes three folders of Triton files: Triton's tutorials (default `TUTORIALS`, `--tutorials`),
TileGym 1.5.1's `tilegym/ops/triton/` and Liger-Kernel 0.8.5's `liger_kernel/ops/*.py` (a
library of training kernels nobody on the team wrote; both wheels from PyPI, downloaded and
unpacked into the git-ignored `.cache/` as `bench/corpus.py` does; `--tilegym` / `--liger`
name a folder instead). Gives `bench/results/triton.json` and `bench/results/triton.md`:
per kernel its translation status, the first diagnostic (code and message), the proof
verdict of each of its specializations when `--verify` is given, and the path of each memory
access of its Rust entries (pointer tiles, or raised to tensor views), plus counts per corpus
and by code.

Each file is translated by ONE command-line call, as a user would run it:
`python -m transpiler FILE -o OUT.rs --json --quiet [--verify]`. The translator writes no
Rust for a file when one of its kernels fails; the access paths are then unknown ("-") for
the file's translated kernels.

Run: `.venv/bin/python -m bench.triton_corpus` (`--help` for options). The ratchet
(`bench/results/triton_ratchet.json`, read by `tests/test_triton_corpus_ratchet.py`) is
raised with `--update-ratchet`, never lowered.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus import CACHE, CorpusUnavailable, fetch_wheel, unpack

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
RATCHET = RESULTS / "triton_ratchet.json"
TUTORIALS = Path("/work/shared/corpora/triton-tutorials")
TILEGYM_TRITON = Path("tilegym") / "ops" / "triton"
LIGER_REQUIREMENT = "liger-kernel==0.8.5"
LIGER_WHEEL = "liger_kernel-0.8.5-py3-none-any.whl"
LIGER_CACHE = REPO / ".cache" / "liger"
LIGER_OPS = Path("liger_kernel") / "ops"
#: The corpora, in the order of the tables.
CORPORA = ("tutorials", "tilegym", "liger")
CLI_TIMEOUT_S = 600
# Verdicts from best to worst: a kernel's verdict is the worst of its specializations'.
VERDICT_ORDER = ("PASS", "PASS_WITH_NOTES", "SKIPPED", "NOT_CHECKED", "CANNOT_RUN", "ERROR",
                 "FAIL")
# Memory-access calls of the generated Rust, by the path they take.
ACCESS_CALLS: dict[str, tuple[str, ...]] = {
    "pointer": ("load_ptr_tko", "store_ptr_tko", "atomic_rmw_tko", "atomic_cas_tko"),
    "raised": ("load_view_raw", "store_view_raw", "load_view_tko", "store_view_tko",
               "load_tile", "store_tile", ".load(",
               ".store("),
}
_ENTRY = re.compile(r"#\[cutile::entry\(\)\]\s*(?:pub\s+)?(?:unsafe\s+)?fn\s+(\w+)")
_MANIFEST = re.compile(r"// transpiler-manifest: (\{.*\})")


@dataclass
class KernelRow:
    corpus: str
    file: str
    kernel: str
    status: str  # "translated" | "failed" | "crash"
    code: str | None = None
    message: str | None = None
    entries: int = 0
    verdicts: list[str] = field(default_factory=list)
    access: dict[str, int] | None = None
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        known = [v for v in self.verdicts if v in VERDICT_ORDER]
        return max(known, key=VERDICT_ORDER.index) if known else "-"

    def to_json(self) -> dict[str, Any]:
        return {"corpus": self.corpus, "file": self.file, "kernel": self.kernel,
                "status": self.status, "code": self.code, "message": self.message,
                "entries": self.entries, "verdict": self.verdict, "verdicts": self.verdicts,
                "access": self.access, "seconds": round(self.seconds, 2)}


def triton_files(folder: Path) -> list[Path]:
    """The files of a folder that define a `@triton.jit` function."""
    return [p for p in sorted(folder.glob("*.py"))
            if re.search(r"@(triton\.)?jit\b", p.read_text(encoding="utf-8"))]


def entry_accesses(rust: str) -> dict[str, dict[str, int]]:
    """Per Rust entry, how many memory accesses take each path (`ACCESS_CALLS`)."""
    starts = [(m.start(), m.group(1)) for m in _ENTRY.finditer(rust)]
    out: dict[str, dict[str, int]] = {}
    for index, (start, entry) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(rust)
        body = rust[start:end]
        out[entry] = {path: sum(body.count(call) for call in calls)
                      for path, calls in ACCESS_CALLS.items()}
    return out


def entry_kernels(rust: str) -> dict[str, str]:
    """Rust entry name -> the Python kernel it translates (from the manifest lines)."""
    out: dict[str, str] = {}
    for match in _MANIFEST.finditer(rust):
        manifest = json.loads(match.group(1))
        out[manifest["entry"]] = manifest["kernel"]
    return out


def run_file(corpus: str, source: Path, work: Path, verify: bool) -> list[KernelRow]:
    """One CLI call on `source` -> one row per kernel."""
    output = work / f"{corpus}_{source.stem}.rs"
    command = [sys.executable, "-m", "transpiler", str(source), "-o", str(output), "--json",
               "--quiet"] + (["--verify"] if verify else [])
    began = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=CLI_TIMEOUT_S,
                              cwd=REPO)
        report = json.loads(done.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as err:
        return [KernelRow(corpus, source.name, "-", "crash", message=type(err).__name__,
                          seconds=time.perf_counter() - began)]
    seconds = time.perf_counter() - began
    (entry,) = report["files"]
    rust = output.read_text(encoding="utf-8") if entry["status"] == "ok" and \
        output.is_file() else None
    accesses = entry_accesses(rust) if rust is not None else {}
    owners = entry_kernels(rust) if rust is not None else {}
    verdicts: dict[str, list[str]] = {}
    for check in entry.get("verify") or []:
        verdicts.setdefault(check["kernel"], []).append(check["verdict"])
    rows: list[KernelRow] = []
    for kernel in entry["kernels"]:
        row = KernelRow(corpus, source.name, kernel["name"], kernel["status"],
                        entries=len(kernel.get("variants") or []), seconds=seconds,
                        verdicts=verdicts.get(kernel["name"], []))
        if kernel["diagnostics"]:
            first = kernel["diagnostics"][0]
            row.code, row.message = first["code"], first["message"]
        if rust is not None:
            row.access = {}
            for name, counts in accesses.items():
                if owners.get(name) == kernel["name"]:
                    for path, count in counts.items():
                        row.access[path] = row.access.get(path, 0) + count
        rows.append(row)
    if not rows:
        first = (entry.get("diagnostics") or [{}])[0]
        rows.append(KernelRow(corpus, source.name, "-", "failed", first.get("code"),
                              first.get("message"), seconds=seconds))
    return rows


def tilegym_folder(explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    return unpack(fetch_wheel(CACHE), CACHE) / TILEGYM_TRITON


def liger_folder(explicit: Path | None) -> Path:
    """Liger-Kernel's ops folder; its top level holds the Triton kernels (the backends'
    subfolders are other languages and vendors)."""
    if explicit is not None:
        return explicit
    wheel = fetch_wheel(LIGER_CACHE, LIGER_REQUIREMENT, LIGER_WHEEL)
    return unpack(wheel, LIGER_CACHE) / LIGER_OPS


def run_benchmark(folders: dict[str, Path], verify: bool) -> dict[str, Any]:
    """`folders`: corpus name -> folder of Triton files."""
    rows: list[KernelRow] = []
    with tempfile.TemporaryDirectory(prefix="triton_corpus_") as tmp:
        for corpus, folder in folders.items():
            for source in triton_files(folder):
                rows.extend(run_file(corpus, source, Path(tmp), verify))
    return {"rows": [r.to_json() for r in rows], "summary": summarize(rows),
            "verify": verify}


def summarize(rows: list[KernelRow]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for corpus in sorted({r.corpus for r in rows}):
        mine = [r for r in rows if r.corpus == corpus]
        files = sorted({r.file for r in mine})
        summary[corpus] = {
            "files": len(files),
            "files_translated": sum(all(r.status == "translated" for r in mine if r.file == f)
                                    for f in files),
            "kernels": len(mine),
            "translated": sum(r.status == "translated" for r in mine),
            "passing": sum(r.verdict in ("PASS", "PASS_WITH_NOTES") for r in mine),
            "codes": dict(sorted(Counter(r.code for r in mine if r.code).items())),
            "pointer_accesses": sum((r.access or {}).get("pointer", 0) for r in mine),
            "raised_accesses": sum((r.access or {}).get("raised", 0) for r in mine),
        }
    summary["crashes"] = sum(r.status == "crash" for r in rows)
    return summary


def ratchet_counts(results: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for corpus in CORPORA:
        part = results["summary"].get(corpus, {})
        counts[f"{corpus}: translated"] = part.get("translated", 0)
        counts[f"{corpus}: files translated"] = part.get("files_translated", 0)
        if results.get("verify"):
            counts[f"{corpus}: passing"] = part.get("passing", 0)
    return counts


def markdown(results: dict[str, Any]) -> str:
    lines = ["# Triton corpus", "",
             "`python -m bench.triton_corpus" + (" --verify" if results["verify"] else "") +
             "`: Triton's tutorials, TileGym 1.5.1's `tilegym/ops/triton/` and Liger-Kernel "
             "0.8.5's `liger_kernel/ops/*.py`, one row per "
             "kernel. Access: memory accesses of the kernel's Rust entries on the pointer-tile "
             "path / raised to tensor views (`-`: the file wrote no Rust).", "",
             "| corpus | file | kernel | status | entries | diagnostic | proof | access "
             "(pointer/raised) | s |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in results["rows"]:
        diagnostic = f"{row['code']}: {row['message']}" if row["code"] else ""
        access = row["access"]
        access_text = f"{access.get('pointer', 0)}/{access.get('raised', 0)}" if access \
            is not None else "-"
        lines.append(f"| {row['corpus']} | {row['file']} | {row['kernel']} | {row['status']} "
                     f"| {row['entries']} | {diagnostic.replace('|', '/')} | {row['verdict']} "
                     f"| {access_text} | {row['seconds']} |")
    lines += ["", "| corpus | files | files translated | kernels | translated | proof passing "
              "| pointer accesses | raised accesses | diagnostics by code |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for corpus in CORPORA:
        part = results["summary"].get(corpus)
        if part is None:
            continue
        codes = ", ".join(f"{c} x{n}" for c, n in part["codes"].items())
        lines.append(f"| {corpus} | {part['files']} | {part['files_translated']} | "
                     f"{part['kernels']} | {part['translated']} | {part['passing']} | "
                     f"{part['pointer_accesses']} | {part['raised_accesses']} | {codes} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tutorials", type=Path, default=TUTORIALS)
    parser.add_argument("--tilegym", type=Path, default=None,
                        help="a folder of TileGym's Triton ops (default: from the wheel)")
    parser.add_argument("--liger", type=Path, default=None,
                        help="Liger-Kernel's ops folder (default: from the wheel)")
    parser.add_argument("--verify", action="store_true", help="run the proof per file")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--update-ratchet", action="store_true")
    args = parser.parse_args(argv)
    try:
        folders = {"tutorials": args.tutorials, "tilegym": tilegym_folder(args.tilegym),
                   "liger": liger_folder(args.liger)}
    except CorpusUnavailable as err:
        print(f"triton_corpus: {err}", file=sys.stderr)
        return 2
    results = run_benchmark(folders, args.verify)
    text = markdown(results)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "triton.json").write_text(json.dumps(results, indent=1) + "\n")
        (RESULTS / "triton.md").write_text(text)
    if args.update_ratchet:
        old = json.loads(RATCHET.read_text()) if RATCHET.is_file() else {}
        new = {k: max(v, old.get(k, 0)) for k, v in ratchet_counts(results).items()}
        RATCHET.write_text(json.dumps(dict(old, **new), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
