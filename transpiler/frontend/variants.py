"""The variant loop: one kernel -> one typed `KernelModel` per variant it must be translated for.

Takes a `SourceModule`, one of its kernels and the module's `SyntaxFacts`; gives the typed
models: one when the kernel is uniform in its element types and constants, otherwise one per
element type the host code names for each array class whose dtype decides the code, and one
per value of each `ct.Constant` (or outcome of a condition over constants) that decides which
code exists. cuTile Python compiles only what a launch selects; rustc would check it all.

A variant is data (`Variant`: the element types, constants and condition outcomes it fixes).
Analyzing one gives either its model or a `SplitRequest` (`splits.py`); `children` turns a
request into the variants to analyze next. Each variant is analyzed at most once (its `key`),
and everything the analysis reads from the syntax alone (`SyntaxFacts`) is computed once for
all of them, so a split costs one more typing of the body, not a new walk of the file.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from transpiler.analysis import KernelAnalyzer, condition_key, condition_tree
from transpiler.diagnostics import TranslationError
from transpiler.frontend.cutile_py import KernelDef, SourceModule
from transpiler.frontend.splits import DTYPE_REFUSALS, ConstSplit, DtypeSplit, SplitRequest
from transpiler.frontend.syntax_facts import SyntaxFacts
from transpiler.model import DType, KernelModel

MAX_DTYPE_VARIANTS = 24
#: The float types cuTile kernels are usually launched with, tried after the host's own (a
#: host that names only an output's dtype says nothing of its inputs').
DEFAULT_VARIANT_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class Variant:
    """What one translation of a kernel fixes: arrays' element types, `ct.Constant` values,
    and outcomes of conditions over constants (by `condition_key`: its JSON tree and value).
    The dicts keep the order in which splits fixed them (entry names follow it)."""

    dtypes: dict[str, DType] = field(default_factory=dict)
    consts: dict[str, object] = field(default_factory=dict)
    conds: dict[str, dict[str, object]] = field(default_factory=dict)

    def key(self) -> tuple[object, ...]:
        """The variant's identity, whatever order its facts were fixed in."""
        return (tuple(sorted((k, v.name) for k, v in self.dtypes.items())),
                tuple(sorted((k, repr(v)) for k, v in self.consts.items())),
                tuple(sorted((k, bool(v["value"])) for k, v in self.conds.items())))

    def stamp(self, model: KernelModel) -> KernelModel:
        """`model` labelled with this variant (specialization names its entry from it)."""
        model.const_variant = dict(self.consts)
        model.cond_variant = dict(self.conds)
        model.dtype_variant = {k: v.name for k, v in self.dtypes.items()}
        return model


def analyze_kernel_variants(source: SourceModule, kernel: KernelDef,
                            allow_holes: bool = False,
                            facts: SyntaxFacts | None = None) -> list[KernelModel]:
    """The typed model of every variant `kernel` needs, in discovery order (`facts`: the
    module's, shared with its other kernels when given)."""
    facts = facts or SyntaxFacts(source)
    launch_values = facts.launch_constants(kernel.name)
    pending: deque[Variant] = deque([Variant()])
    analyzed: set[tuple[object, ...]] = set()
    done: list[KernelModel] = []
    dropped: list[TranslationError] = []
    skipped_mixed: list[DtypeSplit] = []  # mixed-type children beyond the variant budget
    while pending:
        variant = pending.popleft()
        key = variant.key()
        if key in analyzed:
            continue
        analyzed.add(key)
        analyzer = KernelAnalyzer(source, kernel, allow_holes, launch_values, variant.dtypes,
                                  variant.consts,
                                  {k: bool(v["value"]) for k, v in variant.conds.items()},
                                  facts)
        try:
            outcome = analyzer.run()
        except TranslationError as err:
            if _unsupported_by_python(err, variant):
                # A `ct` name that does not exist, reached only for some constants, or a
                # store narrowing this variant's element type: cuTile Python cannot compile
                # those launches either; the other variants stand.
                dropped.append(err)
                continue
            raise
        if isinstance(outcome, KernelModel):
            done.append(variant.stamp(outcome))
            continue
        if isinstance(outcome, DtypeSplit):
            uniform, mixed = dtype_children(variant, outcome, facts.host_dtypes())
            pending.extend(uniform)
            if len(pending) + len(done) + len(mixed) <= MAX_DTYPE_VARIANTS:
                pending.extend(mixed)
            elif mixed:
                skipped_mixed.append(outcome)
        else:
            pending.extend(children(variant, outcome, analyzer, launch_values, facts))
        if len(pending) + len(done) > MAX_DTYPE_VARIANTS:
            raise analyzer.error("E0200", "too many variants (element types and constants) "
                                 "are needed for this kernel", None)
    if dropped and not done:
        raise dropped[0]
    for note in [*_dropped_notes(dropped), *_mixed_notes(skipped_mixed)]:
        for model in done:
            if note not in model.notes:
                model.notes.append(note)
    return done


def children(variant: Variant, request: SplitRequest, analyzer: KernelAnalyzer,
             launch_values: dict[str, object], facts: SyntaxFacts) -> list[Variant]:
    """The variants `request` splits `variant` into, the ones keeping a single element
    type first (`dtype_children`)."""
    if isinstance(request, DtypeSplit):
        uniform, mixed = dtype_children(variant, request, facts.host_dtypes())
        return uniform + mixed
    return const_children(variant, request, analyzer, launch_values)


