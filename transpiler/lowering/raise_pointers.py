"""Raising of affine pointer accesses to tensor views (the fast path of Triton input).

Takes a typed `KernelModel` whose memory accesses are pointer tiles (`load_ptr`, `store_ptr`,
their token discipline already set); gives the same model with each access whose address,
mask and `other` are proven to be a tile of a tensor view rewritten to `load_ptr_view` /
`store_ptr_view` (a view over the pointer parameter with a shape and strides, a partition
of the tile's shape with a padding, a tile index), keeping its `wait` / `record` tokens; and
one note per access saying which path it took and, for a pointer tile, why.

The proof works on a symbolic affine form of every integer tile and pointer tile:

    ptr = P + c + sum_d (a_d + iota_d) * s_d

(`P` the pointer parameter; `c`, `a_d`, `s_d` integer polynomials over the kernel's runtime
scalars, constants, block ids and loop variables; `iota_d` a `tl.arange` along axis d).
Names are followed to their one definition (a scalar name whose definition is not affine,
`pid % GROUP` or a loaded index, is an atom of its own); a pointer advanced in a loop (`p += BLOCK *
stride`, once per iteration, unconditionally) is its value before the loop plus the
advance times the iterations done. Anything else on an index (a load, `%`, `//`, `where`,
a conversion, a name assigned twice) makes the form unknown, and the access stays a pointer
tile. An access is raised when:

1. every axis of the tile carries exactly one `arange` of the tile's size, with a stride
   whose terms are positive (a view's strides are not negative; runtime strides are taken
   to be, as torch's are);
2. each axis' start `a_d` is a multiple of its tile size (a polynomial each of whose terms
   holds the size as a factor: `pid * BLOCK`, `k * BLOCK_K`), so the tile index is exact;
   the part of the scalar offset no axis takes (a row offset `row * stride`) moves the
   view's base instead;
3. the mask is absent or a conjunction of `start + iota_d < bound` along distinct axes
   (after broadcasts), which is the view's extent along that axis; an unmasked axis gets
   the extent `a_d + B_d` (Triton's contract: an unmasked lane is in bounds);
4. `other` is absent or a constant the view padding names (0, -0.0, +-inf, NaN; only 0 for
   integers).

Under these conditions the view's load reads exactly the lanes the mask keeps, and pads
exactly the lanes it drops; a store through the view drops exactly those. One difference is
accepted: a lane at a negative coordinate with a true mask (an address before the
parameter's memory, undefined behaviour in Triton) is padded by the view instead of read.

Each raised access also says whether it goes through the tensor memory accelerator
(`tma`): only when its view is built from kernel parameters alone (the parameter itself as
base, extents and strides that are parameters or constants), so that tileiras builds the
descriptor once on the host side; a view whose base, extent or stride depends on the block
(a row offset, an extent `pid * BLOCK + BLOCK`) would make every block build a descriptor
in global memory (`ATOMG`, `UTMACCTL.IV`, 255 registers: `bench/results/triton_sass.md`).
Such an access stays a pointer tile, which the H200 runs much faster than that view:
without JIT facts (row reductions 4-6x: `bench/results/gpu_triton_noraise.md`) and with
them too (the fact entries' 16-byte view loads took rms_norm and layer_norm to 0.23 and 0.21
of Triton's speed against 1.00 and 0.91 as pointer tiles: `bench/results/gpu_triton_d_a.md`).

And a kernel without `tl.dot` (no `mma` in its body) keeps every access a pointer tile:
views pay only where tiles go to the tensor cores (H200: rms_norm 1.00 of Triton's speed as
pointer tiles, 0.26 with its one parameter-only weight view; matmul 1.19 with views and JIT
facts, 0.04 as pointer tiles: `bench/results/gpu_triton_jit.md`). `RAISE_ALL` raises every
provable access regardless (for tests of the analysis).

`ParamFacts` are what an entry may assume of its runtime arguments: Triton's JIT
specializations (`frontend/triton/jit_keys`): an int equal to 1 (a stride of a contiguous
axis), an int divisible by 16, a pointer aligned to 16 bytes. With facts, the raised views
read a 1 parameter as the constant 1 (a unit stride, static in the view's type) and state
`assume_div_by 16` on the parameters and pointers they use; without them tileiras cannot
vectorize (`LDG.E.U16` per element instead of `LDG.E.128`) nor use the tensor memory
accelerator. Such a translation is correct only for arguments that hold the facts: its
caller selects it by them, as Triton's launcher selects its compiled specialization.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from transpiler.model import (
    DimExpr,
    DimSym,
    DType,
    PointerType,
    ScalarType,
    TAssign,
    TDeclare,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TileType,
    TJump,
    TStmt,
    TWhile,
    statement_exprs,
    walk_statements,
)
from transpiler.model.consts import I32

# A monomial: sorted atom keys (with repetition); a polynomial: monomial -> coefficient.
Monomial = tuple[str, ...]
Poly = dict[Monomial, int]
# The view paddings (`padding::` members) a constant `other` maps to.
PADDING_NAMES = ("Zero", "NegZero", "PosInf", "NegInf", "Nan")
RAISED = "raised to a tensor view"
POINTER = "kept as a pointer tile"
#: Triton's JIT divisibility (`tt.divisibility = 16`): elements for ints, bytes for pointers.
JIT_DIVISOR = 16


@dataclass(frozen=True)
class ParamFacts:
    """Facts an entry may assume of its runtime parameters (Triton's JIT keys)."""

    ones: frozenset[str] = frozenset()  # ints equal to 1
    aligned: frozenset[str] = frozenset()  # ints divisible by 16, pointers aligned to 16 bytes

    def text(self) -> str:
        """The facts as a note (`stride_ak == 1; a_ptr, M aligned to 16`), empty when none."""
        parts = [f"{name} == 1" for name in sorted(self.ones)]
        if self.aligned:
            parts.append(", ".join(sorted(self.aligned)) + f" divisible by {JIT_DIVISOR}")
        return "; ".join(parts)


NO_FACTS = ParamFacts()


class NotAffine(Exception):
    """The expression has no affine form the raising can use (the reason is the text)."""


@dataclass(frozen=True)
class Term:
    """`(start + iota) * stride` along `axis`, the iota of `size` lanes."""

    axis: int
    size: object
    start: tuple[tuple[Monomial, int], ...]
    stride: tuple[tuple[Monomial, int], ...]


@dataclass
class Form:
    """An integer tile (or a pointer tile, with `param`) as `const + sum of terms`."""

    const: Poly
    terms: list[Term]
    shape: tuple[object, ...]
    param: str | None = None


@dataclass
class Bound:
    """A mask factor `offset + iota < limit` along `axis`."""

    axis: int
    offset: Poly
    limit: Poly


@dataclass
class Where:
    """Where a statement runs: the loops around it, each with the index (in the loop body)
    of the top-level statement that holds it."""

    loops: tuple[tuple[int, int], ...]  # (id of the TFor, index in its body)


@dataclass
class Definitions:
    """Every binding of every name of a kernel body, with where each statement runs."""

    assigns: dict[str, list[TAssign]] = field(default_factory=dict)
    where: dict[int, Where] = field(default_factory=dict)
    loops: dict[int, TFor] = field(default_factory=dict)
    loop_vars: dict[str, int] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)  # bound by an `if` or a `while`
    top: set[int] = field(default_factory=set)  # statements of the kernel body itself

    def _body(self, stmts: list[TStmt], loops: tuple[tuple[int, int], ...],
              opaque: bool = False) -> None:
        if not loops or loops[-1][1] >= 0:
            for stmt in stmts:
                self.where[id(stmt)] = Where(loops)
                self._one(stmt, loops, opaque)
            return
        loop_id = loops[-1][0]
        for index, stmt in enumerate(stmts):
            here = (*loops[:-1], (loop_id, index))
            self.where[id(stmt)] = Where(here)
            self._one(stmt, here, opaque)

    def _one(self, stmt: TStmt, here: tuple[tuple[int, int], ...], opaque: bool) -> None:
        if isinstance(stmt, TAssign):
            self.assigns.setdefault(stmt.name, []).append(stmt)
            if opaque:
                self.opaque.add(stmt.name)
        elif isinstance(stmt, TFor):
            self.loops[id(stmt)] = stmt
            self.loop_vars[stmt.var] = id(stmt)
            self._body(stmt.body, (*here, (id(stmt), -1)), opaque)
        elif isinstance(stmt, TWhile):
            self._body(stmt.body, here, True)
        elif isinstance(stmt, TIf):
            self.opaque |= {r[0] for r in stmt.results}
            self._body(stmt.then, here, opaque)
            self._body(stmt.orelse, here, opaque)


