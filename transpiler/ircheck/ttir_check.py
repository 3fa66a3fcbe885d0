"""Check a translation's Tile IR against the facts Triton's TTIR gives (`ttir_facts`).

Takes the `TritonFacts` of one kernel specialization and the parsed Tile IR (`parse.py`) of
the translation compiled for the same specialization; gives a `FactVerdict`: PASS,
PASS_WITH_NOTES (each accepted difference named by its rule in `RULES`) or FAIL (each
difference with both sides' text).

What is compared, op by op in program order (regions walked in the order they print):

- memory ops, per kind (load, store, atomic): the same count, element type and shape; a
  Triton mask must be kept (a masked pointer-tile access, or a view access, whose bounds stand
  for the mask); an unmasked Triton pointer access must not gain a mask; Triton's constant
  `other` must be the padding (the pointer load's padding constant or the view's
  `padding_value`); atomics keep their op, ordering and scope;
- `tt.dot` against `mmaf` / `mmai`: operand and accumulator element types, result shape;
- reductions and scans: axis, operand and result types, the combiner's ops;
- the entry signature: pointer parameters in order with their element types; Triton's
  scalar parameters in order among the translation's scalars; every `assume div_by` the
  translation puts on a parameter must be a fact Triton has (`tt.divisibility`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import ml_dtypes
import numpy as np

from transpiler.ircheck.parse import Operation, Region, TileIrEntry, TileIrType
from transpiler.ircheck.ttir_facts import (
    DotFact,
    MemoryFact,
    ReduceFact,
    TritonFacts,
    constant_value,
)
from transpiler.model.elements import ELEMENTS

#: Accepted differences, each with the reason it does not change what the kernel computes.
RULES: dict[str, str] = {
    "mask-as-view-bounds": "A masked Triton access is a view access in the translation: the "
    "view's shape bounds it instead of a mask. That the bounds equal the mask is not visible "
    "in the types; the numeric check on ragged shapes establishes it.",
    "unmasked-view": "An unmasked Triton access is a view access: Triton's contract makes "
    "every unmasked lane in bounds, where the view's bounds change nothing.",
    "undetermined-other": "A masked Triton load without `other` leaves masked-off lanes "
    "undefined; any padding the translation chooses is one of Triton's allowed results.",
    "flattened-gather": "cuTile Rust 0.5.0 pads a pointer load with a scalar broadcast that "
    "is only valid at rank 1: a rank-n masked load is flattened to rank 1 and reshaped back "
    "to Triton's shape; element count, type, mask and padding are unchanged.",
    "tf32-operands": "`tt.dot` on f32 operands with inputPrecision tf32 rounds them to tf32: "
    "the translation converts them (`ftof` to tf32) before `mmaf`.",
    "scan-axis-swap": "cuTile Rust 0.5.0 scans along dimension 0 only: a scan along axis k "
    "swaps axes k and 0 around the scan, so its operand has those axes swapped.",
    "extra-scalar-parameters": "The translation takes scalars Triton's entry has not "
    "(shapes and strides of views its launcher computes): Triton's scalars are a "
    "subsequence of them.",
    "divisibility-not-used": "Triton knows a parameter is divisible by 16 and the "
    "translation does not assume it: weaker facts, same results.",
    "other-as-select": "A masked Triton load with a constant `other` is a masked pointer load "
    "without padding whose result a `select` on the same mask replaces by `other` where the "
    "mask is off (cuTile Rust 0.5.0 takes a padding operand only for some element types and "
    "ranks): the same value in every lane.",
    "scalar-as-rank-1": "A scalar Triton atomic is a one-element tile atomic (cuTile Rust "
    "0.5.0 takes pointer tiles of rank >= 1 there): the same element, the same op.",
    "index-reduction-split": "Triton's argmax / argmin is one reduce over a value and its "
    "index; the translation reduces the values, then the indices of the lanes equal to the "
    "result (the first index on ties, as Triton's tie-break-left combiner): each reduction "
    "is compared, the combiner by the numeric check.",
    "descriptor-as-pointer-tile": "A Triton descriptor access is a masked pointer-tile "
    "access over the descriptor's block (a load padded with zero, as a descriptor load is): "
    "the same elements where the mask is on. That the mask is the descriptor's bounds is not "
    "visible in the types; the numeric check on ragged shapes establishes it.",
    "descriptor-unit-dims": "Triton's canonicalizer folds a reshape that only adds or "
    "drops unit dimensions into a descriptor access (`tensordesc<1x1x1x8>` read as "
    "`tensor<1x8>`); the translation accesses the block's own shape and reshapes apart: the "
    "same elements in the same order (unit dimensions do not reorder).",
    "dead-load": "A load Triton's compiler removed as dead is kept by the translation: its "
    "value reaches no store or atomic once unread ops are dropped and `select(c, a, a)` is "
    "read as `a` (Triton's folding of `tl.where(c, a, a)`). A load writes nothing; the "
    "other loads are paired with Triton's and checked, and the numeric check compares "
    "every output.",
    "dead-reduce": "A reduce or scan Triton's compiler removed as dead is kept by the "
    "translation: its value reaches no store or atomic once unread ops are dropped and "
    "`select(c, a, a)` is read as `a` (as for dead-load). It writes nothing; the other "
    "reductions are paired with Triton's and checked.",
    "duplicate-reduce": "A reduce or scan the translation computes twice, on operands that "
    "the same pure ops compute from the same values (two `tl.sum` of one expression), is one "
    "in Triton's TTIR (its common-subexpression elimination merges them): the copy computes "
    "the same value from the same inputs. The other reductions are paired with Triton's and "
    "checked; one on another operand still counts.",
    "combiner-not-compared": "The combiner uses ops outside the compared table (an argmax's "
    "compare and select): the numeric check covers it.",
}
#: Triton combiner op -> the Tile IR op it becomes (with the NaN rule of `tl.max` / `tl.min`).
COMBINERS: dict[str, str] = {
    "addf": "addf", "mulf": "mulf", "addi": "addi", "muli": "muli", "maxnumf": "maxf",
    "minnumf": "minf", "maximumf": "maxf", "minimumf": "minf", "maxsi": "maxi",
    "minsi": "mini", "maxui": "maxi", "minui": "mini", "andi": "andi", "ori": "ori",
    "xori": "xori",
}
#: Triton's atomic op / ordering / scope -> Tile IR's words.
ATOMIC_OPS: dict[str, str] = {"fadd": "addf", "add": "add", "max": "max", "min": "min",
                              "umax": "umax", "umin": "umin", "and": "and", "or": "or",
                              "xor": "xor", "exch": "xchg", "cas": "cas"}
ATOMIC_ORDERS: dict[str, str] = {"acq_rel": "acq_rel", "acquire": "acquire",
                                 "release": "release", "relaxed": "relaxed"}
ATOMIC_SCOPES: dict[str, str] = {"gpu": "device", "cta": "tl_blk", "sys": "sys"}
#: Tile IR padding names -> the constant they fill with.
PADDING_VALUES: dict[str, str] = {"zero": "0.0", "neg_zero": "-0.0", "nan": "nan",
                                  "pos_inf": "inf", "neg_inf": "-inf"}
#: Tile IR element conversions a constant `other` may pass through on its way to the load's
#: element type (`other=1` of a load whose element type is generic is `1.0` converted).
CONVERSIONS = frozenset({"ftoi", "itof", "ftof", "exti", "trunci"})
#: Tile IR element type -> the numpy type that holds its values (signless integers as
#: signed; floats numpy lacks from ml_dtypes).
HELD_AS: dict[str, np.dtype] = {
    e.tileir: np.dtype(e.numpy or getattr(ml_dtypes, e.name))
    for e in ELEMENTS if e.signed and (e.is_int or e.numpy or hasattr(ml_dtypes, e.name))}
_LOADS = ("load_ptr_tko", "load_view_tko")
_STORES = ("store_ptr_tko", "store_view_tko")
_ATOMICS = ("atomic_rmw_tko", "atomic_cas_tko")


@dataclass
class FactDifference:
    what: str
    triton: str
    tileir: str


@dataclass
class FactVerdict:
    status: str = "PASS"
    notes: list[tuple[str, str]] = field(default_factory=list)
    differences: list[FactDifference] = field(default_factory=list)

    def note(self, rule: str, where: str) -> None:
        if rule not in RULES:
            raise KeyError(rule)
        self.notes.append((rule, where))

    def differ(self, what: str, triton: str, tileir: str) -> None:
        self.differences.append(FactDifference(what, triton, tileir))

    def finish(self) -> FactVerdict:
        self.status = "FAIL" if self.differences else ("PASS_WITH_NOTES" if self.notes
                                                       else "PASS")
        return self

    def text(self) -> str:
        lines = [self.status]
        lines += [f"  note {rule}: {where}" for rule, where in self.notes]
        for d in self.differences:
            lines += [f"  differs: {d.what}", f"    triton: {d.triton}",
                      f"    tile ir: {d.tileir}"]
        return "\n".join(lines)


def check_facts(facts: TritonFacts, entry: TileIrEntry) -> FactVerdict:
    """Compare Triton's facts with one Tile IR entry (see the module docstring)."""
    verdict = FactVerdict()
    ops = list(_walk(entry.ops))
    defs = {r: op for op in ops for r in op.results}
    _check_signature(facts, entry, ops, verdict)
    for kind, names in (("load", _LOADS), ("store", _STORES), ("atomic", _ATOMICS)):
        triton = [m for m in facts.memory if _memory_kind(m) == kind]
        tile = [op for op in ops if op.name in names]
        if kind == "load" and len(tile) > len(triton):
            tile = _without_dead_loads(triton, tile, ops, verdict)
        _pair(kind, triton, tile, verdict,
              lambda t, o: _check_memory(t, o, ops, defs, verdict))
    _pair("dot", facts.dots, [op for op in ops if op.name in ("mmaf", "mmai")], verdict,
          lambda t, o: _check_dot(t, o, verdict))
    for kind in ("reduce", "scan"):
        triton_reductions = _split_index_reductions(
            [r for r in facts.reductions if r.kind == kind], verdict)
        tile_reductions = [op for op in ops if op.name == kind]
        if len(tile_reductions) > len(triton_reductions):
            tile_reductions = _without_dead_reductions(triton_reductions, tile_reductions,
                                                       ops, verdict)
        if len(tile_reductions) > len(triton_reductions):
            tile_reductions = _without_duplicates(triton_reductions, tile_reductions,
                                                  entry.ops, verdict)
        _pair(kind, triton_reductions, tile_reductions, verdict,
              lambda t, o: _check_reduce(t, o, verdict))
    return verdict.finish()


