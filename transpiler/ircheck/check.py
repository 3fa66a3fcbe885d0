"""The IR check of a translation: Python source + Rust text -> one verdict per specialization.

Takes the source file, the Rust translation (text with embedded specialization manifests) and
the specializations to check; gives, per kernel and specialization, the verdict of comparing
the Tile IR that cuTile Python produces (`reference.reference_ir`) with the Tile IR that cuTile
Rust produces for the same specialization (`generated.compile_rust_kernels`, one harness run
per file), both printed by the same `tileirdisasm` and compared structurally
(`compare.compare_modules`). Specializations come from `--spec` files and from the kernel's
host code as the host-code reader sees it (`derive_specs`), chosen so that every Rust entry,
both values of each bool constant and two values of each integer constant are checked
(`coverage`); `verify_specs` checks them in rounds and reports a derived specialization
cuTile Python rejects as SKIPPED and what none reached as NOT_CHECKED.
"""

from __future__ import annotations

import ast
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from specialization.manifest import FLOAT_BITS_KIND, Manifest
from transpiler.frontend.cutile_py import SourceModule, parse_source
from transpiler.frontend.host.kernels import constant_params
from transpiler.frontend.host.reader import KernelLaunch, discover, package_root
from transpiler.frontend.host_values import host_dtypes, launch_constants
from transpiler.ircheck.coverage import Coverage, Target, candidates, choose, reached
from transpiler.ircheck.host_specs import every_launch_spec
from transpiler.ircheck.rules import CUTILE_PY, ReferenceProducer
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
from transpiler.lowering.float_bits import f32_bits
from transpiler.model.consts import evaluate_condition, evaluate_expression

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


def same_constant(asked: object, fixed: object) -> bool:
    """Whether a specialization's constant is the value a translation folds: strings (Triton
    constexprs compared with string literals) exactly, numbers and bools by value."""
    if isinstance(asked, str) or isinstance(fixed, str):
        return asked == fixed
    return float(asked) == float(fixed)  # type: ignore[arg-type]


def generics_for(manifest: dict[str, Any], spec: KernelSpec) -> list[str]:
    """The Rust generic arguments (flat strings) that realize `spec` for a manifest."""
    for p in manifest["params"]:
        fixed = p.get("fixed")
        if fixed is None:
            continue
        asked = spec.param(p["name"])
        if not isinstance(asked, ConstSpec) or not same_constant(asked.value, fixed):
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
        elif isinstance(param, ConstSpec) and generic["kind"] == FLOAT_BITS_KIND:
            out.append(str(f32_bits(float(param.value))))
        elif isinstance(param, ConstSpec):
            value = param.value
            out.append(("true" if value else "false") if generic["kind"] == "bool"
                       else str(int(value)))
        else:
            raise ValueError(f"generic {generic['name']} needs a constant")
    return out


def derive_specs(source: SourceModule, manifests: dict[str, dict[str, Any]]
                 ) -> dict[str, list[KernelSpec]]:
    """Per kernel, the specializations worth checking, in the order they are tried.

    First those the host code launches the kernel with, as the host-code reader
    (`frontend.host`) sees them: per element type of the op, the constants the host
    computes, from the package's callers where the file's functions take them as parameters.
    A kernel no host function launches gets `literal_specs` instead. Then the variations
    that reach the entries, bool arms and second integer values the host's own do not
    (`coverage.candidates`).
    """
    launches = host_launches(source)
    constants = constant_params(ast.parse(source.text))
    by_kernel: dict[str, list[dict[str, Any]]] = {}
    for manifest in manifests.values():
        by_kernel.setdefault(str(manifest["kernel"]), []).append(manifest)
    pools: dict[str, list[KernelSpec]] = {}
    for kernel, mine in by_kernel.items():
        launch = launches.get(kernel)
        bases = every_launch_spec(launch, mine, constants.get(kernel, set())) if launch else []
        if not bases:
            bases = [s for m in mine for s in literal_specs(source, m)]
        pools[kernel] = candidates(list(dict.fromkeys(bases)), mine)
    return pools


