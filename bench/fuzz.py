"""Differential fuzzing campaign: random kernels through translation and proof.

    .venv/bin/python -m bench.fuzz --seed S --count N [--lang cutile|triton] [--size K]
        [-j N] [--save-cases DIR] [--no-minimize] [--no-numeric] [--json FILE]

Takes a seed, a count and a size; generates that many kernels (`bench/fuzzgen/`), and for
each: asks the language's own compiler whether it accepts the kernel (cuTile Python's
`export_kernel` to Tile IR; Triton's CPU compile to TTIR) and discards it, uncounted, when
not; translates it in process (twice: the Rust must be the same both times); and verifies a
translation structurally and numerically through `--verify --numeric`'s path
(`numeric_check.translation.verify_file`; for Triton, the translation compiled by the harness
and checked against the TTIR facts). Each kernel gets one class (`CLASSES`). Prints the table
of counts and times, per class and per feature. Every crash and FAIL is minimized by delta
debugging over the source (statements removed, expressions replaced by a sub-expression,
while the class stays the same) and, with `--save-cases`, saved as a regression case
(`tests/fuzz_cases/<id>.py` and `<id>.json`, replayed by `tests/test_fuzz_cases.py`).
"""

from __future__ import annotations

import argparse
import ast
import json
import multiprocessing
import re
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.fuzzgen import cutile as cutile_gen
from bench.fuzzgen import triton as triton_gen
from bench.fuzzgen.common import GeneratedKernel
from transpiler.driver import translate_bytes
from transpiler.ircheck.reference import ReferenceIrError, reference_bytecode
from transpiler.ircheck.spec import load_spec_file

#: Each kernel's class, in the order the table prints them.
CLASSES: dict[str, str] = {
    "proven": "translated, and every check PASS / PASS_WITH_NOTES",
    "translated": "translated; the proof was not asked for (--no-verify)",
    "diagnostic": "a diagnostic (by code)",
    "crash": "the translator raised, or reported an internal error (E9000)",
    "nondeterministic": "two translations of the same text differ",
    "fail": "a check FAIL: a difference between the two sides",
    "error": "the proof could not run (ERROR, CANNOT_RUN, NOT_CHECKED, or it raised)",
}
GENERATORS: dict[str, Callable[..., GeneratedKernel]] = {
    "cutile": cutile_gen.generate, "triton": triton_gen.generate,
}


@dataclass
class Outcome:
    """What one kernel came to: its class, a detail (diagnostic code, first failing line,
    exception) and the seconds each phase took."""

    klass: str
    detail: str = ""
    text: str = ""
    times: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """What minimization keeps: the class and, for crashes, diagnostics and what could
        not run, the detail; for a FAIL, what differs with its numbers left out (a smaller
        kernel computes other values, but must fail the same way: not, say, by losing the
        store that made the difference visible)."""
        if self.klass in ("crash", "diagnostic"):
            return f"{self.klass}:{self.detail}"
        if self.klass == "error":  # what could not run, without the specialization's label
            return f"error:{self.detail.split(']: ', 1)[-1][:40]}"
        if self.klass == "fail":
            return "fail:" + re.sub(r"-?\d[\d.e+-]*", "#", self.detail)[:40]
        return self.klass