def _without_dead_reductions(triton: list[ReduceFact], tile: list[Operation],
                             ops: list[Operation], verdict: FactVerdict) -> list[Operation]:
    """The Tile IR reductions less those whose value is dead (rule dead-reduce for each),
    when that leaves as many as Triton's; all of them otherwise."""
    dead = _dead_values(ops)
    live = [op for op in tile if not all(r in dead for r in op.results)]
    if len(live) != len(triton):
        return tile
    for op in tile:
        if op not in live:
            verdict.note("dead-reduce", op.text)
    return live


def _without_duplicates(triton: list[ReduceFact], tile: list[Operation],
                        entry_ops: list[Operation], verdict: FactVerdict) -> list[Operation]:
    """The Tile IR reductions less those that repeat an earlier one's computation (rule
    duplicate-reduce for each), when that leaves as many as Triton's; all of them
    otherwise (the count then differs)."""
    keys = _reduction_keys(entry_ops)
    seen: set[object] = set()
    kept: list[Operation] = []
    repeated: list[Operation] = []
    for op in tile:
        key = keys[id(op)]
        (repeated if key in seen else kept).append(op)
        seen.add(key)
    if len(kept) != len(triton):
        return tile
    for op in repeated:
        verdict.note("duplicate-reduce", op.text)
    return kept


