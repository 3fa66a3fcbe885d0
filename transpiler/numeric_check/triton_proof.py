"""The proof of a Triton translation: Triton's interpreter against the translation's Tile IR.

Takes a Triton source file, its cuTile Rust translation and the `--spec` files; gives one
`TritonOutcome` per kernel and specialization (and a NOT_CHECKED line per Rust entry that no
specialization reaches). Specializations come from the spec files (pointer parameters as
`{"dtype": ..., "ndim": ...}`, runtime scalars as `{"scalar": ...}`, constexprs as values, and
a `numeric` key as for cuTile input) and, for kernels the spec files give no parameters of,
from the file's launch sites (`frontend.triton_host`: the launches whose constexprs the host
fixes), with the shapes of a spec entry that holds only `numeric`.

Per specialization:

1. the Rust entry the manifest selects is compiled by the harness with the generics the
   specialization gives, and its Tile IR parsed;
2. every launch case (`numeric_check.inputs`: sizes that are multiples of the block, ragged
   ones and tiny ones, each also with NaN, infinities, signed zeros and subnormals) runs under
   Triton's own interpreter (the reference, `ircheck.reference_triton`, all launches of a file
   in one subprocess) and under the Tile IR interpreter on the entry (`TileIrSide`, the entry's
   pointers bound to the same buffers), and every buffer is compared after the launch, within
   the tolerance of its element type (`ELEMENT_TOLERANCES`); the translation also runs with
   its blocks shuffled, and a result that depends on block order fails;
3. the facts Triton's compiler gives (TTIR, `ircheck.ttir_facts`) are checked against the
   entry's Tile IR (`ircheck.ttir_check`).

Each JIT fact entry (`lowering/jit_facts`: a manifest with `jit_facts`) of the selected
entry's variant is proven too, as a specialization of its own (`label` names the entry): on
the launch cases whose arguments hold its facts, the spec's own, or when none does, the
spec's sizes rounded up to multiples of 16 (so that ints divisible by 16 occur; the
interpreter's buffers are 256-byte aligned, and contiguous arrays have unit strides). The
interpreter checks every `assume` the entry states on the values it meets, so an entry whose
facts its inputs break fails, naming the op.

Verdicts: PASS / PASS_WITH_NOTES (the facts check accepted named differences) / FAIL (the
first differing element, its index, both values and the Tile IR op that wrote it; or a fact
the translation breaks) / ERROR (a side cannot run, with the reason) / CANNOT_RUN (no launch
shapes for the specialization: an ERROR whose numeric verdict says CANNOT_RUN) / NOT_CHECKED
(an entry no specialization reaches). `verify_command` is `verify SOURCE RUST` for Triton
sources: verdict lines, `--json`, exit status 0 (all PASS / PASS_WITH_NOTES / NOT_CHECKED),
1 (a FAIL), 2 (an ERROR).
"""

from __future__ import annotations

import ast
import json
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from specialization.manifest import evaluate_fact
from transpiler.driver import read_manifests
from transpiler.frontend.triton_host import (
    HostReport,
    KernelSignature,
    TritonSpecialization,
    read_host,
)
from transpiler.ircheck.check import NotChecked, generics_for, select_manifest
from transpiler.ircheck.coverage import Target
from transpiler.ircheck.generated import HarnessError, compile_rust_kernels
from transpiler.ircheck.parse import TileIrEntry, TileIrParseError, parse_tileir
from transpiler.ircheck.reference_triton import (
    UNSUPPORTED_DTYPES,
    TritonLaunch,
    TritonReferenceError,
    run_launches,
)
from transpiler.ircheck.spec import (
    ArraySpec,
    ConstSpec,
    KernelSpec,
    ParamSpec,
    ScalarSpec,
    SpecFileError,
    load_spec_file,
)
from transpiler.ircheck.ttir_check import FactVerdict, check_facts
from transpiler.ircheck.ttir_facts import (
    TtirError,
    compile_ttir_many,
    read_facts,
    request_for,
)
from transpiler.model.consts import evaluate_condition
from transpiler.numeric_check.binding import BindingError, BindingPlan, LogicalArrays, Slot
from transpiler.numeric_check.compare import (
    ELEMENT_TOLERANCES,
    OutputVerdict,
    compare_output,
    has_float_atomics,
)
from transpiler.numeric_check.inputs import CaseError, LaunchCase, cases_for
from transpiler.numeric_check.run import CaseResult, order_dependence
from transpiler.numeric_check.sides import TileIrSide
from transpiler.tileir_interp.errors import InterpError

