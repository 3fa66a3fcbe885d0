"""`--verify` of many files on N processes, each file's checks split into (kernel,
specialization) units.

Takes the files to check (`FileCheck`: the source path and text, the Rust text, the `--spec`
files, the options) and a worker count; gives, per file and in the files' order, what checking
that file alone in one process gives (`numeric_check.translation.verify_file`): the rounds of
`ircheck.check.VerifyRounds` until every Rust entry is reached, with their SKIPPED and
NOT_CHECKED lines; with `numeric`, each specialization's numeric check; with `want_ir`, both
Tile IR texts of each outcome (for `--report`).

Every step but the rounds' bookkeeping runs in a worker: a file's plan (its manifests and
the specializations derived from its host code), then each round's units, one (kernel,
specialization) each, all files' units in one pool (`batch.WorkerPool`, earlier files'
units first, so that files finish, and print, in order while every process stays busy).
When a file's last unit of a round is back, its next round is planned here and
submitted. A unit's outcome does
not depend on which units run beside it or in what order, so the outcomes, and everything
printed from them, are the same whatever the number of workers. A Triton file is one unit:
its proof (`triton_proof`) runs per file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.batch import WorkerPool
from transpiler.driver import read_manifests
from transpiler.frontend.cutile_py import parse_source
from transpiler.frontend.triton_host import read_host
from transpiler.ircheck.check import (
    CheckOutcome,
    IrPair,
    SpecPlan,
    VerifyRounds,
    check_each_kernel,
    plain_manifests,
    plan_specs,
)
from transpiler.ircheck.generated import HarnessError
from transpiler.ircheck.spec import KernelSpec
from transpiler.ircheck.toolchain import ToolchainError
from transpiler.progress import Progress

IrTexts = tuple[str, str]  # (cuTile Python's Tile IR, cuTile Rust's)


@dataclass
class Planned:
    """A cuTile file's manifests (JSON objects) and its specializations to check."""

    manifests: dict[str, dict[str, Any]]
    plan: SpecPlan


@dataclass
class FileCheck:
    """One file to verify. `display` is the source path as given: cuTile Python compiles the
    kernels from that file. `rust_path`, when the Rust text is on disk there, is where the
    harness reads it, so that the Rust side's IR locations name the real file; otherwise a
    temporary copy is read. `planned` is given by a caller that chose the manifests and
    specializations itself (`verify` of a hand-written translation); else the plan is the
    translation's own (`verify_file`'s)."""

    display: str
    source: str
    rust: str
    spec_files: tuple[str, ...] = ()
    keep_ir: str | None = None
    numeric: bool = False
    want_ir: bool = False
    seed: int = 0
    rust_path: str | None = None
    kernel_map: dict[str, str] = field(default_factory=dict)
    planned: Planned | None = None


@dataclass
class FileResult:
    """The structural outcomes of one file (NOT_CHECKED lines last), the numeric checks in
    the order their specializations were checked, both IR texts per outcome (None where
    there are none, or without `want_ir`), or the error that stopped the check (a missing
    tool)."""

    outcomes: list[Any] = field(default_factory=list)
    numeric: list[Any] = field(default_factory=list)
    ir: list[IrTexts | None] = field(default_factory=list)
    error: str | None = None


@dataclass
class Unit:
    """One (kernel, specialization) of a file's round."""

    check: FileCheck
    manifests: dict[str, dict[str, Any]]
    kernel: str
    spec: KernelSpec


@dataclass
class UnitDone:
    outcomes: list[CheckOutcome]
    numeric: list[Any]
    ir: list[IrTexts | None]
    error: str | None = None


# ---- work done in the workers ---------------------------------------------------------------


def plan_file(check: FileCheck) -> Planned | FileResult:
    """A cuTile file's plan; a Triton file's whole result (its proof is per file)."""
    try:
        source = parse_source(check.source, check.display)
        if not source.kernels and _has_triton_kernels(check.source):
            # The Triton proof runs Triton's interpreter and the Tile IR one (numpy).
            from transpiler.numeric_check.translation import verify_file

            outcomes = verify_file(check.display, check.source, check.rust,
                                   list(check.spec_files), check.keep_ir, check.numeric,
                                   check.seed)
            return FileResult(outcomes, [], [None] * len(outcomes))
        manifests = plain_manifests(read_manifests(check.rust))
        return Planned(manifests, plan_specs(source, manifests, list(check.spec_files)))
    except (ToolchainError, HarnessError) as err:
        return FileResult(error=str(err))


