"""Mutation testing of the whole check: meaning-changing edits of golden Rust translations,
and what the structural IR check, the numeric check and both together catch.

    .venv/bin/python bench/mutation.py [--per-operator N] [--stems vector_add,softmax_rows]
    .venv/bin/python bench/mutation.py --triton [--per-operator N] [--stems saxpy,matmul]

Takes the golden kernels (one specialization of each: with launch shapes from
tests/numeric_settings.py where it has them, else the first the host code launches, with its
shapes, as `verify --numeric` derives them: `numeric_check.host_settings`) and, per mutation
operator (`OPERATORS`: a regex and its replacement), one mutant per match (at most `--per-
operator` per file). A mutant the Rust toolchain rejects is stillborn and not counted.
Prints the score table and every survivor (the edit, file and line), to be read: truly
equivalent, or a hole in the check. `--triton` does the same for the Triton goldens
(`golden/triton/`, launch shapes from `tests/triton_specs/`, the first specialization of
each kernel): what the proof's numeric check (Triton's interpreter) and its TTIR facts
catch; there too a mutant whose checked entries' Tile IR is the golden's is equivalent and
not scored. """

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from golden_specs import GOLDEN_SPECS  # noqa: E402
from numeric_settings import NUMERIC_SETTINGS  # noqa: E402

from transpiler.driver import read_manifests  # noqa: E402
from transpiler.frontend.cutile_py import parse_source  # noqa: E402
from transpiler.ircheck.check import (  # noqa: E402
    check_pairs,
    compile_pairs,
    derive_specs,
    plain_manifests,
    select_manifest,
)
from transpiler.ircheck.spec import KernelSpec, load_spec_file  # noqa: E402
from transpiler.numeric_check.run import numeric_check  # noqa: E402
from transpiler.numeric_check.triton_proof import TritonOutcome, prove_triton  # noqa: E402

TRITON_GOLDEN = ROOT / "golden" / "triton"
TRITON_SPECS = ROOT / "tests" / "triton_specs"


@dataclass(frozen=True)
class Operator:
    name: str
    pattern: str
    replace: str


OPERATORS: tuple[Operator, ...] = (
    Operator("swap-operands", r"\b(\w+) ([-/]) (\w+)\b", r"\3 \2 \1"),
    Operator("arith-op +->-", r"(\w) \+ (\w)", r"\1 - \2"),
    Operator("arith-op *->+", r"(\w) \* (\w)", r"\1 + \2"),
    Operator("constant-float", r"\b(\d+\.\d+)f32\b", "FLOAT"),
    Operator("constant-int", r"\b([1-9]\d*)i32\b", "INT"),
    Operator("reduction sum->max", r"\breduce_sum\(", "reduce_max("),
    Operator("reduction max->min", r"\breduce_max\(", "reduce_min("),
    Operator("padding", r"padding::(Zero|NegInf)\b", "PADDING"),
    Operator("loop-bound", r"\bin (\w+)\.\.(\w+)", r"in \1..(\2 - 1i32)"),
    Operator("index-order", r"\[(\w+), (\w+)\]", r"[\2, \1]"),
    Operator("comparison", r"\blt_tile\(", "le_tile("),
    Operator("select-branches", r"select\(([^,()]+), ([^,()]+), ([^,()]+)\)",
             r"select(\1, \3, \2)"),
    Operator("rounding", r"rounding::(Approx|NearestEven)\b", "ROUNDING"),
    Operator("max->min", r"\bmax(i|f)\(", r"min\1("),
)

_SWAPS = {"PADDING": {"Zero": "padding::NegInf", "NegInf": "padding::Zero"},
          "ROUNDING": {"Approx": "rounding::NearestEven", "NearestEven": "rounding::Zero"}}


def _replacement(op: Operator, match: re.Match[str]) -> str:
    if op.replace == "FLOAT":
        return f"{float(match.group(1)) * 1.5!r}f32"
    if op.replace == "INT":
        return f"{int(match.group(1)) + 1}i32"
    if op.replace in _SWAPS:
        return _SWAPS[op.replace][match.group(1)]
    return match.expand(op.replace)