DEFAULT_SEED = 0
#: Triton's signature type of a runtime scalar -> the spec's dtype name.
SCALAR_DTYPES: dict[str, str] = {"i32": "int32", "i64": "int64", "fp32": "float32",
                                 "fp64": "float64", "i1": "bool_"}
#: Manifest parameter kinds -> the entry slot each takes (const generics take none).
POINTER_ENTRY_SLOTS: dict[str, str] = {"pointer": "base", "scalar": "scalar"}
#: Parameters a host-made tensor descriptor adds: its tensor's extent or stride along `dim`
#: (the reference's descriptor is built over the same tensor with the same shape and strides).
DESCRIPTOR_ENTRY_SLOTS: dict[str, str] = {"extent": "shape", "stride": "stride"}


@dataclass
class TritonOutcome:
    """The proof of one kernel specialization (its numeric check and its facts check)."""

    kernel: str
    spec: KernelSpec
    verdict: str  # PASS | PASS_WITH_NOTES | FAIL | ERROR
    entry: str | None = None
    numeric: str = "CANNOT_RUN"
    cases: list[CaseResult] = field(default_factory=list)
    facts: FactVerdict | None = None
    facts_error: str | None = None
    reason: str | None = None
    seconds: float = 0.0
    jit_facts: tuple[str, ...] = ()  # a JIT fact entry: the facts its cases hold

    def label(self) -> str:
        """The specialization's label, and for a JIT fact entry the entry it proves."""
        head = self.spec.label()
        return f"{head} [JIT fact entry {self.entry}]" if self.jit_facts else head

    @property
    def text(self) -> str:
        return self.facts.text() if self.facts is not None and self.facts.differences else ""

    @property
    def error(self) -> str | None:
        """Why the proof failed or could not run (the HTML report shows it)."""
        return self.reason if self.verdict in ("FAIL", "ERROR") else None

    @property
    def notes(self) -> list[str]:
        return [f"{rule}: {where}" for rule, where in (self.facts.notes if self.facts else [])]

    @property
    def differences(self) -> list[dict[str, str]]:
        return [{"kind": "ttir-fact", "message": f"{d.what}: Triton {d.triton}; Tile IR "
                 f"{d.tileir}", "reference": d.triton, "generated": d.tileir}
                for d in (self.facts.differences if self.facts else [])]

    def line(self) -> str:
        head = f"{self.verdict:<16} {self.label()}"
        if self.reason:
            return f"{head}: {self.reason}"
        rules = sorted({o.rule for c in self.cases for o in c.outputs})
        facts = self.facts.status if self.facts is not None else "not run"
        notes = f", {len(self.facts.notes)} notes" if self.facts and self.facts.notes else ""
        return (f"{head} (Triton's interpreter: {len(self.cases)} cases, "
                f"{', '.join(rules)}; TTIR facts {facts}{notes})")

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "specialization": self.label(), "entry": self.entry,
            "jit_facts": list(self.jit_facts),
            "verdict": self.verdict, "reason": self.reason, "seconds": round(self.seconds, 3),
            "numeric": {"reference": "triton-interpreter", "verdict": self.numeric,
                        "cases": [c.to_json() for c in self.cases]},
            "ttir_facts": None if self.facts is None else {
                "verdict": self.facts.status,
                "notes": [{"rule": r, "where": w} for r, w in self.facts.notes],
                "differences": [{"what": d.what, "triton": d.triton, "tileir": d.tileir}
                                for d in self.facts.differences]},
            "ttir_error": self.facts_error,
        }


@dataclass
class _Job:
    """One specialization on its way through the proof."""

    outcome: TritonOutcome
    numeric: dict[str, Any] | None
    signature: KernelSignature
    manifest: dict[str, Any] | None = None
    generics: list[str] = field(default_factory=list)
    entry_ir: TileIrEntry | None = None
    cases: list[LaunchCase] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # suffix -> IR text (--keep-ir)


def is_triton_source(text: str) -> bool:
    """Whether the file holds `@triton.jit` kernels (the proof of this module applies)."""
    try:
        return bool(read_host(text).kernels)
    except SyntaxError:
        return False