def collect_definitions(body: list[TStmt]) -> Definitions:
    defs = Definitions()
    defs.top = {id(stmt) for stmt in body}
    defs._body(body, ())
    return defs


# ---- polynomials ------------------------------------------------------------------------


def _poly_const(n: int) -> Poly:
    return {(): n} if n else {}


def _poly_atom(key: str) -> Poly:
    return {(key,): 1}


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for mono, coeff in b.items():
        out[mono] = out.get(mono, 0) + sign * coeff
        if out[mono] == 0:
            del out[mono]
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            mono = tuple(sorted(ma + mb))
            out[mono] = out.get(mono, 0) + ca * cb
            if out[mono] == 0:
                del out[mono]
    return out


def _divide(a: Poly, divisor: Poly) -> Poly | None:
    """`a / divisor` when `divisor` is one term dividing every term of `a` exactly."""
    if len(divisor) != 1:
        return None
    (dmono, dcoeff), = divisor.items()
    out: Poly = {}
    for mono, coeff in a.items():
        rest = list(mono)
        for atom in dmono:
            if atom not in rest:
                return None
            rest.remove(atom)
        if coeff % dcoeff:
            return None
        out[tuple(rest)] = coeff // dcoeff
    return out


def _frozen(p: Poly) -> tuple[tuple[Monomial, int], ...]:
    return tuple(sorted(p.items()))


