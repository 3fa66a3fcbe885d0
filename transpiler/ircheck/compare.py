"""Structural comparison of a reference (cuTile Python) and a generated (cuTile Rust) entry.

Takes two `TileIrModule`s (one entry each) or two `TileIrEntry`s; gives a `Verdict`: status
PASS / PASS_WITH_NOTES / FAIL, the accepted differences as `Note`s (each naming the
canonicalization rule of `canonicalize.RULES` that accepts it) and the real differences as
`Difference`s (kind, message, both sides' op text and source locations).

Both entries are canonicalized with one shared interner, so the same computation has the same
key on both sides. The comparison aligns the roots of each region (stores, atomics, control
flow, the terminator) by key, pairs the rest by op name and tensor view, and walks each pair
backwards through operands and into regions until the first op whose own name, attributes or
types differ: that op is reported, its consequences (types changed only because an operand
changed) are not. Entry arguments are matched by their tensor-view role (`view1.shape[0]`,
the k-th `make_tensor_view`), never by position, and entry names are ignored. Separately:
optimization_hints, load counts per view, and the order that tokens impose between memory
ops on the same array.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from transpiler.ircheck.canonicalize import (
    COMMUTATIVE,
    RULES,
    TARGET_HINT_KEY,
    Block,
    CanonicalEntry,
    Interner,
    Node,
    Value,
    alias,
    canonicalize,
    ceildiv_parts,
    data_index,
    data_operands,
    describe,
    hidden_results,
    is_identity_list,
    splat_literal,
)
from transpiler.ircheck.parse import TileIrEntry, TileIrModule, TileIrType

PASS = "PASS"
PASS_WITH_NOTES = "PASS_WITH_NOTES"
FAIL = "FAIL"

# Difference kinds named after attributes, by attribute key.
ATTRIBUTE_KINDS: dict[str, str] = {
    "flush_to_zero": "flush-to-zero",
    "rounding": "rounding",
    "identities": "reduce-identity",
    "optimization_hints": "memory-hints",
    "value": "constant",
    "padding_value": "padding-value",
}
# Ops that only reshape or convert their first operand: an extra one on one side is looked past.
PASSTHROUGH_OPS: frozenset[str] = frozenset(
    {"reshape", "broadcast", "permute", "ftof", "exti", "trunci", "bitcast"})
# A generated partition view that pads where the reference leaves padding undetermined.
REFINEMENT_KIND = "padding-refinement"
# A generated value with a strict subset of the reference's assumed facts.
WEAKER_KIND = "assumption-weaker"
REGION_OPS_WITH_COMBINERS: frozenset[str] = frozenset({"reduce", "scan"})
LOOP_BOUND_NAMES: tuple[str, ...] = ("lower bound", "upper bound", "step")


@dataclass(frozen=True)
class Difference:
    kind: str
    message: str
    reference: str | None = None
    generated: str | None = None
    location: str | None = None
    generated_location: str | None = None


@dataclass(frozen=True)
class Note:
    rule: str
    message: str


@dataclass
class Verdict:
    status: str
    notes: list[Note] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    reference_entry: str = ""
    generated_entry: str = ""

    @property
    def kinds(self) -> set[str]:
        return {d.kind for d in self.differences}

    @property
    def passed(self) -> bool:
        return self.status != FAIL


def compare_modules(reference: TileIrModule, generated: TileIrModule,
                    bound_args: dict[int, str] | None = None,
                    arg_aliases: dict[int, int] | None = None) -> Verdict:
    """Compare the single entry of each module (`bound_args`, `arg_aliases`: facts about the
    generated entry's arguments, see `canonicalize`)."""
    return compare_entries(reference.entry(), generated.entry(), bound_args, arg_aliases)


def compare_entries(reference: TileIrEntry, generated: TileIrEntry,
                    bound_args: dict[int, str] | None = None,
                    arg_aliases: dict[int, int] | None = None) -> Verdict:
    interner = Interner()
    ref = canonicalize(reference, interner)
    gen = canonicalize(generated, interner, bound_args, arg_aliases)
    differ = _Differ(ref, gen)
    differ.hints()
    differ.views()
    differ.blocks(ref.body, gen.body)
    differ.load_counts()
    differ.memory_order()
    notes = _notes(ref, gen) + _dedupe(differ.notes_extra)
    differences = [d for d in differ.differences if d.kind != REFINEMENT_KIND]
    notes += [Note(REFINEMENT_KIND, f"{d.message} ({d.location or 'reference'})")
              for d in differ.differences if d.kind == REFINEMENT_KIND]
    if differences:
        status = FAIL
    elif notes:
        status = PASS_WITH_NOTES
    else:
        status = PASS
    return Verdict(status, notes, differences, reference.name, generated.name)


def format_verdict(verdict: Verdict) -> str:
    """Human-readable report: status line, then differences, then notes."""
    lines = [f"ircheck: {verdict.status} (reference @{verdict.reference_entry}, "
             f"generated @{verdict.generated_entry})"]
    for diff in verdict.differences:
        lines.append(f"  difference [{diff.kind}] {diff.message}")
        if diff.reference is not None:
            where = f"  ({diff.location})" if diff.location else ""
            lines.append(f"      reference: {diff.reference}{where}")
        if diff.generated is not None:
            where = f"  ({diff.generated_location})" if diff.generated_location else ""
            lines.append(f"      generated: {diff.generated}{where}")
    for note in verdict.notes:
        lines.append(f"  note [{note.rule}] {note.message}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------


def _dedupe(notes: list[Note]) -> list[Note]:
    out: list[Note] = []
    for note in notes:
        if note not in out:
            out.append(note)
    return out


def _notes(ref: CanonicalEntry, gen: CanonicalEntry) -> list[Note]:
    notes = []
    for rule in RULES:
        r, g = ref.applied[rule.name], gen.applied[rule.name]
        if r != g:
            notes.append(Note(rule.name, f"reference {_counts(r)}; generated {_counts(g)}"))
    return notes


def _counts(counter: Counter[str]) -> str:
    if not counter:
        return "none"
    return ", ".join(f"{what} x{n}" for what, n in sorted(counter.items()))


def _hints_text(entry: TileIrEntry) -> str:
    # An empty `default` entry beside per-target ones (`<default = {}, sm_100 = {..}>`, what
    # cuTile Python writes for `ct.ByTarget(sm_100=..)`) says no more than its absence.
    hints = entry.attributes.get("optimization_hints", "").replace("<default = {}, ", "<")
    return "" if hints in ("", "<default = {}>") else hints


class _Differ:
    def __init__(self, ref: CanonicalEntry, gen: CanonicalEntry) -> None:
        self.ref = ref
        self.gen = gen
        self.differences: list[Difference] = []
        self.seen: set[tuple[int, int]] = set()
        self.pairs: dict[int, Node] = {}
        self.combiner_depth = 0
        self.notes_extra: list[Note] = []

    def add(self, kind: str, message: str, r: Node | None, g: Node | None) -> None:
        self.differences.append(Difference(
            kind, message,
            r.op.text if r is not None else None, g.op.text if g is not None else None,
            r.op.location if r is not None else None, g.op.location if g is not None else None))

    # -- entry level ----------------------------------------------------------------------

    def hints(self) -> None:
        r, g = _hints_text(self.ref.entry), _hints_text(self.gen.entry)
        if r != g:
            self.add("optimization-hints",
                     f"entry optimization_hints: reference {r or 'none'}, generated "
                     f"{g or 'none'}", None, None)

    def views(self) -> None:
        rviews, gviews = self.ref.views, self.gen.views
        if len(rviews) != len(gviews):
            self.add("tensor-view-count",
                     f"reference makes {len(rviews)} tensor views, generated {len(gviews)}",
                     None, None)
        for r, g in zip(rviews, gviews, strict=False):
            self.node(r, g)

    # -- regions --------------------------------------------------------------------------

    def blocks(self, rblock: Block, gblock: Block) -> bool:
        groots = list(self.gen.roots(gblock))
        unmatched: list[Node] = []
        for r in self.ref.roots(rblock):
            match = next((g for g in groots if g.key == r.key), None)
            if match is None:
                unmatched.append(r)
            else:
                groots.remove(match)
                self.pairs[id(r)] = match
        reported = False
        for r in unmatched:
            g = self._partner(r, groots)
            if g is None:
                self.add(_count_kind(r), f"reference `{r.op.name}` has no counterpart in "
                         f"generated{_view_phrase(self.ref, r)}", r, None)
                reported = True
                continue
            groots.remove(g)
            self.pairs[id(r)] = g
            reported = self.node(r, g) or reported
        for g in groots:
            self.add(_count_kind(g), f"generated `{g.op.name}` has no counterpart in "
                     f"reference{_view_phrase(self.gen, g)}", None, g)
            reported = True
        return reported

    def _partner(self, r: Node, candidates: list[Node]) -> Node | None:
        rview = _views_of(self.ref, r)
        same_name = [g for g in candidates if g.op.name == r.op.name]
        for g in same_name:
            if _views_of(self.gen, g) == rview:
                return g
        return same_name[0] if same_name else None

    # -- nodes ----------------------------------------------------------------------------

    def node(self, r: Node, g: Node) -> bool:
        """Report what differs between two aligned ops; True if anything was reported."""
        if r.key == g.key:
            return False
        pair = (id(r), id(g))
        if pair in self.seen:
            return True
        self.seen.add(pair)
        self.pairs.setdefault(id(r), g)
        if r.op.name != g.op.name:
            if self._skip_passthrough(r, g):
                return True
            kind = "reduce-combiner" if self.combiner_depth else "operation"
            self.add(kind, f"reference has `{r.op.name}` where generated has `{g.op.name}`",
                     r, g)
            return True
        reported = self._operands(r, g)
        reported = self._regions(r, g) or reported
        attribute_diffs, type_diffs = self._own(r, g)
        shown = attribute_diffs + ([] if reported else type_diffs)
        for kind, message in shown:
            self.add(kind, message, r, g)
        return reported or bool(shown)

    def _skip_passthrough(self, r: Node, g: Node) -> bool:
        """When one side has an extra reshape / broadcast / conversion, compare past it.

        The extra op is then a consequence of a difference found further up (an axis, a
        type); if none is found, the caller reports the op names.
        """
        for side_r, side_g in ((r, g), (g, r)):
            if side_r.op.name not in PASSTHROUGH_OPS or not side_r.operands:
                continue
            inner = alias(side_r.operands[0])
            if inner.kind != "result" or inner.node is None:
                continue
            if inner.node.op.name != side_g.op.name:
                continue
            pair = (inner.node, side_g) if side_r is r else (side_g, inner.node)
            if self.node(*pair):
                return True
        return False

    def _operands(self, r: Node, g: Node) -> bool:
        r_ops, g_ops = data_operands(r), data_operands(g)
        if len(r_ops) != len(g_ops):
            self.add("operand-count", f"`{r.op.name}` has {len(r_ops)} operands in "
                     f"reference, {len(g_ops)} in generated", r, g)
            return True
        pairs = self._operand_pairs(r, g)
        rkeys = [self.ref.key(rv) for rv, _ in pairs]
        gkeys = [self.gen.key(gv) for _, gv in pairs]
        if r.op.name != "for" and rkeys != gkeys and sorted(rkeys) == sorted(gkeys):
            order = ", ".join(_value_text(v) for v in g.operands)
            self.add("operand-order", f"`{r.op.name}` takes the same operands in another order; "
                     f"generated uses ({order})", r, g)
            return True
        reported = False
        bounds = 3 if r.op.name == "for" else 0
        for i, (rv, gv) in enumerate(pairs):
            if self.ref.key(rv) == self.gen.key(gv):
                continue
            if i < bounds:
                self.add("loop-bounds", f"loop {LOOP_BOUND_NAMES[i]} differs: reference "
                         f"{_value_text(rv)}, generated {_value_text(gv)}", r, g)
                reported = True
            else:
                reported = self.value(rv, gv, r, g, i) or reported
        return reported

    def _operand_pairs(self, r: Node, g: Node) -> list[tuple[Value, Value]]:
        pairs = list(zip(data_operands(r), data_operands(g), strict=True))
        if COMMUTATIVE.get(r.op.name, 0) >= 2 and len(pairs) >= 2:
            (r0, g0), (r1, g1) = pairs[0], pairs[1]
            same = self._same
            if same(r0, g1) + same(r1, g0) > same(r0, g0) + same(r1, g1):
                pairs[0], pairs[1] = (r0, g1), (r1, g0)
        return pairs

    def _same(self, rv: Value, gv: Value) -> int:
        return int(self.ref.key(rv) == self.gen.key(gv))

    def _regions(self, r: Node, g: Node) -> bool:
        if len(r.blocks) != len(g.blocks):
            self.add("region", f"`{r.op.name}` has {len(r.blocks)} regions in reference, "
                     f"{len(g.blocks)} in generated", r, g)
            return True
        combiner = r.op.name in REGION_OPS_WITH_COMBINERS
        self.combiner_depth += combiner
        try:
            reported = False
            for rb, gb in zip(r.blocks, g.blocks, strict=True):
                reported = self.blocks(rb, gb) or reported
            return reported
        finally:
            self.combiner_depth -= combiner

    # -- values ---------------------------------------------------------------------------

    def value(self, rv: Value, gv: Value, r: Node, g: Node, index: int) -> bool:
        ra, ga = alias(rv), alias(gv)
        where = f"operand {index} of `{r.op.name}`"
        facts_reported = self._facts(ra, ga, r, g)
        if ra.kind != ga.kind or (ra.kind == "arg" and ra.role != ga.role):
            self.add("operand", f"{where}: reference uses {describe(ra)}, generated uses "
                     f"{describe(ga)}", r, g)
            return True
        if ra.kind == "arg":
            if ra.type != ga.type:
                self.add("element-type", f"{where}: argument {ra.role} has type "
                         f"{_type_text(ra.type)} in reference, {_type_text(ga.type)} in "
                         f"generated", r, g)
                return True
            return facts_reported
        if ra.kind == "blockarg":
            # Rule token-threading: positions among the data arguments (a token the loop
            # carries may come first on one side).
            if data_index(ra) != data_index(ga):
                self.add("reduce-combiner" if self.combiner_depth else "operand",
                         f"{where}: reference uses {describe(ra)}, generated uses "
                         f"{describe(ga)}", r, g)
                return True
            return facts_reported
        return self._result(ra, ga, r, g, where) or facts_reported

    def _result(self, ra: Value, ga: Value, r: Node, g: Node, where: str) -> bool:
        rs, gs = splat_literal(ra), splat_literal(ga)
        if rs is not None or gs is not None:
            return self._splat(ra, ga, rs, gs, where)
        rc, gc = ceildiv_parts(ra), ceildiv_parts(ga)
        if rc is not None and gc is not None:
            if rc[1] != gc[1]:
                assert ra.node is not None and ga.node is not None
                self.add("tile-shape", f"{where}: tile count ceil(extent / {rc[1]}) in "
                         f"reference, ceil(extent / {gc[1]}) in generated", ra.node, ga.node)
                return True
            return self.value(rc[0], gc[0], r, g, 0)
        assert ra.node is not None and ga.node is not None
        if ra.node.key == ga.node.key and ra.index != ga.index:
            self.add("operand", f"{where}: reference uses {describe(ra)}, generated uses "
                     f"{describe(ga)}", r, g)
            return True
        return self.node(ra.node, ga.node)

    def _splat(self, ra: Value, ga: Value, rs: str | None, gs: str | None, where: str) -> bool:
        rnode, gnode = ra.node, ga.node
        if rs is None or gs is None:
            self.add("constant", f"{where}: reference uses {rs or describe(ra)}, generated "
                     f"uses {gs or describe(ga)}", rnode, gnode)
            return True
        kinds = []
        if _literal_type(rs) != _literal_type(gs):
            kinds.append(("element-type", f"{where}: constant {rs} in reference, {gs} in "
                          f"generated"))
        elif rs != gs:
            kinds.append(("constant", f"{where}: constant {rs} in reference, {gs} in "
                          f"generated"))
        if ra.type != ga.type and not kinds:
            kinds.extend(_type_diffs(ra.type, ga.type, "constant"))
        for kind, message in kinds:
            self.add(kind, message, rnode, gnode)
        return bool(kinds)

    def _facts(self, ra: Value, ga: Value, r: Node, g: Node) -> bool:
        if ra.facts == ga.facts or ra.kind != ga.kind:
            return False
        if ga.facts < ra.facts:
            self.notes_extra.append(Note(WEAKER_KIND, f"{describe(ra)}: generated does not "
                                         f"assume {_fact_text(ra.facts - ga.facts)}"))
            return False
        self.add("assumption", f"{describe(ra)}: reference assumes "
                 f"{_fact_text(ra.facts)}, generated assumes {_fact_text(ga.facts)}", r, g)
        return True

    # -- an op's own name, attributes and types ---------------------------------------------

    def _own(self, r: Node, g: Node) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(attribute differences, type differences) of the op itself.

        Type differences are dropped by the caller when an operand difference explains them.
        """
        attribute_diffs = _attribute_diffs(r, g)
        type_diffs: list[tuple[str, str]] = []
        rtypes = r.op.result_types + r.op.signature_types
        gtypes = g.op.result_types + g.op.signature_types
        if r.blocks:
            # Rules token-threading and if-passthrough: those results are not compared.
            rhide, ghide = hidden_results(r), hidden_results(g)
            rtypes = [t for i, t in enumerate(rtypes)
                      if t.kind != "token" and i not in rhide]
            gtypes = [t for i, t in enumerate(gtypes)
                      if t.kind != "token" and i not in ghide]
        for rt, gt in zip(rtypes, gtypes, strict=False):
            for diff in _type_diffs(rt, gt, r.op.name):
                if diff not in type_diffs:
                    type_diffs.append(diff)
        if not attribute_diffs and not type_diffs and r.template != g.template:
            attribute_diffs.append(("operation-form", f"`{r.op.name}` is written "
                                    f"`{r.template}` in reference, `{g.template}` in generated"))
        return attribute_diffs, type_diffs

    # -- counts and memory order -----------------------------------------------------------

    def load_counts(self) -> None:
        rcount = _memory_counts(self.ref, "load")
        gcount = _memory_counts(self.gen, "load")
        for key in sorted(set(rcount) | set(gcount)):
            if rcount[key] != gcount[key]:
                name, view = key
                self.add("load-count", f"`{name}` from {view}: {rcount[key]} in reference, "
                         f"{gcount[key]} in generated", None, None)

    def memory_order(self) -> None:
        gen_by_key = {n.key: n for n in self.gen.nodes if n.live and _is_memory_op(n)}
        ref_deps = _TokenOrder()
        gen_deps = _TokenOrder()
        for b in self.ref.nodes:
            if not (b.live and _is_memory_op(b)):
                continue
            gb = gen_by_key.get(b.key) or self.pairs.get(id(b))
            if gb is None:
                continue
            for a in ref_deps.before(b):
                ga = gen_by_key.get(a.key) or self.pairs.get(id(a))
                if ga is None or not _conflict(self.ref, a, b):
                    continue
                if ga not in gen_deps.before(gb):
                    if _data_depends(gb, ga):
                        # The generated op consumes the earlier op's result, so it cannot
                        # run before it: the token edge adds no ordering.
                        self.notes_extra.append(Note(
                            "data-dependence-order",
                            f"`{b.op.name}` uses the value of `{a.op.name}`, which orders "
                            "them without a token"))
                        continue
                    self.add("memory-ordering", f"reference orders `{a.op.name}` before "
                             f"`{b.op.name}` through tokens; generated does not", b, gb)


# ---------------------------------------------------------------------------------------------
# Helpers


def _normal_hints(attributes: dict[str, str]) -> dict[str, str]:
    """Rules hint-target-key and empty hints: `<sm_90 = {..}>` is `<default = {..}>` for an
    sm_90 compile, and `<default = {}>` says no more than no hints at all."""
    value = attributes.get("optimization_hints")
    if value is None:
        return attributes
    out = dict(attributes)
    if value.startswith(TARGET_HINT_KEY):
        value = "<default = " + value[len(TARGET_HINT_KEY):]
    if value in ("<default = {}>", "<>"):
        del out["optimization_hints"]
    else:
        out["optimization_hints"] = value
    return out


def _attribute_diffs(r: Node, g: Node) -> list[tuple[str, str]]:
    ra, ga = _normal_hints(r.op.attributes), _normal_hints(g.op.attributes)
    # Rule token-threading: the input token of a memory op is checked by memory_order.
    ra = {k: v for k, v in ra.items() if k != "token"}
    ga = {k: v for k, v in ga.items() if k != "token"}
    if r.template == g.template and r.op.name in ("for", "loop", "if"):
        # Region headers equal after token-threading: iter_values differ only in tokens.
        ra = {k: v for k, v in ra.items() if k != "iter_values"}
        ga = {k: v for k, v in ga.items() if k != "iter_values"}
    diffs: list[tuple[str, str]] = []
    rflags = {k for k, v in ra.items() if v == ""}
    gflags = {k for k, v in ga.items() if v == ""}
    plain_flags: list[str] = []
    for flag in sorted(rflags ^ gflags):
        if flag in ATTRIBUTE_KINDS:
            side = "reference only" if flag in rflags else "generated only"
            diffs.append((ATTRIBUTE_KINDS[flag], f"`{r.op.name}` {flag}: {side}"))
        else:
            plain_flags.append(flag)
    if plain_flags:
        diffs.append(("attribute", f"`{r.op.name}` keywords: reference "
                      f"{_flag_text(rflags - gflags)}, generated {_flag_text(gflags - rflags)}"))
    for key in list(ra) + [k for k in ga if k not in ra]:
        rval, gval = ra.get(key), ga.get(key)
        if rval == gval or rval == "" or gval == "":
            continue
        kind = _attribute_kind(key, r.op.name)
        diffs.append((kind, f"`{r.op.name}` {key}: reference {rval or 'absent'}, "
                      f"generated {gval or 'absent'}"))
    return diffs


def _attribute_kind(key: str, op_name: str) -> str:
    if key == "dim" and op_name in REGION_OPS_WITH_COMBINERS:
        return "reduce-axis"
    if key == "value":
        return "constant"
    return ATTRIBUTE_KINDS.get(key, "attribute")


def _flag_text(flags: set[str]) -> str:
    return "{" + ", ".join(sorted(flags)) + "}" if flags else "none"


def _type_diffs(rt: TileIrType | None, gt: TileIrType | None, op_name: str
                ) -> list[tuple[str, str]]:
    if rt is None or gt is None or rt.text == gt.text:
        return []
    if rt.kind != gt.kind:
        return [("type", f"`{op_name}` type {rt.text} in reference, {gt.text} in generated")]
    mma = op_name.startswith("mma")
    if rt.kind == "tile":
        diffs = []
        if rt.shape != gt.shape:
            diffs.append(("mma-types" if mma else "tile-shape",
                          f"`{op_name}` tile shape {_shape_text(rt)} in reference, "
                          f"{_shape_text(gt)} in generated"))
        if rt.element != gt.element:
            diffs.append(("mma-types" if mma else "element-type",
                          f"`{op_name}` element type {rt.element} in reference, "
                          f"{gt.element} in generated"))
        return diffs
    if rt.kind == "partition_view":
        return _partition_view_diffs(rt, gt, op_name)
    if rt.kind == "tensor_view":
        return _tensor_view_diffs(rt, gt, op_name)
    return [("type", f"`{op_name}` type {rt.text} in reference, {gt.text} in generated")]


def _partition_view_diffs(rt: TileIrType, gt: TileIrType, op_name: str
                          ) -> list[tuple[str, str]]:
    diffs = []
    fields = {"tile": "tile-shape", "padding_value": "padding-value",
              "tensor_view": "tensor-view", "dim_map": "attribute"}
    for name, kind in fields.items():
        rval, gval = _view_field(rt, name), _view_field(gt, name)
        if name == "padding_value" and rval is None:
            kind = REFINEMENT_KIND
        if rval != gval:
            diffs.append((kind, f"`{op_name}` partition view {name}: reference "
                          f"{rval or 'none'}, generated {gval or 'none'}"))
    if not diffs:
        diffs.append(("type", f"`{op_name}` type {rt.text} in reference, {gt.text} in "
                      f"generated"))
    return diffs


def _view_field(t: TileIrType, name: str) -> str | None:
    value = t.field(name)
    if name == "dim_map" and value is not None and is_identity_list(value):
        return None
    return value


def _tensor_view_diffs(rt: TileIrType, gt: TileIrType, op_name: str) -> list[tuple[str, str]]:
    diffs = []
    if rt.field("strides") != gt.field("strides"):
        diffs.append(("tensor-view-strides", f"`{op_name}` strides {rt.field('strides')} in "
                      f"reference, {gt.field('strides')} in generated"))
    if rt.element != gt.element:
        diffs.append(("element-type", f"`{op_name}` element type {rt.element} in reference, "
                      f"{gt.element} in generated"))
    if rt.shape != gt.shape:
        diffs.append(("tensor-view", f"`{op_name}` shape {_shape_text(rt)} in reference, "
                      f"{_shape_text(gt)} in generated"))
    return diffs


def _shape_text(t: TileIrType) -> str:
    if not t.shape:
        return "scalar"
    return "x".join("?" if d is None else str(d) for d in t.shape)


def _type_text(t: TileIrType | None) -> str:
    return t.text if t is not None else "unknown"


def _literal_type(literal: str) -> str:
    return literal.strip("<>").split(":", 1)[0].strip()


def _fact_text(facts: set[str]) -> str:
    return "{" + ", ".join(sorted(facts)) + "}" if facts else "nothing"


def _value_text(value: Value) -> str:
    literal = splat_literal(value)
    if literal is not None:
        return literal
    parts = ceildiv_parts(value)
    if parts is not None:
        return f"ceil({describe(parts[0])} / {parts[1]})"
    return describe(value)


def _count_kind(node: Node) -> str:
    if node.op.name.startswith("store"):
        return "store-count"
    if node.op.name.startswith("atomic"):
        return "atomic-count"
    return "missing-op"


def _is_memory_op(node: Node) -> bool:
    name = node.op.name
    return name.startswith(("load", "store", "atomic"))


def _is_write(node: Node) -> bool:
    return node.op.name.startswith(("store", "atomic"))


def _views_of(canon: CanonicalEntry, node: Node) -> frozenset[int] | None:
    """Indices of the tensor views an op reads or writes through; None when unknown."""
    views = frozenset(k for k in _reached(canon, node, through_views=False)
                      if isinstance(k, int))
    return views or None


def _reached(canon: CanonicalEntry, node: Node, through_views: bool) -> set[object]:
    """What an op's operands come from: the indices of the tensor views it goes through
    and, `through_views`, the entry arguments (`("arg", index)`) those views' base pointers
    come from, so that a view of a slice (`make_tensor_view` over an `offset` base) reaches
    the array it slices."""
    found: set[object] = set()
    index = {id(v): k for k, v in enumerate(canon.views)}
    follow = {"make_partition_view", "offset"} | ({"make_tensor_view"} if through_views
                                                  else set())
    stack = [alias(v) for v in node.operands if not alias(v).is_token]
    seen: set[int] = set()
    while stack:
        value = alias(stack.pop())
        if id(value) in seen:
            continue
        seen.add(id(value))
        if value.kind == "arg":
            if value.role and value.role.endswith(".base"):
                found.add(int(value.role[4:].split(".", 1)[0]))
            if through_views and value.type is not None and (
                    value.type.element or "").startswith("ptr<"):
                found.add(("arg", value.index))
            continue
        source = value.node
        if value.kind != "result" or source is None:
            continue
        if id(source) in index:
            found.add(index[id(source)])
            if not through_views:
                continue
        if source.op.name in follow and source.operands:
            stack.append(source.operands[0])
    return found


def _view_phrase(canon: CanonicalEntry, node: Node) -> str:
    views = _views_of(canon, node)
    if not views:
        return ""
    return " (tensor view " + ", ".join(f"view{v}" for v in sorted(views)) + ")"


def _memory_counts(canon: CanonicalEntry, prefix: str) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for node in canon.nodes:
        if node.live and node.op.name.startswith(prefix):
            views = _views_of(canon, node)
            label = ", ".join(f"view{v}" for v in sorted(views)) if views else "unknown view"
            counts[(node.op.name, label)] += 1
    return counts


def _conflict(canon: CanonicalEntry, a: Node, b: Node) -> bool:
    if not (_is_write(a) or _is_write(b)):
        return False
    va, vb = _memory_of(canon, a), _memory_of(canon, b)
    return va is None or vb is None or bool(va & vb)


def _memory_of(canon: CanonicalEntry, node: Node) -> frozenset[object] | None:
    """What an op may touch: its tensor views and the entry arguments their base pointers
    come from (a view of a slice conflicts with the array it slices and its other slices);
    None when unknown."""
    if _views_of(canon, node) is None:
        return None
    return frozenset(_reached(canon, node, through_views=True))


def _data_depends(node: Node, target: Node, limit: int = 100_000) -> bool:
    """Whether `node` reads a value computed from one of `target`'s non-token results."""
    seen: set[int] = set()
    stack = [v for v in node.operands if not alias(v).is_token]
    while stack and limit > 0:
        limit -= 1
        value = alias(stack.pop())
        source = value.node
        if source is None or id(source) in seen:
            continue
        if source is target and value.kind == "result":
            return True
        seen.add(id(source))
        if value.kind == "result":
            stack.extend(v for v in source.operands if not alias(v).is_token)
    return False


class _TokenOrder:
    """Memory ops that a memory op is ordered after, following its token operands."""

    def __init__(self) -> None:
        self.cache: dict[int, list[Node]] = {}

    def before(self, node: Node) -> list[Node]:
        cached = self.cache.get(id(node))
        if cached is not None:
            return cached
        found: list[Node] = []
        seen: set[int] = set()
        stack = [v for v in node.operands if alias(v).is_token]
        while stack:
            value = alias(stack.pop())
            source = value.node
            if source is None or id(value) in seen:
                continue
            seen.add(id(value))
            if source.op.name in ("if", "for") or value.kind == "blockarg":
                # A token an `if` or a loop passes on: whatever its branches yield, and for
                # a loop also its initial value and what the previous iteration continued
                # with (the order cuTile Python carries from one iteration to the next).
                stack.extend(_carried_token_sources(value))
                continue
            if value.kind != "result" or id(source) in seen:
                continue
            seen.add(id(source))
            if source.op.name != "join_tokens" and source.op.name != "make_token":
                found.append(source)
            stack.extend(v for v in source.operands if alias(v).is_token)
        self.cache[id(node)] = found
        return found


def _carried_token_sources(value: Value) -> list[Value]:
    """The values a token result of an `if`/`for`, or a `for` iteration argument, comes
    from: the branches' (or the loop body's) terminator operand at its position, and for a
    loop its initial value."""
    node = value.node
    assert node is not None
    if value.kind == "blockarg":
        if node.op.name != "for" or value.index < 1:
            return []
        position = value.index - 1
    else:
        position = value.index
    sources: list[Value] = []
    if node.op.name == "for" and len(node.operands) > 3 + position:
        sources.append(node.operands[3 + position])
    for block in node.blocks:
        last = block.nodes[-1] if block.nodes else None
        if last is not None and last.op.name in ("continue", "yield") and \
                position < len(last.operands):
            sources.append(last.operands[position])
    return sources