@dataclass
class Checker:
    """Runs one source text through acceptance, translation and proof."""

    language: str
    verify: bool = True
    numeric: bool = True
    # False: the proof checks the spec file's specialization only, not the others that
    # coverage derives from the host code and the manifests (each costs a full check).
    derived_specs: bool = False

    def accepted(self, path: Path, spec_path: Path) -> str | None:
        """None when the language's compiler accepts the kernel, else why not."""
        if self.language == "triton":
            return triton_gen.rejected(path, spec_path)
        try:
            for specs in load_spec_file(spec_path).values():
                for spec in specs:
                    reference_bytecode(path, spec)
        except ReferenceIrError as err:
            return str(err).splitlines()[0][:200]
        except SyntaxError as err:
            return f"SyntaxError: {err.msg}"
        return None

    def run(self, source: str, spec: dict[str, object], folder: Path,
            name: str = "kernel") -> Outcome:
        """The outcome; `rejected` when the language itself rejects the kernel (asked of
        its compiler when the translation fails; a proof's own reference compile says it
        otherwise)."""
        path = folder / f"{name}.py"
        spec_path = folder / f"{name}.json"
        path.write_text(source, encoding="utf-8")
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        outcome = self.translate(path, source)
        if outcome.klass != "translated" or not self.verify:
            start = time.perf_counter()
            why = self.accepted(path, spec_path)
            outcome.times["accept"] = time.perf_counter() - start
            return Outcome("rejected", why, "", outcome.times) if why is not None else outcome
        start = time.perf_counter()
        proof = self.prove(path, spec_path, source, outcome.text)
        proof.times = {**outcome.times, "verify": time.perf_counter() - start}
        if proof.klass in ("fail", "error") and self.language == "triton":
            # The Triton proof runs Triton's interpreter, which checks less than its
            # compiler (a loop-carried variable that changes type): a kernel the compiler
            # rejects is discarded, not counted against the translation.
            start = time.perf_counter()
            why = self.accepted(path, spec_path)
            proof.times["accept"] = time.perf_counter() - start
            if why is not None:
                return Outcome("rejected", why, "", proof.times)
        return proof

    def translate(self, path: Path, source: str) -> Outcome:
        """`translated` (the Rust in `text`) or what went wrong, translating twice."""
        start = time.perf_counter()
        try:
            first = translate_bytes(source.encode(), str(path))
            second = translate_bytes(source.encode(), str(path))
        except Exception as err:  # noqa: BLE001 - a translator exception is what we look for
            return Outcome("crash", type(err).__name__, traceback.format_exc())
        times = {"translate": time.perf_counter() - start}
        diagnostics = first.all_diagnostics()
        if not first.ok:
            code = diagnostics[0].code if diagnostics else "none"
            message = diagnostics[0].message if diagnostics else "failed without a diagnostic"
            if code == "E9000" or not diagnostics:
                return Outcome("crash", message.split(":", 2)[1].strip(), message, times)
            return Outcome("diagnostic", code, message, times)
        if first.rust != second.rust:
            return Outcome("nondeterministic", "", "", times)
        return Outcome("translated", "", first.rust or "", times)

    def prove(self, path: Path, spec_path: Path, source: str, rust: str) -> Outcome:
        if self.language == "triton":
            return Outcome(*triton_gen.prove(path, spec_path, rust))
        # Imported here: the numeric check loads numpy and the Tile IR interpreter, which a
        # translation-only campaign (--no-verify) never needs.
        from transpiler.numeric_check.translation import verify_file

        try:
            outcomes = verify_file(str(path), source, rust, [str(spec_path)], None,
                                   numeric=self.numeric, derived=self.derived_specs)
        except Exception as err:  # noqa: BLE001 - a proof that raises cannot run
            return Outcome("error", type(err).__name__, traceback.format_exc())
        lines = [o.line() for o in outcomes]
        if any(getattr(getattr(o, "structural", o), "reference_rejected", False)
               for o in outcomes):
            return Outcome("rejected", "cuTile Python rejects the specialization",
                           "\n".join(lines))
        # NOT_CHECKED: entries or constant values only derived specializations reach.
        wanted = ("FAIL", "ERROR", "CANNOT_RUN") if not self.derived_specs else (
            "FAIL", "ERROR", "CANNOT_RUN", "NOT_CHECKED")
        for verdict in wanted:
            hits = [o for o in outcomes if o.verdict == verdict]
            if hits:
                klass = "fail" if verdict == "FAIL" else "error"
                found = hits[0].line().splitlines()
                detail = next((line for line in found if verdict in line), found[0])[:160]
                return Outcome(klass, detail, "\n".join(lines) + "\n" + hits[0].text)
        if not any(o.verdict in ("PASS", "PASS_WITH_NOTES") for o in outcomes):
            return Outcome("error", "no specialization checked", "")
        return Outcome("proven", "", "\n".join(lines))


# --- delta debugging ------------------------------------------------------------------