def host_launches(source: SourceModule) -> dict[str, KernelLaunch]:
    """Every launch of the file's kernels its host code makes, read without running it.
    The file is read where it lies (its package gives the callers and imports) when it is
    the text being checked, else from a copy alone in a temporary folder; callers are
    looked for only in a package (a loose file's folder may hold anything)."""
    path = Path(source.path)
    try:
        if path.is_file() and path.read_text(encoding="utf-8") == source.text:
            in_package = (path.parent / "__init__.py").is_file()
            return discover(path, package_root(path), callers=in_package)[0]
        with tempfile.TemporaryDirectory(prefix="transpiler-host-") as tmp:
            copy = Path(tmp) / (path.name if path.suffix == ".py" else "source.py")
            copy.write_text(source.text, encoding="utf-8")
            return discover(copy, Path(tmp), callers=False)[0]
    except Exception:  # noqa: BLE001 - a reader fault leaves the literal specializations
        return {}


def literal_specs(source: SourceModule, manifest: dict[str, Any]) -> list[KernelSpec]:
    """Specializations for a kernel no host function is seen to launch.

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


@dataclass
class IrPair:
    """Both sides' Tile IR text for one (kernel, spec), or the outcome that says why there is
    none (`outcome` set: no entry, a side that does not compile)."""

    kernel: str
    spec: KernelSpec
    compiled_spec: KernelSpec
    manifest: dict[str, Any] | None
    reference_text: str = ""
    generated_text: str = ""
    outcome: CheckOutcome | None = None
    _parsed: tuple[Any, Any] | None = None

    def modules(self) -> tuple[Any, Any]:
        """Both texts parsed (`TileIrModule`s), once, for readers that leave them as they
        are (the interpreter)."""
        from transpiler.ircheck.parse import parse_tileir

        if self._parsed is None:
            self._parsed = (parse_tileir(self.reference_text),
                            parse_tileir(self.generated_text))
        return self._parsed


def compile_pairs(source_path: Path, rust_path: Path,
                  manifests: Mapping[str, Manifest | dict[str, Any]],
                  specs: dict[str, list[KernelSpec]],
                  kernel_map: dict[str, str] | None = None) -> list[IrPair]:
    """Compile every (kernel, spec) on both sides (one harness run for the Rust side) and
    give both disassembled texts (`tileirdisasm -g`), in the order of `specs`."""
    manifests = plain_manifests(manifests)
    from transpiler.ircheck.generated import HarnessError, compile_rust_kernels, layout_json

    kernel_map = kernel_map or {}
    jobs: list[tuple[str, KernelSpec]] = [(k, s) for k, ss in specs.items() for s in ss]
    requests: list[dict[str, Any]] = []
    pairs: list[IrPair] = []
    for kernel, spec in jobs:
        rs_name = kernel_map.get(kernel, kernel)
        manifest = select_manifest(manifests, rs_name, spec)
        compiled_spec = spec if manifest is None else unused_arrays_as_1d(spec, manifest)
        pair = IrPair(kernel, spec, compiled_spec, manifest)
        pairs.append(pair)
        try:
            if manifest is None:
                raise ValueError(f"no Rust entry for `{rs_name}` with a manifest that fits "
                                 "this specialization")
            generics = generics_for(manifest, spec)
            rs_name = str(manifest.get("entry", rs_name))
        except (KeyError, ValueError) as err:
            pair.outcome = _without_entry(source_path, kernel, spec, str(err))
            continue
        requests.append({"entry": rs_name, "generics": generics, "id": spec.label(),
                         "layout": layout_json(spec.layout)})
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        compiled = compile_rust_kernels(rust_path, requests, out_dir=tmp) if requests else []
        results = iter(compiled)
        for pair in pairs:
            if pair.outcome is not None:
                continue
            result = next(results)
            reference_text = _reference_text(source_path, pair.kernel, pair.spec,
                                             pair.compiled_spec)
            if isinstance(reference_text, CheckOutcome):
                pair.outcome = reference_text
                continue
            if not result.ok:
                pair.outcome = CheckOutcome(
                    pair.kernel, pair.spec, "ERROR",
                    error=f"cuTile Rust did not compile it: {result.error}")
                continue
            try:
                pair.generated_text = result.disassemble(debug_info=True)
            except HarnessError as err:
                pair.outcome = CheckOutcome(pair.kernel, pair.spec, "ERROR",
                                            error=f"cuTile Rust gave invalid Tile IR: {err}")
                continue
            pair.reference_text = reference_text
    return pairs


def check_pairs(pairs: list[IrPair], keep_ir: Path | None = None) -> list[CheckOutcome]:
    """The structural verdict of each pair (its `outcome` where it has no texts)."""
    from transpiler.ircheck.compare import compare_modules, format_verdict
    from transpiler.ircheck.parse import parse_tileir

    final: list[CheckOutcome] = []
    for pair in pairs:
        if pair.outcome is not None:
            final.append(pair.outcome)
            continue
        if keep_ir is not None:
            _keep(keep_ir, pair.spec, pair.reference_text, pair.generated_text)
        bound = bound_scalar_args(pair.manifest or {}, pair.compiled_spec)
        # Parsed afresh: the comparison may rewrite what it is given.
        verdict = compare_modules(parse_tileir(pair.reference_text),
                                  parse_tileir(pair.generated_text),
                                  bound, aliased_args(pair.manifest or {}))
        final.append(CheckOutcome(
            pair.kernel, pair.spec, verdict.status,
            notes=[f"{n.rule}: {n.message}" for n in verdict.notes],
            differences=[_difference_json(d) for d in verdict.differences],
            text=format_verdict(verdict)))
    return final


def check_file(source_path: Path, rust_path: Path,
               manifests: Mapping[str, Manifest | dict[str, Any]],
               specs: dict[str, list[KernelSpec]], keep_ir: Path | None = None,
               kernel_map: dict[str, str] | None = None) -> list[CheckOutcome]:
    """Compile every (kernel, spec) on both sides and compare; one outcome each."""
    return check_pairs(compile_pairs(source_path, rust_path, manifests, specs, kernel_map),
                       keep_ir)


def _without_entry(source_path: Path, kernel: str, spec: KernelSpec,
                   error: str) -> CheckOutcome:
    """The outcome of a specialization no Rust entry takes: cuTile Python may refuse it as
    well (the translation leaves out launches the original cannot compile)."""
    found = _reference_text(source_path, kernel, spec, spec, error)
    return found if isinstance(found, CheckOutcome) else CheckOutcome(kernel, spec, "ERROR",
                                                                      error=error)


def _reference_text(source_path: Path, kernel: str, spec: KernelSpec, compiled: KernelSpec,
                    error: str | None = None,
                    producer: ReferenceProducer = CUTILE_PY) -> str | CheckOutcome:
    """cuTile Python's IR for `compiled`, or the outcome that says it rejects the
    specialization (then no launch of the original, whatever the Rust side did)."""
    try:
        return producer.reference_ir(source_path, compiled)
    except producer.rejections as err:
        lead = (f"{error}; cuTile Python does not compile it either" if error
                else "cuTile Python did not compile it")
        return CheckOutcome(kernel, spec, "ERROR", error=f"{lead}: {err}",
                            reference_rejected=True)


def unused_arrays_as_1d(spec: KernelSpec, manifest: dict[str, Any]) -> KernelSpec:
    """`spec` with the arrays the entry never reads (manifest ndim -1) as 1-d: the Rust takes
    them so, and their rank changes only the entry's argument list on either side."""
    unused = {p["name"] for p in manifest.get("params", [])
              if p["kind"] == "array" and int(p["ndim"]) < 0}
    if not unused:
        return spec
    params = tuple((name, ArraySpec(p.dtype, 1) if name in unused and isinstance(
        p, ArraySpec) else p) for name, p in spec.params)
    return replace(spec, params=params)