def checked_specs(manifests: dict[str, dict], stem: str) -> dict[str, list[KernelSpec]]:
    """One specialization per kernel: the first golden one of a kernel with numeric settings;
    else the first the host code launches (as `verify` derives it: its shapes and constants
    come from the same launch), else the first golden one."""
    kernels = {str(m["kernel"]) for m in manifests.values()}
    source = ROOT / "golden" / f"{stem}.py"
    derived = derive_specs(parse_source(source.read_text(), str(source)),
                           plain_manifests(manifests))
    specs: dict[str, list[KernelSpec]] = {}
    for spec in GOLDEN_SPECS[stem]:
        if spec.kernel in kernels and spec.kernel not in specs:
            host = derived.get(spec.kernel, [])
            specs[spec.kernel] = [spec if spec.kernel in NUMERIC_SETTINGS or not host
                                  else host[0]]
    return specs


def checked_spans(text: str, stem: str) -> list[tuple[int, int]]:
    """Where the entries of the checked kernels lie in the text (from their
    `fn` to the next entry attribute): the code the checks run."""
    spans = []
    manifests = read_manifests(text)
    for kernel, specs in checked_specs(manifests, stem).items():
        manifest = select_manifest(manifests, kernel, specs[0])
        if manifest is None:
            continue
        found = re.search(rf"\bfn {re.escape(str(manifest['entry']))}\b", text)
        if found is not None:
            end = text.find("#[cutile::entry", found.end())
            spans.append((found.start(), end if end >= 0 else len(text)))
    return spans


def mutants(text: str, stem: str, per_operator: int) -> list[tuple[str, int, str, str]]:
    """(operator, line, edit, mutated text) for each match in the checked entries."""
    return mutants_in(text, checked_spans(text, stem), per_operator)


def mutants_in(text: str, spans: list[tuple[int, int]], per_operator: int
               ) -> list[tuple[str, int, str, str]]:
    """(operator, line, edit, mutated text) for each match inside `spans`."""
    out = []
    for op in OPERATORS:
        count = 0
        for match in (m for a, b in spans
                      for m in re.finditer(op.pattern, text[:b]) if m.start() >= a):
            if count >= per_operator:
                break
            line_start = text.rfind("\n", 0, match.start()) + 1
            line = text[line_start:text.find("\n", match.start())]
            if line.strip().startswith("//"):
                continue
            new = _replacement(op, match)
            if new == match.group(0):
                continue
            a, b = match.start(), match.end()
            out.append((op.name, text.count("\n", 0, a) + 1, f"{match.group(0)} -> {new}",
                        text[:a] + new + text[b:]))
            count += 1
    return out