# ---- the affine analysis ----------------------------------------------------------------


class Affine:
    """Affine forms of a kernel body's integer and pointer expressions (module docstring)."""

    def __init__(self, defs: Definitions, facts: ParamFacts = NO_FACTS) -> None:
        self.defs = defs
        self.facts = facts
        self.atoms: dict[str, TExpr] = {}
        #: the parameters whose facts this access's forms and view read
        self.used: set[str] = set()

    # -- scalars --

    def scalar(self, e: TExpr, at: Where) -> Poly:
        op = e.op
        if not isinstance(e.type, ScalarType) or e.type.dtype != I32:
            raise NotAffine("an index that is not an i32 scalar")
        if op == "literal" and isinstance(e.attrs.get("value"), int):
            return _poly_const(int(e.attrs["value"]))
        if op == "dim":
            value = e.attrs["value"]
            if isinstance(value, int):
                return _poly_const(value)
            return self.atom(f"dim:{value}", e)
        if op in ("bid", "num_blocks"):
            return self.atom(f"{op}:{e.attrs['axis']}", e)
        if op == "binary" and e.attrs.get("op") in ("+", "-", "*"):
            a, b = (self.scalar(x, at) for x in e.args)
            return _mul(a, b) if e.attrs["op"] == "*" else _add(a, b, -1 if e.attrs[
                "op"] == "-" else 1)
        if op == "var":
            return self.scalar_var(e, at)
        raise NotAffine(f"an index computed by `{op}`")

    def atom(self, key: str, e: TExpr) -> Poly:
        self.atoms.setdefault(key, e)
        return _poly_atom(key)

    def is_parameter(self, key: str) -> bool:
        """Whether an atom is a runtime scalar parameter (never reassigned) or a compile-time
        size: a value every block sees the same, known before the launch."""
        if key.startswith("dim:"):
            return True
        atom = self.atoms[key]
        name = str(atom.attrs.get("name"))
        return key.startswith("var:") and "param" in atom.attrs and \
            name not in self.defs.assigns

    def scalar_var(self, e: TExpr, at: Where) -> Poly:
        name = str(e.attrs["name"])
        if "param" in e.attrs and name not in self.defs.assigns:
            if name in self.facts.ones:
                self.used.add(name)
                return _poly_const(1)
            return self.atom(f"var:{name}", e)
        if name in self.defs.loop_vars:
            return self.loop_var(self.defs.loops[self.defs.loop_vars[name]], e, at)
        stmt = self.single_definition(name)
        try:
            value = self.scalar(stmt.value, self.defs.where[id(stmt)])
        except NotAffine:
            # A name bound once to a scalar the forms cannot follow (`pid % GROUP`, a loaded
            # index) is a value of its own: an atom, read where the source reads it.
            return self.atom(f"var:{name}", e)
        if id(stmt) in self.defs.top and len(value) == 1 and next(iter(value.values())) == 1 \
                and len(next(iter(value))) == 1:
            # A kernel-level name of one atom (`pid = tl.program_id(0)`) stands for it: the
            # view's index then reads as the source does.
            return self.atom(f"var:{name}", e)
        return value

    def loop_var(self, loop: TFor, e: TExpr, at: Where) -> Poly:
        """A loop variable stepping by 1 as itself; one stepping by `step` from `start` as
        `start + step * i`, with `i` the iterations done (`(var - start) / step`, exact), so
        that `for off in range(0, N, BLOCK)` is seen to be a multiple of `BLOCK`."""
        if loop.step.op == "literal" and loop.step.attrs.get("value") == 1:
            return self.atom(f"var:{loop.var}", e)
        where = self.defs.where[id(loop)]
        start, step = self.scalar(loop.start, where), self.scalar(loop.step, where)
        i32 = ScalarType(I32)
        done = TExpr("div_trunc", [TExpr("binary", [copy.copy(e), loop.start], i32, None,
                                         {"op": "-"}), loop.step], i32, None)
        return _add(start, _mul(step, self.atom(f"iter:{loop.var}", done)))

    def done_iterations(self, loop: TFor, at: Where) -> Poly:
        """The iterations of `loop` before the current one."""
        var = TExpr("var", [], ScalarType(I32), None, {"name": loop.var})
        if loop.step.op == "literal" and loop.step.attrs.get("value") == 1:
            return _add(self.atom(f"var:{loop.var}", var), self.scalar(loop.start, at), -1)
        self.loop_var(loop, var, at)
        return _poly_atom(f"iter:{loop.var}")

    def single_definition(self, name: str) -> TAssign:
        assigns = self.defs.assigns.get(name, [])
        if name in self.defs.opaque or len(assigns) != 1 or not assigns[0].first:
            raise NotAffine(f"`{name}` is assigned more than once")
        return assigns[0]

    # -- tiles and pointer tiles --

    def tile(self, e: TExpr, at: Where) -> Form:
        op = e.op
        shape = tuple(e.type.shape) if isinstance(e.type, TileType | PointerType) else ()
        if op == "ptr_param":
            return Form({}, [], (), str(e.attrs["name"]))
        if op == "arange":
            return Form({}, [Term(0, e.attrs["size"], (), _frozen(_poly_const(1)))], shape)
        if op in ("splat", "scalar_to_tile"):
            return Form(self.scalar(e.args[0], at), [], shape)
        if op == "full" and isinstance(e.attrs.get("value"), int) and not isinstance(
                e.attrs.get("value"), bool) and _int_tile(e):
            return Form(_poly_const(int(e.attrs["value"])), [], shape)
        if op in ("reshape", "ptr_reshape", "broadcast", "ptr_broadcast"):
            inner = self.tile(e.args[0], at)
            return _reshaped(inner, shape)
        if op == "ptr_offset":
            base, offsets = (self.tile(x, at) for x in e.args)
            if offsets.param is not None:
                raise NotAffine("a pointer added to a pointer")
            return _sum(base, offsets, 1, shape)
        if op == "binary" and _int_tile(e) and e.attrs.get("op") in ("+", "-", "*"):
            a, b = (self.tile(x, at) for x in e.args)
            if e.attrs["op"] == "*":
                return _product(a, b, shape)
            return _sum(a, b, -1 if e.attrs["op"] == "-" else 1, shape)
        if op == "var":
            return self.tile_var(e, at)
        raise NotAffine(f"an address or index computed by `{op}`")

    def tile_var(self, e: TExpr, at: Where) -> Form:
        name = str(e.attrs["name"])
        assigns = self.defs.assigns.get(name, [])
        if name in self.defs.opaque:
            raise NotAffine(f"`{name}` is assigned in a branch")
        if len(assigns) == 1 and assigns[0].first:
            return self.tile(assigns[0].value, self.defs.where[id(assigns[0])])
        if len(assigns) == 2 and assigns[0].first and not assigns[1].first:
            return self.advanced(name, assigns[0], assigns[1], at)
        raise NotAffine(f"`{name}` is assigned more than once")

    def advanced(self, name: str, init: TAssign, step: TAssign, at: Where) -> Form:
        """`name` defined before a loop and advanced once per iteration by a loop-invariant
        amount, at a use inside that loop: its first value plus the advances done."""
        where = self.defs.where[id(step)]
        if not where.loops:
            raise NotAffine(f"`{name}` is reassigned outside a loop")
        loop_id, step_index = where.loops[-1]
        loop = self.defs.loops[loop_id]
        if loop.body[step_index] is not step or any(isinstance(s, TJump) for s in loop.body):
            raise NotAffine(f"`{name}` is not advanced once per iteration")
        init_where = self.defs.where[id(init)]
        if [i for i, _ in init_where.loops] != [i for i, _ in where.loops[:-1]]:
            raise NotAffine(f"`{name}` starts in another loop than the one advancing it")
        use = dict(at.loops).get(loop_id)
        if use is None:
            raise NotAffine(f"`{name}` is used after the loop that advances it")
        delta = self.delta(step.value, name, where)
        if any(f"var:{loop.var}" in mono for mono in delta):
            raise NotAffine(f"the advance of `{name}` depends on the loop variable")
        done = self.done_iterations(loop, init_where)
        if use > step_index:
            done = _add(done, _poly_const(1))
        first = self.tile(init.value, init_where)
        shape = first.shape
        return Form(_add(first.const, _mul(done, delta)), first.terms, shape, first.param)

    def delta(self, value: TExpr, name: str, at: Where) -> Poly:
        if value.op not in ("ptr_offset", "binary") or value.args[0].op != "var" or \
                value.args[0].attrs.get("name") != name or (
                    value.op == "binary" and value.attrs.get("op") != "+"):
            raise NotAffine(f"`{name}` is reassigned to something else than itself plus an "
                            "offset")
        offset = self.tile(value.args[1], at)
        if offset.terms or offset.param is not None:
            raise NotAffine(f"`{name}` advances by a tile that is not one value")
        return offset.const

    # -- masks --

    def bounds(self, e: TExpr, at: Where) -> list[Bound]:
        op = e.op
        if op == "var":
            name = str(e.attrs["name"])
            stmt = self.single_definition(name)
            return self.bounds(stmt.value, self.defs.where[id(stmt)])
        if op == "binary" and e.attrs.get("op") == "&":
            return self.bounds(e.args[0], at) + self.bounds(e.args[1], at)
        if op in ("reshape", "broadcast"):
            inner = self.bounds(e.args[0], at)
            source = tuple(e.args[0].type.shape)
            mapping = _axis_map(source, tuple(e.type.shape))
            return [Bound(mapping[b.axis], b.offset, b.limit) for b in inner]
        if op == "compare" and e.attrs.get("op") in ("<", ">"):
            left, right = e.args if e.attrs["op"] == "<" else e.args[::-1]
            index, limit = self.tile(left, at), self.tile(right, at)
            if limit.terms or len(index.terms) != 1 or index.param or limit.param:
                raise NotAffine("a mask that is not `index < bound`")
            term, = index.terms
            if dict(term.stride) != _poly_const(1):
                raise NotAffine("a mask on a scaled index")
            return [Bound(term.axis, _add(index.const, dict(term.start)), limit.const)]
        raise NotAffine(f"a mask computed by `{op}`")


