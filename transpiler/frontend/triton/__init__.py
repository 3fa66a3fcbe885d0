"""Triton as a `FrontEnd`: `@triton.jit` kernels -> typed models with Triton's semantics.

Takes a file's text; gives its source index (`source.py`) and, per kernel, the typed models
(`analyzer.py`, memory order by `tokens.py`). The variant loop here decides what the source
leaves open: a parameter is a pointer when the kernel uses it as an address, an `f32` when it
only ever mixes with floats (else `i32`, as Triton types a Python int), and a kernel whose
typing depends on a launch-time element type (a `tl.dot`, a mixed-precision promotion) is
translated once per float type (f16, bf16, f32). Pass profile: no fma contraction, no loop
splitting, no hoisting (habits of cuTile Python's compiler, not Triton's); memory order per
pointer parameter.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

import libcst as cst

from transpiler.diagnostics import Diagnostic, TranslationError
from transpiler.frontend.base import FrontEnd, KernelSource, PassProfile, SourceIndex
from transpiler.frontend.triton import source as triton_source
from transpiler.frontend.triton.analyzer import Analyzer, Decisions, NeedsKind
from transpiler.frontend.triton.choices import (
    NeedsChoice,
    Outcome,
    condition_text,
    condition_tree,
    float_constexprs,
    host_report,
    is_entry_text,
    launch_values,
)
from transpiler.frontend.triton.dtypes import FLOAT_VARIANTS, DtypeDependent
from transpiler.frontend.triton.tokens import order_memory
from transpiler.model import DType, DTypeVar, KernelModel, TAssign, TFor, TIf, TStmt, TWhile
from transpiler.model.elements import BY_NAME

# At most this many analyses per kernel (each decision adds one).
MAX_ATTEMPTS = 64
#: A translated variant and the decisions it was analyzed under.
Variant = tuple[KernelModel, Decisions]


class TritonFrontEnd(FrontEnd):
    name = "triton"
    profile = PassProfile(contract_fma=False, split_loops=False, hoist_invariants=False,
                          token_order="per-pointer-parameter")
    no_kernel_message = "no `@triton.jit` function found (is `triton` imported?)"

    def detect(self, text: str) -> bool:
        return triton_source.detect(text)

    def parse(self, text: str, path: str) -> triton_source.TritonSource:
        return triton_source.parse_source(text, path)

    def analyze(self, source: SourceIndex, kernel: KernelSource, allow_holes: bool,
                state: object = None) -> Iterable[KernelModel]:
        assert isinstance(source, triton_source.TritonSource)
        assert isinstance(kernel, triton_source.TritonKernel)
        floats = float_constexprs(host_report(source.text, source.path), kernel.name)
        found = list(_variants(source, kernel, Decisions(
            float_consts=floats, pointers=launched_pointers(source, kernel)), 0))
        pointers = {p.name for m, _ in found for p in m.params if p.kind == "pointer"}
        models: list[KernelModel] = []
        for model, decisions in found:
            missing = {p.name for p in model.params if p.kind == "scalar"} & pointers
            if not missing:
                models.append(model)
                continue
            # A parameter only another entry's branch uses as an address (`if BETA != 0.0:
            # tl.load(REF + i)` folded away here) is still the pointer the launch passes.
            for again, _ in _variants(source, kernel, decisions.copy(
                    pointers=decisions.pointers | missing), 0):
                # The notes the variant loop added on the way to this variant.
                again.notes.extend(n for n in model.notes if n not in again.notes)
                models.append(again)
        return models


def _variants(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
              decisions: Decisions, attempts: int) -> Iterator[Variant]:
    bools = bool_constexprs(source, kernel)
    while attempts < MAX_ATTEMPTS:
        attempts += 1
        analyzer = Analyzer(source, kernel, decisions, bools)
        try:
            model = analyzer.run()
        except NeedsKind as need:
            {"pointer": decisions.pointers, "float": decisions.floats,
             "descriptor": decisions.descriptors,
             "float_const": decisions.float_consts}[need.kind].add(need.param)
            continue
        except NeedsChoice as need:
            yield from _choice_variants(source, kernel, decisions, need, attempts)
            return
        except DtypeDependent as dep:
            members = [p.name for p in analyzer.params if getattr(p.type, "dtype", None) is
                       not None and analyzer.find(p.type.dtype) == dep.var]
            yield from _first_family(source, kernel, decisions, members, dep, attempts)
            return
        floats = (analyzer.float_uses - analyzer.int_uses) - decisions.floats
        if floats:
            decisions.floats |= floats
            continue
        taken = _bound_names(model.body) | {p.name for p in model.params}
        model.body, notes = order_memory(model.body, taken)
        model.notes.extend(notes)
        model.notes.append("pointer parameters are assumed not to alias (Triton's compiler "
                           "assumes it too)")
        mixed = list(_mixed_variants(source, kernel, decisions, analyzer, model, attempts))
        yield model, decisions
        yield from mixed
        return


def _mixed_variants(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                    decisions: Decisions, analyzer: Analyzer, model: KernelModel,
                    attempts: int) -> Iterator[Variant]:
    """The entries of the launches that pass different element types to pointers the
    analysis gave one launch-time type (they met in one operation: `a * 2.0 + b`, or a
    store of one's value through the other): Triton computes each launch with its own
    types (f16 `a` and f32 `b` give an f32 sum), so each such launch gets an entry with
    those pointers' types fixed. One that does not translate is a note of `model` (the
    generic entry, which still serves the other launches), not an error."""
    for fixed in mixed_launch_types(source, kernel, analyzer):
        try:
            models = list(_variants(source, kernel, decisions.copy(
                fixed=dict(decisions.fixed, **fixed)), attempts))
        except TranslationError as err:
            kinds = ", ".join(f"`{p}` {d.name}" for p, d in sorted(fixed.items()))
            model.notes.append(f"no entry for the launch with {kinds}: "
                               f"{err.diagnostic.message}")
            continue
        yield from models


def mixed_launch_types(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                       analyzer: Analyzer) -> list[dict[str, DType]]:
    """Per launch of `kernel` in the file whose (known) pointer element types differ within
    one class of pointers that share a launch-time type in `analyzer`'s typing: those
    pointers' types, each distinct assignment once, in launch order."""
    classes: dict[object, list[str]] = {}
    for param in analyzer.params:
        dtype = getattr(param.type, "dtype", None)
        if param.kind == "pointer" and isinstance(analyzer.find(dtype), DTypeVar):
            classes.setdefault(analyzer.find(dtype), []).append(param.name)
    report = host_report(source.text, source.path)
    found: list[dict[str, DType]] = []
    for launch in report.specializations.get(kernel.name, []) if report else []:
        passed = dict(launch.pointer_dtypes)
        fixed: dict[str, DType] = {}
        for members in classes.values():
            types = {passed.get(m) for m in members}
            if len(types) > 1 and all(t in BY_NAME for t in types):
                fixed.update({m: DType(str(passed[m])) for m in members})
        if fixed and fixed not in found:
            found.append(fixed)
    return found


