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
    NO_FACTS,
    ParamFacts,
    raise_pointer_accesses,
    unit_stride_candidates,
)
from transpiler.model import KernelModel

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
        variant.jit_facts = tuple(sorted(keys, key=lambda k: order[k[0]]))
        variant.jit_suffix = pattern.suffix
        variant.notes.append(f"a JIT fact entry ({pattern.what}): the launcher calls it only "
                             "when every fact in `jit_facts` holds for the arguments")
        out.append(variant)
    return out
