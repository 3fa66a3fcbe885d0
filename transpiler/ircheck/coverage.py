"""Coverage of a translation's entries by specializations: what must be checked, and with what.

Takes a kernel's Rust entries (their manifests) and the specializations its host code gives
(`host_specs`); gives the specializations to check and, once they are checked, what no
checked specialization reached. The targets of one kernel are, per Rust entry:

* the entry itself (each dtype variant and each condition variant is an entry of its own);

and, per kernel (in any of its entries: they share the code these select):

* each value of each `bool` const generic (a constant, or a condition over the constants
  with its `tree`): both arms; a derived integer generic (`BLOCK // 8`) is covered by its
  constants' own targets;
* two values of each integer const generic (one value checks the arithmetic on it for that
  value only).

Candidates are the host's specializations first (in their order), then each of them with
every integer constant changed, with one constant changed (`alternatives`), with two
constants of a condition changed together, and
with the element types and constants another entry is translated for; `choose` keeps, in
order, each candidate that reaches a target no kept one reaches. A candidate no Rust entry
takes, or whose constant an entry folds differently, is none (it would check the
translation against a launch it does not claim to support).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from transpiler.analysis import evaluate_condition
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec

#: Another value of an integer constant, tried in order: twice the value keeps a power of
#: two (the usual tile size) one, half of it is the fallback when cuTile Python rejects the
#: larger tile; a zero (an option off) becomes a typical small size.
INT_ALTERNATIVES_OF_ZERO = (16, 1)
#: Pairs of constants read by one condition are changed together at most this many ways.
MAX_PAIR_CANDIDATES = 16
#: Integer const generics need this many distinct checked values.
INT_VALUES_WANTED = 2
#: Specializations tried for one target that were not compared (cuTile Python rejected
#: them, or the Rust did not compile) before the target is given up as not checked.
MAX_ATTEMPTS = 2


@dataclass(frozen=True)
class Target:
    """One thing a checked specialization can reach: an entry (`generic` None), or, with
    `entry` the kernel's name, a value of one of its const generics (`value` None: a further
    value of an integer one)."""

    entry: str
    generic: str | None = None
    value: object = None

    def describe(self) -> str:
        if self.generic is None:
            return f"entry `{self.entry}`"
        if self.value is None:
            return (f"kernel `{self.entry}` with a second value of `{self.generic}` "
                    "(one value checked)")
        shown = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"kernel `{self.entry}` with `{self.generic}` = {shown}"


def alternatives(value: object) -> list[object]:
    """Other values of a constant, most typical first (a float's value is a constant in
    both sides' IR: an entry takes it as an f32-bits const generic)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        if value == 0:
            return list(INT_ALTERNATIVES_OF_ZERO)
        return [v for v in (value * 2, value // 2) if v not in (0, value)]
    if isinstance(value, float):
        return [value * 2.0 if value else 1.0]
    return []


def entry_name(manifest: dict[str, Any]) -> str:
    return str(manifest.get("entry", manifest.get("kernel")))


def const_values(spec: KernelSpec) -> dict[str, object]:
    return {name: p.value for name, p in spec.params if isinstance(p, ConstSpec)}


def targets_of(manifest: dict[str, Any]) -> list[Target]:
    """Everything a kernel's entry asks to be reached, in manifest order: the entry, and
    (once per kernel) each value of its bool and condition generics and a second value of
    each integer one."""
    entry = entry_name(manifest)
    kernel = str(manifest.get("kernel", entry))
    # A constant the entry's conditions or variant pin has the values of the entries that
    # translate it (their own targets), not others of its own.
    pinned = {*(manifest.get("const_variant") or {}), *_tree_params(
        [None, *[c["tree"] for c in manifest.get("conditions") or []]])}
    out = [Target(entry)]
    for generic in manifest.get("generics", []):
        if generic.get("tree") is None and generic.get("params", [None])[0] in pinned:
            continue
        if _is_condition(generic):
            out += [Target(kernel, generic["name"], True), Target(kernel, generic["name"], False)]
        elif generic.get("tree") is not None:
            continue  # arithmetic on constants (`BLOCK // 8`): its constants' targets cover it
        elif generic["kind"] != "type":
            out.append(Target(kernel, generic["name"]))
    return out


def reached(manifest: dict[str, Any], spec: KernelSpec) -> list[tuple[Target, object]]:
    """(target, the value that reaches it) for a spec this entry takes: the entry, and each
    generic of the kernel with the value (or element type) the spec gives it."""
    entry = entry_name(manifest)
    kernel = str(manifest.get("kernel", entry))
    values = const_values(spec)
    out: list[tuple[Target, object]] = [(Target(entry), None)]
    for generic in manifest.get("generics", []):
        name = generic["name"]
        if generic.get("tree") is not None:
            if not _is_condition(generic):
                continue
            try:
                value: object = bool(evaluate_condition(generic["tree"], values))
            except (KeyError, TypeError, ZeroDivisionError):
                continue
            out.append((Target(kernel, name, value), value))
        elif generic["kind"] == "type":
            param = _param_or_none(spec, generic["params"][0])
            if isinstance(param, ArraySpec | ScalarSpec):
                # Each element type the host gives is checked; none is asked for beyond.
                out.append((Target(kernel, name, param.dtype), param.dtype))
        elif generic["params"][0] in values:
            value = values[generic["params"][0]]
            if generic["kind"] == "bool":
                out.append((Target(kernel, name, bool(value)), value))
            else:
                out.append((Target(kernel, name), value))
    return out


def _is_condition(generic: dict[str, Any]) -> bool:
    """A `bool` generic: a constant, or a condition over constants (`tree`); a generic of
    another kind with a tree is arithmetic on constants (a derived dimension), no condition
    with two arms to reach."""
    return generic["kind"] == "bool"


def _param_or_none(spec: KernelSpec, name: str) -> object:
    try:
        return spec.param(name)
    except KeyError:
        return None


def choose(pool: Iterable[KernelSpec], select: Callable[[KernelSpec], dict[str, Any] | None],
           coverage: Coverage, wanted_only: bool = False) -> list[KernelSpec]:
    """The candidates, in order, that reach a target `coverage` (updated as if each kept one
    passed) does not; `select` gives the entry a candidate runs on, or None. With
    `wanted_only`, the element types the host gives beyond the first no longer count (a
    retry is for what is reported when missed)."""
    out: list[KernelSpec] = []
    for spec in pool:
        manifest = select(spec)
        if manifest is None:
            continue
        new = coverage.new_targets(manifest, spec)
        if wanted_only:
            new = [t for t in new if t in coverage.wanted]
        if new:
            out.append(spec)
            coverage.add(manifest, spec)
    return out


class Coverage:
    """What the specializations counted so far reach, per target."""

    def __init__(self, manifests: Iterable[dict[str, Any]]) -> None:
        self.wanted: list[Target] = list(dict.fromkeys(t for m in manifests
                                                       for t in targets_of(m)))
        self.int_values: dict[Target, set[object]] = {}
        self.hit: set[Target] = set()
        self.attempts: dict[Target, int] = {}

    def new_targets(self, manifest: dict[str, Any], spec: KernelSpec) -> list[Target]:
        """The targets `spec` would reach that are not reached yet."""
        out: list[Target] = []
        for target, value in reached(manifest, spec):
            if self.attempts.get(target, 0) >= MAX_ATTEMPTS:
                continue
            if target.generic is not None and target.value is None:
                seen = self.int_values.get(target, set())
                if len(seen) < INT_VALUES_WANTED and value not in seen:
                    out.append(target)
            elif target not in self.hit:
                out.append(target)
        return out

    def add(self, manifest: dict[str, Any], spec: KernelSpec) -> None:
        for target, value in reached(manifest, spec):
            if target.generic is not None and target.value is None:
                seen = self.int_values.setdefault(target, set())
                seen.add(value)
                if len(seen) >= INT_VALUES_WANTED:
                    self.hit.add(target)
            else:
                self.hit.add(target)

    def failed(self, manifest: dict[str, Any], spec: KernelSpec) -> None:
        """`spec` was tried and not compared: one attempt more at each target it reaches."""
        for target, _ in reached(manifest, spec):
            if target not in self.hit:
                self.attempts[target] = self.attempts.get(target, 0) + 1

    def copy(self) -> Coverage:
        out = Coverage([])
        out.wanted = list(self.wanted)
        out.int_values = {k: set(v) for k, v in self.int_values.items()}
        out.hit = set(self.hit)
        out.attempts = dict(self.attempts)
        return out

    def missing(self) -> list[Target]:
        return [t for t in self.wanted if t not in self.hit]


def with_consts(spec: KernelSpec, values: dict[str, object]) -> KernelSpec:
    params = tuple((name, ConstSpec(values[name]) if name in values else p)  # type: ignore[arg-type]
                   for name, p in spec.params)
    return replace(spec, params=params)


def with_entry_types(spec: KernelSpec, manifest: dict[str, Any]) -> KernelSpec:
    """`spec` with the element types and constants an entry is translated for."""
    dtypes = manifest.get("dtype_variant") or {}
    params = tuple((name, ArraySpec(dtypes[name], p.ndim) if name in dtypes and isinstance(
        p, ArraySpec) else p) for name, p in spec.params)
    return with_consts(replace(spec, params=params), dict(manifest.get("const_variant") or {}))


def condition_params(manifests: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of constants that one condition (of an entry, or of a generic) reads."""
    pairs: list[tuple[str, str]] = []
    for manifest in manifests:
        trees = [c["tree"] for c in manifest.get("conditions") or []]
        trees += [g["tree"] for g in manifest.get("generics", []) if g.get("tree") is not None]
        for tree in trees:
            names = sorted(set(_tree_params(tree)))
            for pair in itertools.combinations(names, 2):
                if pair not in pairs:
                    pairs.append(pair)
    return pairs


def _tree_params(tree: object) -> Iterator[str]:
    if isinstance(tree, list) and tree and tree[0] == "param":
        yield str(tree[1])
    elif isinstance(tree, list):
        for child in tree[1:]:
            yield from _tree_params(child)


def candidates(bases: list[KernelSpec], manifests: list[dict[str, Any]]) -> list[KernelSpec]:
    """Every specialization worth trying, in the order `choose` takes them (duplicates
    left out): the host's, then each varied by one constant, by two constants of a
    condition, and moved to each other entry's element types and constants."""
    pool: list[KernelSpec] = []

    def add(spec: KernelSpec) -> None:
        if spec not in pool:
            pool.append(spec)

    for base in bases:
        add(base)
    pairs = condition_params(manifests)
    # Constants an entry's conditions or variant read: changing them moves to another entry.
    pinned = {n for pair in pairs for n in pair} | {
        n for m in manifests for n in [*(m.get("const_variant") or {}), *(
            _tree_params([None, *[c["tree"] for c in m.get("conditions") or []]]))]}
    starts = list(bases)
    for manifest in manifests:
        starts += [with_entry_types(base, manifest) for base in bases]
    for start in starts:
        add(start)
        values = const_values(start)
        # Every integer constant changed at once: one specialization gives each its second
        # value when cuTile Python takes it (the one-at-a-time ones below are the fallback).
        add(with_consts(start, {name: alternatives(value)[0] for name, value in values.items()
                                if not isinstance(value, bool) and isinstance(value, int)
                                and name not in pinned}))
        # Likewise every bool constant flipped at once: each arm's other side in one.
        add(with_consts(start, {name: not value for name, value in values.items()
                                if isinstance(value, bool) and name not in pinned}))
        for name, value in values.items():
            for other in alternatives(value):
                add(with_consts(start, {name: other}))
        for left, right in pairs:
            if left not in values or right not in values:
                continue
            combos = itertools.product([values[left], *alternatives(values[left])],
                                       [values[right], *alternatives(values[right])])
            for a, b in itertools.islice(combos, MAX_PAIR_CANDIDATES):
                add(with_consts(start, {left: a, right: b}))
    return pool
