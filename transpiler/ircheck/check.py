"""The IR check of a translation: Python source + Rust text -> one verdict per specialization.

Takes the source file, the Rust translation (text with embedded specialization manifests) and
the specializations to check; gives, per kernel and specialization, the verdict of comparing
the Tile IR that cuTile Python produces (`reference.reference_ir`) with the Tile IR that cuTile
Rust produces for the same specialization (`generated.compile_rust_kernels`, one harness run
per file), both printed by the same `tileirdisasm` and compared structurally
(`compare.compare_modules`). Specializations come from `--spec` files, else from the kernel's
launch sites and the dtypes its host code names (`derive_specs`).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from transpiler.analysis import evaluate_condition, evaluate_expression
from transpiler.frontend.cutile_py import SourceModule, parse_source
from transpiler.frontend.host_values import host_dtypes, launch_constants
from transpiler.ircheck.spec import (
    RUST_ELEMENT_TYPES,
    ArraySpec,
    ConstSpec,
    KernelSpec,
    ParamSpec,
    ScalarSpec,
    dtype_of_rust,
    load_spec_file,
)

DEFAULT_CONST_INT = 64
_FLOAT_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class CheckOutcome:
    kernel: str
    spec: KernelSpec
    verdict: str  # PASS | PASS_WITH_NOTES | FAIL | ERROR
    notes: list[str] = field(default_factory=list)
    differences: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    text: str = ""
    #: cuTile Python itself rejects this specialization: it is no launch the original
    #: supports (a guessed dtype or constant), whatever the Rust side did with it.
    reference_rejected: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "specialization": self.spec.label(),
            "verdict": self.verdict,
            "notes": self.notes,
            "differences": self.differences,
            "error": self.error,
            "reference_rejected": self.reference_rejected,
        }

    def line(self) -> str:
        head = f"{self.verdict:<16} {self.spec.label()}"
        if self.error:
            return f"{head}: {self.error.splitlines()[0]}"
        if self.verdict == "PASS_WITH_NOTES":
            return f"{head} ({len(self.notes)} notes)"
        if self.verdict == "FAIL":
            return f"{head} ({len(self.differences)} differences)"
        return head


# ---- specializations -----------------------------------------------------------------------


def generics_for(manifest: dict[str, Any], spec: KernelSpec) -> list[str]:
    """The Rust generic arguments (flat strings) that realize `spec` for a manifest."""
    for p in manifest["params"]:
        fixed = p.get("fixed")
        if fixed is None:
            continue
        asked = spec.param(p["name"])
        if not isinstance(asked, ConstSpec) or float(asked.value) != float(fixed):
            raise ValueError(f"the translation folds `{p['name']}` = {fixed!r}; this "
                             f"specialization asks for {asked}")
    out: list[str] = []
    for generic in manifest["generics"]:
        if generic.get("tree") is not None:
            values = {p: c.value for p, c in spec.params if isinstance(c, ConstSpec)}
            try:
                out.append(str(int(evaluate_condition(generic["tree"], values))))
            except KeyError as missing:
                raise ValueError(f"generic {generic['name']} needs the constant "
                                 f"{missing}") from None
            continue
        param = spec.param(generic["params"][0])
        if generic["kind"] == "type":
            if not isinstance(param, ArraySpec | ScalarSpec):
                raise ValueError(f"generic {generic['name']} needs a dtype")
            out.append(RUST_ELEMENT_TYPES[param.dtype])
        elif isinstance(param, ConstSpec):
            value = param.value
            out.append(("true" if value else "false") if generic["kind"] == "bool"
                       else str(int(value)))
        else:
            raise ValueError(f"generic {generic['name']} needs a constant")
    return out


def derive_specs(source: SourceModule, manifest: dict[str, Any]) -> list[KernelSpec]:
    """Specializations for a kernel from how its file launches it.

    Constants come from the launch site's arguments when they are literals or host locals /
    module constants assigned a literal; otherwise `DEFAULT_CONST_INT`. Each launch-time dtype
    takes, in turn, every float dtype the host code names (float32 when it names none), so
    the kernel is checked once per element type it is used with.
    """
    kernel = str(manifest["kernel"])
    consts = launch_constants(source, kernel)
    dtypes = [d for d in host_dtypes(source) if d in _FLOAT_DTYPES] or ["float32"]
    specs: list[KernelSpec] = []
    for dtype in dtypes:
        params: list[tuple[str, ParamSpec]] = []
        for p in manifest["params"]:
            name = p["name"]
            if p["kind"] in ("derived", "stride"):
                continue  # Rust-only parameters: the launcher computes them
            if p["kind"] == "array":
                element = p["element"]
                concrete = dtype_of_rust(element)
                # ndim -1: the kernel never reads the array; the Rust takes it as 1-d.
                params.append((name, ArraySpec(concrete or dtype, max(int(p["ndim"]), 1))))
            elif p["kind"] == "scalar":
                params.append((name, ScalarSpec(dtype_of_rust(p["element"]) or "int32")))
            else:
                kind = p.get("const_kind")
                # A constant this entry is translated for (a variant) takes that value.
                value = p["fixed"] if p.get("fixed") is not None else consts.get(name)
                if value is None:
                    value = {"bool": True, "float": 1.0}.get(kind, DEFAULT_CONST_INT)
                params.append((name, ConstSpec(value)))
        spec = KernelSpec(kernel, tuple(params))
        if spec not in specs:
            specs.append(spec)
    return specs


# ---- running the check ---------------------------------------------------------------------


def check_file(source_path: Path, rust_path: Path, manifests: dict[str, dict[str, Any]],
               specs: dict[str, list[KernelSpec]], keep_ir: Path | None = None,
               kernel_map: dict[str, str] | None = None) -> list[CheckOutcome]:
    """Compile every (kernel, spec) on both sides and compare; one outcome each."""
    from transpiler.ircheck.compare import compare_modules, format_verdict
    from transpiler.ircheck.generated import compile_rust_kernels
    from transpiler.ircheck.parse import parse_tileir

    kernel_map = kernel_map or {}
    jobs: list[tuple[str, KernelSpec]] = [(k, s) for k, ss in specs.items() for s in ss]
    requests: list[dict[str, Any]] = []
    outcomes: list[CheckOutcome | None] = []
    chosen: list[dict[str, Any] | None] = []
    compiled_specs: list[KernelSpec] = []  # what both sides compile (see below)
    for kernel, spec in jobs:
        rs_name = kernel_map.get(kernel, kernel)
        manifest = select_manifest(manifests, rs_name, spec)
        compiled_specs.append(spec if manifest is None else _unused_arrays_as_1d(spec,
                                                                                 manifest))
        chosen.append(manifest)
        try:
            if manifest is None:
                raise ValueError(f"no Rust entry for `{rs_name}` with a manifest that fits "
                                 "this specialization")
            generics = generics_for(manifest, spec)
            rs_name = str(manifest.get("entry", rs_name))
        except (KeyError, ValueError) as err:
            outcomes.append(_without_entry(source_path, kernel, spec, str(err)))
            continue
        requests.append({"entry": rs_name, "generics": generics, "id": spec.label()})
        outcomes.append(None)
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        compiled = compile_rust_kernels(rust_path, requests, out_dir=tmp) if requests else []
        results = iter(compiled)
        final: list[CheckOutcome] = []
        for (kernel, spec), compiled_spec, outcome, manifest in zip(
                jobs, compiled_specs, outcomes, chosen, strict=True):
            if outcome is not None:
                final.append(outcome)
                continue
            result = next(results)
            reference_text = _reference_text(source_path, kernel, spec, compiled_spec)
            if isinstance(reference_text, CheckOutcome):
                final.append(reference_text)
                continue
            if not result.ok:
                final.append(CheckOutcome(kernel, spec, "ERROR",
                                          error=f"cuTile Rust did not compile it: {result.error}"))
                continue
            generated_text = result.disassemble(debug_info=True)
            if keep_ir is not None:
                _keep(keep_ir, spec, reference_text, generated_text)
            bound = bound_scalar_args(manifest or {}, compiled_spec)
            verdict = compare_modules(parse_tileir(reference_text), parse_tileir(generated_text),
                                      bound, aliased_args(manifest or {}))
            final.append(CheckOutcome(
                kernel, spec, verdict.status,
                notes=[f"{n.rule}: {n.message}" for n in verdict.notes],
                differences=[_difference_json(d) for d in verdict.differences],
                text=format_verdict(verdict)))
    return final


def _without_entry(source_path: Path, kernel: str, spec: KernelSpec,
                   error: str) -> CheckOutcome:
    """The outcome of a specialization no Rust entry takes: cuTile Python may refuse it as
    well (the translation leaves out launches the original cannot compile)."""
    found = _reference_text(source_path, kernel, spec, spec, error)
    return found if isinstance(found, CheckOutcome) else CheckOutcome(kernel, spec, "ERROR",
                                                                      error=error)


def _reference_text(source_path: Path, kernel: str, spec: KernelSpec, compiled: KernelSpec,
                    error: str | None = None) -> str | CheckOutcome:
    """cuTile Python's IR for `compiled`, or the outcome that says it rejects the
    specialization (then no launch of the original, whatever the Rust side did)."""
    from transpiler.ircheck.reference import ReferenceIrError, reference_ir

    try:
        return reference_ir(source_path, compiled)
    except (ReferenceIrError, ValueError, TypeError) as err:
        lead = (f"{error}; cuTile Python does not compile it either" if error
                else "cuTile Python did not compile it")
        return CheckOutcome(kernel, spec, "ERROR", error=f"{lead}: {err}",
                            reference_rejected=True)


def _unused_arrays_as_1d(spec: KernelSpec, manifest: dict[str, Any]) -> KernelSpec:
    """`spec` with the arrays the entry never reads (manifest ndim -1) as 1-d: the Rust takes
    them so, and their rank changes only the entry's argument list on either side."""
    unused = {p["name"] for p in manifest.get("params", [])
              if p["kind"] == "array" and int(p["ndim"]) < 0}
    if not unused:
        return spec
    params = tuple((name, ArraySpec(p.dtype, 1) if name in unused and isinstance(
        p, ArraySpec) else p) for name, p in spec.params)
    return replace(spec, params=params)


