"""The IR check of Rust entries in the pointer calling convention.

Takes a cuTile Python source, a Rust file, the `EntryBinding` of each pointer-convention entry
(`pointer_binding.infer_binding`) and the specializations of each Python kernel; gives one
`CheckOutcome` per binding and specialization, as `check.check_file` does for entries that
take `&Tensor`s: both sides compiled (cuTile Python from a lifted copy, cuTile Rust through
the harness with the generics the binding derives), the generated entry's arguments laid out
as the reference's (`rebind_entry`), then compared structurally (`compare.compare_entries`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from transpiler.ircheck.check import CheckOutcome
from transpiler.ircheck.compare import compare_entries, format_verdict
from transpiler.ircheck.generated import compile_rust_kernels
from transpiler.ircheck.parse import TileIrParseError, parse_tileir
from transpiler.ircheck.pointer_binding import (
    EntryBinding,
    generics_for_binding,
    rebind_entry,
)
from transpiler.ircheck.reference import ReferenceIrError, reference_ir
from transpiler.ircheck.spec import KernelSpec


def check_pointer_entries(source_path: Path, rust_path: Path, bindings: list[EntryBinding],
                          specs: dict[str, list[KernelSpec]],
                          keep_ir: Path | None = None) -> list[CheckOutcome]:
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
            outcomes.append(_one(source_path, binding, spec, next(results), keep_ir))
    return outcomes


def _one(source_path: Path, binding: EntryBinding, spec: KernelSpec, result: Any,
         keep_ir: Path | None) -> CheckOutcome:
    kernel = binding.kernel
    try:
        reference_text = reference_ir(source_path, spec)
    except (ReferenceIrError, ValueError, TypeError) as err:
        return CheckOutcome(kernel, spec, "ERROR", error=f"cuTile Python did not compile "
                            f"it: {err}", reference_rejected=True)
    if not result.ok:
        return CheckOutcome(kernel, spec, "ERROR",
                            error=f"cuTile Rust did not compile it: {result.error}")
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
        return CheckOutcome(kernel, spec, "ERROR", error=f"cannot pair the arguments: {err}")
    verdict = compare_entries(reference, generated, literals)
    binding_notes = [f"pointer-binding: {line}" for line in binding.describe()]
    return CheckOutcome(
        kernel, spec, verdict.status,
        notes=[f"{n.rule}: {n.message}" for n in verdict.notes] + binding_notes,
        differences=[{"kind": d.kind, "message": d.message, "reference": d.reference,
                      "generated": d.generated, "location": d.location,
                      "generated_location": getattr(d, "generated_location", None)}
                     for d in verdict.differences],
        text=format_verdict(verdict))