def launched_pointers(source: triton_source.TritonSource,
                      kernel: triton_source.TritonKernel) -> set[str]:
    """The parameters a launch of `kernel` in the file passes a tensor (not a host tensor
    descriptor): Triton types them pointers by the argument, also where the body never
    uses them as an address (a parameter left unused is still the launch's tensor)."""
    report = host_report(source.text, source.path)
    if report is None or kernel.name not in report.kernels:
        return set()
    descriptors = report.kernels[kernel.name].descriptors
    return {name for launch in report.specializations.get(kernel.name, [])
            for name, _dtype in launch.pointer_dtypes if name not in descriptors}


def _choice_variants(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                     decisions: Decisions, need: NeedsChoice,
                     attempts: int) -> Iterator[Variant]:
    """One set of variants per launch value of a constexpr, or per outcome of a condition
    over constexprs (`choices.py`)."""
    if need.param is None:
        yield from _outcome_variants(source, kernel, decisions, need, attempts)
        return
    if need.nullable:
        # Triton compiles a None argument as a constexpr: an entry for None, one for a
        # tensor (the wrapper picks by the argument).
        yield from _variants(source, kernel, decisions.copy(
            values=dict(decisions.values, **{need.param: None})), attempts)
        yield from _variants(source, kernel, decisions.copy(
            present=decisions.present | {need.param}), attempts)
        return
    values = launch_values(host_report(source.text, source.path), kernel.name, need.param)
    unlaunched: list[object] = []
    if need.param in bool_constexprs(source, kernel) or need.truth and not values or \
            values and all(isinstance(v, bool) for v in values):
        # A bool no launch fixes gets both entries; the note names a value none passes.
        unlaunched = [v for v in (False, True) if values and v not in values]
        values = values or [False, True]
    default = _literal_default(kernel, need.param)
    if not values and default is not _NO_DEFAULT:
        # No launch in the file passes it: the entry for its default (Triton's value when
        # a launch leaves it out).
        values = [default]
    if need.dtype and not values:
        # An element type no launch names (the host computes it, `DTYPES[x.dtype]`): an
        # entry per float type; the launcher refuses any other.
        values = list(FLOAT_VARIANTS)
        notes = [f"`{need.param}` is an element type no launch in this file names: entries "
                 f"for {', '.join(FLOAT_VARIANTS)}"]
    else:
        notes = []
    if not values:
        raise TranslationError(Diagnostic(
            "E0123", f"the code of `{kernel.name}` depends on the value of the `tl.constexpr` "
            f"`{need.param}` (one entry per value), and no launch of the kernel in this file "
            "passes it a value", source.path, source.span(kernel.node.name),
            kernel=kernel.name))
    for value in values:
        if not is_entry_text(value):
            raise TranslationError(Diagnostic(
                "E0123", f"`{need.param}` = {value!r} (a launch value) cannot name a Rust "
                "entry", source.path, source.span(kernel.node.name), kernel=kernel.name))
        for model, chosen in _variants(source, kernel, decisions.copy(
                values=dict(decisions.values, **{need.param: value})), attempts):
            model.notes.extend(f"no entry for `{need.param}` = {v!r}: no launch in this file "
                               "passes it" for v in unlaunched)
            model.notes.extend(notes)
            yield model, chosen