def plain_manifests(manifests: Mapping[str, Manifest | dict[str, Any]]
                    ) -> dict[str, dict[str, Any]]:
    """Manifests as their JSON objects, from the typed form or as they are."""
    return {k: m.to_json() if isinstance(m, Manifest) else m for k, m in manifests.items()}


def select_manifest(manifests: Mapping[str, Manifest | dict[str, Any]], kernel: str,
                    spec: KernelSpec) -> dict[str, Any] | None:
    """The manifest (its JSON object) of the Rust entry that translates `kernel` for
    `spec`'s dtypes: the generic entry, or the dtype variant whose fixed element types the
    spec matches. An entry translated under JIT facts (`jit_facts`, correct only for
    arguments that hold them) is never the one: its general entry is."""
    for manifest in plain_manifests(manifests).values():
        if manifest.get("kernel") != kernel and manifest.get("entry") != kernel:
            continue
        if manifest.get("jit_facts"):
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
        if dtypes_match and consts_match and conds_match and _generics_fit(manifest, spec):
            return manifest
    return None


def _generics_fit(manifest: dict[str, Any], spec: KernelSpec) -> bool:
    """Whether each type generic of the entry can be one element type for `spec`: the
    arrays it types all have one dtype there (a generic `E` of `a` and `b` cannot take an
    f16 `a` with an f32 `b`; a dtype variant entry takes that launch)."""
    for generic in manifest.get("generics") or []:
        if generic.get("kind") != "type":
            continue
        given = dict(spec.params)
        dtypes = {given[p].dtype for p in generic.get("params") or []
                  if isinstance(given.get(p), ArraySpec)}
        if len(dtypes) > 1:
            return False
    return True


