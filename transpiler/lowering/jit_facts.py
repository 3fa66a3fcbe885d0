"""Fact entries: a Triton kernel's translations under the JIT specializations of its arguments.

Takes a typed `KernelModel` before raising (its parameters' `jit` keys:
`frontend/triton/jit_keys`, less `do_not_specialize` / `do_not_specialize_on_alignment`);
gives, per fact pattern of `PATTERNS` that changes the raised accesses, a copy of the model
raised under that pattern's facts, restricted to the parameters its raised views read, with
`jit_facts` (parameter, key) and `jit_suffix` set so that its entry is named and its manifest
lists the facts as conditions over the arguments.

Triton's launcher compiles a kernel per key of its runtime arguments (an int equal to 1, an
int divisible by 16, a pointer aligned to 16 bytes); the general entry assumes none of them,
so its views cannot be vectorized nor use the tensor memory accelerator. A fact entry is
correct only for arguments that hold its facts: the host glue selects the most specific
entry whose facts hold, else the general one (`hostglue/triton_pyruntime`), and the proof
runs each fact entry on inputs that hold its facts (`numeric_check/triton_proof`).

A kernel whose accesses stay pointer tiles (no `tl.dot`: `raise_pointers`) gets one fact
entry of its own instead: the same body with the facts stated on the parameters its
addresses and masks read (`address_names`: each use of an aligned pointer
wrapped in `assume_div_by`, each int restated at the top as `assume_div_by` or the constant
1). tileiras finds a pointer tile's vector width by walking its offsets, so with these facts
a row load moves 16 bytes per lane where it moved one element (fused softmax, f16: `LDG.128`
as Triton's own cubin, instead of 8 `LDG.U16`; `bench/results/triton_sass.md`). A kernel
whose accesses are all 0-d (one element per program) gains nothing and gets none.

Which ints may be 1 comes from the access forms, not names: an int parameter that alone
multiplies the `arange` of an access's contiguous (last) axis
(`raise_pointers.unit_stride_candidates`). A fact on a parameter no raised view reads is
dropped (it would only make selection fail for nothing), and a pattern whose facts end up
empty, equal to an earlier pattern's, or whose entry the driver finds equal to the general
one gives no entry (kernels that gain nothing keep one entry).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from transpiler.lowering.raise_pointers import (
    JIT_DIVISOR,
    NO_FACTS,
    RAISED,
    ParamFacts,
    access_expressions,
    collect_definitions,
    raise_pointer_accesses,
    unit_stride_candidates,
)
from transpiler.model import KernelModel, TAssign, TExpr, TStmt, statement_exprs

#: Triton's key of an int equal to 1 and of a value divisible by 16 (`jit_keys`).
KEY_ONE, KEY_DIVISIBLE = "1", "D"


@dataclass(frozen=True)
class FactPattern:
    """A set of JIT facts an entry is translated under: pointers aligned to 16 bytes, and
    optionally the unit strides equal to 1 (`ones`) and the other ints divisible by 16."""

    suffix: str  # of the entry's name
    what: str
    ones: bool
    int_divisible: bool


#: The patterns, most specific first (the order in which selection tries them). One: what
#: Triton's launcher sees for contiguous tensors from the allocator and sizes that are
#: multiples of 16 (the benchmarks' shapes). A weaker pattern without the ints divisible by
#: 16 is left out on purpose: it would double the Rust again, and it would raise the
#: row-wise views whose strides are then unknown to tileiras, the views the H200 runs
#: 4-6x slower than pointer tiles (`bench/results/gpu_triton_noraise.md`).
PATTERNS: tuple[FactPattern, ...] = (
    FactPattern("_jit", "pointers aligned to 16 bytes, unit strides 1, ints divisible by 16",
                ones=True, int_divisible=True),
)


def _keyed(model: KernelModel, kind: str, key: str) -> set[str]:
    return {p.name for p in model.params if p.kind == kind and any(k == key for k, _, _ in p.jit)}


def candidate_facts(model: KernelModel, pattern: FactPattern, units: set[str]) -> ParamFacts:
    """Every fact of `pattern` the kernel's JIT keys allow (before the restriction to the
    parameters the raised views read); `units`: `unit_stride_candidates` of the body."""
    ones = _keyed(model, "scalar", KEY_ONE) & units if pattern.ones else set()
    aligned = _keyed(model, "pointer", KEY_DIVISIBLE)
    if pattern.int_divisible:
        aligned |= _keyed(model, "scalar", KEY_DIVISIBLE) - ones
    return ParamFacts(frozenset(ones), frozenset(aligned))


def fact_models(model: KernelModel, enabled: bool | str) -> list[KernelModel]:
    """The raised copies of `model` under each pattern that changes its raised accesses
    (module docstring); `model` itself is left as it is (not raised). None when raising is
    off or the kernel's parameters have no JIT keys."""
    if not enabled or not any(p.jit for p in model.params):
        return []
    units = unit_stride_candidates(model.body)
    if not _raises_views(model, enabled):
        return _pointer_fact_models(model, units, enabled)
    order = {p.name: i for i, p in enumerate(model.params)}
    seen: set[ParamFacts] = set()
    out: list[KernelModel] = []
    for pattern in PATTERNS:
        candidate = candidate_facts(model, pattern, units)
        if candidate == NO_FACTS:
            continue
        used: set[str] = set()
        raise_pointer_accesses(copy.deepcopy(model.body), enabled, candidate, used)
        facts = ParamFacts(candidate.ones & used, candidate.aligned & used)
        if facts == NO_FACTS or facts in seen:
            continue
        seen.add(facts)
        variant = copy.deepcopy(model)
        variant.notes.extend(raise_pointer_accesses(variant.body, enabled, facts))
        keys = [(name, KEY_ONE) for name in facts.ones] + \
            [(name, KEY_DIVISIBLE) for name in facts.aligned]
        out.append(_fact_entry(variant, keys, pattern, order))
    return out


