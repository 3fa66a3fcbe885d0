"""The numeric check: both sides' Tile IR interpreted on the same seeded inputs, compared.

Takes the IR pairs the structural check compiles (`ircheck.check.compile_pairs`) and the
`numeric` settings of each specialization (spec file); gives one `NumericOutcome` per kernel
and specialization: PASS (every output of every case equal, bit for bit or within the
tolerance named per output), FAIL (the first differing element, its index, both values and
the op that produced each; or a side that faults where the other does not; or a result that
depends on the order in which blocks run), ERROR (the reference itself faults, or both), or
CANNOT_RUN (no shapes or grid, a side that does not compile, parameters that do not bind).
Cases whose inputs break the default layout facts (a ragged shape) are compiled again for
the layout they have, so that neither side assumes what the inputs do not satisfy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from transpiler.ircheck.check import IrPair, compile_pairs
from transpiler.ircheck.parse import TileIrModule
from transpiler.ircheck.spec import KernelSpec, Layout
from transpiler.numeric_check.binding import (
    BindingError,
    BindingPlan,
    LogicalArrays,
    Slot,
    manifest_plan,
    reference_plan,
)
from transpiler.numeric_check.compare import (
    TOLERANCES,
    OutputVerdict,
    compare_output,
    has_float_atomics,
    pair_tolerance,
)
from transpiler.numeric_check.host_settings import host_settings
from transpiler.numeric_check.inputs import CaseError, LaunchCase, cases_for
from transpiler.numeric_check.sides import TileIrSide
from transpiler.tileir_interp.errors import InterpError

DEFAULT_SEED = 0


@dataclass
class CaseResult:
    label: str
    grid: tuple[int, int, int]
    outputs: list[OutputVerdict] = field(default_factory=list)
    error: str | None = None
    failure: str | None = None
    origin: dict[str, str | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"case": self.label, "grid": list(self.grid), "error": self.error,
                "failure": self.failure, "outputs": [o.to_json() for o in self.outputs],
                "origin": self.origin}


@dataclass
class NumericOutcome:
    kernel: str
    spec: KernelSpec
    verdict: str  # PASS | FAIL | ERROR | CANNOT_RUN
    cases: list[CaseResult] = field(default_factory=list)
    reason: str | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the wall time counts other jobs too)

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "specialization": self.spec.label(),
                "verdict": self.verdict, "reason": self.reason,
                "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
                "cases": [c.to_json() for c in self.cases]}

    def line(self) -> str:
        head = f"numeric {self.verdict:<10} {self.spec.label()}"
        if self.reason:
            return f"{head}: {self.reason}"
        rules = sorted({o.rule for c in self.cases for o in c.outputs})
        return f"{head} ({len(self.cases)} cases; {', '.join(rules)})"


def numeric_check(source_path: Path, rust_path: Path, manifests: dict[str, dict[str, Any]],
                  pairs: list[IrPair], settings: dict[str, list[tuple[KernelSpec, dict]]],
                  kernel_map: dict[str, str] | None = None, seed: int = DEFAULT_SEED
                  ) -> list[NumericOutcome]:
    """One outcome per pair; `settings` maps a kernel to (spec, numeric settings) pairs.
    A pair it gives none for gets those of the host code's launches (`host_settings`)."""
    settings = _with_host_settings(source_path, pairs, manifests, settings)
    outcomes: list[NumericOutcome] = []
    planned: list[tuple[IrPair, list[LaunchCase]]] = []
    extra: dict[Layout, dict[str, list[KernelSpec]]] = {}
    for pair in pairs:
        found = _settings_for(pair, settings)
        try:
            cases = cases_for(pair.spec, found, seed)
        except CaseError as err:
            outcomes.append(NumericOutcome(pair.kernel, pair.spec, "CANNOT_RUN",
                                           reason=str(err)))
            planned.append((pair, []))
            continue
        outcomes.append(NumericOutcome(pair.kernel, pair.spec, "PASS"))
        planned.append((pair, cases))
        for case in cases:
            if case.layout != pair.spec.layout:
                group = extra.setdefault(case.layout, {}).setdefault(pair.kernel, [])
                relaid = replace(pair.spec, layout=case.layout)
                if relaid not in group:
                    group.append(relaid)
    recompiled: dict[tuple[str, KernelSpec], IrPair] = {}
    for layout_specs in extra.values():
        for again in compile_pairs(source_path, rust_path, manifests, layout_specs,
                                   kernel_map):
            recompiled[(again.kernel, again.spec)] = again
    for outcome, (pair, cases) in zip(outcomes, planned, strict=True):
        if outcome.verdict == "CANNOT_RUN":
            continue
        start, cpu = time.perf_counter(), time.process_time()
        for case in cases:
            ir = pair if case.layout == pair.spec.layout else recompiled.get(
                (pair.kernel, replace(pair.spec, layout=case.layout)), pair)
            result = _run_case(ir, case, seed, first=case is cases[0])
            outcome.cases.append(result)
        _settle(outcome, outcome.cases)
        outcome.seconds = time.perf_counter() - start
        outcome.cpu_seconds = time.process_time() - cpu
    return outcomes


