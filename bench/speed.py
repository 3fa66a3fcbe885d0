"""Translation speed and memory, measured as a user sees them (fresh processes).

Takes nothing; prints, as medians over several runs: the wall time of one cold
`python -m transpiler FILE -o OUT` on a golden file, of the whole golden folder in one call, the
time per file in that call, and the peak resident memory of the single-file call (from
`getrusage` of the child). Targets for format-on-save use: under 0.3 s cold for one file and
under 150 MB peak.

`--corpus` also times the TileGym 1.5.1 op files (`bench/corpus.py` fetches the wheel into the
git-ignored `.cache/tilegym/`): one cold CLI call per file for the files in `CORPUS_TARGETS`,
and the sum over all op files (the corpus benchmark's figure), each against its target.
`--baseline REV` runs every measurement on the code of commit REV too (a temporary
`git worktree`, removed afterwards), alternating old and new run by run so that both see the
same machine load, and prints new/old ratios. Times are wall seconds; the CPU seconds of the
child (user + system) are printed beside them, as they vary less on a shared machine.

`--batch` times instead one folder translation with `--verify` of the TileGym op folder
(`tilegym/ops/cutile`, as a user runs it: `python -m transpiler DIR -o OUT --verify -j N
--quiet`) with `-j 1` and with `-j 2` (`--jobs 1 2 4` for others), alternating run by run,
and prints each wall and CPU time, the speed-up over `-j 1`, the cores and the load average
(`/proc/loadavg`) before and after each run. On a loaded machine the speed-up is smaller
than the cores allow, and where the kernel shares the CPU per session (autogroup) it can be
none at all; so the same is first measured on a control (a fixed pure-Python loop, in
1 and in N processes): the speed-up the machine gives N processes at that moment.
`--only NAME...` keeps those op files (and the folder's files without kernels, which they
import) in a copy of the folder, for a quicker run.

Usage: python bench/speed.py [--runs N] [--file golden/X.py] [--corpus] [--baseline REV]
       python bench/speed.py --batch [--jobs 1 2] [--runs N] [--only rms_norm.py ...]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus import OPS_DIR, CorpusUnavailable, fetch_wheel, kernel_names, op_files, unpack
from transpiler.batch import default_workers

ROOT = Path(__file__).resolve().parent.parent

#: TileGym 1.5.1 op files timed one by one, with the target (seconds, one cold CLI call).
CORPUS_TARGETS = {
    "attention_variant.py": 1.5,
    "attention.py": 0.8,
    "rms_norm.py": 0.5,
    "softmax.py": 0.4,
}
#: Target for the sum over all op files, one cold CLI call each (seconds).
CORPUS_SUM_TARGET = 12.0
SINGLE_TARGET_S = 0.3
PEAK_TARGET_MB = 150.0


@dataclass
class Sample:
    """One translator process: wall seconds, CPU seconds (user + system), peak RSS (MB)."""

    wall: float
    cpu: float
    peak_mb: float


@dataclass
class Series:
    """The samples of one measurement on one code tree."""

    samples: list[Sample] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def peak_mb(self) -> float:
        return max(s.peak_mb for s in self.samples)


def run_once(args: list[str], code: Path = ROOT) -> Sample:
    """One translator process running the code under `code`."""
    env = dict(os.environ, PYTHONPATH=str(code))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "transpiler", *args, "--quiet", "--no-llm"],
                   env=env, cwd=code, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the maximum over all waited-for children: measure the
    # single-file runs first, so it is theirs.
    return Sample(wall, cpu, max(after.ru_maxrss, before.ru_maxrss) / 1024.0)


def summed(samples: list[Sample]) -> Sample:
    """One sample standing for several processes run one after the other."""
    return Sample(sum(s.wall for s in samples), sum(s.cpu for s in samples),
                  max(s.peak_mb for s in samples))


@contextlib.contextmanager
def baseline_tree(rev: str | None) -> Iterator[Path | None]:
    """A temporary `git worktree` of `rev` (None: no baseline)."""
    if rev is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="speed-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                        str(tree), rev], check=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=False)


def measure(trees: dict[str, Path], runs: int, args_for: dict[str, list[list[str]]]
            ) -> dict[str, dict[str, Series]]:
    """measurement -> tree label -> series. Each run round goes through every tree in turn
    (old, new, old, new, ...), so that load on the machine falls on both alike; a measurement
    of several argument lists is one sample per round, their sum."""
    out = {name: {label: Series() for label in trees} for name in args_for}
    for name, arg_lists in args_for.items():
        for _ in range(runs):
            for label, code in trees.items():
                out[name][label].samples.append(
                    summed([run_once(args, code) for args in arg_lists]))
    return out


def corpus_files() -> list[Path]:
    """The TileGym op files (fetched and unpacked by `bench.corpus`)."""
    return op_files(unpack(fetch_wheel()))


@dataclass
class BatchRun:
    """One timed batch: its sample and the 1-minute load average before and after."""

    jobs: int
    sample: Sample
    load_before: float
    load_after: float


def load_average() -> float:
    return os.getloadavg()[0]


def batch_folder(only: list[str] | None, tmp: Path) -> Path:
    """The TileGym op folder, or a copy of it holding only the op files `only` names (and
    every file without kernels: the helpers and `__init__.py`s they import)."""
    root = unpack(fetch_wheel())
    ops = root / OPS_DIR
    if not only:
        return ops
    kept = {f for f in op_files(root) if f.name in only}
    missing = set(only) - {f.name for f in kept}
    if missing:
        raise SystemExit(f"not TileGym op files: {', '.join(sorted(missing))}")
    copy = tmp / OPS_DIR
    for path in sorted(ops.rglob("*.py")):
        if path in kept or not kernel_names(path):
            target = copy / path.relative_to(ops)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return copy


def time_batches(folder: Path, jobs: list[int], runs: int, out: Path) -> list[BatchRun]:
    """`--verify` of `folder` once per run and per `-j` value, alternating the values."""
    done: list[BatchRun] = []
    for _ in range(runs):
        for count in jobs:
            before = load_average()
            sample = run_once([str(folder), "-o", str(out / f"j{count}"), "--verify",
                               "-j", str(count)])
            done.append(BatchRun(count, sample, before, load_average()))
    return done


CONTROL_LOOP = 6_000_000


def spin(count: int) -> int:
    """CPU work without I/O or memory traffic: the control's task."""
    total = 0
    for i in range(count):
        total ^= i * i
    return total