def entry_arg_positions(manifest: dict[str, Any]) -> dict[str, int]:
    """Where each Rust parameter's entry arguments start: a `&Tensor` of rank r takes
    1 + 2r (base, shape, strides), a scalar one; const generics take none."""
    positions: dict[str, int] = {}
    position = 0
    as_bits = float_bits_params(manifest)
    for p in manifest.get("params", []):
        positions[p["name"]] = position
        if p["kind"] == "array":
            position += 1 + 2 * max(int(p["ndim"]), 1)
        elif p["kind"] in ("scalar", "derived", "stride"):
            position += 1
        elif p.get("fixed") is None and p.get("const_kind") == "float" and \
                p["name"] not in as_bits:
            position += 1
    return positions


def float_bits_params(manifest: dict[str, Any]) -> set[str]:
    """The `ct.Constant[float]` parameters that the entry takes as f32-bits const generics
    (older translations take them as runtime `f32` arguments)."""
    return {g["params"][0] for g in manifest.get("generics", [])
            if g["kind"] == FLOAT_BITS_KIND}


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
                "const_kind") == "float" and p["name"] not in float_bits_params(manifest):
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
    """`--verify` for one translated file: prints a verdict line per kernel and spec, then
    a line per entry or arm no specialization checked."""
    from transpiler.driver import read_manifests

    source = parse_source(result.source, display)
    manifests = read_manifests(result.rust)
    plan = plan_specs(source, manifests, spec_files)
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(result.rust, encoding="utf-8")
        outcomes = verify_specs(Path(display), rust_path, manifests, plan,
                                Path(keep_ir) if keep_ir else None)
    for outcome in outcomes:
        if not quiet:
            print(f"{display}: {outcome.line()}")
            if outcome.verdict in ("FAIL",) and outcome.text:
                print(outcome.text)
    return [o.to_json() for o in outcomes]


# ---- which specializations, and what they leave unchecked ----------------------------------

#: Rounds of checks: a round after the first tries other candidates for what the previous
#: rounds left unreached (cuTile Python rejected the specialization tried for it).
MAX_ROUNDS = 3


@dataclass
class SpecPlan:
    """The specializations of a file's kernels: the `--spec` files' (checked as given) and,
    per kernel, the derived candidates in the order they are tried."""

    given: dict[str, list[KernelSpec]]
    pools: dict[str, list[KernelSpec]]


@dataclass
class NotChecked:
    """An entry, or a value of one of its const generics, that no checked specialization
    reached: reported, never counted as passing."""

    kernel: str
    target: Target
    reason: str
    verdict: str = "NOT_CHECKED"
    text: str = ""

    def line(self) -> str:
        return f"{self.verdict:<16} {self.target.describe()}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        value = self.target.value
        return {"kernel": self.kernel, "specialization": None, "verdict": self.verdict,
                "entry": self.target.entry, "generic": self.target.generic,
                "value": value if isinstance(value, bool | int | float | str) else None,
                "reason": self.reason, "notes": [], "differences": [], "error": None,
                "reference_rejected": False}


def plan_specs(source: SourceModule, manifests: Mapping[str, Manifest | dict[str, Any]],
               spec_files: list[str]) -> SpecPlan:
    given: dict[str, list[KernelSpec]] = {}
    for path in spec_files:
        for kernel, entries in load_spec_file(Path(path)).items():
            given.setdefault(kernel, []).extend(entries)
    return SpecPlan(given, derive_specs(source, plain_manifests(manifests)))


def _collect_specs(source: SourceModule, manifests: Mapping[str, Manifest | dict[str, Any]],
                   spec_files: list[str]) -> dict[str, list[KernelSpec]]:
    """The first round of `verify_specs`: the given specializations, then the derived ones
    that reach what those do not."""
    manifests = plain_manifests(manifests)
    plan = plan_specs(source, manifests, spec_files)
    coverage = {k: Coverage(kernel_manifests(manifests, k)) for k in plan.pools}
    return _next_round(plan, manifests, coverage, {}, {}, first=True)