def _fact_entry(variant: KernelModel, keys: list[tuple[str, str]], pattern: FactPattern,
                order: dict[str, int]) -> KernelModel:
    variant.jit_facts = tuple(sorted(keys, key=lambda k: order[k[0]]))
    variant.jit_suffix = pattern.suffix
    variant.notes.append(f"a JIT fact entry ({pattern.what}): the launcher calls it only "
                         "when every fact in `jit_facts` holds for the arguments")
    return variant


def _raises_views(model: KernelModel, enabled: bool | str) -> bool:
    """Whether the general entry's accesses may be raised to views at all (a kernel the
    raising rule keeps on pointer tiles gets pointer-tile fact entries instead)."""
    notes = raise_pointer_accesses(copy.deepcopy(model.body), enabled,
                                   candidate_facts(model, PATTERNS[0], set()))
    return any(RAISED in note for note in notes)


def address_names(body: list[TStmt]) -> set[str]:
    """The names the address and mask computations of the kernel's pointer-tile accesses
    read, followed through every definition of each name (a loop variable through its
    loop's bounds): the parameters whose facts decide how the accesses vectorize (a stored
    value or a load's `other` does not)."""
    defs = collect_definitions(body)
    loops = {name: defs.loops[loop_id] for name, loop_id in defs.loop_vars.items()}
    pending = [arg for access in access_expressions(body) for arg in _address_operands(access)]
    names: set[str] = set()
    while pending:
        expr = pending.pop()
        name = expr.attrs.get("name") if expr.op in ("var", "ptr_param") else None
        if isinstance(name, str) and name not in names:
            names.add(name)
            pending.extend(a.value for a in defs.assigns.get(name, ()))
            if name in loops:
                pending.extend((loops[name].start, loops[name].stop, loops[name].step))
        pending.extend(a for a in expr.args if isinstance(a, TExpr))
    return names


def _address_operands(access: TExpr) -> list[TExpr]:
    """An access's pointer tile and mask (`model.ir`: load (pointers[, mask][, other]),
    store (pointers, value[, mask]))."""
    if access.op == "store_ptr":
        return [access.args[0], *access.args[2:]]
    return access.args[:2] if access.attrs.get("has_mask") else access.args[:1]


def _pointer_fact_models(model: KernelModel, units: set[str],
                         enabled: bool | str) -> list[KernelModel]:
    """The pointer-tile fact entry of a kernel whose accesses stay pointer tiles: the
    kernel as it is, its parameters restated under the facts at the top of the body (a
    pointer aligned to 16 bytes, an int divisible by 16, an int equal to 1): tileiras
    derives the vector width of a pointer-tile load from its address computation, and
    without them it moves one element per lane (`bench/results/triton_sass.md`)."""
    if not any(access.args[0].type.shape for access in access_expressions(model.body)):
        return []  # one element per program: no vector width to gain
    reads = address_names(model.body)
    candidate = candidate_facts(model, PATTERNS[0], units)
    facts = ParamFacts(candidate.ones & reads, candidate.aligned & reads)
    if facts == NO_FACTS:
        return []
    variant = copy.deepcopy(model)
    restated: list[TStmt] = []
    for param in variant.params:
        if param.kind == "pointer" and param.name in facts.aligned:
            _assume_pointer(variant.body, param.name)
        elif param.name in facts.ones | facts.aligned:
            var = TExpr("var", [], param.type, param.span, {"name": param.name})
            value = TExpr("literal", [], param.type, param.span, {"value": 1}) \
                if param.name in facts.ones else \
                TExpr("assume_div", [var], param.type, param.span, {"divisor": JIT_DIVISOR})
            restated.append(TAssign(param.name, value, param.span))
    variant.body[:0] = restated
    variant.notes.extend(raise_pointer_accesses(variant.body, enabled))
    variant.notes.append("assumes Triton's JIT specialization of its pointer-tile "
                         f"accesses' parameters: {facts.text()} (correct only for arguments "
                         "that hold it)")
    keys = [(name, KEY_ONE) for name in facts.ones] + \
        [(name, KEY_DIVISIBLE) for name in facts.aligned]
    order = {p.name: i for i, p in enumerate(model.params)}
    return [_fact_entry(variant, keys, PATTERNS[0], order)]



def _assume_pointer(body: list[TStmt], name: str) -> None:
    """Each use of pointer parameter `name` (its 0-d pointer tile) wrapped in place in an
    `assume_div` of 16 bytes (the raw pointer itself has no annotated form to restate)."""
    uses = {id(node): node for expr in statement_exprs(body) for node in _nodes(expr)
            if node.op == "ptr_param" and node.attrs.get("name") == name}
    for node in uses.values():  # once each: the analysis shares a parameter's node
        inner = copy.copy(node)
        node.op, node.args = "assume_div", [inner]
        node.attrs = {"divisor": JIT_DIVISOR}


def _nodes(expr: TExpr) -> list[TExpr]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(a for a in node.args if isinstance(a, TExpr))
    return out