def _device_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of the decorated functions (kernels and helpers), in walk order. Host
    functions are left whole: they name the launch's element types and constants, which a
    smaller kernel must keep (the translation reads them)."""
    return [node for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
            and fn.decorator_list for node in ast.walk(fn)]


def _statement_lists(tree: ast.AST) -> list[list[ast.stmt]]:
    out: list[list[ast.stmt]] = []
    for node in _device_nodes(tree):
        for attr in ("body", "orelse"):
            block = getattr(node, attr, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append(block)
    return out


def _statement_removals(source: str) -> list[str]:
    """Each variant of `source` with one statement fewer (a block keeps at least one)."""
    tree = ast.parse(source)
    out: list[str] = []
    for b, block in enumerate(_statement_lists(tree)):
        for i in range(len(block)):
            if len(block) == 1:
                continue
            copy = ast.parse(source)
            target = _statement_lists(copy)[b]
            del target[i]
            out.append(ast.unparse(copy))
    return out


def _expression_simplifications(source: str) -> list[str]:
    """Each variant of `source` with one call or operation replaced by one of its operands."""
    tree = ast.parse(source)
    nodes = [n for n in _device_nodes(tree) if isinstance(
        n, ast.Call | ast.BinOp | ast.UnaryOp | ast.Compare | ast.Attribute)]
    out: list[str] = []
    for index in range(len(nodes)):
        node = nodes[index]
        for child in _operands(node):
            copy = ast.parse(source)
            twin = [n for n in _device_nodes(copy) if isinstance(
                n, ast.Call | ast.BinOp | ast.UnaryOp | ast.Compare | ast.Attribute)][index]
            replacement = _operands(twin)[_operands(node).index(child)]
            if _replace(copy, twin, replacement):
                out.append(ast.unparse(copy))
    return out


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Call):
        return [a for a in node.args if not isinstance(a, ast.Tuple | ast.Constant)]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
        return [node.value]  # `x.astype(...)`: the call's receiver
    return []


def _replace(tree: ast.AST, old: ast.AST, new: ast.expr) -> bool:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return True
    return False


def minimize(source: str, keeps: Callable[[str], bool], budget: int = 80) -> str:
    """The smallest variant of `source` found for which `keeps` holds, greedily: remove
    statements, then simplify expressions, until nothing more can go or `budget` tries
    are spent."""
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for variants in (_statement_removals, _expression_simplifications):
            for variant in variants(source):
                if tries >= budget:
                    break
                tries += 1
                if len(variant) < len(source) and keeps(variant):
                    source, changed = variant, True
                    break
            if changed:
                break
    return source


# --- the campaign ---------------------------------------------------------------------


@dataclass
class Campaign:
    outcomes: list[tuple[GeneratedKernel, Outcome]] = field(default_factory=list)
    discarded: Counter[str] = field(default_factory=Counter)  # why -> kernels
    seconds: float = 0.0
    minimized: list[tuple[GeneratedKernel, Outcome, str]] = field(default_factory=list)


@dataclass(frozen=True)
class KernelJob:
    """What a worker needs to check one generated kernel."""

    lang: str
    seed: int
    index: int
    size: int
    verify: bool
    numeric: bool
    minimize: bool
    budget: int


@dataclass
class KernelResult:
    kernel: GeneratedKernel
    outcome: Outcome
    small: str | None  # the minimized source of a crash / FAIL / nondeterminism


#: The classes whose kernels are minimized and saved as cases.
MINIMIZED = ("crash", "fail", "nondeterministic")


def check_kernel(job: KernelJob) -> KernelResult:
    """Generate, check and (for a crash or FAIL) minimize one kernel, in a folder of its
    own: the unit of work of a campaign, run in this process or in a worker."""
    checker = Checker(job.lang, verify=job.verify, numeric=job.numeric)
    kernel = GENERATORS[job.lang](job.seed, job.index, job.size)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        folder = Path(tmp)
        outcome = checker.run(kernel.source, kernel.spec, folder)
        small = None
        if outcome.klass in MINIMIZED and job.minimize:
            small = minimize_case(checker, kernel, outcome, folder, job.budget)
    return KernelResult(kernel, outcome, small)


def run_campaign(args: argparse.Namespace, out: Callable[[str], None]) -> Campaign:
    """Every kernel of the campaign checked, in `args.jobs` processes (each translating and
    proving many kernels, so that imports and caches are paid once per process); results
    are taken, logged and printed in kernel order whatever the number of processes."""
    jobs = [KernelJob(args.lang, args.seed, index, args.size, not args.no_verify,
                      not args.no_numeric, not args.no_minimize, args.budget)
            for index in range(args.first, args.first + args.count)]
    campaign = Campaign()
    start = time.perf_counter()
    workers = max(1, min(args.jobs, len(jobs)))
    if workers == 1:
        _collect(map(check_kernel, jobs), args, campaign, out)
    else:
        # Fresh interpreters (spawn): the parent's threads and caches are not copied.
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            _collect(pool.imap(check_kernel, jobs), args, campaign, out)
    campaign.seconds = time.perf_counter() - start
    return campaign


def _collect(results: Iterable[KernelResult], args: argparse.Namespace, campaign: Campaign,
             out: Callable[[str], None]) -> None:
    for result in results:
        kernel, outcome = result.kernel, result.outcome
        if args.json:
            with open(args.json, "a", encoding="utf-8") as log:
                log.write(json.dumps(outcome_record(kernel, outcome)) + "\n")
        if outcome.klass == "rejected":
            campaign.discarded[_why(outcome.detail)] += 1
            continue
        campaign.outcomes.append((kernel, outcome))
        if args.verbose or outcome.klass in MINIMIZED:
            out(f"{kernel.ident}: {outcome.klass} {outcome.detail}")
        if result.small is not None:
            campaign.minimized.append((kernel, outcome, result.small))
            if args.save_cases:
                save_case(Path(args.save_cases), kernel, outcome, result.small)


def _why(rejection: str) -> str:
    """The kind of a rejection message, for the table: the compiler's error and the first
    words of its message, without the specialization's label."""
    return rejection.split("]: ", 1)[-1][:70]