def select_manifest(manifests: dict[str, dict[str, Any]], kernel: str,
                    spec: KernelSpec) -> dict[str, Any] | None:
    """The manifest of the Rust entry that translates `kernel` for `spec`'s dtypes: the
    generic entry, or the dtype variant whose fixed element types the spec matches."""
    for manifest in manifests.values():
        if manifest.get("kernel") != kernel and manifest.get("entry") != kernel:
            continue
        variant = manifest.get("dtype_variant") or {}
        consts = manifest.get("const_variant") or {}
        dtypes_match = all(isinstance(spec.param(p), ArraySpec) and spec.param(p).dtype == d
                           for p, d in variant.items())
        consts_match = all(isinstance(spec.param(p), ConstSpec) and spec.param(p).value == v
                           for p, v in consts.items())
        values = {name: p.value for name, p in spec.params if isinstance(p, ConstSpec)}
        try:
            conds_match = all(bool(evaluate_condition(c["tree"], values)) == c["value"]
                              for c in manifest.get("conditions") or [])
        except (KeyError, TypeError, ZeroDivisionError):
            conds_match = False
        if dtypes_match and consts_match and conds_match:
            return manifest
    return None


def entry_arg_positions(manifest: dict[str, Any]) -> dict[str, int]:
    """Where each Rust parameter's entry arguments start: a `&Tensor` of rank r takes
    1 + 2r (base, shape, strides), a scalar one; const generics take none."""
    positions: dict[str, int] = {}
    position = 0
    for p in manifest.get("params", []):
        positions[p["name"]] = position
        if p["kind"] == "array":
            position += 1 + 2 * max(int(p["ndim"]), 1)
        elif p["kind"] in ("scalar", "derived", "stride"):
            position += 1
        elif p.get("fixed") is None and p.get("const_kind") == "float":
            position += 1
    return positions


