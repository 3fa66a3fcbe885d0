"""The IR check of Rust entries in the pointer calling convention.

Takes a cuTile Python source, a Rust file, the `EntryBinding` of each pointer-convention entry
(`pointer_binding.infer_binding`) and the specializations of each Python kernel; gives one
`CheckOutcome` per binding and specialization, as `check.check_file` does for entries that
take `&Tensor`s: both sides compiled (cuTile Python from a lifted copy, cuTile Rust through
the harness with the generics the binding derives), the generated entry's arguments laid out
as the reference's (`rebind_entry`), then compared structurally (`compare.compare_entries`).
With a numeric runner (`verify --numeric` passes the numeric check's, which this module does
not import: numpy loads only for it), also one numeric outcome per pair: both IRs
interpreted on the same seeded inputs, the Rust entry's arguments filled through the binding
(`plan_slots`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transpiler.ircheck.check import CheckOutcome, IrPair
from transpiler.ircheck.compare import compare_entries, format_verdict
from transpiler.ircheck.generated import compile_rust_kernels
from transpiler.ircheck.parse import Operation, TileIrEntry, TileIrParseError, parse_tileir
from transpiler.ircheck.pointer_binding import (
    EntryBinding,
    argument_slots,
    generics_for_binding,
    rebind_entry,
)
from transpiler.ircheck.reference import ReferenceIrError, reference_ir
from transpiler.ircheck.spec import ConstSpec, KernelSpec

#: the numeric check of one pair, its Rust entry's argument slots given (`plan_slots`)
NumericRunner = Callable[[IrPair, list[tuple[str, str, int, Any]]], Any]


def check_pointer_entries(source_path: Path, rust_path: Path, bindings: list[EntryBinding],
                          specs: dict[str, list[KernelSpec]],
                          keep_ir: Path | None = None,
                          numeric_runner: NumericRunner | None = None,
                          numeric: list[Any] | None = None) -> list[CheckOutcome]:
    """One structural outcome per binding and specialization; with a runner, its numeric
    outcomes are appended to `numeric`."""
    jobs: list[tuple[EntryBinding, KernelSpec]] = []
    requests: list[dict[str, Any]] = []
    early: list[CheckOutcome | None] = []
    for binding in bindings:
        taken: list[tuple[KernelSpec, list[str]]] = []
        refused: list[tuple[KernelSpec, str]] = []
        for spec in specs.get(binding.kernel, []):
            try:
                taken.append((spec, generics_for_binding(binding, spec)))
            except (KeyError, ValueError) as err:
                refused.append((spec, str(err)))
        # Specializations the entry cannot take (arrays of different dtypes where it has one
        # generic) are SKIPPED while others remain: a narrower translation is checked for
        # what it translates, and it is an error only when nothing is left.
        for spec, why in refused:
            jobs.append((binding, spec))
            early.append(CheckOutcome(binding.kernel, spec, "SKIPPED" if taken else "ERROR",
                                      error=why))
        for spec, generics in taken:
            jobs.append((binding, spec))
            requests.append({"entry": binding.entry, "generics": generics,
                             "id": spec.label()})
            early.append(None)
    outcomes: list[CheckOutcome] = []
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        results = iter(compile_rust_kernels(rust_path, requests, out_dir=tmp)
                       if requests else [])
        for (binding, spec), outcome in zip(jobs, early, strict=True):
            if outcome is not None:
                outcomes.append(outcome)
                continue
            outcome, pair = _one(source_path, binding, spec, next(results), keep_ir)
            outcomes.append(outcome)
            if numeric_runner is not None and numeric is not None and pair is not None:
                try:
                    slots = plan_slots(binding, spec)
                except (KeyError, ValueError):
                    continue  # the structural outcome already says why it cannot bind
                numeric.append(numeric_runner(pair, slots))
    return outcomes


def plan_slots(binding: EntryBinding, spec: KernelSpec) -> list[tuple[str, str, int, Any]]:
    """The numeric check's argument plan of the Rust entry: per entry argument (kind,
    Python name, dim, value), as the binding says what it carries; a constant gets the
    specialization's value."""
    slots: list[tuple[str, str, int, Any]] = []
    for bound in argument_slots(binding):
        if bound.part == "const":
            value = spec.param(bound.python)
            if not isinstance(value, ConstSpec):
                raise ValueError(f"`{bound.python}` is not a constant in this specialization")
            slots.append(("const", bound.python, 0, value.value))
        else:
            slots.append((bound.part, bound.python, bound.dim or 0, None))
    return slots


