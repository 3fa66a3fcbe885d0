"""The numeric check over the corpora: per kernel and specialization PASS / FAIL / ERROR /
CANNOT_RUN, and its time, with settings only from the host code (no spec files).

    .venv/bin/python bench/numeric.py [--golden] [--tilegym] [--stems a,b] [--timeout S]
                                      [--resume]

Takes the golden cuTile Python kernels (`golden/*.py` with their `golden/*.rs`) and the
TileGym 1.5.1 op files (`bench/corpus.py` unpacks the wheel into `.cache/tilegym/`; each file
is translated here first). Each file runs `python -m transpiler verify SRC RS --numeric
--json` in a subprocess of its own (a time limit per file); its specializations are the ones
the structural check derives, its shapes, grids and scalars `numeric_check.host_settings`'s.
Gives `bench/results/numeric.json` and `bench/results/numeric.md`: the counts, one row per
file (verdicts; the numeric check's seconds per file, which is the interpreter's time, without
the compiles) and every reason a specialization did not PASS.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
TILEGYM_OPS = ROOT / ".cache" / "tilegym" / "unpacked" / "tilegym" / "ops" / "cutile"
RESULTS = ROOT / "bench" / "results"
VERDICTS = ("PASS", "FAIL", "ERROR", "CANNOT_RUN")


def golden_files(stems: set[str] | None) -> list[tuple[str, Path, Path | None]]:
    out = []
    for source in sorted(GOLDEN.glob("*.py")):
        rust = source.with_suffix(".rs")
        if rust.is_file() and (stems is None or source.stem in stems):
            out.append((f"golden/{source.name}", source, rust))
    return out


def tilegym_files(stems: set[str] | None) -> list[tuple[str, Path, Path | None]]:
    return [(f"tilegym/{p.relative_to(TILEGYM_OPS)}", p, None)
            for p in sorted(TILEGYM_OPS.rglob("*.py"))
            if p.name != "__init__.py" and (stems is None or p.stem in stems)]


def run_file(label: str, source: Path, rust: Path | None, work: Path,
             timeout: float) -> dict[str, Any]:
    row: dict[str, Any] = {"file": label, "numeric": [], "structural": [], "note": None}
    start = time.perf_counter()
    if rust is None:
        rust = work / (source.stem + ".rs")
        done = subprocess.run([sys.executable, "-m", "transpiler", str(source), "-o",
                               str(rust)], capture_output=True, text=True, timeout=timeout)
        if not rust.is_file():
            row["note"] = "not translated: " + (done.stderr.strip().splitlines() or ["?"])[0]
            return row
    try:
        done = subprocess.run([sys.executable, "-m", "transpiler", "verify", str(source),
                               str(rust), "--numeric", "--json"], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        row["note"] = f"over the time limit ({timeout:.0f} s)"
        return row
    row["wall_s"] = round(time.perf_counter() - start, 1)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        lines = done.stderr.strip().splitlines()
        row["note"] = "verify: " + (lines[-1] if lines else f"exit {done.returncode}")
        return row
    row["structural"] = [v.get("verdict") for v in report.get("verdicts", [])]
    row["numeric"] = [{k: n.get(k, 0.0) for k in ("kernel", "specialization", "verdict",
                                                   "reason", "seconds", "cpu_seconds")}
                      for n in report.get("numeric", [])]
    return row


def markdown(rows: list[dict[str, Any]], command: str, seconds: float) -> str:
    counts = Counter(n["verdict"] for r in rows for n in r["numeric"])
    lines = ["# The numeric check over the corpora (settings from the host code)", "",
             f"`{command}` ({seconds:.0f} s; 2-core machine shared with other jobs).", "",
             "| verdict | specializations |", "| --- | --- |"]
    lines += [f"| {v} | {counts.get(v, 0)} |" for v in VERDICTS]
    lines += ["", "Per file: `numeric cpu s` is the numeric check's CPU time over all its "
              "specializations (the interpreter, both sides, every case and the shuffled "
              "runs, and the parsing of each compiled Tile IR; not the compiles), `wall s` "
              "the whole `verify --numeric` (structural check and compiles included) on the "
              "shared machine.", "",
              "| file | numeric verdicts | structural | specs | numeric cpu s | wall s | note |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        shown = Counter(n["verdict"] for n in row["numeric"])
        text = ", ".join(f"{v} {shown[v]}" for v in VERDICTS if shown.get(v))
        structural = Counter(row["structural"])
        lines.append(f"| {row['file']} | {text or '-'} | "
                     f"{', '.join(f'{k} {c}' for k, c in structural.items()) or '-'} | "
                     f"{len(row['numeric'])} | "
                     f"{sum(n['cpu_seconds'] for n in row['numeric']):.2f} | "
                     f"{row.get('wall_s', '-')} | {row['note'] or ''} |")
    lines += ["", "Every specialization that did not PASS, with its reason:", ""]
    for row in rows:
        for n in row["numeric"]:
            if n["verdict"] != "PASS":
                lines.append(f"- {row['file']} `{n['specialization']}`: {n['verdict']}: "
                             f"{(n['reason'] or '')[:300]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden", action="store_true")
    parser.add_argument("--tilegym", action="store_true")
    parser.add_argument("--stems", help="comma-separated file stems")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--out", default=str(RESULTS / "numeric"))
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows of --out's JSON and run only the other files")
    args = parser.parse_args(argv)
    stems = set(args.stems.split(",")) if args.stems else None
    both = not args.golden and not args.tilegym
    files = (golden_files(stems) if args.golden or both else []) + (
        tilegym_files(stems) if args.tilegym or both else [])
    start = time.perf_counter()
    saved = Path(args.out + ".json")
    rows: list[dict[str, Any]] = json.loads(saved.read_text()) if (
        args.resume and saved.is_file()) else []
    done = {r["file"] for r in rows}
    command = "python bench/numeric.py " + " ".join(argv if argv is not None else sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="numeric-bench-") as tmp:
        for label, source, rust in files:
            if label in done:
                continue
            row = run_file(label, source, rust, Path(tmp), args.timeout)
            rows.append(row)
            print(label, Counter(n["verdict"] for n in row["numeric"]) or row["note"],
                  flush=True)
            # Written after every file: an interrupted run keeps what it measured.
            rows.sort(key=lambda r: r["file"])
            saved.write_text(json.dumps(rows, indent=1) + "\n")
            Path(args.out + ".md").write_text(
                markdown(rows, command.strip(), time.perf_counter() - start))
    print(Path(args.out + ".md").read_text() if rows else "no files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