#: Ops whose result is not a function of their operands alone (memory, tokens).
_IMPURE = frozenset({*_LOADS, *_STORES, *_ATOMICS, "make_token", "join_tokens"})


def _reduction_keys(ops: list[Operation]) -> dict[int, object]:
    """Per reduce / scan op (by `id`), a key equal for two that compute the same value: its
    header (`template`: attributes, types, operands by position), the keys of its operands
    (each value a pure op's template over its operands' keys, back to entry arguments, block
    arguments, and impure ops, which are each only equal to themselves), and its combiner
    region's ops over the region's own arguments."""
    keys: dict[int, object] = {}

    def value_keys(ops: list[Operation], scope: dict[str, object]) -> None:
        for op in ops:
            operands = tuple(scope.get(v, ("free", v)) for v in op.operands)
            if op.name in ("reduce", "scan"):
                key: object = (op.template, operands, tuple(
                    _region_key(r, scope) for r in op.regions))
                keys[id(op)] = key
            elif op.regions or op.name in _IMPURE or not op.results:
                key = ("op", id(op))
            else:
                key = (op.template, operands)
            for index, result in enumerate(op.results):
                scope[result] = (key, index)
            for region in op.regions:
                inner = dict(scope)
                inner.update({a.name: ("arg", id(region), j) for j, a in
                              enumerate(region.args)})
                value_keys(region.ops, inner)

    value_keys(ops, {})
    return keys