def prove_triton(source_path: Path, rust_path: Path, spec_files: list[str],
                 seed: int = DEFAULT_SEED, facts: bool = True, keep_ir: Path | None = None
                 ) -> list[TritonOutcome | NotChecked]:
    """The proof of every Triton kernel of `source_path` translated in `rust_path`; with
    `keep_ir`, each specialization's Tile IR (`.rust.tileir`) and TTIR (`.ttir`) go there."""
    source_text = source_path.read_text(encoding="utf-8")
    host = read_host(source_text, str(source_path))
    manifests = read_manifests(rust_path.read_text(encoding="utf-8"))
    jobs = [_Job(TritonOutcome(kernel, spec, "PASS"), numeric, host.kernels[kernel])
            for kernel, spec, numeric in _specializations(host, spec_files)]
    for job in jobs:
        _plan(job, manifests, seed)
    jobs += [fact for job in list(jobs) for fact in _fact_jobs(job, manifests, seed)]
    _compile(rust_path, [j for j in jobs if j.outcome.reason is None])
    _run_numeric(source_path, [j for j in jobs if j.outcome.reason is None], seed)
    if facts:
        _check_facts(source_path, [j for j in jobs if j.entry_ir is not None
                                   and j.outcome.verdict not in ("ERROR", "CANNOT_RUN")])
    out: list[TritonOutcome | NotChecked] = [_settle(j) for j in jobs]
    if keep_ir is not None:
        _keep(keep_ir, jobs)
    reached = {j.outcome.entry for j in jobs}
    for entry, manifest in manifests.items():
        kernel = str(manifest.get("kernel", entry))
        if kernel in host.kernels and entry not in reached:
            out.append(NotChecked(kernel, Target(entry), "no specialization reaches it (give "
                                  "one with --spec, or launch it from host code)"))
    return out


# ---- specializations -------------------------------------------------------------------------


def _specializations(host: HostReport, spec_files: list[str]
                     ) -> list[tuple[str, KernelSpec, dict[str, Any] | None]]:
    """(kernel, spec, numeric settings) of every Triton kernel: the spec files' entries, else
    the host code's launches with the spec files' settings of that kernel."""
    given: dict[str, list[tuple[KernelSpec, dict[str, Any] | None]]] = {}
    for path in spec_files:
        specs = load_spec_file(Path(path))
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        for kernel, entries in raw.items():
            for spec, entry in zip(specs.get(kernel, []), entries, strict=True):
                numeric = entry.get("numeric")
                if numeric is not None and not isinstance(numeric, dict):
                    raise SpecFileError(f"--spec {path}: `{kernel}`: `numeric` must be an "
                                        "object")
                given.setdefault(kernel, []).append((spec, numeric))
    # Kernels of other files are left out: one spec file may serve a folder.
    out: list[tuple[str, KernelSpec, dict[str, Any] | None]] = []
    for kernel, signature in host.kernels.items():
        entries = [(s, n) for s, n in given.get(kernel, []) if s.params]
        if entries:
            out += [(kernel, spec, numeric) for spec, numeric in entries]
            continue
        # An entry with only `numeric` gives the shapes of the launches the host code makes.
        shapes = next((n for s, n in given.get(kernel, []) if not s.params), None)
        for launch in host.specializations.get(kernel, []):
            spec = _host_spec(signature, launch, shapes)
            if spec is not None and all(spec != s for _, s, _ in out):
                out.append((kernel, spec, shapes))
    return out


def _host_spec(signature: KernelSignature, launch: TritonSpecialization,
               numeric: dict[str, Any] | None) -> KernelSpec | None:
    """The spec of a launch whose constexprs the host code fixes and whose pointer dtypes
    it names (None: it depends on run-time values, which only a spec file can give). A
    scalar whose type the host code leaves open has the type Triton gives the value the
    `numeric` settings pass (a float is fp32, an int i32)."""
    constexprs = dict(launch.constexprs)
    if launch.derived:
        return None  # constexprs the host computes from run-time values
    pointers = dict(launch.pointer_dtypes)
    scalars = dict(launch.scalars)
    params: list[tuple[str, ParamSpec]] = []
    for name in signature.params:
        if name in constexprs:
            value = constexprs[name]
            if not isinstance(value, bool | int | float):
                return None
            params.append((name, ConstSpec(value)))
        elif name in pointers:
            dtype = pointers[name]
            if dtype is None:
                return None
            params.append((name, ArraySpec(dtype, 1)))
        else:
            given = (numeric or {}).get("scalars", {}).get(name)
            kind = scalars.get(name) or ("fp32" if isinstance(given, float) else "i32")
            params.append((name, ScalarSpec(SCALAR_DTYPES.get(kind, "int32"))))
    return KernelSpec(signature.name, tuple(params))


