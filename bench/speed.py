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

Usage: python bench/speed.py [--runs N] [--file golden/X.py] [--corpus] [--baseline REV]
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
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus import CorpusUnavailable, fetch_wheel, op_files, unpack

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
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--file", default=str(ROOT / "golden" / "softmax_rows.py"))
    parser.add_argument("--corpus", action="store_true",
                        help="also time the TileGym 1.5.1 op files")
    parser.add_argument("--baseline", metavar="REV",
                        help="time the code of commit REV too, side by side")
    args = parser.parse_args()
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