def _region_key(region: Region, scope: dict[str, object]) -> tuple[object, ...]:
    """A combiner region's ops, each its template over its operands: the region's
    arguments by position, its own results by the op that makes them, values from outside
    by their keys in `scope`."""
    local: dict[str, object] = {a.name: ("arg", j) for j, a in enumerate(region.args)}
    out: list[object] = []
    for number, op in enumerate(region.ops):
        operands = tuple(local.get(v, scope.get(v, ("free", v))) for v in op.operands)
        out.append((op.template, operands, bool(op.regions)))
        for index, result in enumerate(op.results):
            local[result] = ("local", number, index)
    return tuple(out)


def _split_index_reductions(facts: list[ReduceFact], verdict: FactVerdict
                            ) -> list[ReduceFact]:
    """Triton's argmax / argmin (one reduce of a value and its index) as the two reductions
    the translation makes (rule index-reduction-split)."""
    out: list[ReduceFact] = []
    for fact in facts:
        if fact.kind != "reduce" or len(fact.operands) != 2:
            out.append(fact)
            continue
        verdict.note("index-reduction-split", fact.text)
        out += [replace(fact, operands=(operand,), results=(result,))
                for operand, result in zip(fact.operands, fact.results, strict=False)]
    return out


def _walk(ops: list[Operation]) -> Iterator[Operation]:
    for op in ops:
        yield op
        for region in op.regions:
            yield from _walk(region.ops)


def _pair(kind: str, triton: list, tile: list[Operation], verdict: FactVerdict,
          check: object) -> None:
    if len(triton) != len(tile):
        verdict.differ(f"number of {kind} ops", f"{len(triton)}: " + "; ".join(
            getattr(t, "text", "") for t in triton), f"{len(tile)}: " + "; ".join(
            o.text for o in tile))
        return
    for t, o in zip(triton, tile, strict=True):
        check(t, o)  # type: ignore[operator]


def _without_dead_loads(triton: list[MemoryFact], tile: list[Operation],
                        ops: list[Operation], verdict: FactVerdict) -> list[Operation]:
    """The Tile IR loads less those whose value is dead (rule dead-load for each), when
    that leaves as many as Triton's; all of them otherwise (the count then differs)."""
    dead = _dead_values(ops)
    live = [op for op in tile if op.results[0] not in dead]
    if len(live) != len(triton):
        return tile
    for op in tile:
        if op.results[0] in dead:
            verdict.note("dead-load", op.text)
    return live


def _dead_values(ops: list[Operation]) -> set[str]:
    """Values nothing with an effect reads, as Triton's folding leaves them: an op without
    effect whose results are unread is dead (a load: its value unread, its token aside),
    and a `select` whose two arms are one value does not read its condition. Value names
    repeat across regions in the printed IR: a repeated name counts every use, which only
    keeps more alive."""
    uses: Counter[str] = Counter()
    for op in ops:
        uses.update(_reads(op))
    dead: set[str] = set()
    removed: set[int] = set()
    changed = True
    while changed:
        changed = False
        for op in ops:
            if id(op) in removed or _has_effect(op):
                continue
            values = op.results[:1] if op.name in _LOADS else op.results
            if values and all(uses[v] == 0 for v in values):
                removed.add(id(op))
                dead.update(values)
                uses.subtract(_reads(op))
                changed = True
    return dead


def _reads(op: Operation) -> list[str]:
    if op.name == "select" and len(op.operands) == 3 and op.operands[1] == op.operands[2]:
        return op.operands[1:]
    return op.operands


def _has_effect(op: Operation) -> bool:
    """Stores, atomics, ops with regions and ops without results are kept whatever reads
    them (a load is not: it writes nothing; nor a reduce or scan, whose region is only its
    combiner)."""
    return (op.name in _STORES or op.name in _ATOMICS
            or bool(op.regions) and op.name not in ("reduce", "scan") or not op.results)