def bound_scalar_args(manifest: dict[str, Any], spec: KernelSpec) -> dict[int, str]:
    """Entry-argument positions of runtime `f32` parameters that stand for a
    `ct.Constant[float]` (or an expression over them), with the constant the specialization
    binds them to."""
    positions = entry_arg_positions(manifest)
    consts = {name: p.value for name, p in spec.params if isinstance(p, ConstSpec)}
    bound: dict[int, str] = {}
    for p in manifest.get("params", []):
        if p["kind"] == "derived":
            bound[positions[p["name"]]] = f"<f32: {evaluate_expression(p['expr'], consts)!r}>"
        elif p["kind"] == "const" and p.get("fixed") is None and p.get(
                "const_kind") == "float":
            value = spec.param(p["name"])
            if isinstance(value, ConstSpec):
                bound[positions[p["name"]]] = f"<f32: {float(value.value)!r}>"
    return bound


def aliased_args(manifest: dict[str, Any]) -> dict[int, int]:
    """Entry-argument positions of stride parameters -> the position of the tensor's own
    stride argument they carry (the launcher passes the same value)."""
    positions = entry_arg_positions(manifest)
    arrays = {p["name"]: p for p in manifest.get("params", []) if p["kind"] == "array"}
    aliases: dict[int, int] = {}
    for p in manifest.get("params", []):
        if p["kind"] == "stride" and p["array"] in arrays:
            ndim = int(arrays[p["array"]]["ndim"])
            aliases[positions[p["name"]]] = positions[p["array"]] + 1 + ndim + int(p["dim"])
    return aliases