def _without_locations(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return re.sub(r"\s*loc\([^()]*(\([^()]*\))*[^()]*\)", "", "\n".join(lines))


def generated_ir(stem: str, text: str) -> list[str]:
    """The Rust side's Tile IR of the checked specializations, without locations."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        rust = Path(tmp) / f"{stem}.rs"
        rust.write_text(text)
        manifests = read_manifests(text)
        pairs = compile_pairs(ROOT / "golden" / f"{stem}.py", rust, manifests,
                              checked_specs(manifests, stem))
    return [_without_locations(p.generated_text) for p in pairs]


def run_mutant(stem: str, text: str, original: list[str] | None) -> tuple[str, bool, bool]:
    """('stillborn' | 'same-ir' | 'ok', structural caught, numeric caught). A mutant whose
    Tile IR is the original's (an edit of a type annotation the cuTile compiler does not
    read) is equivalent by construction and not scored. With `original` None, the text is
    the unmutated golden: its numeric verdict tells whether a FAIL of a mutant counts."""
    source = ROOT / "golden" / f"{stem}.py"
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        rust = Path(tmp) / f"{stem}.rs"
        rust.write_text(text)
        manifests = read_manifests(text)
        specs = checked_specs(manifests, stem)
        pairs = compile_pairs(source, rust, manifests, specs)
        if any(p.outcome is not None and not p.outcome.reference_rejected for p in pairs):
            return "stillborn", False, False
        if original is not None and [_without_locations(p.generated_text)
                                     for p in pairs] == original:
            return "same-ir", False, False
        structural = check_pairs(pairs)
        settings = {k: [(s, NUMERIC_SETTINGS[k]) for s in v] for k, v in specs.items()
                    if k in NUMERIC_SETTINGS}
        numeric = numeric_check(source, rust, manifests, pairs, settings)
    return ("ok", any(o.verdict == "FAIL" for o in structural),
            any(n.verdict == "FAIL" for n in numeric))


def score(rows: dict[str, list[int]], operator: str, first: bool, second: bool) -> bool:
    """Counts one scored mutant of `operator` (caught by the first check, the second);
    gives whether either caught it."""
    row = rows.setdefault(operator, [0, 0, 0, 0])
    row[0] += 1
    row[1] += first
    row[2] += second
    row[3] += first or second
    return first or second


def print_table(rows: dict[str, list[int]], columns: tuple[str, str, str]) -> list[int]:
    """The score table (per operator: mutants, caught by each check, by either); gives the
    totals."""
    total = [sum(r[i] for r in rows.values()) for i in range(4)]
    print(f"\n| operator | mutants | {' | '.join(columns)} |")
    print("| --- | --- | --- | --- | --- |")
    for name, counts in sorted(rows.items()):
        print(f"| {name} | {' | '.join(str(c) for c in counts)} |")
    print(f"| **all** | {' | '.join(str(c) for c in total)} |")
    return total


def first_triton_specs(stem: str, folder: Path) -> Path:
    """A spec file with the first specialization of each kernel of `stem`'s spec file."""
    data = json.loads((TRITON_SPECS / f"{stem}.json").read_text())
    out = folder / f"{stem}.first.json"
    out.write_text(json.dumps({k: entries[:1] for k, entries in data.items()}))
    return out


def triton_spans(text: str, spec_path: Path) -> list[tuple[int, int]]:
    """The entries the first specializations select, as `checked_spans` gives them."""
    manifests = read_manifests(text)
    spans = []
    for kernel, specs in load_spec_file(spec_path).items():
        manifest = select_manifest(manifests, kernel, specs[0])
        found = manifest and re.search(rf"\bfn {re.escape(str(manifest['entry']))}\b", text)
        if found:
            end = text.find("#[cutile::entry", found.end())
            spans.append((found.start(), end if end >= 0 else len(text)))
    return spans


def _tokens_as_sets(text: str) -> str:
    """`text` with every `join_tokens` operand list sorted: a token join waits for all of
    its operands, in no order (a mutant that only reorders one is equivalent)."""
    return re.sub(r"(join_tokens\s+)(%[\w.]+(?:\s*,\s*%[\w.]+)*)",
                  lambda m: m.group(1) + ", ".join(sorted(
                      v.strip() for v in m.group(2).split(","))), text)


