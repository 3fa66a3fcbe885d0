"""`python -m transpiler verify SOURCE.py RUST.rs`: check any Rust translation against its source.

Takes a cuTile Python file and a cuTile Rust file (ours, edited by hand, or written elsewhere);
gives one IR verdict per kernel and specialization, exit status 0 (all PASS/PASS_WITH_NOTES),
1 (any FAIL) or 2 (cannot run: no matching entry, the Rust does not compile, a generic that
cannot be bound). Each `@ct.kernel` pairs with the `#[cutile::entry]` of the same name
(`--map py=rs` otherwise). Specializations come from `--spec`, else from the file's launch
sites. Generics are bound from the manifest when the file carries ours, else from the Rust
signature itself (element-type generics through the tensors that use them, const generics and
scalars by name). Entries in the pointer calling convention (`*mut E` parameters, shapes and
strides as scalars) are bound to the Python kernel's arrays by `ircheck.pointer_binding`
(names, the host glue given with `--ffi`, `--bind RS=PY`). Kernels present on one side only are
listed and left out. A Triton source (`@triton.jit` kernels only) is proved by
`numeric_check.triton_proof` instead: Triton's interpreter and TTIR facts.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import libcst as cst

from specialization.manifest import Manifest, ManifestGeneric, ManifestParam, parse_manifests
from transpiler.batch import default_workers
from transpiler.driver import translate_bytes
from transpiler.frontend.cutile_py import parse_source
from transpiler.frontend.triton_host import read_host
from transpiler.ircheck.generated import HarnessError, cargo_check_files, list_kernels
from transpiler.ircheck.pointer_binding import (
    BindingError,
    EntryBinding,
    infer_binding,
    is_pointer_entry,
    parse_binds,
)
from transpiler.ircheck.pointer_check import check_pointer_entries
from transpiler.ircheck.spec import SpecFileError, load_spec_file
from transpiler.parallel_verify import FileCheck, Planned, verify_files

EXIT_OK, EXIT_FAIL, EXIT_CANNOT_RUN = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m transpiler verify",
        description="Check that a cuTile Rust file computes what its cuTile Python source "
        "computes, by comparing their Tile IR.",
        epilog="Exit status: 0 all PASS/PASS_WITH_NOTES, 1 any FAIL, 2 cannot run.")
    parser.add_argument("source", help="the cuTile Python file")
    parser.add_argument("rust", help="the cuTile Rust file")
    parser.add_argument("--spec", action="append", default=[],
                        help="JSON file of specializations (see README)")
    parser.add_argument("--map", action="append", default=[], metavar="PY=RS",
                        help="pair Python kernel PY with Rust entry RS")
    parser.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    parser.add_argument("--keep-ir", metavar="DIR", help="write both IR texts of each check")
    parser.add_argument("--numeric", action="store_true",
                        help="also interpret both sides' Tile IR on seeded inputs and compare "
                        "the outputs (shapes and grid from the spec's `numeric` key)")
    parser.add_argument("--seed", type=int, default=0, help="input seed of --numeric")
    parser.add_argument("--bind", action="append", default=[], metavar="RS=PY",
                        help="bind a pointer-convention Rust parameter to a Python parameter "
                        "or a part of an array (`x`, `x.shape[1]`, `x.stride[0]`)")
    parser.add_argument("--ffi", action="append", default=[], metavar="FILE",
                        help="host glue (ffi.rs) that launches the Rust entries")
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help="worker processes for the specializations (default: the cores)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_OK if exit_.code in (0, None) else EXIT_CANNOT_RUN
    source_path, rust_path = Path(args.source), Path(args.rust)
    if args.jobs is not None and args.jobs < 1:
        print("error: -j takes a number of processes >= 1", file=sys.stderr)
        return EXIT_CANNOT_RUN
    for path in (source_path, rust_path):
        if not path.is_file():
            print(f"error: `{path}` does not exist", file=sys.stderr)
            return EXIT_CANNOT_RUN
    try:
        kernel_map = dict(m.split("=", 1) for m in args.map)
    except ValueError:
        print("error: --map takes PY_NAME=RS_NAME", file=sys.stderr)
        return EXIT_CANNOT_RUN
    source_text = source_path.read_text(encoding="utf-8")
    if _is_triton_only(source_text, str(source_path)):
        # Triton input: its proof is Triton's interpreter and TTIR facts (numeric_check).
        from transpiler.numeric_check.triton_proof import verify_command

        errors = [d for d in cargo_check_files([rust_path]) if d.is_error]
        if errors:
            print(f"error: the Rust file does not compile:\n{errors[0].rendered}",
                  file=sys.stderr)
            return EXIT_CANNOT_RUN
        return verify_command(source_path, rust_path, args.spec, args.seed, args.json,
                              sys.stdout, Path(args.keep_ir) if args.keep_ir else None)
    numeric: list[Any] = []
    try:
        pointer = PointerOptions(parse_binds(args.bind), _read_ffi(args.ffi))
        outcomes = run_verify(source_path, rust_path, args.spec, kernel_map, args.keep_ir,
                              pointer, numeric=numeric if args.numeric else None,
                              seed=args.seed, workers=args.jobs or default_workers())
    except (VerifyError, SpecFileError, BindingError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    out = sys.stderr if args.json else sys.stdout
    for side, names in pointer.unpaired.items():
        for name in names:
            print(f"{source_path}: only in the {side} file: `{name}` (not checked)", file=out)
    for outcome in outcomes:
        print(f"{source_path}: {outcome.line()}", file=out)
        if outcome.verdict == "FAIL" and not args.json:
            print(outcome.text)
    for result in numeric:
        print(f"{source_path}: {result.line()}", file=out)
    if args.json:
        report: dict[str, Any] = {"source": str(source_path), "rust": str(rust_path),
                                  "verdicts": [o.to_json() for o in outcomes],
                                  "unpaired": pointer.unpaired}
        if args.numeric:
            report["numeric"] = [n.to_json() for n in numeric]
        print(json.dumps(report, indent=2))
    # A FAIL is a finding whatever else could not run; then what could not run.
    if any(o.verdict == "FAIL" for o in outcomes) or any(n.verdict == "FAIL" for n in numeric):
        return EXIT_FAIL
    if any(o.verdict == "ERROR" for o in outcomes) or any(
            n.verdict in ("ERROR", "CANNOT_RUN") for n in numeric):
        return EXIT_CANNOT_RUN
    return EXIT_OK


def _is_triton_only(text: str, path: str) -> bool:
    """Whether the file holds `@triton.jit` kernels and no `@ct.kernel` ones."""
    try:
        return bool(read_host(text, path).kernels) and not parse_source(text, path).kernels
    except SyntaxError:
        return False


class VerifyError(Exception):
    """The check cannot run; the message says why."""


@dataclass
class PointerOptions:
    """How pointer-convention entries are bound, and what `run_verify` found unpaired."""

    binds: dict[str, str] = field(default_factory=dict)
    ffi: str | None = None
    unpaired: dict[str, list[str]] = field(default_factory=dict)


def _read_ffi(paths: list[str]) -> str | None:
    texts = []
    for path in paths:
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except OSError as err:
            raise VerifyError(f"--ffi {path}: {err.strerror}") from None
    return "\n".join(texts) if texts else None


def run_verify(source_path: Path, rust_path: Path, spec_files: list[str],
               kernel_map: dict[str, str], keep_ir: str | None,
               pointer: PointerOptions | None = None,
               numeric: list[Any] | None = None, seed: int = 0, workers: int = 1) -> list[Any]:
    """The structural outcomes; with `numeric` (a list), also the numeric check's, appended
    to it. The checks of entries that take tensors run on `workers` processes."""
    from transpiler.ircheck.check import IrPair, _collect_specs, plain_manifests, plan_specs

    rust_text = rust_path.read_text(encoding="utf-8")
    errors = [d for d in cargo_check_files([rust_path]) if d.is_error]
    if errors:
        raise VerifyError(f"the Rust file does not compile:\n{errors[0].rendered}")
    source_text = source_path.read_text(encoding="utf-8")
    source = parse_source(source_text, str(source_path))
    pointer = pointer if pointer is not None else PointerOptions()
    try:
        entries = _entry_names(rust_path)
        # A manifest is trusted only while its entry is still in the file (a hand edit may
        # have renamed or removed it); otherwise bind from the signatures.
        manifests = {k: m for k, m in parse_manifests(rust_text).items() if k in entries}
        bindings: list[EntryBinding] = []
        if not manifests:
            manifests = manifests_from_signature(source_path, rust_path, kernel_map)
            bindings = pointer_bindings(source, rust_path, kernel_map, pointer,
                                        _spec_kinds(spec_files))
    except HarnessError as err:
        raise VerifyError(f"cannot read the Rust file's entries: {err}") from None
    python_manifests = _python_manifests(source_path)
    spec_source = {**python_manifests, **{k: v.to_json() for k, v in manifests.items()
                                          if k not in python_manifests}}
    plan = plan_specs(source, spec_source, spec_files)
    kernels = {k.name for k in source.kernels}
    plan.given = {k: v for k, v in plan.given.items() if k in kernels}
    plan.pools = {k: v for k, v in plan.pools.items() if k in kernels}
    pointer_kernels = {b.kernel for b in bindings}
    paired: list[str] = []
    for kernel in sorted(kernels):
        rs = kernel_map.get(kernel, kernel)
        if kernel in pointer_kernels or any(rs in (m.kernel, m.entry)
                                            for m in manifests.values()):
            paired.append(kernel)
        else:
            pointer.unpaired.setdefault("Python", []).append(kernel)
            continue
        if not plan.given.get(kernel) and not plan.pools.get(kernel):
            raise VerifyError(f"no specialization for `{kernel}`: pass --spec FILE")
    if not paired:
        missing = pointer.unpaired["Python"][0]
        raise VerifyError(f"no `#[cutile::entry]` named `{kernel_map.get(missing, missing)}` "
                          f"for kernel `{missing}` (use --map PY=RS)")
    # Entries that take tensors: every entry reached (rounds of specializations).
    tensor_plan = replace(plan, given={k: v for k, v in plan.given.items()
                                       if k in paired and k not in pointer_kernels},
                          pools={k: v for k, v in plan.pools.items()
                                 if k in paired and k not in pointer_kernels})
    outcomes: list[Any] = []
    if tensor_plan.given or tensor_plan.pools:
        # Each (kernel, specialization) a unit, spread over `workers` processes.
        check = FileCheck(str(source_path), source_text, rust_text, tuple(spec_files), keep_ir,
                          numeric is not None, seed=seed, rust_path=str(rust_path),
                          kernel_map=kernel_map,
                          planned=Planned(plain_manifests(manifests), tensor_plan))
        done = next(verify_files([check], workers))
        if done.error is not None:
            raise VerifyError(done.error)
        outcomes = done.outcomes
        if numeric is not None:
            numeric.extend(done.numeric)
    runner = None
    if numeric is not None:
        from transpiler.numeric_check.inputs import load_numeric_settings
        from transpiler.numeric_check.run import numeric_with_plan

        settings = load_numeric_settings(spec_files)

        def runner(pair: IrPair, slots: list[tuple[str, str, int, Any]]) -> Any:
            found = [n for s, n in settings.get(pair.kernel, []) if s == pair.spec]
            return numeric_with_plan(pair, slots, found[0] if found else None, seed)
    if pointer_kernels:
        # Entries in the pointer calling convention: the first round's specializations.
        specs = {k: v for k, v in _collect_specs(source, spec_source, spec_files).items()
                 if k in pointer_kernels}
        outcomes += check_pointer_entries(source_path, rust_path, bindings, specs,
                                          Path(keep_ir) if keep_ir else None, runner, numeric)
    return outcomes


def pointer_bindings(source: Any, rust_path: Path, kernel_map: dict[str, str],
                     pointer: PointerOptions,
                     spec_kinds: dict[str, dict[str, str]] | None = None
                     ) -> list[EntryBinding]:
    """Bindings of the file's pointer-convention entries (and of `&Tensor` entries whose
    names only `pointer_binding`'s rules relate to the Python ones) to their Python kernels;
    entries without a Python kernel are recorded in `pointer.unpaired`. `spec_kinds` (from
    the spec files) overrides what the annotations say a parameter is."""
    python_params = {k.name: _with_spec_kinds(_python_params(k.node),
                                              (spec_kinds or {}).get(k.name, {}))
                     for k in source.kernels}
    reverse = {rs: py for py, rs in kernel_map.items()}
    out: list[EntryBinding] = []
    for module in list_kernels(rust_path).get("modules", []):
        for entry in module.get("entries", []):
            kernel = reverse.get(entry["name"], entry["name"])
            if kernel not in python_params:
                pointer.unpaired.setdefault("Rust", []).append(entry["name"])
                continue
            if is_pointer_entry(entry) or not _binds_by_signature(kernel, entry,
                                                                  python_params[kernel]):
                out.append(infer_binding(entry, kernel, python_params[kernel], pointer.ffi,
                                         pointer.binds))
    return out


def _binds_by_signature(kernel: str, entry: dict[str, Any], python: dict[str, str]) -> bool:
    """Whether the `&Tensor` entry binds by its own names (`manifests_from_signature`)."""
    if any(p["kind"] != "tensor" and p["name"] not in python for p in entry["params"]):
        return False
    if any(p["kind"] == "tensor" and python.get(p["name"]) != "array"
           for p in entry["params"]):
        return False
    try:
        _entry_manifest(kernel, entry, python)
    except VerifyError:
        return False
    return True


def _spec_kinds(spec_files: list[str]) -> dict[str, dict[str, str]]:
    """kernel -> parameter -> `array` / `scalar` / `const`, as the spec files give them."""
    kinds: dict[str, dict[str, str]] = {}
    for path in spec_files:
        for kernel, specs in load_spec_file(Path(path)).items():
            for spec in specs:
                kinds.setdefault(kernel, {}).update(
                    {name: _SPEC_KINDS[type(param).__name__] for name, param in spec.params})
    return kinds


_SPEC_KINDS = {"ArraySpec": "array", "ScalarSpec": "scalar", "ConstSpec": "const"}


def _with_spec_kinds(annotated: dict[str, str], given: dict[str, str]) -> dict[str, str]:
    """The annotations' kinds, corrected where a spec file says otherwise (an unannotated
    parameter the launch passes an `int` is a scalar, not an array)."""
    return {name: kind if given.get(name, kind).split("_")[0] == kind.split("_")[0]
            else given[name] for name, kind in annotated.items()}


def _entry_names(rust_path: Path) -> set[str]:
    listing = list_kernels(rust_path)
    return {e["name"] for m in listing.get("modules", []) for e in m.get("entries", [])}


def _python_manifests(source_path: Path) -> dict[str, dict[str, Any]]:
    """The manifests our own translation of the source would carry (for spec derivation)."""
    result = translate_bytes(source_path.read_bytes(), str(source_path))
    out: dict[str, dict[str, Any]] = {}
    for report in result.kernels:
        for variant in report.variants:
            out[str(variant.get("entry", report.name))] = variant
    return out


def manifests_from_signature(source_path: Path, rust_path: Path,
                             kernel_map: dict[str, str]) -> dict[str, Manifest]:
    """Manifests for hand-written Rust, bound through the entry signatures."""
    listing = list_kernels(rust_path)
    source = parse_source(source_path.read_text(encoding="utf-8"), str(source_path))
    python_params = {k.name: _python_params(k.node) for k in source.kernels}
    reverse = {rs: py for py, rs in kernel_map.items()}
    out: dict[str, Manifest] = {}
    for module in listing.get("modules", []):
        for entry in module.get("entries", []):
            kernel = reverse.get(entry["name"], entry["name"])
            if kernel not in python_params or is_pointer_entry(entry) or \
                    not _binds_by_signature(kernel, entry, python_params[kernel]):
                continue
            out[entry["name"]] = _entry_manifest(kernel, entry, python_params[kernel])
    return out


def _python_params(fn: Any) -> dict[str, str]:
    """Python parameter name -> `array`, `scalar`, or the `ct.Constant` kind."""
    kinds: dict[str, str] = {}
    for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        ann = param.annotation.annotation if param.annotation else None
        text = ann.__class__.__name__ if ann is None else _annotation_text(ann)
        if "Constant" in text or "Const" in text:
            kinds[param.name.value] = "const_float" if "float" in text.lower() else "const"
        elif text in ("int", "float", "bool"):
            kinds[param.name.value] = "scalar"
        else:
            kinds[param.name.value] = "array"
    return kinds


def _annotation_text(node: Any) -> str:
    return cst.Module([]).code_for_node(node)


def _entry_manifest(kernel: str, entry: dict[str, Any], python: dict[str, str]) -> Manifest:
    params: list[ManifestParam] = []
    tensor_of_type: dict[str, str] = {}
    for p in entry["params"]:
        name = p["name"]
        if p["kind"] == "tensor":
            params.append(ManifestParam(name, "array", ndim=int(p["rank"])))
            element = p["ty"].replace(" ", "").split("Tensor<", 1)[-1].split(",", 1)[0]
            tensor_of_type.setdefault(element, name)
        elif python.get(name) == "const_float":
            params.append(ManifestParam(name, "const", const_kind="float"))
        else:
            params.append(ManifestParam(name, "scalar"))
    generics: list[ManifestGeneric] = []
    for g in entry["generics"]:
        if g["kind"] == "type":
            source = tensor_of_type.get(g["name"])
            if source is None:
                raise _unbound(g["name"], "no tensor parameter has it as element type")
            generics.append(ManifestGeneric(g["name"], "type", f"dtype({source})", (source,)))
        elif g["name"] in python and g.get("arity", 1) == 1:
            generics.append(ManifestGeneric(g["name"], g["kind"], g["name"], (g["name"],)))
        else:
            raise _unbound(g["name"], "no `ct.Constant` parameter of that name in the source")
    return Manifest(kernel, entry["name"], params=tuple(params), generics=tuple(generics))


def _unbound(name: str, why: str) -> Exception:
    return VerifyError(f"cannot bind generic `{name}` of the Rust entry: {why}")