def _memory_kind(fact: MemoryFact) -> str:
    return {"descriptor_load": "load", "descriptor_store": "store"}.get(fact.kind, fact.kind)


def _element(text: str | None) -> str:
    return (text or "").lower()


def _tile(t: TileIrType) -> tuple[tuple[int | None, ...], str]:
    return tuple(t.shape or ()), _element(t.element).removeprefix("ptr<").removesuffix(">")


def _check_memory(fact: MemoryFact, op: Operation, ops: list[Operation],
                  defs: dict[str, Operation], verdict: FactVerdict) -> None:
    where = f"{fact.text}  <->  {op.text}"
    if fact.kind in ("load", "descriptor_load"):
        shape, element = _tile(op.result_types[0])
    elif op.name == "store_view_tko":
        shape, element = _tile(op.signature_types[0])
    else:
        shape, element = _tile(op.signature_types[1 if op.name.startswith("store") else 0])
        if op.name.startswith("atomic"):
            shape, element = _tile(op.result_types[0])
    if element != _element(fact.element):
        verdict.differ("element type", f"{fact.element}: {fact.text}", f"{element}: {op.text}")
    if shape != fact.shape:
        flat = len(shape) == 1 and len(fact.shape) > 1 and shape[0] == _count(fact.shape)
        if flat and op.name == "load_ptr_tko" and _reshaped_back(op, ops, fact.shape):
            verdict.note("flattened-gather", where)
        elif flat and op.name == "store_ptr_tko":
            verdict.note("flattened-gather", where)
        elif fact.shape == () and shape == (1,) and op.name.startswith("atomic"):
            verdict.note("scalar-as-rank-1", where)
        elif fact.kind.startswith("descriptor") and _without_units(shape) == _without_units(
                fact.shape):
            verdict.note("descriptor-unit-dims", where)
        else:
            verdict.differ("shape", f"{fact.shape}: {fact.text}", f"{shape}: {op.text}")
    if op.name.startswith("atomic"):
        _check_atomic(fact, op, verdict)
        return
    view = op.name.endswith("view_tko")
    masked = not view and any(_tile(t)[1] == "i1" for t in op.signature_types[1:])
    if fact.kind.startswith("descriptor"):
        _check_descriptor(fact, op, ops, view, masked, verdict)
        return
    if fact.mask and view:
        verdict.note("mask-as-view-bounds", where)
    elif fact.mask and not masked:
        verdict.differ("mask dropped", fact.text, op.text)
    elif not fact.mask and masked:
        verdict.differ("mask added to an unmasked access", fact.text, op.text)
    elif not fact.mask and view:
        verdict.note("unmasked-view", where)
    if fact.kind != "load" or not fact.mask:
        return
    padding = _view_padding(op) if view else _pointer_padding(
        op, _defs_before(ops, next(i for i, o in enumerate(ops) if o is op)))
    if padding is None and not view and fact.other is not None:
        padding = _select_padding(op, ops)
        if padding is not None and _same_constant(fact.other, padding):
            verdict.note("other-as-select", where)
            return
    if fact.other is None:
        if padding is not None:
            verdict.note("undetermined-other", where)
    elif padding is None or not _same_constant(fact.other, padding):
        verdict.differ("padding (Triton's `other`)", f"{fact.other}: {fact.text}",
                       f"{padding}: {op.text}")


def _without_units(shape: tuple) -> tuple:
    return tuple(d for d in shape if d != 1)


def _check_descriptor(fact: MemoryFact, op: Operation, ops: list[Operation], view: bool,
                      masked: bool, verdict: FactVerdict) -> None:
    """A descriptor access: a view access (padded with zero for a load), or a masked pointer
    tile whose load is padded with zero (by its padding operand or a `select`)."""
    load = fact.kind == "descriptor_load"
    if view:
        padding = _view_padding(op) if load else None
    elif not masked:
        verdict.differ("descriptor access without bounds", fact.text, op.text)
        return
    else:
        padding = _pointer_padding(op, _defs_before(
            ops, next(i for i, o in enumerate(ops) if o is op))) if load else None
        if load and padding is None:
            padding = _select_padding(op, ops)
        verdict.note("descriptor-as-pointer-tile", f"{fact.text}  <->  {op.text}")
    # A view without a padding value pads with zero; a pointer tile must say it.
    unpadded_ok = view and padding is None
    if load and not unpadded_ok and (padding is None or not _same_constant("0.0", padding)):
        verdict.differ("descriptor padding (zero)", fact.text, op.text)


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for d in shape:
        total *= d
    return total


