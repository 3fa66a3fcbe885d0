"""Driver: one source file's text -> Rust text, running the passes in order.

Takes a file's bytes and its display path (and optionally the input language, else detected
per file by `frontend/base.FrontEnd.detect`); gives a `TranslationResult`: the Rust text (or
None when any kernel failed), one `KernelReport` per kernel (status, diagnostics,
specialization manifest) and the unhandled-construct records for the LLM fallback. Passes:
front end (parse, index; one per language the file holds) -> analysis (typed model) ->
specialization -> lowering (Rust tree) -> loop-invariant hoisting (Rust tree, where the front
end's pass profile asks for it) -> printer. Each kernel is translated independently so one
failure does not hide another's diagnostics. A Triton kernel's entry is followed by its JIT
fact entries (`lowering/jit_facts`: the same variant under Triton's specializations of its
arguments, only where they change the Rust), unless `jit_facts` is off (`--no-jit-facts`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import libcst as cst

from rust_emit import tree as t
from rust_emit.printer import print_source
from rust_emit.rustfmt import format_rust
from specialization.manifest import MANIFEST_PREFIX as MANIFEST_PREFIX  # re-exported
from specialization.manifest import read_manifests as read_manifests  # re-exported
from specialization.plan import SpecializedKernel, specialize
from transpiler import __version__
from transpiler.diagnostics import Diagnostic, TranslationError, UnhandledConstruct
from transpiler.frontend.base import FrontEnd, KernelSource, SourceIndex
from transpiler.frontend.cutile_adapter import CutilePyFrontEnd
from transpiler.frontend.triton import TritonFrontEnd
from transpiler.lowering import bit_ops, c_integer_ops, pointer_ops
from transpiler.lowering.hoist import hoist_loop_invariants
from transpiler.lowering.jit_facts import fact_models
from transpiler.lowering.lower import lower_kernel
from transpiler.lowering.raise_pointers import NO_FACTS, ParamFacts, raise_pointer_accesses
from transpiler.lowering.region_holes import helper_items
from transpiler.lowering.reserved_names import RUST_KEYWORDS
from transpiler.lowering.support import support_function
from transpiler.model import KernelModel

MAX_SOURCE_BYTES = 2_000_000
# LLM fallback hook (llm_fallback/): given, the analysis leaves element-wise constructs it
# cannot lower as `hole` nodes, and the hook sees each typed model before lowering (to fill
# the holes with checked fragments). None: the deterministic path, unchanged.
HoleHook = Callable[[KernelModel], None]
# The input languages, in the order their kernels appear in the output.
FRONT_ENDS: tuple[FrontEnd, ...] = (CutilePyFrontEnd(), TritonFrontEnd())
# Rule modules of the model operations only some front ends produce: importing them
# registers their rules in the lowering table.
EXTRA_LOWERING_RULES = (pointer_ops, c_integer_ops, bit_ops)


@dataclass
class KernelReport:
    name: str
    status: str  # "translated" | "failed"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    manifest: dict[str, object] | None = None
    # One manifest per Rust entry: several when the kernel is translated per element type.
    variants: list[dict[str, object]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "status": self.status,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "manifest": self.manifest,
            "variants": self.variants,
        }


@dataclass
class TranslationResult:
    path: str
    source: str | None
    rust: str | None
    kernels: list[KernelReport] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    unhandled: list[UnhandledConstruct] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.rust is not None

    def all_diagnostics(self) -> list[Diagnostic]:
        return self.diagnostics + [d for k in self.kernels for d in k.diagnostics]


def translate_bytes(data: bytes, path: str, hole_hook: HoleHook | None = None,
                    language: str | None = None,
                    raise_pointers: bool | str = True,
                    param_facts: Mapping[str, ParamFacts] | None = None,
                    jit_facts: bool = True) -> TranslationResult:
    if len(data) > MAX_SOURCE_BYTES:
        diag = Diagnostic("E0004", f"the file is {len(data)} bytes; the limit is "
                          f"{MAX_SOURCE_BYTES}", path, None)
        return TranslationResult(path, None, None, diagnostics=[diag])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        diag = Diagnostic("E0002", f"the file is not UTF-8 text (byte {err.start})", path,
                          None)
        return TranslationResult(path, None, None, diagnostics=[diag])
    if "\x00" in text:
        diag = Diagnostic("E0002", "the file contains NUL bytes; it is not Python source",
                          path, None)
        return TranslationResult(path, text, None, diagnostics=[diag])
    return translate_text(text, path, hashlib.sha256(data).hexdigest(), hole_hook, language,
                          raise_pointers, param_facts, jit_facts)


def front_ends_for(text: str, language: str | None = None) -> list[FrontEnd]:
    """The front ends that translate a file: the one `language` names (`--from`), else
    every one whose language the file is written in (a file may hold kernels of both),
    else cuTile Python (whose diagnostics then say what is missing)."""
    if language is not None:
        return [next(f for f in FRONT_ENDS if f.name == language)]
    found = [f for f in FRONT_ENDS if f.detect(text)]
    return found or [FRONT_ENDS[0]]


def translate_text(text: str, path: str, digest: str | None = None,
                   hole_hook: HoleHook | None = None,
                   language: str | None = None,
                   raise_pointers: bool | str = True,
                   param_facts: Mapping[str, ParamFacts] | None = None,
                   jit_facts: bool = True) -> TranslationResult:
    """`param_facts`: per kernel name, what its raised views may assume of its arguments
    (`raise_pointers.ParamFacts`; the translation is then only for arguments that hold
    them: the benchmarks' view of a specialized entry). None: entries for every argument.
    `jit_facts`: also emit each kernel's JIT fact entries (`lowering/jit_facts`; not for a
    kernel `param_facts` names, whose one entry is already specialized)."""
    digest = digest or hashlib.sha256(text.encode("utf-8")).hexdigest()
    result = TranslationResult(path, text, None)
    fronts = front_ends_for(text, language)
    sources: list[tuple[FrontEnd, SourceIndex]] = []
    for front in fronts:
        try:
            sources.append((front, front.parse(text, path)))
        except TranslationError as err:
            result.diagnostics.append(err.diagnostic)
            return result
    if not any(source.kernels for _front, source in sources):
        result.diagnostics.append(Diagnostic("E0003", fronts[0].no_kernel_message, path,
                                             None))
        return result
    functions: list[t.Function] = []
    support: set[str] = set()
    for front, source in sources:
        state = front.analysis_state(source)
        for kernel in source.kernels:
            facts = (param_facts or {}).get(kernel.name, NO_FACTS)
            report = _translate_kernel(front, source, state, kernel, path, hole_hook,
                                       functions, support, result, raise_pointers, facts,
                                       jit_facts and facts == NO_FACTS)
            result.kernels.append(report)
    if any(k.status == "failed" for k in result.kernels):
        return result
    helpers = [support_function(name) for name in sorted(support)]
    result.rust = format_rust(print_source(_source_file(sources[0][1], helpers + functions,
                                                        digest)))
    return result


def _translate_kernel(front: FrontEnd, source: SourceIndex, state: object,
                      kernel: KernelSource, path: str, hole_hook: HoleHook | None,
                      functions: list[t.Function], support: set[str],
                      result: TranslationResult, raise_pointers: bool | str = True,
                      facts: ParamFacts = NO_FACTS, jit_facts: bool = False) -> KernelReport:
    """One kernel through the passes its front end's profile selects (`state`: what the
    front end keeps of the file between its kernels); its Rust entries go to `functions`,
    the support functions they call to `support`. `raise_pointers`: affine pointer
    accesses become tensor-view accesses (`lowering/raise_pointers`; off: `--no-raise`).
    `jit_facts`: each entry is followed by its JIT fact entries (not with a `hole_hook`:
    the LLM fallback fills the holes of the general entries only)."""
    report = KernelReport(kernel.name, "translated")
    try:
        for model in front.analyze(source, kernel, allow_holes=hole_hook is not None,
                                   state=state):
            model.split_loops = front.profile.split_loops
            variants = fact_models(model, raise_pointers) \
                if jit_facts and hole_hook is None else []
            model.notes.extend(raise_pointer_accesses(model.body, raise_pointers, facts))
            if hole_hook is not None:
                hole_hook(model)
            general, needed = _lowered(front, model, path)
            spec = general[1]
            if hole_hook is not None:
                functions.extend(helper_items(spec.model, functions))
            functions.append(_with_manifest(*general))
            support |= needed
            report.variants.append(spec.manifest())
            for variant in variants:
                (function, fact_spec), fact_needed = _lowered(front, variant, path)
                if function.body == general[0].body and function.params == general[0].params:
                    continue  # the facts change nothing the Rust computes
                functions.append(_with_manifest(function, fact_spec))
                support |= fact_needed
                report.variants.append(fact_spec.manifest())
        report.manifest = report.variants[0]
    except TranslationError as err:
        report.status = "failed"
        report.diagnostics.append(err.diagnostic)
        if err.unhandled is not None:
            result.unhandled.append(err.unhandled)
    except Exception as err:  # noqa: BLE001 - a bug must be a diagnostic, not a crash
        report.status = "failed"
        span = source.span(kernel.node.name)
        report.diagnostics.append(Diagnostic(
            "E9000", f"internal error while translating `{kernel.name}`: "
            f"{type(err).__name__}: {err}", path, span, kernel=kernel.name,
            notes=["this is a bug in the translator; please report it with the file"]))
    return report


def _lowered(front: FrontEnd, model: KernelModel, path: str
             ) -> tuple[tuple[t.Function, SpecializedKernel], set[str]]:
    """A raised model specialized, lowered and (where the front end's profile asks for it)
    hoisted: its Rust function, its specialization and the support functions it calls."""
    spec = specialize(model)
    function, needed = lower_kernel(spec, path)
    if any(p.kind == "pointer" for p in model.params):
        # cuTile Rust takes raw pointer parameters in `unsafe` entries only.
        function = dataclasses.replace(function, unsafe=True)
    if front.profile.hoist_invariants:
        function = hoist_loop_invariants(function)
    return (function, spec), needed


def _with_manifest(fn: t.Function, spec: SpecializedKernel) -> t.Function:
    line = spec.manifest_record().to_text()
    return t.Function(fn.name, fn.params, fn.body, fn.generics, fn.ret, fn.attributes, fn.doc,
                      (*fn.comments, line), fn.unsafe, fn.public)


def _source_file(source: SourceIndex, functions: list[t.Function], digest: str) -> t.SourceFile:
    name = source.path.replace("\\", "/").rsplit("/", 1)[-1]
    header = (
        f"// Generated by transpiler {__version__} from {name} (sha256 {digest[:16]}).",
        "// Do not edit by hand: regenerate with `python -m transpiler`.",
    )
    module = t.Module(
        name=module_name(source.path),
        items=(t.Use("cutile::core::*"), *functions),
        attributes=("cutile::module",),
        doc=_module_doc(source),
    )
    return t.SourceFile(header, (module,))


def module_name(path: str) -> str:
    stem = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.endswith(".py") else stem
    name = re.sub(r"[^0-9a-zA-Z_]", "_", stem).lower() or "kernels"
    if name[0].isdigit():
        name = "m_" + name
    reserved = {"core", "std", "crate", "self", "super", "cutile"} | RUST_KEYWORDS
    return name + "_kernels" if name in reserved else name


def _module_doc(source: SourceIndex) -> tuple[str, ...]:
    body = source.module.body
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        value = body[0].body[0].value.evaluated_value
        if isinstance(value, str):
            return tuple(line.strip() for line in value.strip().splitlines())
    return ()