def collect_specs(source: SourceModule, manifests: dict[str, dict[str, Any]],
                  spec_files: list[str]) -> dict[str, list[KernelSpec]]:
    """The specializations a translation's `--verify` checks first (`_collect_specs`)."""
    return _collect_specs(source, manifests, spec_files)


def kernel_manifests(manifests: Mapping[str, Manifest | dict[str, Any]], kernel: str
                     ) -> list[dict[str, Any]]:
    return [m for m in plain_manifests(manifests).values()
            if m.get("kernel") == kernel or m.get("entry") == kernel]


def _usable_manifest(manifests: dict[str, dict[str, Any]], kernel: str,
                     spec: KernelSpec) -> dict[str, Any] | None:
    """The entry `spec` runs on when it binds every generic of that entry; else None."""
    manifest = select_manifest(manifests, kernel, spec)
    if manifest is None:
        return None
    try:
        generics_for(manifest, spec)
    except (KeyError, ValueError):
        return None
    return manifest


def _next_round(plan: SpecPlan, manifests: dict[str, dict[str, Any]],
                coverage: dict[str, Coverage], tried: dict[str, list[KernelSpec]],
                kernel_map: dict[str, str], first: bool) -> dict[str, list[KernelSpec]]:
    out: dict[str, list[KernelSpec]] = {}
    for kernel in dict.fromkeys([*plan.given, *plan.pools]):
        rs_name = kernel_map.get(kernel, kernel)
        chosen = list(plan.given.get(kernel, [])) if first else []
        wanted = coverage.get(kernel) or Coverage(kernel_manifests(manifests, rs_name))
        assumed = wanted.copy()
        for spec in chosen:
            manifest = _usable_manifest(manifests, rs_name, spec)
            if manifest is not None:
                assumed.add(manifest, spec)
        done = tried.get(kernel, [])
        pool = [s for s in plan.pools.get(kernel, []) if s not in done and s not in chosen]
        chosen += choose(pool, lambda s, n=rs_name: _usable_manifest(manifests, n, s),
                         assumed, wanted_only=not first)
        if first and not chosen and plan.pools.get(kernel):
            # Nothing the Rust entries take: the host's own first specialization still
            # shows why (no entry for it, or cuTile Python rejects it as well).
            chosen.append(plan.pools[kernel][0])
        if chosen:
            out[kernel] = chosen
    return out


def verify_specs(source_path: Path, rust_path: Path, manifests: dict[str, dict[str, Any]],
                 plan: SpecPlan, keep_ir: Path | None = None,
                 kernel_map: dict[str, str] | None = None,
                 on_pairs: Callable[[list[IrPair]], None] | None = None
                 ) -> list[CheckOutcome | NotChecked]:
    """Check the plan's specializations in rounds until every entry target is reached or
    no candidate is left (`VerifyRounds`), in this process. `on_pairs` sees both sides' IR
    of every round (the numeric check runs on them)."""
    rounds = VerifyRounds(manifests, plan, kernel_map)
    while specs := rounds.pending():
        rounds.record(check_each_kernel(source_path, rust_path, rounds.manifests, specs,
                                        keep_ir, rounds.kernel_map, on_pairs))
    return rounds.result()