def _with_host_settings(source_path: Path, pairs: list[IrPair],
                        manifests: dict[str, dict[str, Any]],
                        settings: dict[str, list[tuple[KernelSpec, dict]]]
                        ) -> dict[str, list[tuple[KernelSpec, dict]]]:
    missing: dict[str, list[KernelSpec]] = {}
    for pair in pairs:
        if _settings_for(pair, settings) is None and pair.spec not in missing.get(
                pair.kernel, []):
            missing.setdefault(pair.kernel, []).append(pair.spec)
    if not missing or not source_path.is_file():
        return settings
    merged = {k: list(v) for k, v in settings.items()}
    for kernel, found in host_settings(source_path, missing, manifests).items():
        merged.setdefault(kernel, []).extend(found)
    return merged


def _settings_for(pair: IrPair, settings: dict[str, list[tuple[KernelSpec, dict]]]
                  ) -> dict[str, Any] | None:
    """The spec's own `numeric` settings, else the kernel's only ones."""
    entries = settings.get(pair.kernel, [])
    for spec, numeric in entries:
        if spec == pair.spec:
            return numeric
    distinct = [n for i, (_, n) in enumerate(entries) if n not in [m for _, m in entries[:i]]]
    return distinct[0] if len(distinct) == 1 else None


def _settle(outcome: NumericOutcome, cases: list[CaseResult]) -> None:
    for case in cases:
        if case.error is not None and case.failure is None:
            outcome.verdict, outcome.reason = "ERROR" if not case.error.startswith(
                "cannot run") else "CANNOT_RUN", f"{case.label}: {case.error}"
            return
        if case.failure is not None:
            outcome.verdict, outcome.reason = "FAIL", f"{case.label}: {case.failure}"
            return


def numeric_with_plan(pair: IrPair, slots: list[tuple[str, str, int, Any]],
                      numeric: dict[str, Any] | None, seed: int = DEFAULT_SEED
                      ) -> NumericOutcome:
    """The numeric check of one pair whose Rust entry is bound by `slots` (per entry
    argument: kind, logical name, dim, constant value; as `binding.Slot`) rather than by a
    manifest (an entry written elsewhere, bound by `ircheck.pointer_binding`).
    Cases whose inputs break the specialization's layout facts are not run (there is no
    recompilation for them here): the spec's sizes should keep the default layout."""
    generated_plan = BindingPlan("cuTile Rust", tuple(Slot(*slot) for slot in slots),
                                 keep_rank=True)
    outcome = NumericOutcome(pair.kernel, pair.spec, "PASS")
    try:
        cases = cases_for(pair.spec, numeric, seed)
    except CaseError as err:
        return NumericOutcome(pair.kernel, pair.spec, "CANNOT_RUN", reason=str(err))
    start, cpu = time.perf_counter(), time.process_time()
    for case in cases:
        if case.layout != pair.spec.layout:
            outcome.cases.append(CaseResult(case.label, case.grid, error="cannot run: the "
                                            "inputs break the specialization's layout facts"))
            continue
        outcome.cases.append(_run_case(pair, case, seed, case is cases[0], generated_plan))
    _settle(outcome, outcome.cases)
    outcome.seconds = time.perf_counter() - start
    outcome.cpu_seconds = time.process_time() - cpu
    return outcome