def _outcome_variants(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                      decisions: Decisions, need: NeedsChoice,
                      attempts: int) -> Iterator[Variant]:
    """The variants for each outcome of a condition over constexprs. An outcome on which
    the kernel reads a name no branch of it binds (E0109: `y` set under `MODE == 0` and
    `MODE == 1` only, read after) is one Triton's compiler rejects too: it gets no entry,
    as long as the other outcome translates (each entry's notes say which is missing)."""
    text = condition_text(need.condition)
    models: list[Variant] = []
    refused: list[tuple[bool, TranslationError]] = []
    for value in (True, False):
        outcome = Outcome(text, condition_tree(need.condition), value)
        try:
            models.extend(_variants(source, kernel, decisions.copy(
                outcomes=dict(decisions.outcomes, **{text: outcome})), attempts))
        except TranslationError as err:
            if err.diagnostic.code != "E0109":
                raise
            refused.append((value, err))
    if not models:
        raise refused[0][1]
    for model, _ in models:
        model.notes.extend(f"no entry where `{text}` is {value}: the kernel reads a name "
                           f"no branch binds there ({err.diagnostic.message}), which "
                           "Triton's compiler rejects too" for value, err in refused)
    yield from models


_NO_DEFAULT = object()


def _literal_default(kernel: triton_source.TritonKernel, name: str) -> object:
    """The default of parameter `name` when it is a literal (None, a bool, a number, a
    string), else `_NO_DEFAULT`."""
    for param in kernel.node.params.params:
        if param.name.value == name and param.default is not None:
            try:
                return ast.literal_eval(cst.Module([]).code_for_node(param.default))
            except (ValueError, SyntaxError):
                return _NO_DEFAULT
    return _NO_DEFAULT


def _first_family(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                  decisions: Decisions, members: list[str], dep: DtypeDependent,
                  attempts: int) -> Iterator[Variant]:
    """The variants for the first family of element types the kernel translates with (the
    types of the family it does not translate for are listed in each entry's notes)."""
    first_error: TranslationError | None = None
    # Types chosen for arithmetic only: a lock's float32 entry (an atomic's types) does not
    # make its float family a second one.
    chosen = sorted({d.name for m, d in decisions.fixed.items()
                     if d.is_float and m in decisions.float_chosen})
    families = dep.candidates
    launched = launched_dtypes(source, kernel, members)
    if chosen:
        # Another class already fixed to a float type: this one takes the same (one entry
        # per float type, not per combination), and the element types the host's launches
        # pass to it (a launch mixing f32 and f16 arrays has its own entry).
        families = tuple(_restricted(f, chosen, launched) for f in families)
    for family in families:
        models: list[Variant] = []
        refused: list[str] = []
        # A type the launches pass outside the family is translated too (an int32 array
        # where floats translate as well): the launch has its entry.
        extra = [d for d in launched if d not in family and d in dtypes_of(families)]
        for dtype in [*family, *extra]:
            fixed = dict(decisions.fixed, **{m: DType(dtype) for m in members})
            float_chosen = decisions.float_chosen | (
                set(members) if set(family) <= set(FLOAT_VARIANTS) else set())
            try:
                models.extend(_variants(source, kernel, decisions.copy(
                    fixed=fixed, float_chosen=float_chosen), attempts))
            except TranslationError as err:
                # The family that got furthest into the kernel says best what is missing.
                if first_error is None or _position(err) > _position(first_error):
                    first_error = err
                refused.append(f"{dtype} ({err.diagnostic.message})")
        if not models:
            continue
        for model, _ in models:
            model.notes.extend(f"no entry for `{', '.join(members)}` of element type {r}"
                               for r in refused)
        yield from models
        return
    assert first_error is not None
    raise first_error


