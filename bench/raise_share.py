"""Share of Triton memory accesses raised to tensor views, per file, and why the rest are not.

Translates each Triton file (the goldens, and Triton's tutorials where they translate),
reads the per-access notes of the raising pass from each kernel's manifest (one per access,
counted once per kernel even when the kernel has several entries) and prints a table: per
file the accesses raised to views and those kept as pointer tiles, then the totals and the
reasons. With `--sass` (needs `bench.sass_parity`'s offline toolchain) it also compiles the
goldens' raised and `--no-raise` translations to sm_90 SASS and prints both instruction counts.

    .venv/bin/python -m bench.raise_share [--tutorials DIR] [--sass [--only STEM ...]]
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import tempfile
import time
from pathlib import Path

from bench import sass_parity
from transpiler.analysis import evaluate_condition
from transpiler.driver import TranslationResult, read_manifests, translate_bytes
from transpiler.ircheck import generated
from transpiler.lowering.raise_pointers import POINTER, RAISED

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "triton"
# The shared corpus beside the checkout (or beside the folder of checkouts).
TUTORIALS = next((p / "shared" / "corpora" / "triton-tutorials" for p in ROOT.parents
                  if (p / "shared" / "corpora" / "triton-tutorials").is_dir()),
                 ROOT.parent / "shared" / "corpora" / "triton-tutorials")
_PLACE = re.compile(r" at line \d+")


def access_notes(result: TranslationResult) -> list[str]:
    """The raising notes of every translated kernel, each access once."""
    notes: list[str] = []
    for kernel in result.kernels:
        seen: dict[str, None] = {}
        for variant in kernel.variants:
            for note in variant.get("notes", []):  # type: ignore[union-attr]
                if RAISED in note or POINTER in note:
                    seen.setdefault(f"{kernel.name}: {note}")
        notes.extend(seen)
    return notes


def share_table(files: list[Path]) -> tuple[list[str], collections.Counter[str]]:
    rows = ["| file | kernels | accesses | raised | pointer tiles |",
            "| --- | --- | --- | --- | --- |"]
    totals: collections.Counter[str] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    for path in files:
        # the general entries (a JIT fact entry repeats their accesses under facts)
        result = translate_bytes(path.read_bytes(), str(path), jit_facts=False)
        if not result.ok:
            rows.append(f"| {path.name} | diagnostic | - | - | - |")
            totals["failed files"] += 1
            continue
        notes = access_notes(result)
        raised = sum(RAISED in n for n in notes)
        for note in notes:
            if POINTER in note:
                reasons[_PLACE.sub("", note.split(f"{POINTER}: ", 1)[1])] += 1
        totals["accesses"] += len(notes)
        totals["raised"] += raised
        rows.append(f"| {path.name} | {len(result.kernels)} | {len(notes)} | {raised} | "
                    f"{len(notes) - raised} |")
    share = totals["raised"] / totals["accesses"] if totals["accesses"] else 0.0
    rows.append(f"| **total** | | {totals['accesses']} | {totals['raised']} "
                f"({share:.0%}) | {totals['accesses'] - totals['raised']} |")
    return rows, reasons


def sass_counts(files: list[Path]) -> list[str]:
    """Per golden entry: SASS instructions of the raised and the `--no-raise` translation."""
    toolchain = sass_parity.ensure_toolchain()
    rows = ["| file | entry | raised | pointer tiles | change |",
            "| --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory(prefix="raise-sass-") as tmp:
        for path in files:
            counts = []
            for flag in (True, False):
                rust = translate_bytes(path.read_bytes(), str(path), raise_pointers=flag,
                                       jit_facts=False).rust
                rs = Path(tmp) / f"{path.stem}_{flag}.rs"
                rs.write_text(rust or "", encoding="utf-8")
                requests = [{"entry": e, "generics": _generics(m)}
                            for e, m in read_manifests(rust or "").items()]
                results = generated.compile_rust_kernels(rs, requests,
                                                         out_dir=Path(tmp) / rs.stem)
                counts.append({r.request["entry"]: sass_parity.sass_stats(
                    r.bytecode.read_bytes(), toolchain).instructions  # type: ignore[union-attr]
                    for r in results if r.ok})
            for entry in counts[0]:
                if entry in counts[1]:
                    a, b = counts[0][entry], counts[1][entry]
                    rows.append(f"| {path.name} | {entry} | {a} | {b} | {a - b:+d} |")
    return rows


def _generics(manifest: dict[str, object]) -> list[str]:
    """A launch's generic values: f32 for element types, 64 for ints, true for bools, the
    derived ones computed from them."""
    values: dict[str, object] = {}
    out: list[str] = []
    for generic in manifest["generics"]:  # type: ignore[union-attr]
        if generic["kind"] == "type":
            out.append("f32")
            continue
        value = evaluate_condition(generic["tree"], values) if "tree" in generic else (
            True if generic["kind"] == "bool" else 64)
        values[generic["name"]] = value
        out.append(str(value).lower())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tutorials", type=Path, default=TUTORIALS,
                        help="folder of Triton's tutorials (default: the shared corpus)")
    parser.add_argument("--sass", action="store_true",
                        help="also compare SASS instruction counts of the goldens' two paths")
    parser.add_argument("--only", nargs="*", default=[], metavar="STEM",
                        help="with --sass, only these goldens (file stems)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    files = sorted(GOLDEN.glob("*.py"))
    if args.tutorials.is_dir():
        files += sorted(args.tutorials.glob("*.py"))
    rows, reasons = share_table(files)
    print("\n".join(rows))
    print("\nwhy accesses stay pointer tiles:")
    for reason, count in reasons.most_common():
        print(f"  {count:3d}  {reason}")
    if args.sass:
        print()
        goldens = [p for p in sorted(GOLDEN.glob("*.py")) if not args.only or p.stem in args.only]
        print("\n".join(sass_counts(goldens)))
    print(f"\n({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