def minimize_case(checker: Checker, kernel: GeneratedKernel, outcome: Outcome, folder: Path,
                  budget: int) -> str:
    """The kernel's source minimized while it keeps `outcome`'s class."""
    cheap = _cheapest(checker, kernel, outcome, folder)
    return minimize(kernel.source, _keeps(cheap, kernel, outcome.key, folder), budget)


def _cheapest(checker: Checker, kernel: GeneratedKernel, outcome: Outcome,
              folder: Path) -> Checker:
    """The checker minimization repeats: without the numeric check when the structural
    check alone finds the same FAIL (each try then costs a fraction)."""
    if outcome.klass != "fail" or not checker.numeric:
        return checker
    structural = Checker(checker.language, checker.verify, False, checker.derived_specs)
    found = structural.run(kernel.source, kernel.spec, folder, "structural")
    return structural if found.key == outcome.key else checker


def _keeps(checker: Checker, kernel: GeneratedKernel, key: str,
           folder: Path) -> Callable[[str], bool]:
    def keeps(variant: str) -> bool:
        found = checker.run(variant, kernel.spec, folder, "variant")
        return found.key == key
    return keeps


def save_case(folder: Path, kernel: GeneratedKernel, outcome: Outcome, source: str) -> Path:
    """`<id>.py` (the minimized kernel) and `<id>.json` (its spec and what was found)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kernel.ident.replace('-', '_')}.py"
    path.write_text(source + "\n", encoding="utf-8")
    # Once fixed, wrong code may also become a diagnostic: never silently wrong Rust.
    record = {"language": kernel.language, "spec": kernel.spec, "found": outcome.key,
              "detail": outcome.detail, "expect": ["proven", "diagnostic"],
              "open": f"{outcome.key}: {outcome.detail}"}
    path.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path


def table(campaign: Campaign, args: argparse.Namespace) -> str:
    """The campaign's counts and times, per class, per diagnostic code and per feature."""
    counts = Counter(o.klass for _k, o in campaign.outcomes)
    codes = Counter(o.detail for _k, o in campaign.outcomes if o.klass == "diagnostic")
    phase = defaultdict(float)
    for _k, o in campaign.outcomes:
        for name, seconds in o.times.items():
            phase[name] += seconds
    total = len(campaign.outcomes)
    generated = total + sum(campaign.discarded.values())
    lines = [f"campaign: --lang {args.lang} --seed {args.seed} --count {args.count} "
             f"--size {args.size}", "",
             f"generated {generated}, discarded (the language rejects them) "
             f"{sum(campaign.discarded.values())}, counted {total}; "
             f"{campaign.seconds:.0f} s", "",
             "| class | kernels | share |", "| --- | ---: | ---: |"]
    for klass in CLASSES:
        if counts[klass] or klass in ("proven", "crash", "fail"):
            lines.append(f"| {klass} | {counts[klass]} | {_share(counts[klass], total)} |")
    if codes:
        lines += ["", "| diagnostic | kernels |", "| --- | ---: |"]
        lines += [f"| {code} | {n} |" for code, n in sorted(codes.items())]
    lines += ["", "| phase | seconds | per kernel |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {seconds:.1f} | {seconds / max(1, total):.2f} |"
              for name, seconds in sorted(phase.items())]
    lines += ["", "| feature | kernels | translated | proven |", "| --- | ---: | ---: | ---: |"]
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for kernel, outcome in campaign.outcomes:
        for feature in kernel.features:
            per[feature][outcome.klass] += 1
    for feature in sorted(per):
        seen = sum(per[feature].values())
        translated = seen - per[feature]["diagnostic"] - per[feature]["crash"]
        lines.append(f"| {feature} | {seen} | {_share(translated, seen)} | "
                     f"{_share(per[feature]['proven'], seen)} |")
    if campaign.discarded:
        lines += ["", "| discarded because | kernels |", "| --- | ---: |"]
        lines += [f"| {why} | {n} |" for why, n in campaign.discarded.most_common(8)]
    for kernel, outcome, small in campaign.minimized:
        lines += ["", f"{kernel.ident}: {outcome.key} ({outcome.detail})", "```python",
                  small, "```"]
    return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--lang", choices=sorted(GENERATORS), default="cutile")
    parser.add_argument("--size", type=int, default=3, help="statements and expression depth")
    parser.add_argument("--no-verify", action="store_true", help="translate only")
    parser.add_argument("--no-numeric", action="store_true", help="structural check only")
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument("--budget", type=int, default=60,
                        help="checks one minimization may spend")
    parser.add_argument("--save-cases", metavar="DIR",
                        help="write each minimized crash and FAIL as a regression case")
    parser.add_argument("--first", type=int, default=0, help="index of the first kernel")
    parser.add_argument("--json", metavar="FILE",
                        help="append one JSON line per kernel as it is checked")
    parser.add_argument("--table-from", metavar="FILE",
                        help="print the table of the kernels a --json file records")
    parser.add_argument("--verbose", action="store_true", help="a line per kernel")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="processes checking kernels at once (default 1)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.table_from:
        print(table(campaign_from(Path(args.table_from)), args))
        return 0
    campaign = run_campaign(args, lambda line: print(line, file=sys.stderr, flush=True))
    print(table(campaign, args))
    return 0


def outcome_record(kernel: GeneratedKernel, outcome: Outcome) -> dict[str, object]:
    """One line of `--json`: enough to rebuild the table (`--table-from`)."""
    return {"id": kernel.ident, "language": kernel.language, "class": outcome.klass,
            "detail": outcome.detail, "times": outcome.times,
            "features": sorted(kernel.features)}


def campaign_from(path: Path) -> Campaign:
    """The campaign a `--json` file records (one or several runs appended to it)."""
    campaign = Campaign()
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["class"] == "rejected":
            campaign.discarded[_why(record["detail"])] += 1
            continue
        kernel = GeneratedKernel(record["id"], record["language"], "", {},
                                 set(record["features"]))
        outcome = Outcome(record["class"], record["detail"], "", record["times"])
        campaign.outcomes.append((kernel, outcome))
        campaign.seconds += sum(outcome.times.values())
    return campaign


if __name__ == "__main__":
    sys.exit(main())