def dtype_children(variant: Variant, request: DtypeSplit,
                   host_dtypes: list[str]) -> tuple[list[Variant], list[Variant]]:
    """One variant per candidate element type of the arrays `request` names, as two lists.
    A first split takes the dtypes the host code names, then the usual float types, each a
    variant with one element type. A later split gives the arrays the element types the
    variant already fixed for others (one element type for the whole launch), then, as
    variants mixing element types, each other dtype the host code names (an int32 index
    array beside float data, an f32 output beside f16 inputs). The usual float types are a
    guess, not a launch: they are not mixed, which keeps a kernel whose host says nothing of
    its dtypes at one entry per float type."""
    chosen = list(dict.fromkeys(d.name for d in variant.dtypes.values()))
    if not chosen:
        uniform = list(dict.fromkeys([*host_dtypes, *DEFAULT_VARIANT_DTYPES]))
        return [_with_dtype(variant, request, dtype) for dtype in uniform], []
    made = [_with_dtype(variant, request, dtype)
            for dtype in dict.fromkeys([*chosen, *host_dtypes])]
    uniform_made = [v for v in made if len({d.name for d in v.dtypes.values()}) == 1]
    return uniform_made, [v for v in made if v not in uniform_made]


def _with_dtype(variant: Variant, request: DtypeSplit, dtype: str) -> Variant:
    return Variant({**variant.dtypes, **{p: DType(dtype) for p in request.params}},
                   variant.consts, variant.conds)


def const_children(variant: Variant, request: ConstSplit, analyzer: KernelAnalyzer,
                   launch_values: dict[str, object]) -> list[Variant]:
    """One variant per outcome of the request's condition when it reads an integer the
    launches do not fix; otherwise one per combination of its constants' values."""
    kinds = {p.name: p.const_kind for p in analyzer.params}
    if request.condition is not None and any(
            kinds.get(p) != "bool" and p not in launch_values for p in request.params):
        key, tree = condition_key(request.condition), condition_tree(request.condition)
        out = []
        for outcome in (True, False):
            # `P == 1` holding fixes P itself, which lets shapes use the value.
            pinned = dict(variant.consts)
            if _is_equality_pin(tree, outcome):
                pinned[tree[1][1]] = tree[2]  # type: ignore[index]
            out.append(Variant(variant.dtypes, pinned,
                               {**variant.conds, key: {"tree": tree, "value": outcome}}))
        return out
    return [Variant(variant.dtypes, {**variant.consts, **values}, variant.conds)
            for values in _const_choices(analyzer, request, kinds, launch_values)]


def _const_choices(analyzer: KernelAnalyzer, request: ConstSplit, kinds: dict[str, object],
                   launch_values: dict[str, object]) -> list[dict[str, object]]:
    """The values to translate each constant for: both values of a bool, the launch
    sites' value of an int."""
    choices: list[dict[str, object]] = [{}]
    for param in request.params:
        if kinds.get(param) == "bool":
            values: list[object] = [True, False]
        elif param in launch_values:
            values = [launch_values[param]]
        else:
            raise analyzer.error(
                "E0200", f"{request.what}; `{param}` is not a bool and its launches do not "
                "give one known value to translate it for", None) from None
        choices = [{**c, param: v} for c in choices for v in values]
    return choices


def _is_equality_pin(tree: object, outcome: bool) -> bool:
    """Whether this outcome of the condition fixes a constant: `P == c` holding, or
    `P != c` failing."""
    return (isinstance(tree, list) and tree[0] == ("==" if outcome else "!=")
            and isinstance(tree[1], list) and tree[1][0] == "param"
            and isinstance(tree[2], int | bool))


def _unsupported_by_python(err: TranslationError, variant: Variant) -> bool:
    """Whether `err` only says that this variant (element types or constants fixed) is no
    launch cuTile Python compiles."""
    if err.diagnostic.code == "E0100" and (variant.consts or variant.conds):
        return True
    return bool(variant.dtypes) and err.unhandled is not None \
        and err.unhandled.construct in DTYPE_REFUSALS


def _dropped_notes(dropped: list[TranslationError]) -> list[str]:
    """The note each kept model carries for the variants dropped as Python drops them."""
    notes = []
    for err in dropped:
        line = err.diagnostic.span.line if err.diagnostic.span else "?"
        which = ("element types" if err.unhandled is not None
                 and err.unhandled.construct in DTYPE_REFUSALS else "constants")
        notes.append(f"not translated for the {which} that reach line {line}: "
                     f"{err.diagnostic.message} (cuTile Python cannot compile those "
                     "launches either)")
    return notes


def _mixed_notes(skipped: list[DtypeSplit]) -> list[str]:
    """The note each kept model carries for the launches mixing element types that got no
    entry because the kernel already needs `MAX_DTYPE_VARIANTS` variants (the launcher
    refuses such a launch with an error naming the element types)."""
    return [f"no entries for launches giving {', '.join(f'`{p}`' for p in split.params)} "
            f"an element type other than the other arrays' (more than {MAX_DTYPE_VARIANTS} "
            "variants)" for split in dict.fromkeys(skipped)]