def control_speedup(workers: int, tasks: int = 4) -> float:
    """How much faster `workers` processes run `tasks` equal CPU-bound tasks than one."""
    start = time.perf_counter()
    for _ in range(tasks):
        spin(CONTROL_LOOP)
    alone = time.perf_counter() - start
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(spin, [CONTROL_LOOP] * tasks))
    return alone / (time.perf_counter() - start)


def print_batches(folder: Path, runs: list[BatchRun]) -> None:
    files = sum(1 for path in folder.rglob("*.py") if kernel_names(path))
    print(f"--verify of {folder} ({files} files with kernels), {default_workers()} cores:")
    by_jobs: dict[int, list[BatchRun]] = {}
    for run in runs:
        by_jobs.setdefault(run.jobs, []).append(run)
        print(f"  -j {run.jobs}: wall {run.sample.wall:8.1f} s, cpu {run.sample.cpu:8.1f} s, "
              f"load {run.load_before:.2f} -> {run.load_after:.2f}")
    base = statistics.median(r.sample.wall for r in by_jobs[min(by_jobs)])
    for count, mine in sorted(by_jobs.items()):
        wall = statistics.median(r.sample.wall for r in mine)
        print(f"  median -j {count}: {wall:8.1f} s, speed-up over -j {min(by_jobs)}: "
              f"{base / wall:5.2f}x")