# ---- compiling the translation ---------------------------------------------------------------


def _plan(job: _Job, manifests: dict[str, dict[str, Any]], seed: int) -> None:
    outcome = job.outcome
    spec = outcome.spec
    manifest = select_manifest(manifests, outcome.kernel, spec)
    if manifest is None:
        _stop(outcome, "ERROR", "no Rust entry with a manifest fits this specialization")
        return
    job.manifest = manifest
    outcome.entry = str(manifest.get("entry", outcome.kernel))
    unsupported = [p.dtype for _, p in spec.params
                   if isinstance(p, ArraySpec) and p.dtype in UNSUPPORTED_DTYPES]
    if unsupported:
        _stop(outcome, "ERROR", f"no reference: {UNSUPPORTED_DTYPES[unsupported[0]]}")
        return
    try:
        job.generics = generics_for(manifest, spec)
    except (KeyError, ValueError) as err:
        _stop(outcome, "ERROR", f"cannot bind the entry's generics: {err}")
        return
    try:
        job.cases = cases_for(spec, job.numeric, seed)
    except CaseError as err:
        _stop(outcome, "CANNOT_RUN", str(err))


def fact_siblings(manifests: dict[str, dict[str, Any]], general: dict[str, Any]
                  ) -> list[dict[str, Any]]:
    """The JIT fact entries of a general entry's variant: the manifests of its kernel with
    the same dtypes, constexpr values and conditions, and `jit_facts`."""
    same = ("dtype_variant", "const_variant", "conditions")
    return [m for m in manifests.values() if m.get("jit_facts")
            and m.get("kernel") == general.get("kernel")
            and all((m.get(k) or None) == (general.get(k) or None) for k in same)]


def _fact_jobs(job: _Job, manifests: dict[str, dict[str, Any]], seed: int) -> list[_Job]:
    """A job per JIT fact entry of the job's variant, on the cases that hold its facts."""
    if job.manifest is None or job.outcome.reason is not None:
        return []
    out = []
    for manifest in fact_siblings(manifests, job.manifest):
        facts = manifest["jit_facts"]
        outcome = TritonOutcome(job.outcome.kernel, job.outcome.spec, "PASS",
                                entry=str(manifest["entry"]),
                                jit_facts=tuple(str(f["text"]) for f in facts))
        fact_job = _Job(outcome, job.numeric, job.signature, manifest, list(job.generics))
        fact_job.cases = fact_cases(job.outcome.spec, job.numeric, seed, facts)
        if not fact_job.cases:
            _stop(outcome, "CANNOT_RUN", "no launch case holds the entry's JIT facts ("
                  + ", ".join(outcome.jit_facts) + "), not even with its sizes rounded up "
                  "to multiples of 16")
        out.append(fact_job)
    return out


def fact_cases(spec: KernelSpec, numeric: dict[str, Any] | None, seed: int,
               facts: list[dict[str, Any]]) -> list[LaunchCase]:
    """The launch cases whose runtime scalars hold every JIT fact on a scalar (a pointer's
    facts hold for the interpreter's aligned buffers, and its `assume` ops check them): the
    spec's own cases that hold them, or when none does, those of the spec's sizes with the
    sizes the facts' scalars read rounded up to multiples of 16. (The spec's own cases
    first: the fact entry is then proven on inputs its general entry was proven on.)"""
    pointers = {n for n, p in spec.params if isinstance(p, ArraySpec)}
    for settings in (numeric, _rounded(numeric, facts)):
        try:
            cases = cases_for(spec, settings, seed)
        except CaseError:
            continue
        held = [case for case in cases
                if all(_fact_holds(f["tree"], case.scalars, pointers) for f in facts)]
        if held:
            return held
    return []


def _fact_holds(tree: object, scalars: dict[str, Any], pointers: set[str]) -> bool:
    names = set(_fact_args(tree))
    if names <= pointers:
        return True
    values: dict[str, int] = {}
    for name in names:
        value = scalars.get(name)
        value = value.item() if isinstance(value, np.generic | np.ndarray) else value
        if isinstance(value, bool) or not isinstance(value, int):
            return False
        values[name] = value
    return evaluate_fact(tree, values)