def check_unit(unit: Unit) -> UnitDone:
    """Both sides of one specialization compiled and compared (and run, with `numeric`)."""
    check = unit.check
    pairs: list[IrPair] = []
    numeric: list[Any] = []
    try:
        with _rust_file(check) as rust_path:
            outcomes = check_each_kernel(Path(check.display), rust_path, unit.manifests,
                                         {unit.kernel: [unit.spec]},
                                         Path(check.keep_ir) if check.keep_ir else None,
                                         check.kernel_map, pairs.extend)
            if check.numeric:
                # The interpreter (numpy, ml_dtypes) loads only for `--numeric`.
                from transpiler.numeric_check.inputs import load_numeric_settings
                from transpiler.numeric_check.run import numeric_check

                numeric = numeric_check(Path(check.display), rust_path, unit.manifests,
                                        pairs, load_numeric_settings(list(check.spec_files)),
                                        check.kernel_map, check.seed)
    except (ToolchainError, HarnessError) as err:
        return UnitDone([], [], [], str(err))
    ir: list[IrTexts | None] = [None] * len(outcomes)
    if check.want_ir and len(pairs) == len(outcomes):
        ir = [None if p.outcome is not None else (p.reference_text, p.generated_text)
              for p in pairs]
    return UnitDone(outcomes, numeric, ir)


def _has_triton_kernels(text: str) -> bool:
    try:
        return bool(read_host(text).kernels)
    except SyntaxError:
        return False


@contextmanager
def _rust_file(check: FileCheck) -> Iterator[Path]:
    """The Rust text as a file: `rust_path` while it holds that text, else a temporary copy."""
    if check.rust_path is not None:
        path = Path(check.rust_path)
        try:
            if path.read_text(encoding="utf-8") == check.rust:
                yield path
                return
        except OSError:
            pass
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        path = Path(tmp) / "translation.rs"
        path.write_text(check.rust, encoding="utf-8")
        yield path


# ---- the bookkeeping, here --------------------------------------------------------------------


@dataclass
class _FileState:
    check: FileCheck
    rounds: VerifyRounds | None = None
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)
    waiting: dict[int, UnitDone] = field(default_factory=dict)
    size: int = 0  # units of the current round
    ir: list[IrTexts | None] = field(default_factory=list)
    numeric: list[Any] = field(default_factory=list)
    result: FileResult | None = None


def verify_files(checks: list[FileCheck], workers: int,
                 progress: Progress | None = None) -> Iterator[FileResult]:
    """Each file's result, in the order of `checks`, as soon as it and those before it are
    done; `progress` counts the specializations as rounds are planned and units come back."""
    states = [_FileState(check) for check in checks]
    shown = 0
    with WorkerPool(workers) as pool:
        for index, state in enumerate(states):
            if state.check.planned is None:
                pool.submit(("plan", index, 0), plan_file, state.check, rank=index)
            else:
                _start(state, index, state.check.planned, pool, progress)
        while pool.busy():
            (kind, index, position), value = pool.next_done()  # type: ignore[misc]
            state = states[index]
            if kind == "plan":
                if isinstance(value, FileResult):
                    state.result = value
                else:
                    _start(state, index, value, pool, progress)
            else:
                _unit_back(state, index, position, value, pool, progress)
            while shown < len(states) and states[shown].result is not None:
                yield states[shown].result  # type: ignore[misc]
                shown += 1
    for state in states[shown:]:
        yield state.result or FileResult()


def _start(state: _FileState, index: int, planned: Planned, pool: WorkerPool,
           progress: Progress | None) -> None:
    state.manifests = planned.manifests
    state.rounds = VerifyRounds(planned.manifests, planned.plan, state.check.kernel_map)
    _submit_round(state, index, pool, progress)


def _submit_round(state: _FileState, index: int, pool: WorkerPool,
                  progress: Progress | None) -> None:
    assert state.rounds is not None
    units = [(kernel, spec) for kernel, specs in state.rounds.pending().items()
             for spec in specs]
    if not units:
        outcomes = state.rounds.result()
        state.result = FileResult(outcomes, state.numeric,
                                  state.ir + [None] * (len(outcomes) - len(state.ir)))
        return
    state.waiting, state.size = {}, len(units)
    if progress is not None:
        progress.update(specs=progress.counts.specs + len(units))
    for position, (kernel, spec) in enumerate(units):
        pool.submit(("unit", index, position), check_unit,
                    Unit(state.check, state.manifests, kernel, spec), rank=index)


def _unit_back(state: _FileState, index: int, position: int, done: UnitDone,
               pool: WorkerPool, progress: Progress | None) -> None:
    if progress is not None:
        progress.advance("specs_done")
    if state.result is not None:
        return  # an earlier unit's error ended this file
    if done.error is not None:
        state.result = FileResult(error=done.error)
        return
    state.waiting[position] = done
    if len(state.waiting) < state.size:
        return
    assert state.rounds is not None
    ordered = [state.waiting[p] for p in range(state.size)]
    state.rounds.record([o for d in ordered for o in d.outcomes])
    for d in ordered:
        state.ir += d.ir
        state.numeric += d.numeric
    _submit_round(state, index, pool, progress)