def _int_tile(e: TExpr) -> bool:
    return isinstance(e.type, TileType) and e.type.dtype == I32


def _axis_map(source: tuple[object, ...], target: tuple[object, ...]) -> dict[int, int]:
    """Axis of `source` -> axis of `target` for a reshape that only adds or drops axes of
    size 1, or a broadcast of axes of size 1 (same rank)."""
    if len(source) == len(target):
        if any(a != b and a != 1 for a, b in zip(source, target, strict=True)):
            raise NotAffine("a reshape that moves elements")
        return {d: d for d in range(len(source))}
    kept_s = [d for d, n in enumerate(source) if n != 1]
    kept_t = [d for d, n in enumerate(target) if n != 1]
    if [source[d] for d in kept_s] != [target[d] for d in kept_t]:
        raise NotAffine("a reshape that moves elements")
    return dict(zip(kept_s, kept_t, strict=True))


def _reshaped(form: Form, shape: tuple[object, ...]) -> Form:
    if not form.shape and not form.terms:
        return Form(form.const, [], shape, form.param)
    mapping = _axis_map(form.shape, shape)
    terms = []
    for term in form.terms:
        if term.axis not in mapping:
            raise NotAffine("a reshape that drops an indexed axis")
        terms.append(Term(mapping[term.axis], term.size, term.start, term.stride))
    return Form(form.const, terms, shape, form.param)