def _difference_json(diff: Any) -> dict[str, Any]:
    return {
        "kind": diff.kind,
        "message": diff.message,
        "reference": diff.reference,
        "generated": diff.generated,
        "location": diff.location,
        "generated_location": getattr(diff, "generated_location", None),
    }


def _keep(folder: Path, spec: KernelSpec, reference: str, generated: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.label())[:150]
    (folder / f"{stem}.python.tileir").write_text(reference, encoding="utf-8")
    (folder / f"{stem}.rust.tileir").write_text(generated, encoding="utf-8")


def verify_translation(display: str, result: Any, spec_files: list[str],
                       keep_ir: str | None, quiet: bool = False) -> list[dict[str, Any]]:
    """`--verify` for one translated file: prints a verdict line per kernel and spec."""
    from transpiler.driver import read_manifests

    source = parse_source(result.source, display)
    manifests = read_manifests(result.rust)
    specs = _collect_specs(source, manifests, spec_files)
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(result.rust, encoding="utf-8")
        outcomes = check_file(Path(display), rust_path, manifests, specs,
                              Path(keep_ir) if keep_ir else None)
    for outcome in outcomes:
        if not quiet:
            print(f"{display}: {outcome.line()}")
            if outcome.verdict in ("FAIL",) and outcome.text:
                print(outcome.text)
    return [o.to_json() for o in outcomes]


def _collect_specs(source: SourceModule, manifests: dict[str, dict[str, Any]],
                   spec_files: list[str]) -> dict[str, list[KernelSpec]]:
    specs: dict[str, list[KernelSpec]] = {}
    for path in spec_files:
        for kernel, entries in load_spec_file(Path(path)).items():
            specs.setdefault(kernel, []).extend(entries)
    for manifest in manifests.values():
        kernel = str(manifest["kernel"])
        if kernel not in specs:
            specs[kernel] = []
        if manifest.get("dtype_variant") or manifest.get("const_variant") or manifest.get(
                "conditions") or not specs[kernel]:
            for spec in derive_specs(source, manifest):
                if spec not in specs[kernel]:
                    specs[kernel].append(spec)
    return specs


# ---- batches (`-j N`): plan the checks of a translation, run any subset of them -----------


def collect_specs(display: str, result: Any,
                  spec_files: list[str]) -> dict[str, list[KernelSpec]]:
    """The specializations `--verify` checks for one translated file, per kernel."""
    from transpiler.driver import read_manifests

    source = parse_source(result.source, display)
    return _collect_specs(source, read_manifests(result.rust), spec_files)


def check_translation(display: str, rust_text: str, specs: dict[str, list[KernelSpec]],
                      keep_ir: str | None) -> list[CheckOutcome]:
    """The outcomes of the checks `specs` (a subset of `collect_specs`) of one translation."""
    from transpiler.driver import read_manifests

    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(rust_text, encoding="utf-8")
        return check_file(Path(display), rust_path, read_manifests(rust_text), specs,
                          Path(keep_ir) if keep_ir else None)