def _run_case(pair: IrPair, case: LaunchCase, seed: int, first: bool,
              generated_plan: BindingPlan | None = None) -> CaseResult:
    result = CaseResult(case.label, case.grid)
    if pair.outcome is not None:
        result.error = f"cannot run: {pair.outcome.error or pair.outcome.verdict}"
        return result
    reference, generated = pair.modules()
    try:
        sides = [TileIrSide("cuTile Python", reference.entry(),
                            reference_plan(pair.compiled_spec)),
                 TileIrSide("cuTile Rust", generated.entry(),
                            generated_plan or manifest_plan(pair.manifest or {},
                                                            pair.compiled_spec))]
    except (BindingError, ValueError, KeyError) as err:
        result.error = f"cannot run: {err}"
        return result
    runs: list[dict[str, np.ndarray] | InterpError] = []
    for side in sides:
        runs.append(_launch(side, case, None))
    ref_run, gen_run = runs
    if isinstance(ref_run, BindingError) or isinstance(gen_run, BindingError):
        result.error = f"cannot run: {ref_run if isinstance(ref_run, BindingError) else gen_run}"
        return result
    if isinstance(ref_run, InterpError):
        if isinstance(gen_run, InterpError):
            result.error = f"both sides fault: cuTile Python {ref_run}; cuTile Rust {gen_run}"
        else:
            result.error = f"the reference faults: {ref_run}"
        return result
    if isinstance(gen_run, InterpError):
        result.failure = f"cuTile Rust faults where cuTile Python does not: {gen_run}"
        return result
    tolerance = pair_tolerance(reference, generated)
    for name in case.arrays:
        verdict = compare_output(name, ref_run[name], gen_run[name], tolerance)
        result.outputs.append(verdict)
        if not verdict.ok and result.failure is None:
            result.failure = (f"`{name}`{list(verdict.index or ())}: cuTile Python "
                              f"{verdict.reference}, cuTile Rust {verdict.generated}")
            flat = int(np.ravel_multi_index(verdict.index, ref_run[name].shape)) if (
                verdict.index) else 0
            for side in sides:
                result.origin[side.name] = side.writer_of(name, flat,
                                                          ref_run[name].itemsize)
            result.failure += "; produced by " + "; ".join(
                f"{k}: {v or 'no op (never written)'}" for k, v in result.origin.items())
    if first and result.failure is None:
        _check_block_order(sides, case, [ref_run, gen_run], [reference, generated], seed,
                           result)
    return result


def _launch(side: TileIrSide, case: LaunchCase, shuffle: int | None
            ) -> dict[str, np.ndarray] | InterpError | BindingError:
    arrays = {k: v.copy() for k, v in case.arrays.items()}
    try:
        side.run(LogicalArrays(arrays, dict(case.scalars)), case.grid, shuffle)
    except (InterpError, BindingError) as err:
        return err
    return arrays


def _check_block_order(sides: list[TileIrSide], case: LaunchCase,
                       runs: list[dict[str, np.ndarray]], modules: list[TileIrModule],
                       seed: int, result: CaseResult) -> None:
    """Runs each side again with the blocks shuffled; a different result is reported."""
    for side, run, module in zip(sides, runs, modules, strict=True):
        found = order_dependence(side, case, run, has_float_atomics(module), seed + 1)
        if found is not None:
            result.failure = found
            return


def order_dependence(side: TileIrSide, case: LaunchCase, in_order: dict[str, np.ndarray],
                     float_atomics: bool, shuffle_seed: int) -> str | None:
    """Why `side`'s result on `case` depends on the order its blocks run in (None: it does
    not, for this shuffle): `in_order` is its result with the blocks in row-major order."""
    if case.grid[0] * case.grid[1] * case.grid[2] < 2:
        return None
    again = _launch(side, case, shuffle_seed)
    if not isinstance(again, dict):
        return f"{side.name} faults when its blocks run in another order: {again}"
    tolerance = TOLERANCES["atomic-order" if float_atomics else "exact"]
    for name in case.arrays:
        verdict = compare_output(name, in_order[name], again[name], tolerance)
        if not verdict.ok:
            return (f"{side.name}'s result depends on the order its blocks run in: "
                    f"`{name}`{list(verdict.index or ())} is {verdict.reference} in "
                    f"row-major order, {verdict.generated} shuffled")
    return None