class VerifyRounds:
    """The rounds of `verify_specs` as a state machine, so that a caller may run each
    round's checks where it likes (`parallel_verify` spreads them over processes).

    `pending()` gives the next round's specializations per kernel (empty when the rounds are
    over); `record(outcomes)` takes their outcomes in that order (kernel by kernel, each
    kernel's in its specializations' order); `result()` gives every outcome, derived
    specializations cuTile Python rejects as SKIPPED (no launch the original supports), then
    a NOT_CHECKED line per target no round reached."""

    def __init__(self, manifests: Mapping[str, Manifest | dict[str, Any]], plan: SpecPlan,
                 kernel_map: dict[str, str] | None = None) -> None:
        self.manifests = plain_manifests(manifests)
        self.plan = plan
        self.kernel_map = kernel_map or {}
        self.kernels = list(dict.fromkeys([*plan.given, *plan.pools]))
        self.coverage = {k: Coverage(kernel_manifests(self.manifests,
                                                      self.kernel_map.get(k, k)))
                         for k in self.kernels}
        self.tried: dict[str, list[KernelSpec]] = {k: [] for k in self.kernels}
        self.outcomes: list[CheckOutcome] = []
        self.rounds_done = 0
        self._specs = _next_round(plan, self.manifests, self.coverage, self.tried,
                                  self.kernel_map, first=True)

    def pending(self) -> dict[str, list[KernelSpec]]:
        return self._specs if self.rounds_done < MAX_ROUNDS else {}

    def record(self, outcomes: list[CheckOutcome]) -> None:
        for outcome in outcomes:
            given = outcome.spec in self.plan.given.get(outcome.kernel, [])
            if outcome.reference_rejected and not given:
                outcome.verdict = "SKIPPED"
                outcome.error = (outcome.error or "").replace(
                    "cuTile Python did not compile it",
                    "cuTile Python rejects this derived specialization", 1)
            self.tried[outcome.kernel].append(outcome.spec)
            self.outcomes.append(outcome)
            manifest = _usable_manifest(self.manifests,
                                        self.kernel_map.get(outcome.kernel, outcome.kernel),
                                        outcome.spec)
            if manifest is not None and outcome.verdict in COMPARED:
                self.coverage[outcome.kernel].add(manifest, outcome.spec)
            elif manifest is not None:
                self.coverage[outcome.kernel].failed(manifest, outcome.spec)
        self.rounds_done += 1
        self._specs = _next_round(self.plan, self.manifests, self.coverage, self.tried,
                                  self.kernel_map, first=False)

    def result(self) -> list[CheckOutcome | NotChecked]:
        gaps: list[CheckOutcome | NotChecked] = []
        for kernel in self.kernels:
            missing = self.coverage[kernel].missing()
            unreached = {t.entry for t in missing if t.generic is None}
            for target in missing:
                if target.generic is not None and target.entry in unreached:
                    continue  # the entry's own line says it
                gaps.append(NotChecked(kernel, target, _why_unreached(
                    target, self.outcomes, kernel, self.manifests,
                    self.kernel_map.get(kernel, kernel))))
        return [*self.outcomes, *gaps]


def check_each_kernel(source_path: Path, rust_path: Path,
                      manifests: dict[str, dict[str, Any]], specs: dict[str, list[KernelSpec]],
                      keep_ir: Path | None, kernel_map: dict[str, str],
                      on_pairs: Callable[[list[IrPair]], None] | None = None
                      ) -> list[CheckOutcome]:
    """`check_file` one kernel at a time, so that a kernel whose Rust the harness does not
    compile in time is an ERROR of its own specializations only. A specialization's outcome
    does not depend on the others checked with it, so `specs` may be any part of a round."""
    out: list[CheckOutcome] = []
    for kernel, chosen in specs.items():
        try:
            pairs = compile_pairs(source_path, rust_path, manifests, {kernel: chosen},
                                  kernel_map)
            if on_pairs is not None:
                on_pairs(pairs)
            out += check_pairs(pairs, keep_ir)
        except subprocess.TimeoutExpired as err:
            out += [CheckOutcome(kernel, spec, "ERROR", error=(
                f"cuTile Rust did not finish compiling in {err.timeout:.0f} s"))
                for spec in chosen]
        except Exception as err:  # noqa: BLE001 - a checker fault is this kernel's ERROR
            out += [CheckOutcome(kernel, spec, "ERROR", error=(
                f"the IR check stopped: {type(err).__name__}: {err}")) for spec in chosen]
    return out


#: Verdicts of a specialization both sides compiled and the check compared.
COMPARED = ("PASS", "PASS_WITH_NOTES", "FAIL")


def _why_unreached(target: Target, outcomes: list[CheckOutcome], kernel: str,
                   manifests: dict[str, dict[str, Any]], rs_name: str) -> str:
    verdicts: list[str] = []
    for outcome in outcomes:
        if outcome.kernel != kernel:
            continue
        manifest = _usable_manifest(manifests, rs_name, outcome.spec)
        if manifest is not None and any(t == target for t, _ in reached(manifest,
                                                                         outcome.spec)):
            verdicts.append(outcome.verdict)
    if not verdicts:
        return "no specialization derived from the host code reaches it"
    counts = ", ".join(f"{n} {v}" for v, n in sorted(
        {v: verdicts.count(v) for v in verdicts}.items()))
    return f"the specializations tried for it ended {counts}"