def _sum(a: Form, b: Form, sign: int, shape: tuple[object, ...]) -> Form:
    b_terms = [Term(t.axis, t.size, t.start, _frozen(_mul(dict(t.stride),
                                                         _poly_const(sign))))
               for t in b.terms]
    terms = a.terms + b_terms
    const = _add(a.const, b.const, sign)
    unit = [t for t in terms if dict(t.stride) == _poly_const(1)]
    if a.param is None and len(terms) == 1 and unit and const:
        # `start + arange`: the scalar is the range's start.
        term = unit[0]
        return Form({}, [Term(term.axis, term.size, _frozen(_add(dict(term.start), const)),
                              term.stride)], shape, a.param or b.param)
    return Form(const, terms, shape, a.param or b.param)


def _product(a: Form, b: Form, shape: tuple[object, ...]) -> Form:
    if a.terms and b.terms:
        raise NotAffine("a product of two ranges")
    scale, form = (a, b) if not a.terms else (b, a)
    factor = scale.const
    return Form(_mul(form.const, factor), [
        Term(t.axis, t.size, t.start, _frozen(_mul(dict(t.stride), factor)))
        for t in form.terms], shape, form.param)


# ---- raising one access -----------------------------------------------------------------


@dataclass
class ViewAccess:
    """What a raised access needs: per axis its extent, stride, tile size and tile index,
    and the base offset of the view (a polynomial; empty for the parameter itself)."""

    param: str
    extents: list[Poly]
    strides: list[Poly]
    tile: tuple[object, ...]
    index: list[Poly]
    base: Poly
    padding: str
    tma: bool = False


def plan_access(e: TExpr, affine: Affine, at: Where) -> ViewAccess:
    """The view an access is, or `NotAffine` saying why it stays a pointer tile."""
    pointer = e.args[0]
    shape = tuple(pointer.type.shape)
    if not shape:
        raise NotAffine("a single element")
    form = affine.tile(pointer, at)
    if form.param is None:
        raise NotAffine("no pointer parameter")
    by_axis: dict[int, Term] = {}
    for term in form.terms:
        if term.axis in by_axis:
            raise NotAffine("two ranges along one axis")
        if term.size != shape[term.axis]:
            raise NotAffine("a range shorter than the tile")
        if not term.stride or any(coeff <= 0 for _, coeff in term.stride):
            # A view's strides are not negative (runtime strides are taken as torch's are).
            raise NotAffine(f"a negative or zero stride along axis {term.axis}")
        by_axis[term.axis] = term
    if sorted(by_axis) != list(range(len(shape))):
        raise NotAffine("an axis without a range")
    starts = [dict(by_axis[d].start) for d in range(len(shape))]
    strides = [dict(by_axis[d].stride) for d in range(len(shape))]
    sizes = [_size_poly(size, affine) for size in shape]
    base = _split_offset(form.const, starts, strides, sizes)
    index = []
    for d in range(len(shape)):
        quotient = _divide(starts[d], sizes[d])
        if quotient is None:
            raise NotAffine(f"the start along axis {d} is not a multiple of the tile")
        index.append(quotient)
    has_mask = bool(e.attrs.get("has_mask"))
    extents: list[Poly | None] = [None] * len(shape)
    if has_mask:
        mask = e.args[1] if e.op == "load_ptr" else e.args[2]
        for bound in affine.bounds(mask, at):
            if extents[bound.axis] is not None:
                raise NotAffine("two bounds along one axis")
            extents[bound.axis] = _add(_add(bound.limit, bound.offset, -1), starts[bound.axis])
    final = [x if x is not None else _add(starts[d], _size_poly(shape[d], affine))
             for d, x in enumerate(extents)]
    padding = _padding(e) if e.op == "load_ptr" else "None"
    tma = not base and all(affine.is_parameter(key) for p in (*final, *strides)
                           for mono in p for key in mono)
    return ViewAccess(form.param, final, strides, shape, index, base, padding, tma)