def _reshaped_back(op: Operation, ops: list[Operation], shape: tuple[int, ...]) -> bool:
    value = op.results[0]
    return any(o.name == "reshape" and o.operands[:1] == [value]
               and tuple(o.result_types[0].shape or ()) == shape for o in ops)


def _view_padding(op: Operation) -> str | None:
    view = next((t for t in op.signature_types if t.kind == "partition_view"), None)
    name = view.field("padding_value") if view is not None else None
    return PADDING_VALUES.get(name, name) if name else None


def _pointer_padding(op: Operation, defs: dict[str, Operation]) -> str | None:
    if len(op.operands) < 3 or op.operand_labels[2] == "token":
        return None
    return _constant_of(op.operands[2], defs)


def _select_padding(op: Operation, ops: list[Operation]) -> str | None:
    """The constant a `select` on the load's own mask puts where the mask is off (None: no
    such select of the loaded value). Value names repeat across regions in the printed IR,
    so the select is the first one after the load and its operand's definition the last one
    before the select."""
    if len(op.operands) < 2 or not op.results:
        return None
    mask, loaded = op.operands[1], op.results[0]
    start = next(i for i, o in enumerate(ops) if o is op)
    for index in range(start + 1, len(ops)):
        user = ops[index]
        if user.name == "select" and user.operands[:2] == [mask, loaded] and \
                len(user.operands) == 3:
            return _constant_of(user.operands[2], _defs_before(ops, index))
    return None


def _defs_before(ops: list[Operation], index: int) -> dict[str, Operation]:
    return {r: o for o in ops[:index] for r in o.results}


def _constant_of(value: str, defs: dict[str, Operation]) -> str:
    """The constant `value` holds in every lane, through broadcasts, reshapes and
    conversions of a constant ("?" when it is not one, or a conversion is not exact)."""
    source = defs.get(value)
    if source is None:
        return "?"
    if source.name in ("broadcast", "reshape"):
        return _constant_of(source.operands[0], defs)
    if source.name == "bitcast" and source.operands and source.result_types:
        # f16 / bf16 constants are written as their bit pattern (an i16 constant) bitcast
        return _reinterpreted(_constant_of(source.operands[0], defs),
                              source.signature_types[0].element if source.signature_types
                              else None, source.result_types[0].element or "")
    if source.name in CONVERSIONS and source.operands and source.result_types:
        operand = _constant_of(source.operands[0], defs)
        if " unsigned" in source.text and operand.startswith("-"):
            return "?"  # an unsigned reading of a negative value is another number
        return _converted(operand, source.result_types[0].element or "")
    if source.name != "constant":
        return "?"
    match = re.search(r"<\w+:\s*([^>]+)>", source.attributes.get("value", ""))
    return constant_value(match.group(1)) if match else "?"


def _reinterpreted(value: str, source: str | None, element: str) -> str:
    """The bits of the integer constant `value` (of element type `source`) read as
    `element` ("?" unless both are known and of one width)."""
    held, target = HELD_AS.get(source or ""), HELD_AS.get(element)
    if value == "?" or held is None or target is None or held.itemsize != target.itemsize \
            or held.kind != "i":
        return "?"
    number = float(value)
    info = np.iinfo(held)
    if not number.is_integer() or not info.min <= number <= info.max:
        return "?"
    bits = np.array(int(number), dtype=held).view(target)
    return constant_value(repr(float(bits)) if target.kind != "i" else str(int(bits)))


def _converted(value: str, element: str) -> str:
    """`value` (a canonical constant) converted to `element` as the op converts it: to an
    integer by rounding toward zero (when in range), to a float only when the type holds
    the value exactly; else "?" (a rounded or wrapped value is never guessed)."""
    target = HELD_AS.get(element)
    if value == "?" or target is None:
        return "?"
    number = float(value)
    if target.kind == "i":
        if not math.isfinite(number):
            return "?"
        whole = math.trunc(number)  # ftoi rounds toward zero, as a C cast (and Triton's)
        info = np.iinfo(target)
        if not info.min <= whole <= info.max:
            return "?"
        return constant_value(str(whole))
    held = float(np.array(number, dtype=np.float64).astype(target))
    same = held == number or (math.isnan(held) and math.isnan(number))
    return constant_value(repr(held)) if same else "?"


