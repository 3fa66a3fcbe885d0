"""Translation speed and memory, measured as a user sees them (fresh processes).

Takes nothing; prints, as medians over several runs: the wall time of one cold
`python -m transpiler FILE -o OUT` on a golden file, of the whole golden folder in one call, the
time per file in that call, and the peak resident memory of the single-file call (from
`getrusage` of the child). Targets for format-on-save use: under 0.3 s cold for one file and
under 150 MB peak. Usage: python bench/speed.py [--runs N] [--file golden/X.py]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(args: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one translator process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "transpiler", *args, "--quiet", "--no-llm"],
                   env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the maximum over all waited-for children: measure the
    # single-file runs first, so it is theirs.
    return wall, max(peak, before) / 1024.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--file", default=str(ROOT / "golden" / "softmax_rows.py"))
    args = parser.parse_args()
    golden = ROOT / "golden"
    with tempfile.TemporaryDirectory() as tmp:
        singles = [run_once([args.file, "-o", str(Path(tmp) / "one.rs")])
                   for _ in range(args.runs)]
        count = len(list(golden.glob("*.py")))
        folders = [run_once([str(golden), "-o", str(Path(tmp) / "all")])[0]
                   for _ in range(max(3, args.runs // 2))]
    single_wall = statistics.median(w for w, _ in singles)
    single_peak = max(p for _, p in singles)
    folder_wall = statistics.median(folders)
    print(f"one file, cold ({Path(args.file).name}): median {single_wall:.3f} s "
          f"(target < 0.300 s) over {len(singles)} runs")
    print(f"peak memory, one file: {single_peak:.1f} MB (target < 150 MB)")
    print(f"golden folder ({count} files) in one call: median {folder_wall:.3f} s, "
          f"{folder_wall / count * 1000:.1f} ms per file")


if __name__ == "__main__":
    main()