def _size_poly(size: object, affine: Affine) -> Poly:
    if isinstance(size, int):
        return _poly_const(size)
    if isinstance(size, DimSym | DimExpr):
        return affine.atom(f"dim:{size}", TExpr("dim", [], ScalarType(I32), None,
                                                {"value": size}))
    raise NotAffine("a tile size that is not a constant")


def _split_offset(const: Poly, starts: list[Poly], strides: list[Poly],
                  sizes: list[Poly]) -> Poly:
    """Move each term of the pointer's scalar offset into the start of an axis whose stride
    divides it (scaled strides first; a stride of 1 only takes a multiple of its tile size,
    so that the start stays aligned); what is left shifts the view's base (a row offset
    `row * stride` of a row-wise kernel)."""
    order = sorted(range(len(strides)), key=lambda d: strides[d] == _poly_const(1))
    rest: Poly = {}
    for mono, coeff in const.items():
        for d in order:
            quotient = _divide({mono: coeff}, strides[d])
            if quotient is not None and _divide(quotient, sizes[d]) is not None:
                starts[d] = _add(starts[d], quotient)
                break
        else:
            rest[mono] = coeff
    return rest


def _padding(e: TExpr) -> str:
    if not e.attrs.get("has_mask"):
        return "None"
    if e.attrs.get("other_tile"):
        other = e.args[2]
        if other.op != "full":
            raise NotAffine("an `other` that is not a constant")
        value = other.attrs.get("value")
    else:
        value = e.attrs.get("padding", 0)
    assert isinstance(e.type, TileType)
    dtype = e.type.dtype
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise NotAffine("an `other` that is not a number")
    number = float(value)
    is_int = isinstance(dtype, DType) and not dtype.is_float
    if number == 0 and not (math.copysign(1.0, number) < 0 and not is_int):
        return "Zero"
    if is_int:
        raise NotAffine("an integer `other` other than 0 (a view pads integers with 0 only)")
    if number == 0:
        return "NegZero"
    if math.isnan(number):
        return "Nan"
    if math.isinf(number):
        return "PosInf" if number > 0 else "NegInf"
    raise NotAffine(f"an `other` of {value!r}, which no view padding gives")


# ---- the pass ---------------------------------------------------------------------------


def _statement_exprs(stmts: list[TStmt]) -> Iterator[tuple[TExpr, TStmt]]:
    """Each expression a statement evaluates with the statement that evaluates it (a loop's
    bounds and an `if`'s condition belong to the loop or `if` itself)."""
    for stmt in stmts:
        if isinstance(stmt, TAssign | TEffect):
            yield stmt.value, stmt
        elif isinstance(stmt, TFor):
            for bound in (stmt.start, stmt.stop, stmt.step):
                yield bound, stmt
            yield from _statement_exprs(stmt.body)
        elif isinstance(stmt, TWhile):
            if stmt.cond is not None:
                yield stmt.cond, stmt
            yield from _statement_exprs(stmt.body)
        elif isinstance(stmt, TIf):
            yield stmt.cond, stmt
            yield from _statement_exprs(stmt.then)
            yield from _statement_exprs(stmt.orelse)


def access_expressions(stmts: list[TStmt]) -> list[TExpr]:
    """Every pointer-tile load and store of `stmts`, nested blocks included."""
    return [access for access, _stmt in _accesses(stmts)]


def _accesses(stmts: list[TStmt]) -> Iterator[tuple[TExpr, TStmt]]:
    for value, stmt in _statement_exprs(stmts):
        stack = [value]
        while stack:
            node = stack.pop()
            if node.op in ("load_ptr", "store_ptr"):
                yield node, stmt
            stack.extend(node.args)


#: `enabled` of `raise_pointer_accesses` that raises every provable access, also those whose
#: view the hardware reads slower than pointer tiles (for testing what the analysis proves).
RAISE_ALL = "all"