def run_triton_mutant(stem: str, text: str, spec_path: Path,
                      original: dict[str, str] | None = None
                      ) -> tuple[str, bool, bool, dict[str, str]]:
    """('stillborn' | 'same-ir' | 'ok', numeric caught, facts caught, the checked entries'
    Tile IR per specialization, without locations) of one mutant. A mutant whose Tile IR
    is `original`'s (a swapped token join, a type annotation the compiler does not read)
    is equivalent by construction and not scored."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        rust = Path(tmp) / f"{stem}.rs"
        rust.write_text(text)
        kept = Path(tmp) / "ir"
        outcomes = [o for o in prove_triton(TRITON_GOLDEN / f"{stem}.py", rust,
                                            [str(spec_path)], keep_ir=kept)
                    if isinstance(o, TritonOutcome)]
        irs = {p.name: _tokens_as_sets(_without_locations(p.read_text())) for p in
               sorted(kept.glob("*.rust.tileir"))} if kept.is_dir() else {}
    if any("did not compile" in (o.reason or "") for o in outcomes):
        return "stillborn", False, False, irs
    if original is not None and irs and irs == original:
        return "same-ir", False, False, irs
    return ("ok", any(o.numeric in ("FAIL", "ERROR") for o in outcomes),
            any(o.facts is not None and o.facts.status == "FAIL" for o in outcomes), irs)


def main_triton(per_operator: int, stems: list[str]) -> int:
    stems = stems or sorted(p.stem for p in TRITON_SPECS.glob("*.json"))
    rows: dict[str, list[int]] = {}
    survivors: list[str] = []
    stillborn = 0
    same_ir: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutation-specs-") as folder:
        for stem in stems:
            spec_path = first_triton_specs(stem, Path(folder))
            text = (TRITON_GOLDEN / f"{stem}.rs").read_text()
            spans = triton_spans(text, spec_path)
            original = run_triton_mutant(stem, text, spec_path)[3]
            for operator, line, edit, mutated in mutants_in(text, spans, per_operator):
                status, numeric, facts, _ = run_triton_mutant(stem, mutated, spec_path,
                                                              original)
                if status == "stillborn":
                    stillborn += 1
                    continue
                if status == "same-ir":
                    same_ir.append(f"triton/{stem}.rs:{line}: {operator}: {edit}")
                    continue
                if not score(rows, operator, numeric, facts):
                    survivors.append(f"triton/{stem}.rs:{line}: {operator}: {edit}")
                print(f"triton/{stem}.rs:{line} {operator:<20} "
                      f"numeric={'caught' if numeric else '-':<7} "
                      f"ttir={'caught' if facts else '-'}", flush=True)
    total = print_table(rows, ("numeric (Triton's interpreter)", "TTIR facts", "either"))
    if total[0]:
        print(f"\ncaught {total[3]}/{total[0]} ({100 * total[3] / total[0]:.1f}%); "
              f"stillborn (rejected by the toolchain): {stillborn}; "
              f"equivalent (same Tile IR, not scored): {len(same_ir)}; "
              f"{time.perf_counter() - start:.0f} s")
    for equivalent in same_ir:
        print(f"  same Tile IR: {equivalent}")
    print("\nsurvivors:" if survivors else "\nno survivors")
    for survivor in survivors:
        print(f"  {survivor}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-operator", type=int, default=2)
    parser.add_argument("--stems", default="")
    parser.add_argument("--triton", action="store_true",
                        help="mutate the Triton goldens and run their proof")
    args = parser.parse_args()
    if args.triton:
        return main_triton(args.per_operator, [s for s in args.stems.split(",") if s])
    stems = [s for s in args.stems.split(",") if s] or sorted(
        stem for stem in GOLDEN_SPECS if (ROOT / "golden" / f"{stem}.rs").is_file())
    rows: dict[str, list[int]] = {}
    survivors: list[str] = []
    stillborn = 0
    same_ir: list[str] = []
    start = time.perf_counter()
    for stem in stems:
        text = (ROOT / "golden" / f"{stem}.rs").read_text()
        original = generated_ir(stem, text)
        _, _, baseline_fails = run_mutant(stem, text, None)
        if baseline_fails:
            print(f"{stem}: the unmutated translation FAILs the numeric check; its mutants "
                  "count for the structural check only", flush=True)
        for operator, line, edit, mutated in mutants(text, stem, args.per_operator):
            status, structural, numeric = run_mutant(stem, mutated, original)
            numeric = numeric and not baseline_fails
            if status == "stillborn":
                stillborn += 1
                continue
            if status == "same-ir":
                same_ir.append(f"{stem}.rs:{line}: {operator}: {edit}")
                continue
            if not score(rows, operator, structural, numeric):
                survivors.append(f"{stem}.rs:{line}: {operator}: {edit}")
            print(f"{stem}.rs:{line} {operator:<20} structural={'caught' if structural else '-':<7}"
                  f" numeric={'caught' if numeric else '-'}", flush=True)
    total = print_table(rows, ("structural", "numeric", "both"))
    if total[0]:
        print(f"\nscore (structural + numeric): {100 * total[3] / total[0]:.1f}%; "
              f"stillborn (rejected by the toolchain): {stillborn}; "
              f"equivalent (same Tile IR, not scored): {len(same_ir)}; "
              f"{time.perf_counter() - start:.0f} s")
    for equivalent in same_ir:
        print(f"  same Tile IR: {equivalent}")
    print("\nsurvivors:" if survivors else "\nno survivors")
    for survivor in survivors:
        print(f"  {survivor}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