def dtypes_of(families: tuple[tuple[str, ...], ...]) -> set[str]:
    """Every element type of the candidate families (those the typing may take)."""
    return {d for family in families for d in family}


def _restricted(family: tuple[str, ...], chosen: list[str],
                launched: list[str]) -> tuple[str, ...]:
    """A family of element types for a class translated after others fixed `chosen`: the
    one type the others share (if they share one and the family is of floats) and the
    family's types the launches pass; the family unchanged when that leaves nothing."""
    # Only a family of floats follows the others' type: a lock's (i32, f32, i64) stays whole.
    floats = set(family) <= set(FLOAT_VARIANTS) and (
        family == FLOAT_VARIANTS or bool(set(family) & set(chosen)))
    same = [chosen[0]] if len(chosen) == 1 and floats else []
    passed = [d for d in launched if d in family or (floats and BY_NAME[d].is_float)]
    return tuple(dict.fromkeys([*same, *passed])) or family


def launched_dtypes(source: triton_source.TritonSource, kernel: triton_source.TritonKernel,
                    members: list[str]) -> list[str]:
    """The element types the file's launches of `kernel` pass to the pointers `members`
    (as the host code names them: `torch.empty(..., dtype=torch.float16)`), in launch
    order; those the translation has no element type for are left out."""
    report = host_report(source.text, source.path)
    found: list[str] = []
    for launch in report.specializations.get(kernel.name, []) if report else []:
        for name, dtype in launch.pointer_dtypes:
            if name in members and dtype in BY_NAME and dtype not in found:
                found.append(dtype)
    return found


def _position(err: TranslationError) -> tuple[int, int]:
    span = err.diagnostic.span
    return (span.line, span.col) if span is not None else (0, 0)


def _bound_names(stmts: list[TStmt]) -> set[str]:
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, TAssign):
            names.add(stmt.name)
        elif isinstance(stmt, TFor):
            names.add(stmt.var)
            names |= _bound_names(stmt.body)
        elif isinstance(stmt, TWhile):
            names |= _bound_names(stmt.body)
        elif isinstance(stmt, TIf):
            names |= {r[0] for r in stmt.results}
            names |= _bound_names(stmt.then) | _bound_names(stmt.orelse)
    return names


def bool_constexprs(source: triton_source.TritonSource,
                    kernel: triton_source.TritonKernel) -> set[str]:
    """The `tl.constexpr` parameters that hold a bool: a heuristic whose lambda gives a
    comparison or a truth value, or a parameter the body tests (`if FLAG:`, `not FLAG`,
    `FLAG and ...`) and never uses as a number (`x * STEPS`, `range(STEPS)`: an int whose
    truth is `STEPS != 0`, as in Triton)."""
    out = {name for name, expr in kernel.heuristics.items()
           if _is_truth_value(expr.body if isinstance(expr, cst.Lambda) else expr)}
    tested = _TestedNames()
    kernel.node.body.visit(tested)
    return out | (tested.names - tested.numbers)


def _is_truth_value(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Comparison | cst.BooleanOperation):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value == "bool"
    return isinstance(node, cst.Name) and node.value in ("True", "False")


#: Binary operators whose operands are numbers (`&`, `|`, `^` also combine bools).
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
               cst.Power, cst.LeftShift, cst.RightShift)
#: Calls whose arguments are numbers.
_NUMBER_CALLS = frozenset({"range", "static_range", "arange", "full", "zeros", "cdiv"})


class _TestedNames(cst.CSTVisitor):
    """Names used as truth values (`names`) and names used as numbers (`numbers`)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.numbers: set[str] = set()

    def _number(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.numbers.add(node.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _ARITHMETIC):
            self._number(node.left)
            self._number(node.right)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        callee = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        if callee in _NUMBER_CALLS:
            for arg in node.args:
                self._number(arg.value)

    def _add(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)

    def visit_If(self, node: cst.If) -> None:
        self._add(node.test)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._add(node.expression)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._add(node.left)
        self._add(node.right)