def raise_pointer_accesses(body: list[TStmt], enabled: bool | str = True,
                           facts: ParamFacts = NO_FACTS,
                           used: set[str] | None = None) -> list[str]:
    """Rewrite each provable access of `body` in place (none when not `enabled`, the
    `--no-raise` translation; also the slow views with `RAISE_ALL`); one note per access,
    in program order (`RAISED`, or `POINTER` with the reason). `facts`: what the raised
    views may assume of the parameters (module docstring); a note names them when there
    are any. `used`, when given, receives the parameters whose facts the raised accesses
    read (a fact on another parameter changes nothing)."""
    defs = collect_definitions(body)
    found = sorted(_accesses(body), key=lambda pair: _position(pair[0]))
    notes = []
    if enabled and enabled != RAISE_ALL and not _has_mma(body):
        # Measured on the H200: views pay only where tiles go to the tensor cores (matmul
        # 4096^3 f16 0.04 -> 1.2 of Triton's speed); a kernel without `tl.dot` runs its
        # pointer tiles faster (rms_norm 1.00 as pointer tiles, 0.26 with one weight view
        # through the tensor memory accelerator: `bench/results/gpu_triton_e.md`).
        reason = "the kernel has no `tl.dot` (views pay only for tensor-core operands)"
        return [f"{'`tl.load`' if a.op == 'load_ptr' else '`tl.store`'} of "
                f"`{a.attrs.get('param')}`{_place(a)} {POINTER}: {reason}" for a, _ in found]
    if enabled and facts != NO_FACTS:
        notes.append(f"assumes Triton's JIT specialization: {facts.text()} (correct only "
                     "for arguments that hold it)")
    for access, stmt in found:
        affine = Affine(defs, facts)
        what = "`tl.load`" if access.op == "load_ptr" else "`tl.store`"
        place = _place(access)
        if not enabled:
            notes.append(f"{what} of `{access.attrs.get('param')}`{place} {POINTER}: "
                         "raising is off (`--no-raise`)")
            continue
        try:
            plan = plan_access(access, affine, defs.where[id(stmt)])
        except NotAffine as why:
            notes.append(f"{what} of `{access.attrs.get('param')}`{place} {POINTER}: {why}")
            continue
        if not plan.tma and enabled != RAISE_ALL:
            notes.append(f"{what} of `{plan.param}`{place} {POINTER}: its view would depend "
                         "on the block (no tensor memory accelerator), and such a view is "
                         "slower than pointer tiles")
            continue
        _rewrite(access, plan, affine)
        if used is not None:
            used |= affine.used
        memory = "tensor memory accelerator" if plan.tma else "no tensor memory accelerator"
        notes.append(f"{what} of `{plan.param}`{place} {RAISED} (padding "
                     f"{plan.padding.lower()}, {memory})")
    if any(RAISED in note for note in notes):
        drop_dead_assignments(body)
    return notes


def _has_mma(body: list[TStmt]) -> bool:
    """Whether the kernel multiplies tiles on the tensor cores (`tl.dot`)."""
    stack = list(statement_exprs(body))
    while stack:
        expr = stack.pop()
        if expr.op == "mma":
            return True
        stack.extend(a for a in expr.args if isinstance(a, TExpr))
    return False


# Operations without effects: an assignment made only of these whose name nothing reads
# any more (the pointer tiles and masks of raised accesses) is dropped.
PURE_OPS = frozenset({
    "ptr_param", "ptr_reshape", "ptr_broadcast", "ptr_offset", "var", "literal", "dim", "bid",
    "num_blocks", "arange", "splat", "scalar_to_tile", "tile_to_scalar", "full", "reshape",
    "broadcast", "binary", "compare", "convert", "convert_scalar", "div_trunc", "rem_trunc",
    "where", "select_scalar", "const_cond"})


def drop_dead_assignments(body: list[TStmt]) -> None:
    """Remove, until none is left, the assignments of pure values to names that nothing
    reads but their own reassignments (`a_ptrs += BLOCK_K * stride_ak` of a raised load)."""
    while True:
        dead = _dead_names(body)
        if not dead:
            return
        _remove(body, dead)


def _dead_names(body: list[TStmt]) -> set[str]:
    assigned: dict[str, list[TAssign]] = {}
    kept: set[str] = set()
    reads: dict[str, set[str]] = {}  # name -> names whose assignments read it
    for stmt in walk_statements(body):
        if isinstance(stmt, TAssign):
            assigned.setdefault(stmt.name, []).append(stmt)
        elif isinstance(stmt, TIf):
            kept |= {name for r in stmt.results for name in (r[0], r[2], r[3])}
        elif isinstance(stmt, TDeclare):
            kept.add(stmt.name)
    for value, stmt in _statement_exprs(body):
        owner = stmt.name if isinstance(stmt, TAssign) else None
        for node in _nodes(value):
            if node.op == "var":
                reads.setdefault(str(node.attrs["name"]), set()).add(owner or "")
    return {name for name, stmts in assigned.items()
            if name not in kept and reads.get(name, set()) <= {name}
            and all(all(n.op in PURE_OPS for n in _nodes(s.value)) for s in stmts)}