def _same_constant(a: str, b: str) -> bool:
    return constant_value(a) == constant_value(b)


def _check_atomic(fact: MemoryFact, op: Operation, verdict: FactVerdict) -> None:
    mode, order, scope = fact.atomic or ("", "", "")
    words = op.text.split()
    want = [ATOMIC_ORDERS.get(order, order), ATOMIC_SCOPES.get(scope, scope)]
    got = words[words.index(op.name) + 1:words.index(op.name) + 3] if op.name in words else []
    if got != want:
        verdict.differ("atomic ordering / scope", f"{order} {scope}: {fact.text}",
                       f"{' '.join(got)}: {op.text}")
    if op.name == "atomic_rmw_tko" and f", {ATOMIC_OPS.get(mode, mode)}," not in op.text:
        verdict.differ("atomic op", f"{mode}: {fact.text}", op.text)


def _check_dot(fact: DotFact, op: Operation, verdict: FactVerdict) -> None:
    types = [_tile(t) for t in op.signature_types[:3]]
    if len(types) < 3:
        verdict.differ("dot operands", fact.text, op.text)
        return
    (_, a), (_, b), (shape, acc) = types
    want_a, want_b = _element(fact.a), _element(fact.b)
    tf32 = fact.precision == "tf32" and want_a == "f32" and want_b == "f32"
    if tf32 and (a, b) == ("tf32", "tf32"):
        verdict.note("tf32-operands", f"{fact.text}  <->  {op.text}")
    elif tf32 or (a, b) != (want_a, want_b):  # tf32 asked: f32 operands round differently
        verdict.differ("dot operand types", f"{fact.a} x {fact.b} ({fact.precision}): "
                       f"{fact.text}", f"{a} x {b}: {op.text}")
    if acc != _element(fact.acc) or shape != fact.shape:
        verdict.differ("dot accumulator", f"{fact.shape} {fact.acc}: {fact.text}",
                       f"{shape} {acc}: {op.text}")


def _ttir_tile(text: str) -> tuple[tuple[int, ...], str]:
    match = re.match(r"tensor<((?:\d+x)*)(\w+)>", text)
    if not match:
        return (), text.lower()
    return tuple(int(d) for d in match.group(1).split("x") if d), match.group(2).lower()


def _check_reduce(fact: ReduceFact, op: Operation, verdict: FactVerdict) -> None:
    where = f"{fact.text}  <->  {op.text}"
    dim = int(op.attributes.get("dim", "-1"))
    triton_in = [_ttir_tile(t) for t in fact.operands]
    tile_in = [_tile(t) for t in op.signature_types]
    swapped = fact.kind == "scan" and dim == 0 and fact.axis != 0
    if swapped:
        shape = list(triton_in[0][0])
        shape[0], shape[fact.axis] = shape[fact.axis], shape[0]
        triton_in = [(tuple(shape), e) for _, e in triton_in]
        verdict.note("scan-axis-swap", where)
    elif dim != fact.axis:
        verdict.differ(f"{fact.kind} axis", f"{fact.axis}: {fact.text}", f"{dim}: {op.text}")
    if [(tuple(s), e) for s, e in tile_in] != triton_in:
        verdict.differ(f"{fact.kind} operand types", f"{fact.operands}: {fact.text}",
                       f"{[t.text for t in op.signature_types]}: {op.text}")
    if fact.kind == "scan" and ("reverse=true" in op.text.replace(" ", "")) != fact.reverse:
        verdict.differ("scan direction", fact.text, op.text)
    combiner = [COMBINERS.get(c) for c in fact.combiner]
    if None in combiner:
        verdict.note("combiner-not-compared", where)
        return
    body = [o.name for region in op.regions for o in region.ops if o.name != "yield"]
    if body != combiner:
        verdict.differ(f"{fact.kind} combiner", f"{list(fact.combiner)}: {fact.text}",
                       f"{body}: {op.text}")
    nan_flag = any("propagate_nan" in o.text for region in op.regions for o in region.ops)
    if nan_flag != any(c in ("maximumf", "minimumf") for c in fact.combiner):
        verdict.differ(f"{fact.kind} NaN rule", f"{list(fact.combiner)}: {fact.text}",
                       op.text)


# ---- entry signature -------------------------------------------------------------------------