def _one(source_path: Path, binding: EntryBinding, spec: KernelSpec, result: Any,
         keep_ir: Path | None) -> tuple[CheckOutcome, IrPair | None]:
    kernel = binding.kernel
    try:
        reference_text = reference_ir(source_path, spec)
    except (ReferenceIrError, ValueError, TypeError) as err:
        return CheckOutcome(kernel, spec, "ERROR", error=f"cuTile Python did not compile "
                            f"it: {err}", reference_rejected=True), None
    if not result.ok:
        return CheckOutcome(kernel, spec, "ERROR",
                            error=f"cuTile Rust did not compile it: {result.error}"), None
    generated_text = result.disassemble(debug_info=True)
    if keep_ir is not None:
        keep_ir.mkdir(parents=True, exist_ok=True)
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.label())[:150]
        (keep_ir / f"{stem}.python.tileir").write_text(reference_text, encoding="utf-8")
        (keep_ir / f"{stem}.rust.tileir").write_text(generated_text, encoding="utf-8")
    try:
        reference = parse_tileir(reference_text).entry()
        generated, literals = rebind_entry(parse_tileir(generated_text).entry(), reference,
                                           binding, spec)
    except (TileIrParseError, ValueError) as err:
        return CheckOutcome(kernel, spec, "ERROR",
                            error=f"cannot pair the arguments: {err}"), None
    verdict = compare_entries(reference, generated, literals)
    differences = [{"kind": d.kind, "message": d.message, "reference": d.reference,
                    "generated": d.generated, "location": d.location,
                    "generated_location": getattr(d, "generated_location", None)}
                   for d in verdict.differences] + view_base_differences(reference, generated)
    status = "FAIL" if differences else verdict.status
    binding_notes = [f"pointer-binding: {line}" for line in binding.describe()]
    pair = IrPair(kernel, spec, spec, None, reference_text, generated_text)
    text = format_verdict(verdict) if status == verdict.status else "\n".join(
        [format_verdict(verdict).replace(f"ircheck: {verdict.status}", "ircheck: FAIL", 1),
         *(f"  difference [{d['kind']}] {d['message']}"
           for d in differences[len(verdict.differences):])])
    return CheckOutcome(
        kernel, spec, status,
        notes=[f"{n.rule}: {n.message}" for n in verdict.notes] + binding_notes,
        differences=differences, text=text), pair


#: ops that pass a value through (a view's operands may sit behind them)
PASS_THROUGH_OPS: frozenset[str] = frozenset({"assume"})


def view_arguments(entry: TileIrEntry) -> list[tuple[int | None, ...]]:
    """Per `make_tensor_view`, in program order, the entry-argument position of each of its
    operands (base pointer, shapes, strides; None: not an argument). The structural
    comparison gives an argument the role of the view slot it feeds (`view1.shape[0]`), not
    its position; with the generated entry's arguments laid out as the reference's
    (`rebind_entry`), equal tuples say each view is over the same array, shapes and strides."""
    positions = {arg.name: i for i, arg in enumerate(entry.args)}
    defs: dict[str, Operation] = {}
    views: list[Operation] = []

    def walk(ops: list[Operation]) -> None:
        for op in ops:
            defs.update(dict.fromkeys(op.results, op))
            if op.name == "make_tensor_view":
                views.append(op)
            for region in op.regions:
                walk(region.ops)

    def source(value: str) -> int | None:
        while value in defs and defs[value].name in PASS_THROUGH_OPS and defs[value].operands:
            value = defs[value].operands[-1]
        return positions.get(value)

    walk(entry.ops)
    return [tuple(source(v) for v in view.operands) for view in views]


def view_base_differences(reference: TileIrEntry, generated: TileIrEntry
                          ) -> list[dict[str, Any]]:
    """A difference per tensor view built over other arguments on the generated side."""
    names = [a.name for a in reference.args]
    out: list[dict[str, Any]] = []
    pairs = zip(view_arguments(reference), view_arguments(generated), strict=False)
    for k, (ref, gen) in enumerate(pairs, start=1):
        if ref != gen:
            text = [", ".join(names[i] if i is not None else "-" for i in side)
                    for side in (ref, gen)]
            out.append({"kind": "view-arguments", "message": f"tensor view {k} is built over "
                        f"({text[0]}) in reference, over ({text[1]}) (as bound) in generated",
                        "reference": None, "generated": None, "location": None,
                        "generated_location": None})
    return out