def _nodes(e: TExpr) -> Iterator[TExpr]:
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.args)


def _remove(stmts: list[TStmt], dead: set[str]) -> None:
    stmts[:] = [s for s in stmts if not (isinstance(s, TAssign) and s.name in dead)]
    for stmt in stmts:
        if isinstance(stmt, TFor | TWhile):
            stmt.carried = [c for c in stmt.carried if c not in dead]
            _remove(stmt.body, dead)
        elif isinstance(stmt, TIf):
            _remove(stmt.then, dead)
            _remove(stmt.orelse, dead)


def _position(e: TExpr) -> tuple[int, int]:
    return (e.span.line, e.span.col) if e.span is not None else (0, 0)


def _place(e: TExpr) -> str:
    return f" at line {e.span.line}" if e.span is not None else ""


def _rewrite(access: TExpr, plan: ViewAccess, affine: Affine) -> None:
    """The access as `load_ptr_view` / `store_ptr_view`: args (base pointer, extents...,
    strides..., index...[, value]); attrs keep the token discipline."""
    pointer = access.args[0]
    assert isinstance(pointer.type, PointerType)
    ptype = PointerType(pointer.type.dtype, (), pointer.type.param)
    base = _assumed(TExpr("ptr_param", [], ptype, pointer.span, {"name": plan.param}),
                    plan.param, affine)
    if plan.base:
        offset = TExpr("scalar_to_tile", [_scalar_expr(plan.base, affine)],
                       TileType(I32, ()), pointer.span)
        base = TExpr("ptr_offset", [base, offset], ptype, pointer.span)
    rank = len(plan.tile)
    args = [base] + [_scalar_expr(p, affine) for p in plan.extents] + \
        [_scalar_expr(p, affine) for p in plan.strides] + \
        [_scalar_expr(p, affine) for p in plan.index]
    unit = tuple(s == _poly_const(1) for s in plan.strides)
    if access.op == "store_ptr":
        args.append(access.args[1])
    access.attrs.update({"rank": rank, "tile": plan.tile, "view_padding": plan.padding,
                         "unit_strides": unit, "tma": plan.tma})
    access.op = "load_ptr_view" if access.op == "load_ptr" else "store_ptr_view"
    access.args = args


def _scalar_expr(p: Poly, affine: Affine) -> TExpr:
    """A polynomial as an i32 scalar expression over its atoms' own expressions."""
    i32 = ScalarType(I32)
    total: TExpr | None = None
    for mono, coeff in sorted(p.items()):
        term: TExpr | None = None
        for key in mono:
            atom = copy.copy(affine.atoms[key])
            atom.attrs = dict(atom.attrs)
            if affine.is_parameter(key) and atom.op == "var":
                atom = _assumed(atom, str(atom.attrs["name"]), affine)
            term = atom if term is None else TExpr("binary", [term, atom], i32, None,
                                                   {"op": "*"})
        magnitude = abs(coeff)
        if term is None:
            term = TExpr("literal", [], i32, None, {"value": magnitude})
        elif magnitude != 1:
            term = TExpr("binary", [term, TExpr("literal", [], i32, None,
                                                {"value": magnitude})], i32, None, {"op": "*"})
        if total is None:
            total = term if coeff > 0 else TExpr("binary", [
                TExpr("literal", [], i32, None, {"value": 0}), term], i32, None, {"op": "-"})
        else:
            total = TExpr("binary", [total, term], i32, None,
                          {"op": "+" if coeff > 0 else "-"})
    return total if total is not None else TExpr("literal", [], i32, None, {"value": 0})


def _assumed(e: TExpr, name: str, affine: Affine) -> TExpr:
    """`e` (parameter `name`) with `assume_div_by 16` when the facts hold it aligned."""
    if name not in affine.facts.aligned:
        return e
    affine.used.add(name)
    return TExpr("assume_div", [e], e.type, e.span, {"divisor": JIT_DIVISOR})


def unit_stride_candidates(body: list[TStmt]) -> set[str]:
    """The runtime int parameters that multiply the `arange` of an access's last (the
    contiguous) axis, alone: `cols * stride_xn` (Triton's JIT compiles them as the constant
    1 when the launch passes 1, and the view then has a static unit stride)."""
    defs = collect_definitions(body)
    out: set[str] = set()
    for access, stmt in _accesses(body):
        pointer = access.args[0]
        shape = tuple(pointer.type.shape)
        if not shape:
            continue
        affine = Affine(defs)
        try:
            form = affine.tile(pointer, defs.where[id(stmt)])
        except NotAffine:
            continue
        for term in form.terms:
            if term.axis != len(shape) - 1 or len(term.stride) != 1:
                continue
            (mono, coeff), = term.stride
            if coeff == 1 and len(mono) == 1 and mono[0].startswith("var:") and \
                    affine.is_parameter(mono[0]):
                out.add(mono[0][len("var:"):])
    return out