def _row(name: str, by_tree: dict[str, Series], target: float | None) -> str:
    new = by_tree["new"]
    text = f"{name:<28} new {new.wall:7.3f} s (cpu {new.cpu:6.3f} s)"
    old = by_tree.get("old")
    if old is not None:
        text += (f" | old {old.wall:7.3f} s (cpu {old.cpu:6.3f} s)"
                 f" | new/old wall {new.wall / old.wall:5.2f}, cpu {new.cpu / old.cpu:5.2f}")
    if target is not None:
        verdict = "met" if new.wall < target else "NOT met"
        text += f" | target < {target:.3f} s {verdict}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int,
                        help="runs per measurement (default 7; with --batch 1)")
    parser.add_argument("--file", default=str(ROOT / "golden" / "softmax_rows.py"))
    parser.add_argument("--corpus", action="store_true",
                        help="also time the TileGym 1.5.1 op files")
    parser.add_argument("--baseline", metavar="REV",
                        help="time the code of commit REV too, side by side")
    parser.add_argument("--batch", action="store_true",
                        help="time --verify of the TileGym op folder with -j 1 and -j 2")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2],
                        help="with --batch, the -j values (default 1 2)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="with --batch, only these op files")
    args = parser.parse_args()
    if args.batch:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                folder = batch_folder(args.only, Path(tmp))
            except CorpusUnavailable as err:
                raise SystemExit(f"corpus not timed: {err}") from None
            control = {n: control_speedup(n) for n in args.jobs if n > 1}
            runs = time_batches(folder, args.jobs, args.runs or 1, Path(tmp) / "out")
            print_batches(folder, runs)
            for count, speedup in control.items():
                print(f"  control: {count} processes run a CPU-bound loop {speedup:.2f}x "
                      f"as fast as 1 on this machine now (the ceiling of -j {count} here)")
        return
    args.runs = args.runs or 7
    golden = ROOT / "golden"
    count = len(list(golden.glob("*.py")))
    with tempfile.TemporaryDirectory() as tmp, baseline_tree(args.baseline) as old:
        trees = {"new": ROOT} if old is None else {"old": old, "new": ROOT}
        out = Path(tmp)
        single = measure(trees, args.runs, {
            "one": [[str(Path(args.file).resolve()), "-o", str(out / "one.rs")]]})["one"]
        folder = measure(trees, max(3, args.runs // 2), {
            "folder": [[str(golden), "-o", str(out / "all")]]})["folder"]
        corpus: dict[str, dict[str, Series]] = {}
        files: list[Path] = []
        if args.corpus:
            try:
                files = corpus_files()
            except CorpusUnavailable as err:
                print(f"corpus not timed: {err}")
            named = {f.name: f for f in files}
            one_each = {name: [[str(named[name]), "-o", str(out / "c.rs")]]
                        for name in CORPUS_TARGETS if name in named}
            if files:
                one_each["all op files, sum"] = [[str(f), "-o", str(out / "c.rs")]
                                                 for f in files]
            corpus = measure(trees, min(args.runs, 3), one_each)
    print(f"one file, cold ({Path(args.file).name}), median over {args.runs} runs:")
    print("  " + _row(Path(args.file).name, single, SINGLE_TARGET_S))
    print(f"peak memory, one file: new {single['new'].peak_mb:.1f} MB"
          + (f", old {single['old'].peak_mb:.1f} MB" if "old" in single else "")
          + f" (target < {PEAK_TARGET_MB:.0f} MB)")
    print(f"golden folder ({count} files) in one call:")
    print("  " + _row("golden folder", folder, None)
          + f" ({folder['new'].wall / count * 1000:.1f} ms per file)")
    if corpus:
        print("TileGym 1.5.1, one cold CLI call per file, median over "
              f"{min(args.runs, 3)} runs:")
        for name, by_tree in corpus.items():
            target = CORPUS_TARGETS.get(name, CORPUS_SUM_TARGET)
            label = f"{name} ({len(files)})" if name.endswith("sum") else name
            print("  " + _row(label, by_tree, target))


if __name__ == "__main__":
    main()
