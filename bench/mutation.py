"""Mutation testing of the whole check: meaning-changing edits of golden Rust translations,
and what the structural IR check, the numeric check and both together catch.

    .venv/bin/python bench/mutation.py [--per-operator N] [--stems vector_add,softmax_rows]

Takes the golden kernels that have `numeric` settings (tests/numeric_settings.py) and, per
mutation operator (`OPERATORS`: a regex and its replacement), one mutant per match (at most
`--per-operator` per file). A mutant the Rust toolchain rejects is stillborn and not counted.
Prints the score table and every survivor (the edit, file and line), to be read: truly
equivalent, or a hole in the check.
"""

from __future__ import annotations

import argparse
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
from transpiler.ircheck.check import check_pairs, compile_pairs, select_manifest  # noqa: E402
from transpiler.ircheck.spec import KernelSpec  # noqa: E402
from transpiler.numeric_check.run import numeric_check  # noqa: E402


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
    """The first golden specialization of each kernel with numeric settings."""
    kernels = {str(m["kernel"]) for m in manifests.values()}
    specs: dict[str, list[KernelSpec]] = {}
    for spec in GOLDEN_SPECS[stem]:
        if spec.kernel in NUMERIC_SETTINGS and spec.kernel in kernels and (
                spec.kernel not in specs):
            specs[spec.kernel] = [spec]
    return specs


def checked_spans(text: str, stem: str) -> list[tuple[int, int]]:
    """Where the entries of the kernels with numeric settings lie in the text (from their
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
    out = []
    for op in OPERATORS:
        count = 0
        for match in (m for a, b in checked_spans(text, stem)
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


def run_mutant(stem: str, text: str, original: list[str]) -> tuple[str, bool, bool]:
    """('stillborn' | 'same-ir' | 'ok', structural caught, numeric caught). A mutant whose
    Tile IR is the original's (an edit of a type annotation the cuTile compiler does not
    read) is equivalent by construction and not scored."""
    source = ROOT / "golden" / f"{stem}.py"
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        rust = Path(tmp) / f"{stem}.rs"
        rust.write_text(text)
        manifests = read_manifests(text)
        specs = checked_specs(manifests, stem)
        pairs = compile_pairs(source, rust, manifests, specs)
        if any(p.outcome is not None and not p.outcome.reference_rejected for p in pairs):
            return "stillborn", False, False
        if [_without_locations(p.generated_text) for p in pairs] == original:
            return "same-ir", False, False
        structural = check_pairs(pairs)
        settings = {k: [(s, NUMERIC_SETTINGS[k]) for s in v] for k, v in specs.items()}
        numeric = numeric_check(source, rust, manifests, pairs, settings)
    return ("ok", any(o.verdict == "FAIL" for o in structural),
            any(n.verdict == "FAIL" for n in numeric))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-operator", type=int, default=2)
    parser.add_argument("--stems", default="")
    args = parser.parse_args()
    stems = [s for s in args.stems.split(",") if s] or sorted(
        stem for stem, specs in GOLDEN_SPECS.items()
        if any(s.kernel in NUMERIC_SETTINGS for s in specs))
    rows: dict[str, list[int]] = {}
    survivors: list[str] = []
    stillborn = 0
    same_ir: list[str] = []
    start = time.perf_counter()
    for stem in stems:
        text = (ROOT / "golden" / f"{stem}.rs").read_text()
        original = generated_ir(stem, text)
        for operator, line, edit, mutated in mutants(text, stem, args.per_operator):
            status, structural, numeric = run_mutant(stem, mutated, original)
            if status == "stillborn":
                stillborn += 1
                continue
            if status == "same-ir":
                same_ir.append(f"{stem}.rs:{line}: {operator}: {edit}")
                continue
            row = rows.setdefault(operator, [0, 0, 0, 0])
            row[0] += 1
            row[1] += structural
            row[2] += numeric
            row[3] += structural or numeric
            if not (structural or numeric):
                survivors.append(f"{stem}.rs:{line}: {operator}: {edit}")
            print(f"{stem}.rs:{line} {operator:<20} structural={'caught' if structural else '-':<7}"
                  f" numeric={'caught' if numeric else '-'}", flush=True)
    total = [sum(r[i] for r in rows.values()) for i in range(4)]
    print("\n| operator | mutants | structural | numeric | both |")
    print("| --- | --- | --- | --- | --- |")
    for name, (n, s, m, b) in sorted(rows.items()):
        print(f"| {name} | {n} | {s} | {m} | {b} |")
    print(f"| **all** | {total[0]} | {total[1]} | {total[2]} | {total[3]} |")
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