def _fact_args(tree: object) -> list[str]:
    if isinstance(tree, list) and len(tree) == 2 and tree[0] == "arg":
        return [str(tree[1])]
    return [n for x in tree for n in _fact_args(x)] if isinstance(tree, list) else []


def _rounded(numeric: dict[str, Any] | None, facts: list[dict[str, Any]]
             ) -> dict[str, Any] | None:
    """The `numeric` settings with the positive int sizes that the facts' scalars are
    computed from rounded up to a multiple of 16 (a size no fact reads, a divisor say, is
    left as it is)."""
    if not numeric or not isinstance(numeric.get("sizes"), list):
        return None
    scalars = numeric.get("scalars") or {}
    read = {node.id for f in facts for name in _fact_args(f["tree"]) if name in scalars
            for node in ast.walk(ast.parse(str(scalars[name]), mode="eval"))
            if isinstance(node, ast.Name)}

    def up(key: str, v: object) -> object:
        if key in read and isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return -(-v // 16) * 16
        return v
    labels = numeric.get("labels") or []
    return {**numeric, "sizes": [{k: up(k, v) for k, v in given.items()}
                                 for given in numeric["sizes"]],
            "labels": [f"{label}, rounded up to 16" for label in labels]}


def _stop(outcome: TritonOutcome, verdict: str, reason: str) -> None:
    outcome.verdict = outcome.numeric = verdict
    outcome.reason = reason


def _compile(rust_path: Path, jobs: list[_Job]) -> None:
    """Every job's entry compiled in one harness run and parsed."""
    requests = [{"entry": j.outcome.entry, "generics": j.generics, "id": j.outcome.label()}
                for j in jobs]
    if not requests:
        return
    with tempfile.TemporaryDirectory(prefix="transpiler-triton-proof-") as tmp:
        try:
            results = compile_rust_kernels(rust_path, requests, out_dir=tmp)
        except HarnessError as err:
            for job in jobs:
                _stop(job.outcome, "ERROR", f"the harness cannot run: {err}")
            return
        for job, result in zip(jobs, results, strict=True):
            if not result.ok:
                _stop(job.outcome, "ERROR", f"cuTile Rust did not compile it: {result.error}")
                continue
            try:
                job.texts["rust.tileir"] = result.disassemble(debug_info=True)
                job.entry_ir = parse_tileir(job.texts["rust.tileir"]).entries[0]
            except (HarnessError, TileIrParseError, IndexError) as err:
                _stop(job.outcome, "ERROR", f"cuTile Rust gave no usable Tile IR: {err}")


def pointer_plan(manifest: dict[str, Any]) -> BindingPlan:
    """The entry parameters of a pointer-convention translation: per manifest parameter in
    order, a pointer's base address or a runtime scalar (constexprs are const generics)."""
    slots = [Slot(POINTER_ENTRY_SLOTS[p["kind"]], p["name"]) if p["kind"] in
             POINTER_ENTRY_SLOTS else Slot(DESCRIPTOR_ENTRY_SLOTS[p["kind"]], str(p["array"]),
                                           int(p["dim"]))
             for p in manifest.get("params", []) if p["kind"] in POINTER_ENTRY_SLOTS
             or p["kind"] in DESCRIPTOR_ENTRY_SLOTS]
    return BindingPlan("cuTile Rust", tuple(slots), keep_rank=True)


def descriptor_blocks(manifest: dict[str, Any], consts: dict[str, object]
                      ) -> dict[str, list[int]]:
    """Per host-made descriptor parameter, its block shape for these constexprs."""
    return {str(p["name"]): [int(evaluate_condition(b, consts)) for b in p["block"]]
            for p in manifest.get("params", []) if p.get("block") is not None}


# ---- the numeric check -----------------------------------------------------------------------


def _run_numeric(source_path: Path, jobs: list[_Job], seed: int) -> None:
    """Both sides of every case of every job; the reference's launches in one batch."""
    runnable = [j for j in jobs if j.outcome.reason is None]
    launches: list[TritonLaunch] = []
    for job in runnable:
        consts = {n: p.value for n, p in job.outcome.spec.params if isinstance(p, ConstSpec)}
        assert job.manifest is not None
        blocks = descriptor_blocks(job.manifest, consts)
        launches += [TritonLaunch(job.outcome.kernel, consts, dict(case.scalars), case.grid,
                                  {k: v.copy() for k, v in case.arrays.items()},
                                  descriptors=blocks)
                     for case in job.cases]
    try:
        results: Iterable[dict[str, np.ndarray] | str] = iter(run_launches(source_path,
                                                                           launches))
    except TritonReferenceError as err:
        for job in runnable:
            _stop(job.outcome, "ERROR", f"Triton's interpreter cannot run: {err}")
        return
    for job in runnable:
        start = time.perf_counter()
        assert job.entry_ir is not None and job.manifest is not None
        side = TileIrSide("cuTile Rust", job.entry_ir, pointer_plan(job.manifest))
        atomics = has_float_atomics_entry(job.entry_ir)
        for number, case in enumerate(job.cases):
            reference = next(results)  # type: ignore[call-overload]
            job.outcome.cases.append(run_case(side, case, reference, atomics,
                                              seed + 1 if number == 0 else None))
        job.outcome.numeric = _numeric_verdict(job.outcome)
        job.outcome.seconds += time.perf_counter() - start


def has_float_atomics_entry(entry: TileIrEntry) -> bool:
    """Whether the entry adds floats atomically (its result then depends on block order
    within the atomic-order tolerance)."""
    return has_float_atomics(_Module([entry]))


@dataclass
class _Module:
    entries: list[TileIrEntry]


def run_case(side: TileIrSide, case: LaunchCase, reference: dict[str, np.ndarray] | str,
             float_atomics: bool, shuffle_seed: int | None) -> CaseResult:
    """One case: the translation run on the case's inputs against the reference's buffers;
    with `shuffle_seed`, also run with its blocks shuffled."""
    result = CaseResult(case.label, case.grid)
    if isinstance(reference, str):
        result.error = f"Triton's interpreter cannot run it: {reference}"
        return result
    arrays = {k: v.copy() for k, v in case.arrays.items()}
    try:
        side.run(LogicalArrays(arrays, dict(case.scalars)), case.grid)
    except BindingError as err:
        result.error = f"cannot run: {err}"
        return result
    except InterpError as err:
        result.failure = f"cuTile Rust faults where Triton does not: {err}"
        return result
    for name in case.arrays:
        tolerance = ELEMENT_TOLERANCES[_element_key(reference[name], float_atomics)]
        verdict = compare_output(name, reference[name], arrays[name], tolerance)
        result.outputs.append(verdict)
        if not verdict.ok and result.failure is None:
            result.failure = _failure_text(side, name, verdict, reference[name])
    if shuffle_seed is not None and result.failure is None:
        result.failure = order_dependence(side, case, arrays, float_atomics, shuffle_seed)
    return result


def _element_key(array: np.ndarray, float_atomics: bool) -> str:
    name = array.dtype.name
    if name not in ELEMENT_TOLERANCES:
        return "exact"
    return f"{name}+atomics" if float_atomics and f"{name}+atomics" in ELEMENT_TOLERANCES \
        else name


def _failure_text(side: TileIrSide, name: str, verdict: OutputVerdict,
                  reference: np.ndarray) -> str:
    index = verdict.index or ()
    flat = int(np.ravel_multi_index(index, reference.shape)) if index else 0
    writer = side.writer_of(name, flat, reference.itemsize) or "no op (never written)"
    count = f"{verdict.mismatches} element{'s' if verdict.mismatches != 1 else ''}"
    return (f"`{name}`{list(index)}: Triton {verdict.reference}, cuTile Rust "
            f"{verdict.generated} ({count} beyond {verdict.rule}); cuTile Rust's value "
            f"written by {writer}")


def _numeric_verdict(outcome: TritonOutcome) -> str:
    for case in outcome.cases:
        if case.failure is not None:
            outcome.reason = f"{case.label}: {case.failure}"
            return "FAIL"
        if case.error is not None:
            outcome.reason = f"{case.label}: {case.error}"
            return "ERROR"
    return "PASS"


# ---- the facts check and the verdict ---------------------------------------------------------


def _check_facts(source_path: Path, jobs: list[_Job]) -> None:
    """Triton's TTIR facts of every job (one subprocess) checked against its entry."""
    requests: list[tuple[_Job, Any]] = []
    for job in jobs:
        try:
            requests.append((job, _ttir_request(job)))
        except (TtirError, KeyError) as err:
            job.outcome.facts_error = str(err)
    try:
        texts = compile_ttir_many(source_path, [(j.outcome.kernel, r) for j, r in requests])
    except TtirError as err:
        for job, _ in requests:
            job.outcome.facts_error = str(err)
        return
    for (job, _), text in zip(requests, texts, strict=True):
        if isinstance(text, TtirError):
            job.outcome.facts_error = str(text)
            continue
        assert job.entry_ir is not None
        job.texts["ttir"] = text
        job.outcome.facts = check_facts(read_facts(text), job.entry_ir)


def _keep(folder: Path, jobs: list[_Job]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for job in jobs:
        label = job.outcome.label()
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:150]
        for suffix, text in job.texts.items():
            (folder / f"{stem}.{suffix}").write_text(text, encoding="utf-8")


def _ttir_request(job: _Job) -> Any:
    """Triton's JIT key of the job's first case (the scalars it launches with)."""
    spec = job.outcome.spec
    consts = {n: p.value for n, p in spec.params if isinstance(p, ConstSpec)}
    pointers = {n: p.dtype for n, p in spec.params if isinstance(p, ArraySpec)}
    scalars = dict(job.cases[0].scalars) if job.cases else {}
    scalars = {k: v.item() if isinstance(v, np.generic | np.ndarray) else v
               for k, v in scalars.items()}
    for name, p in spec.params:
        if isinstance(p, ScalarSpec) and name not in scalars:
            scalars[name] = 0.5 if p.dtype.startswith("float") else 3
    blocks = descriptor_blocks(job.manifest, consts) if job.manifest is not None else {}
    return request_for(job.signature.params, consts, pointers, scalars, descriptors=blocks)


def _settle(job: _Job) -> TritonOutcome:
    outcome = job.outcome
    if outcome.reason is not None and outcome.numeric in ("ERROR", "CANNOT_RUN"):
        outcome.verdict = "ERROR"  # never a PASS; CANNOT_RUN stays in `numeric`
        return outcome
    if outcome.numeric == "FAIL" or (outcome.facts and outcome.facts.status == "FAIL"):
        outcome.verdict = "FAIL"
        if outcome.reason is None and outcome.facts is not None:
            first = outcome.facts.differences[0]
            outcome.reason = (f"TTIR facts: {first.what}: Triton {first.triton}; "
                              f"Tile IR {first.tileir}")
        return outcome
    if outcome.facts_error is not None:
        outcome.verdict = "ERROR"
        outcome.reason = f"Triton cannot give its TTIR facts: {outcome.facts_error}"
        return outcome
    outcome.verdict = "PASS_WITH_NOTES" if outcome.facts and outcome.facts.notes else "PASS"
    return outcome


# ---- `verify SOURCE RUST` --------------------------------------------------------------------

EXIT_OK, EXIT_FAIL, EXIT_CANNOT_RUN = 0, 1, 2


def is_triton_only(source_text: str, cutile_kernels: int) -> bool:
    """Whether the proof of this module is the whole proof of the file (it has Triton
    kernels and no cuTile Python ones)."""
    return cutile_kernels == 0 and is_triton_source(source_text)


def verify_command(source_path: Path, rust_path: Path, spec_files: list[str], seed: int,
                   as_json: bool, out: TextIO, keep_ir: Path | None = None) -> int:
    """Print one verdict line per outcome (and the facts' differences of a FAIL), or the
    JSON report; give the exit status."""
    try:
        outcomes = prove_triton(source_path, rust_path, spec_files, seed, keep_ir=keep_ir)
    except (SpecFileError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    lines = sys.stderr if as_json else out
    for outcome in outcomes:
        print(f"{source_path}: {outcome.line()}", file=lines)
        if outcome.verdict == "FAIL" and outcome.text and not as_json:
            print(outcome.text, file=lines)
    if as_json:
        print(json.dumps({"source": str(source_path), "rust": str(rust_path),
                          "language": "triton",
                          "verdicts": [o.to_json() for o in outcomes]}, indent=2), file=out)
    if any(o.verdict == "FAIL" for o in outcomes):
        return EXIT_FAIL
    return EXIT_CANNOT_RUN if any(o.verdict == "ERROR" for o in outcomes) else EXIT_OK