#: A host-made tensor descriptor parameter in TTIR: `!tt.tensordesc<4x64xf32>`, followed by
#: its shape (i32) and strides (i64), one per dimension, as Triton's JIT flattens it. It is
#: the translation's pointer of that element type; the fields are the translation's extent
#: and stride parameters (extra scalars there: the last stride, always 1, is not passed).
DESCRIPTOR_TYPE = "!tt.tensordesc<"


def _without_descriptor_fields(params: tuple[tuple[str, object], ...] | list
                               ) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    skip = 0
    for text, divisible in params:
        if skip:
            skip -= 1
            continue
        out.append((text, divisible))
        if text.startswith(DESCRIPTOR_TYPE):
            skip = 2 * len(text[len(DESCRIPTOR_TYPE):-1].split("x")[:-1])
    return out


def _pointee(text: str) -> str:
    """The element type of `!tt.ptr<f32>` or `!tt.tensordesc<4x64xf32>`."""
    if text.startswith(DESCRIPTOR_TYPE):
        return text[len(DESCRIPTOR_TYPE):-1].split("x")[-1]
    return text.removeprefix("!tt.ptr<").removesuffix(">")


def _check_signature(facts: TritonFacts, entry: TileIrEntry, ops: list[Operation],
                     verdict: FactVerdict) -> None:
    params = _without_descriptor_fields(facts.params)
    triton_ptrs = [(_element(_pointee(t)), d) for t, d in params
                   if t.startswith(("!tt.ptr<", DESCRIPTOR_TYPE))]
    triton_scalars = [(_element(t), d) for t, d in params if not t.startswith("!tt.")]
    tile_args = [(a.name, _tile(a.type)[1] if a.type else "", bool(
        a.type and (a.type.element or "").startswith("ptr<"))) for a in entry.args]
    ptrs = [(n, e) for n, e, is_ptr in tile_args if is_ptr]
    scalars = [(n, e) for n, e, is_ptr in tile_args if not is_ptr]
    if [e for _, e in ptrs] != [e for e, _ in triton_ptrs]:
        verdict.differ("pointer parameters", ", ".join(e for e, _ in triton_ptrs),
                       ", ".join(e for _, e in ptrs))
        return
    divisible = _assumed_divisible(ops)
    for (name, _), (_, triton_div) in zip(ptrs, triton_ptrs, strict=True):
        _check_divisibility(name, triton_div, divisible, verdict)
    matched = _subsequence([e for e, _ in triton_scalars], [e for _, e in scalars])
    if matched is None:
        verdict.differ("scalar parameters", ", ".join(e for e, _ in triton_scalars),
                       ", ".join(e for _, e in scalars))
        return
    if len(scalars) > len(triton_scalars):
        verdict.note("extra-scalar-parameters", f"{len(scalars) - len(triton_scalars)} more")
    for index, (_, triton_div) in zip(matched, triton_scalars, strict=True):
        _check_divisibility(scalars[index][0], triton_div, divisible, verdict)


def _assumed_divisible(ops: list[Operation]) -> dict[str, int]:
    """Entry value -> the divisor an `assume div_by<d>` (possibly over `assume bounded`)
    puts on it."""
    through: dict[str, str] = {}
    found: dict[str, int] = {}
    for op in ops:
        if op.name != "assume" or not op.operands or not op.results:
            continue
        root = through.get(op.operands[0], op.operands[0])
        through[op.results[0]] = root
        match = re.search(r"div_by<(\d+)", op.text)
        if match:
            found[root] = max(found.get(root, 1), int(match.group(1)))
    return found


def _check_divisibility(name: str, triton_div: bool, divisible: dict[str, int],
                        verdict: FactVerdict) -> None:
    assumed = divisible.get(name, 1)
    if assumed > 1 and not (triton_div and 16 % assumed == 0):
        verdict.differ("divisibility assumed without Triton's fact",
                       f"{name}: {'divisible by 16' if triton_div else 'no divisibility'}",
                       f"assume div_by<{assumed}> on {name}")
    elif triton_div and assumed == 1:
        verdict.note("divisibility-not-used", name)


def _subsequence(short: list[str], long: list[str]) -> list[int] | None:
    out: list[int] = []
    j = 0
    for item in short:
        while j < len(long) and long[j] != item:
            j += 1
        if j == len(long):
            return None
        out.append(j)
        j += 1
    return out
