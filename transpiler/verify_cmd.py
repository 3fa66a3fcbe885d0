"""`python -m transpiler verify SOURCE.py RUST.rs`: check any Rust translation against its source.

Takes a cuTile Python file and a cuTile Rust file (ours, edited by hand, or written elsewhere);
gives one IR verdict per kernel and specialization, exit status 0 (all PASS/PASS_WITH_NOTES),
1 (any FAIL) or 2 (cannot run: no matching entry, the Rust does not compile, a generic that
cannot be bound). Each `@ct.kernel` pairs with the `#[cutile::entry]` of the same name
(`--map py=rs` otherwise). Specializations come from `--spec`, else from the file's launch
sites. Generics are bound from the manifest when the file carries ours, else from the Rust
signature itself (element-type generics through the tensors that use them, const generics and
scalars by name).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import libcst as cst

from specialization.manifest import Manifest, ManifestGeneric, ManifestParam, parse_manifests
from transpiler.driver import translate_bytes
from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck.generated import HarnessError, cargo_check_files, list_kernels
from transpiler.ircheck.spec import SpecFileError

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
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_OK if exit_.code in (0, None) else EXIT_CANNOT_RUN
    source_path, rust_path = Path(args.source), Path(args.rust)
    for path in (source_path, rust_path):
        if not path.is_file():
            print(f"error: `{path}` does not exist", file=sys.stderr)
            return EXIT_CANNOT_RUN
    try:
        kernel_map = dict(m.split("=", 1) for m in args.map)
    except ValueError:
        print("error: --map takes PY_NAME=RS_NAME", file=sys.stderr)
        return EXIT_CANNOT_RUN
    numeric: list[Any] = []
    try:
        outcomes = run_verify(source_path, rust_path, args.spec, kernel_map, args.keep_ir,
                              numeric=numeric if args.numeric else None, seed=args.seed)
    except (VerifyError, SpecFileError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    out = sys.stderr if args.json else sys.stdout
    for outcome in outcomes:
        print(f"{source_path}: {outcome.line()}", file=out)
        if outcome.verdict == "FAIL" and not args.json:
            print(outcome.text)
    for result in numeric:
        print(f"{source_path}: {result.line()}", file=out)
    if args.json:
        report: dict[str, Any] = {"source": str(source_path), "rust": str(rust_path),
                                  "verdicts": [o.to_json() for o in outcomes]}
        if args.numeric:
            report["numeric"] = [n.to_json() for n in numeric]
        print(json.dumps(report, indent=2))
    if any(o.verdict == "ERROR" for o in outcomes) or any(
            n.verdict in ("ERROR", "CANNOT_RUN") for n in numeric):
        return EXIT_CANNOT_RUN
    failed = any(o.verdict == "FAIL" for o in outcomes) or any(
        n.verdict == "FAIL" for n in numeric)
    return EXIT_FAIL if failed else EXIT_OK


class VerifyError(Exception):
    """The check cannot run; the message says why."""


def run_verify(source_path: Path, rust_path: Path, spec_files: list[str],
               kernel_map: dict[str, str], keep_ir: str | None,
               numeric: list[Any] | None = None, seed: int = 0) -> list[Any]:
    """The structural outcomes; with `numeric` (a list), also the numeric check's, appended
    to it."""
    from transpiler.ircheck.check import IrPair, plan_specs, verify_specs

    rust_text = rust_path.read_text(encoding="utf-8")
    errors = [d for d in cargo_check_files([rust_path]) if d.is_error]
    if errors:
        raise VerifyError(f"the Rust file does not compile:\n{errors[0].rendered}")
    source_text = source_path.read_text(encoding="utf-8")
    source = parse_source(source_text, str(source_path))
    try:
        entries = _entry_names(rust_path)
        # A manifest is trusted only while its entry is still in the file (a hand edit may
        # have renamed or removed it); otherwise bind from the signatures.
        manifests = {k: m for k, m in parse_manifests(rust_text).items() if k in entries}
        if not manifests:
            manifests = manifests_from_signature(source_path, rust_path, kernel_map)
    except HarnessError as err:
        raise VerifyError(f"cannot read the Rust file's entries: {err}") from None
    python_manifests = _python_manifests(source_path)
    spec_source = {**python_manifests, **{k: v.to_json() for k, v in manifests.items()
                                          if k not in python_manifests}}
    plan = plan_specs(source, spec_source, spec_files)
    kernels = {k.name for k in source.kernels}
    plan.given = {k: v for k, v in plan.given.items() if k in kernels}
    plan.pools = {k: v for k, v in plan.pools.items() if k in kernels}
    for kernel in kernels:
        rs = kernel_map.get(kernel, kernel)
        if not any(rs in (m.kernel, m.entry) for m in manifests.values()):
            raise VerifyError(f"no `#[cutile::entry]` named `{rs}` for kernel `{kernel}` "
                              "(use --map PY=RS)")
        if not plan.given.get(kernel) and not plan.pools.get(kernel):
            raise VerifyError(f"no specialization for `{kernel}`: pass --spec FILE")
    compiled: list[IrPair] = []
    outcomes = verify_specs(source_path, rust_path, manifests, plan,
                            Path(keep_ir) if keep_ir else None, kernel_map,
                            compiled.extend if numeric is not None else None)
    if numeric is not None:
        from transpiler.numeric_check.inputs import load_numeric_settings
        from transpiler.numeric_check.run import numeric_check

        numeric.extend(numeric_check(source_path, rust_path, manifests, compiled,
                                     load_numeric_settings(spec_files), kernel_map, seed))
    return outcomes


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
            if kernel not in python_params:
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
