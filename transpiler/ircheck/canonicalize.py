"""Canonical form of one Tile IR entry, so that two entries can be compared structurally.

Takes a `TileIrEntry` (from `parse.py`) and an `Interner` shared by the two entries being
compared; gives a `CanonicalEntry`: the entry's ops resolved into a graph of `Node`s and
`Value`s, with

- a structural key per node and per value (the same computation gets the same key on both
  sides, whatever the value names, statement order or source of the IR),
- the tensor-view role of each entry argument (`view1.shape[0]`), since the two front ends
  pass arguments differently,
- liveness (dead pure ops removed), the facts asserted by `assume` per value, and
- a record of every accepted-noise rule applied (`applied`), so that differences in noise
  between the sides can be reported as notes.

Each rule is listed in `RULES` with the reason it preserves meaning. `canonical_text` prints
the canonical form with values renamed in definition order.
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from transpiler.ircheck.hints import normal_hints
from transpiler.ircheck.parse import (
    Item,
    Operation,
    TileIrEntry,
    TileIrType,
    make_template,
    render,
)
from transpiler.ircheck.restructure import restructure
from transpiler.model.elements import ELEMENTS


@dataclass(frozen=True)
class Rule:
    name: str
    reason: str


RULES: tuple[Rule, ...] = (
    Rule("dead-code",
         "An op without side effects whose results are never used cannot change what the "
         "kernel stores; it is dropped (weak loads count as side-effect free)."),
    Rule("merge-duplicates",
         "Two side-effect-free ops with the same name, attributes, types and operands compute "
         "the same value (SSA values are immutable), e.g. repeated get_tile_block_id or equal "
         "constants; uses of either are the same value. Loads and stores are never merged."),
    Rule("assume-chain",
         "`assume` returns its operand unchanged; uses of its result are uses of the operand, "
         "and the predicate is kept as a fact of that value, compared as a set."),
    Rule("assume-duplicate",
         "Asserting the same predicate on the same value twice adds nothing; it is counted once."),
    Rule("assume-bounded-redundant",
         "`bounded<0, ?>` on a block id, grid size, index-space extent, iota, or a `for` "
         "induction variable starting at a constant >= 0 with a constant step > 0 restates "
         "what the op already guarantees."),
    Rule("token-threading",
         "Tokens only order memory ops; make_token / join_tokens and token operands are left "
         "out of the structural key, and the order they impose between memory ops on the "
         "same array is checked separately (compare.py, memory-ordering, following tokens "
         "through `if` results and from one loop iteration to the next)."),
    Rule("constant-splat",
         "`broadcast` / `reshape` of a scalar constant is the splat constant of the result "
         "type: the same elements, whichever way the front end builds it."),
    Rule("index-space-ceildiv",
         "get_index_space_shape of a partition view with an identity dim_map and a dynamic "
         "extent S along a dim with tile size T is ceil(S / T); `divi S, T signed "
         "rounding<positive_inf>` with T a positive constant and S a tensor-view extent (never "
         "negative) is the same value, so both get one key."),
    Rule("commutative-operands",
         "Operands of commutative ops (addf, mulf, addi, muli, maxf, minf, maxi, mini, andi, "
         "ori, xori, and the two factors of fma) are put in a canonical order."),
    Rule("padding-refinement",
         "A load with no padding_value leaves out-of-bounds elements undetermined; a "
         "generated view that pads with a defined value is one of the permitted results. "
         "Applied by compare.py only in that direction (reference without padding)."),
    Rule("assumption-weaker",
         "A value the generated side assumes fewer facts about (its `assume` predicates a "
         "strict subset of the reference's) computes the same: an assumption only licenses "
         "optimizations, so dropping one cannot change a result; it is noted as a possible "
         "speed difference. A fact only the generated side assumes stays a difference."),
    Rule("loop-index-bounds",
         "`bounded<a, b>` on the induction variable of a `for` over [lo, hi) with a positive "
         "step (a constant, or the grid size) restates the loop when a <= lo (or a is `?`) "
         "and b >= hi - 1 (or b is `?`)."),
    Rule("hint-target-key",
         "Per-op optimization_hints keyed by the compile target (`sm_90`) apply to exactly "
         "the same compilation as hints keyed `default`; the key is normalized to `default`."),
    Rule("empty-hint-entry",
         "An optimization_hints entry with no hints (`default = {}`, on an entry or an op) "
         "asks for nothing on any target, however a compiler merges a target's entry with "
         "`default`; it is left out. A non-empty entry on one side only stays a difference "
         "(see hints.py)."),
    Rule("data-dependence-order",
         "A memory op that consumes a value computed from an earlier load of the same array "
         "cannot run before that load; the token edge cuTile Python adds between them orders "
         "nothing more (checked in compare.py)."),
    Rule("constant-conversion",
         "`ftof` (round to nearest even) of a float constant is the constant of the target "
         "type holding the rounded value; `ftoi` of a float constant holding an integer is "
         "that integer constant; float constants are compared by value, not by "
         "spelling (`1.0` and `1.000000e+00`, hex and decimal)."),
    Rule("constant-bitcast",
         "`bitcast` of an integer constant to a float type of the same width is the float "
         "constant with those bits (cuTile Rust has no f16/bf16 literal: the translation "
         "writes such a constant's bits as an i16 constant)."),
    Rule("bound-scalar-argument",
         "A scalar entry argument that the launch binds to a known constant (a "
         "`ct.Constant[float]` that cuTile Rust must pass at run time) is that constant."),
    Rule("if-passthrough",
         "An `if` result that every branch yields from the same value defined before the "
         "`if` is that value; the result and its yields are dropped (cuTile Rust yields "
         "loop-carried variables through an `if` that does not change them). A branch "
         "that ends in `continue`/`break` leaves the loop and yields nothing: it does not "
         "count."),
    Rule("loop-passthrough",
         "A `for` iteration value that the body passes back unchanged (its final `continue` "
         "returns the iteration argument, and nothing else jumps) is its initial value "
         "throughout; the value, its argument and result are dropped (cuTile Python carries "
         "some values through loops that never change them)."),
    Rule("identity-conversion",
         "`bitcast`, `ftof`, `broadcast` or `reshape` to the operand's own Tile IR type "
         "(i32 -> i32: "
         "Tile IR integers are signless and the Rust side changes only the signedness of its "
         "type; a broadcast of 1x1 to 1x1) is its operand."),
    Rule("argument-alias",
         "A scalar argument that the launcher fills with another argument's value (a "
         "tensor's stride, which a cuTile Rust kernel cannot read from the tensor) is that "
         "argument."),
    Rule("constant-folding",
         "`cmpi` of two integer constants and `cmpf` of two float constants (NaN: true "
         "exactly when unordered) is the boolean constant it evaluates to, "
         "`addi`/`subi`/`muli`/signed `divi` of two integer constants is the (wrapped, "
         "rounded as written) result, and "
         "`itof`/`exti` of an integer constant is the converted constant (cuTile Python folds "
         "these at compile time, cuTile Rust may not); an `if` whose condition folds to a "
         "constant is the arm it runs (cuTile Rust folds it from a single-trip loop's "
         "index, cuTile Python keeps the `if`)."),
    Rule("pointer-element-alignment",
         "`div_by<n>` on a pointer that `offset` computes, n the byte size of the pointee, "
         "restates what the op guarantees: an element pointer moved by whole elements stays "
         "aligned to the element size."),
    Rule("single-trip-loop",
         "The induction variable of a `for` whose constant bounds allow exactly one "
         "iteration is the lower bound (cuTile Rust folds it from the loop's bounds; "
         "cuTile Python keeps the variable)."),
    Rule("identity-dim-map",
         "A partition view's `dim_map=[0, 1, ..., n-1]` is the default mapping; it is dropped."),
    Rule("early-exit",
         "`if c { A; return } else { yield }` (or an empty `else` in an `if` without "
         "results) followed by B at the end of the kernel is "
         "`if c { A } else { B }`: either runs A or B and nothing after (cuTile Rust has no "
         "`return` below the function body; see restructure.py)."),
    Rule("derived-divisibility",
         "`div_by<2^k>` on a value whose defining ops already imply it from the facts of "
         "their operands restates those facts: `muli` multiplies the divisors, `addi`/`subi` "
         "keep their gcd, `exti`/`trunci`/`negi`/`absi`/`broadcast`/`reshape`/`permute` keep "
         "the divisor, a constant is divisible by its value, and an `offset` of a pointer by "
         "k elements of b bytes keeps gcd(pointer, k * b); a power of two survives integer "
         "wrap-around. cuTile Python adds such derived facts to the operands of tensor views "
         "and pointer accesses (its propagate_divby pass), cuTile Rust does not."),
    Rule("scan-axis-swap",
         "`permute` swapping axes 0 and k, `scan dim=0`, the same `permute` is the scan along "
         "k (a swap is its own inverse; cuTile Rust 0.5.0 scans along dimension 0 only)."),
    Rule("flattened-gather",
         "`reshape(load_ptr_tko(reshape(p), reshape(m), broadcast(reshape(c))))`, the pointer "
         "tile and mask flattened to rank 1 and the result reshaped back, is "
         "`load_ptr_tko(p, m, broadcast(c))` at the shaped tile: reshapes keep the row-major "
         "element order (cuTile Rust 0.5.0 cannot pass a padding to loads of rank >= 2; see "
         "restructure.py)."),
)
RULE_NAMES: frozenset[str] = frozenset(r.name for r in RULES)
# The op each rule of restructure.py rewrites (for the notes).
_REWRITTEN_OP = {"early-exit": "if", "scan-axis-swap": "scan", "flattened-gather": "load_ptr_tko"}

# Ops known to have no side effects (region ops are judged by their bodies as well).
PURE_OPS: frozenset[str] = frozenset({
    "absf", "absi", "addf", "addi", "andi", "assume", "atan2", "bitcast", "broadcast", "cat",
    "ceil", "cmpf", "cmpi", "constant", "cos", "cosh", "divf", "divi", "exp", "exp2", "exti",
    "extract", "floor", "fma", "ftof", "ftoi", "get_index_space_shape", "get_num_tile_blocks",
    "get_tensor_shape", "get_tile_block_id", "if", "int_to_ptr", "iota", "itof", "join_tokens",
    "log", "log2", "loop", "make_partition_view", "make_tensor_view", "make_token", "maxf",
    "maxi", "minf", "mini", "mmaf", "mmai", "mulf", "mulhii", "muli", "negf", "negi", "offset",
    "ori", "permute", "pow", "ptr_to_int", "ptr_to_ptr", "reduce", "remf", "remi", "reshape",
    "rsqrt", "scan", "select", "shli", "shri", "sin", "sinh", "sqrt", "subf", "subi", "tan",
    "tanh", "trunci", "xori", "for", "isnan",
})
# Ops that read memory: free of side effects, but never merged (see merge-duplicates).
MEMORY_READ_PREFIX = "load"
TERMINATORS: frozenset[str] = frozenset({"return", "yield", "continue", "break"})
LOOP_OPS: frozenset[str] = frozenset({"for", "loop"})
TOKEN_OPS: frozenset[str] = frozenset({"make_token", "join_tokens"})
NONNEGATIVE_RESULT_OPS: frozenset[str] = frozenset(
    {"get_tile_block_id", "get_num_tile_blocks", "get_index_space_shape", "iota"})
# Number of leading operands that may be swapped.
COMMUTATIVE: dict[str, int] = {
    "addf": 2, "mulf": 2, "addi": 2, "muli": 2, "maxf": 2, "minf": 2, "maxi": 2, "mini": 2,
    "andi": 2, "ori": 2, "xori": 2, "fma": 2,
}
BOUNDED_NONNEGATIVE = "bounded<0, ?>"


class Interner:
    """Maps structural keys (nested tuples) to small integers, shared by both sides."""

    def __init__(self) -> None:
        self._ids: dict[tuple, int] = {}
        self.keys: list[tuple] = []

    def __call__(self, key: tuple) -> int:
        found = self._ids.get(key)
        if found is None:
            found = len(self.keys)
            self._ids[key] = found
            self.keys.append(key)
        return found


@dataclass(eq=False)
class Value:
    """A definition: an entry argument, an op result or a region block argument."""

    name: str
    type: TileIrType | None
    kind: str
    node: Node | None = None
    index: int = 0
    depth: int = 0
    role: str | None = None
    facts: set[str] = field(default_factory=set)
    # Rule bound-scalar-argument: the constant this entry argument is bound to at launch.
    bound_literal: str | None = None
    # An argument only the generated side has (bound or aliased parameters).
    extra: bool = False

    @property
    def is_token(self) -> bool:
        return self.type is not None and self.type.kind == "token"


@dataclass(eq=False)
class Node:
    op: Operation
    operands: list[Value]
    results: list[Value]
    blocks: list[Block]
    depth: int
    order: int
    parent: Block | None = None
    live: bool = False
    key: int = -1
    template: str = ""


@dataclass(eq=False)
class Block:
    args: list[Value]
    nodes: list[Node]
    owner: Node | None = None

    @property
    def terminator(self) -> Node | None:
        """The block's terminator; a `continue`/`yield` that passes only tokens counts as
        none (rule token-threading: a region without data results ends implicitly)."""
        if self.nodes and self.nodes[-1].op.name in TERMINATORS:
            last = self.nodes[-1]
            if last.op.name in ("continue", "yield") and not data_operands(last):
                return None
            return last
        return None


@dataclass
class CanonicalEntry:
    entry: TileIrEntry
    body: Block
    args: list[Value]
    nodes: list[Node]
    views: list[Node]
    interner: Interner
    applied: dict[str, Counter[str]] = field(default_factory=dict)
    value_keys: dict[int, int] = field(default_factory=dict)
    special: dict[int, str] = field(default_factory=dict)

    def key(self, value: Value) -> int:
        return self.value_keys[id(alias(value))]

    def roots(self, block: Block) -> list[Node]:
        return _ordered_roots(block)


def canonicalize(entry: TileIrEntry, interner: Interner | None = None,
                 bound_args: dict[int, str] | None = None,
                 arg_aliases: dict[int, int] | None = None) -> CanonicalEntry:
    """Resolve, analyse and key one entry (see the module docstring).

    `bound_args` maps entry-argument positions to the constant (`<f32: 1e-05>`) the launch
    binds them to: a scalar kernel parameter that the other side folded as a constant.
    `arg_aliases` maps an argument position to another whose value the launch passes again
    (a tensor stride passed as a separate parameter): uses of the first are uses of the
    second (rule argument-alias).
    """
    entry, rewrites = restructure(entry)
    canonicalizer = _Canonicalizer(entry, interner or Interner())
    for rule, count in rewrites.items():
        if count:
            canonicalizer.note(rule, _REWRITTEN_OP.get(rule, "scan"), count)
    args = canonicalizer.canon.args
    for index, literal in (bound_args or {}).items():
        if 0 <= index < len(args):
            args[index].bound_literal = normal_literal(literal)
            args[index].extra = True
    for alias_index, target in (arg_aliases or {}).items():
        if 0 <= alias_index < len(args) and 0 <= target < len(args):
            canonicalizer.replace_uses(args[alias_index], args[target])
            args[alias_index].extra = True
    return canonicalizer.run()


# ---------------------------------------------------------------------------------------------
# Graph construction


class UndefinedValueError(ValueError):
    """An op uses a value that no enclosing scope defines."""


def _build(entry: TileIrEntry) -> tuple[Block, list[Value], list[Node]]:
    args = [Value(a.name, a.type, "arg", index=i) for i, a in enumerate(entry.args)]
    scope = {a.name: a for a in args}
    nodes: list[Node] = []
    body = _build_block(entry.ops, [], scope, 0, nodes)
    return body, args, nodes


def _build_block(ops: list[Operation], block_args: list[Value], scope: dict[str, Value],
                 depth: int, nodes: list[Node]) -> Block:
    scope = dict(scope)
    for arg in block_args:
        scope[arg.name] = arg
    block = Block(block_args, [])
    for op in ops:
        node = _build_node(op, scope, depth, nodes)
        node.parent = block
        block.nodes.append(node)
        for result in node.results:
            scope[result.name] = result
    return block


def _build_node(op: Operation, scope: dict[str, Value], depth: int, nodes: list[Node]) -> Node:
    operands = []
    for name in op.operands:
        if name not in scope:
            raise UndefinedValueError(f"`{op.text}` uses undefined value {name}")
        operands.append(scope[name])
    node = Node(op, operands, [], [], depth, len(nodes))
    nodes.append(node)
    for i, name in enumerate(op.results):
        type_ = op.result_types[i] if i < len(op.result_types) else None
        node.results.append(Value(name, type_, "result", node=node, index=i, depth=depth))
    for region in op.regions:
        block_args = [Value(a.name, a.type, "blockarg", node=node, index=i, depth=depth + 1)
                      for i, a in enumerate(region.args)]
        block = _build_block(region.ops, block_args, scope, depth + 1, nodes)
        block.owner = node
        node.blocks.append(block)
    return node


def data_operands(node: Node) -> list[Value]:
    """An op's operands without the tokens it threads (rule token-threading) and, for an
    `if`'s yields, without the values it passes through unchanged (rule if-passthrough)."""
    if not node.blocks and node.op.name not in TERMINATORS:
        return [v for v in node.operands if not alias(v).is_token]
    skip: set[int] = set()
    owner = node.parent.owner if node.op.name in ("yield", "continue") and node.parent else None
    if owner is not None and not (node.op.name == "continue" and owner.op.name == "if"):
        # (A `continue` inside an `if` passes its values to the loop, not to the `if`.)
        skip = _passthrough_positions(owner)
    if node.op.name == "for":
        skip = {3 + i for i in _passthrough_positions(node)}
    return [v for i, v in enumerate(node.operands) if not alias(v).is_token and i not in skip]


def data_index(value: Value) -> int:
    """The position of a region op's result or block argument among the non-token ones."""
    node = value.node
    if node is None or not node.blocks:
        return value.index
    if value.kind == "blockarg":
        block = next((b for b in node.blocks if value in b.args), None)
        if block is None:
            return value.index
        return [a for a in block.args if not a.is_token].index(value) if not value.is_token \
            else value.index
    siblings = node.results
    hidden = hidden_results(node)
    if value.index in hidden or value not in siblings:
        return value.index
    return [r for r in siblings if r.index not in hidden].index(value)


def alias(value: Value) -> Value:
    """The value an `assume` chain starts from; an `if` result that every branch yields from
    the same outer value is that value (rule if-passthrough)."""
    while value.kind == "result" and value.node is not None:
        if value.node.op.name == "assume":
            value = value.node.operands[0]
            continue
        if value.node.op.name in ("bitcast", "ftof", "broadcast", "reshape") and \
                value.node.operands and \
                value.node.operands[0].type is not None and value.type is not None and \
                value.node.operands[0].type.text == value.type.text:
            # Rule identity-conversion: Tile IR integers are signless; i32 -> u32 is a no-op;
            # likewise a float conversion to its own type.
            value = value.node.operands[0]
            continue
        taken = constant_branch(value.node)
        if taken is not None and taken.terminator is not None and \
                value.index < len(taken.terminator.operands):
            # Rule constant-folding: an `if` on a constant condition is its taken arm.
            value = taken.terminator.operands[value.index]
            continue
        if value.node.op.name in ("if", "for"):
            outer = passthrough_source(value.node, value.index)
            if outer is not None:
                value = outer
                continue
        break
    if value.kind == "blockarg" and value.node is not None and value.node.op.name == "for" \
            and value.index >= 1:
        # Rule loop-passthrough: an iteration value no iteration changes is its initial value.
        outer = passthrough_source(value.node, value.index - 1)
        if outer is not None:
            return alias(outer)
    return value


def passthrough_source(node: Node, index: int) -> Value | None:
    """The outer value an `if` yields unchanged at result `index` from every branch, or the
    initial value a `for` passes on unchanged at iteration value `index`."""
    if node.op.name == "for":
        return _loop_passthrough(node, index)
    if len(node.blocks) < 2:
        return None
    sources: list[Value] = []
    for block in node.blocks:
        last = block.nodes[-1] if block.nodes else None
        if last is not None and last.op.name in ("continue", "break"):
            continue  # a branch that leaves the enclosing loop gives the `if` no results
        if last is None or last.op.name != "yield" or index >= len(last.operands):
            return None
        sources.append(last.operands[index])
    if not sources:
        return None
    first = sources[0]
    if any(v is not first for v in sources[1:]) or first.is_token:
        return None
    if _defined_inside(first, node):
        return None
    return first


def _defined_inside(value: Value, region_op: Node) -> bool:
    node = value.node
    block = node.parent if node is not None and value.kind == "result" else None
    if value.kind == "blockarg":
        return value.node is region_op
    while block is not None:
        if block.owner is region_op:
            return True
        block = block.owner.parent if block.owner is not None else None
    return False


def _loop_passthrough(node: Node, index: int) -> Value | None:
    """Rule loop-passthrough: the initial value of iteration value `index` of a `for` whose
    only terminator, a final `continue`, passes the iteration argument back unchanged."""
    if len(node.blocks) != 1 or len(node.operands) <= 3 + index:
        return None
    block = node.blocks[0]
    last = block.nodes[-1] if block.nodes else None
    if last is None or last.op.name != "continue" or index >= len(last.operands):
        return None
    if len(block.args) <= index + 1 or last.operands[index] is not block.args[index + 1]:
        return None
    if block.args[index + 1].is_token or _has_nested_jump(block):
        return None
    return node.operands[3 + index]


def _has_nested_jump(block: Block) -> bool:
    """A `continue`/`break` below the loop body's own terminator (in an inner `if`)."""
    for inner in block.nodes:
        if inner.op.name in ("for", "loop"):
            continue  # an inner loop's jumps are its own
        for nested in inner.blocks:
            if any(op.op.name in ("continue", "break") for op in nested.nodes):
                return True
            if _has_nested_jump(nested):
                return True
    return False


def _passthrough_positions(node: Node) -> set[int]:
    if node.op.name == "for":
        return {i for i in range(len(node.results)) if _loop_passthrough(node, i) is not None}
    if node.op.name != "if":
        return set()
    return {i for i in range(len(node.results)) if passthrough_source(node, i) is not None}


# ---------------------------------------------------------------------------------------------
# Effects and roots


def is_memory_read(op: Operation) -> bool:
    return op.name.startswith(MEMORY_READ_PREFIX) and "weak" in op.attributes


def has_side_effects(node: Node) -> bool:
    """True for ops that must stay even when their results are unused."""
    op = node.op
    if op.name in TERMINATORS:
        return False
    if op.name not in PURE_OPS and not is_memory_read(op):
        return True
    return any(_block_escapes(node, block) for block in node.blocks)


def _block_escapes(owner: Node, block: Block) -> bool:
    for inner in block.nodes:
        if inner is block.terminator:
            if inner.op.name == "return":
                return True
            if inner.op.name in ("break", "continue") and owner.op.name not in LOOP_OPS:
                return True
        elif has_side_effects(inner):
            return True
    return False


def _is_barrier(node: Node) -> bool:
    """Effects whose position matters beyond token order: control flow, prints, unknown ops.

    Stores and atomics between two barriers are compared as a set; the order that tokens
    impose between them is checked by compare.py.
    """
    return has_side_effects(node) and not node.op.name.startswith(("store", "atomic"))


def _ordered_roots(block: Block) -> list[Node]:
    """Side-effecting ops in program order, then the terminator."""
    roots = [n for n in block.nodes if has_side_effects(n)]
    term = block.terminator
    return roots + ([term] if term is not None else [])


def constant_branch(node: Node) -> Block | None:
    """The block an `if` on a constant condition runs (cuTile Rust folds such an `if` from
    what it knows of its operands, e.g. a single-trip loop's index; cuTile Python keeps
    it), or None."""
    if node.op.name != "if" or not node.operands or not node.blocks:
        return None
    literal = splat_literal(node.operands[0])
    if literal == "<i1: true>":
        return node.blocks[0]
    if literal == "<i1: false>" and len(node.blocks) > 1:
        return node.blocks[1]
    return None


def _flattened_roots(block: Block) -> list[Node]:
    """`_ordered_roots`, with an `if` on a constant condition replaced by the roots of the
    arm it runs (rule constant-folding)."""
    out: list[Node] = []
    for root in _ordered_roots(block):
        taken = constant_branch(root)
        if taken is None:
            out.append(root)
            continue
        out.extend(r for r in _flattened_roots(taken) if r is not taken.terminator)
    return out


# ---------------------------------------------------------------------------------------------
# The canonicalizer


class _Canonicalizer:
    def __init__(self, entry: TileIrEntry, interner: Interner) -> None:
        self.entry = entry
        self.interner = interner
        body, args, nodes = _build(entry)
        self.canon = CanonicalEntry(entry, body, args, nodes, [], interner,
                                    {r.name: Counter() for r in RULES})
        self.occurrences: Counter[tuple] = Counter()
        self.node_keys: dict[int, int] = {}

    def run(self) -> CanonicalEntry:
        self._liveness()
        self._roles()
        self._facts()
        self._derived_divisibility()
        self._scalar_roles()
        for node in self.canon.nodes:
            if node.live:
                self._node_key(node)
        for node in self.canon.views:
            self._node_key(node)
        self._record_dead_and_duplicates()
        return self.canon

    def replace_uses(self, old: Value, new: Value) -> None:
        for node in self.canon.nodes:
            if any(v is old for v in node.operands):
                node.operands = [new if v is old else v for v in node.operands]
                self.note("argument-alias", old.name)

    def note(self, rule: str, what: str, count: int = 1) -> None:
        self.canon.applied[rule][what] += count

    # -- assume facts ---------------------------------------------------------------------

    def _facts(self) -> None:
        for node in self.canon.nodes:
            if node.op.name != "assume" or not node.operands:
                continue
            root = alias(node.operands[0])
            predicate = " ".join(f"{k}{v}" for k, v in node.op.attributes.items())
            self.note("assume-chain", node.op.name)
            if predicate == BOUNDED_NONNEGATIVE and _nonnegative_by_construction(root):
                self.note("assume-bounded-redundant", _describe_def(root))
                continue
            if _loop_index_bound(root, predicate):
                self.note("loop-index-bounds", _describe_def(root))
                continue
            if _element_aligned(root, predicate):
                self.note("pointer-element-alignment", _describe_def(root))
                continue
            if predicate in root.facts:
                self.note("assume-duplicate", predicate)
            root.facts.add(predicate)

    def _derived_divisibility(self) -> None:
        """Rule derived-divisibility: drop `div_by` facts that the defining ops imply."""
        memo: dict[int, int] = {}
        roots: dict[int, Value] = {}
        for node in self.canon.nodes:
            if node.op.name == "assume" and node.operands:
                root = alias(node.operands[0])
                roots[id(root)] = root
        implied: list[tuple[Value, str]] = []
        for root in roots.values():
            for fact in sorted(root.facts):
                divisor = _div_by(fact)
                if divisor is None or divisor & (divisor - 1):
                    continue
                if _derived_divisor(root, memo) % divisor == 0:
                    implied.append((root, fact))
        for root, fact in implied:
            root.facts.discard(fact)
            self.note("derived-divisibility", _describe_def(root))

    # -- argument roles -------------------------------------------------------------------

    def _roles(self) -> None:
        views = [n for n in self.canon.nodes if n.op.name == "make_tensor_view" and n.live]
        self.canon.views = views
        for k, view in enumerate(views):
            for value, label in zip(view.operands, view.op.operand_labels, strict=False):
                root = alias(value)
                if root.kind != "arg" or root.role is not None:
                    continue
                root.role = f"view{k}.{label or 'base'}"

    def _scalar_roles(self) -> None:
        # Arguments no tensor view names are named by position: both front ends lay out
        # an entry's arguments in parameter order (a tensor as base, shape, strides). Only
        # arguments the generated side adds (bound constants, aliased strides) are skipped.
        position = 0
        for arg in self.canon.args:
            if arg.extra:
                continue
            if arg.role is None:
                arg.role = f"arg{position}"
            position += 1

    # -- liveness -------------------------------------------------------------------------

    def _liveness(self) -> None:
        for root in _ordered_roots(self.canon.body):
            self._mark(root)

    def _mark(self, node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.live:
                continue
            current.live = True
            for value in current.operands:
                value = alias(value)
                if value.is_token:
                    continue
                if value.kind == "result" and value.node is not None:
                    stack.append(value.node)
                elif value.kind == "blockarg" and value.node is not None:
                    stack.append(value.node)
            for block in current.blocks:
                stack.extend(_ordered_roots(block))
            if current.parent is not None and current.parent.owner is not None:
                stack.append(current.parent.owner)

    def _record_dead_and_duplicates(self) -> None:
        seen: set[tuple[int, int]] = set()
        for node in self.canon.nodes:
            name = node.op.name
            if name == "assume":
                continue
            if name in TOKEN_OPS:
                self.note("token-threading", name)
                continue
            if not node.live:
                self.note("dead-code", name)
                continue
            if node.key < 0 or not _mergeable(node):
                continue
            if any((id(b), node.key) in seen for b in _enclosing_blocks(node)):
                self.note("merge-duplicates", name)
            seen.add((id(node.parent), node.key))

    # -- keys -----------------------------------------------------------------------------

    def value_key(self, value: Value) -> int:
        value = alias(value)
        cached = self.canon.value_keys.get(id(value))
        if cached is not None:
            return cached
        key = self.interner(self._value_tuple(value))
        self.canon.value_keys[id(value)] = key
        return key

    def _value_tuple(self, value: Value) -> tuple:
        facts = tuple(sorted(value.facts))
        type_text = value.type.text if value.type is not None else ""
        if value.is_token:
            return ("token",)
        if value.kind == "arg" and value.bound_literal is not None:
            self.note("bound-scalar-argument", value.name)
            return ("splat", value.bound_literal, type_text, facts)
        if value.kind == "arg":
            return ("arg", value.role or f"unused{value.index}", type_text, facts)
        if value.kind == "blockarg":
            return ("barg", value.depth, data_index(value), type_text, facts)
        assert value.node is not None
        splat = splat_literal(value)
        if splat is not None:
            if value.node.op.name == "bitcast":
                self.note("constant-bitcast", value.node.op.name)
            elif value.node.op.name != "constant":
                self.note("constant-splat", value.node.op.name)
            return ("splat", splat, type_text, facts)
        ceildiv = self._ceildiv(value)
        if ceildiv is not None:
            return (*ceildiv, type_text, facts)
        return ("res", self._node_key(value.node), data_index(value), facts)

    def _ceildiv(self, value: Value) -> tuple | None:
        parts = ceildiv_parts(value)
        if parts is None:
            return None
        extent, tile = parts
        assert value.node is not None
        self.note("index-space-ceildiv", value.node.op.name)
        return ("ceildiv", self.value_key(extent), tile)

    def _node_key(self, node: Node) -> int:
        cached = self.node_keys.get(id(node))
        if cached is not None:
            return cached
        operand_keys = [self.value_key(v) for v in data_operands(node)]
        leading = COMMUTATIVE.get(node.op.name, 0)
        if leading:
            ordered = sorted(operand_keys[:leading])
            if ordered != operand_keys[:leading]:
                self.note("commutative-operands", node.op.name)
            operand_keys[:leading] = ordered
        block_keys = tuple(self._block_key(b) for b in node.blocks)
        node.template = self._template(node)
        base = ("op", node.template, tuple(operand_keys), block_keys)
        occurrence = 0
        if not _mergeable(node):
            occurrence = self.occurrences[base]
            self.occurrences[base] += 1
        key = self.interner((*base, occurrence))
        node.key = key
        self.node_keys[id(node)] = key
        return key

    def _block_key(self, block: Block) -> tuple:
        arg_types = tuple(a.type.text if a.type else "" for a in block.args)
        roots = _flattened_roots(block)
        if len(roots) != len(_ordered_roots(block)) or any(
                constant_branch(r) is not None for r in _ordered_roots(block)):
            self.note("constant-folding", "if")
        segments: list[list[int]] = [[]]
        keys: list[int] = []
        for root in roots:
            key = self._node_key(root)
            if root is block.terminator or _is_barrier(root):
                keys.extend(sorted(segments[-1]))
                keys.append(key)
                segments.append([])
            else:
                segments[-1].append(key)
        keys.extend(sorted(segments[-1]))
        return ("block", arg_types, tuple(keys))

    def _template(self, node: Node) -> str:
        op = node.op
        items = op.items
        template = op.template
        owner = node.parent.owner if op.name in ("yield", "continue") and node.parent else None
        passthrough = owner is not None and bool(_passthrough_positions(owner))
        kept = data_operands(node) if op.name in TERMINATORS else node.operands
        if passthrough or len(kept) != len(node.operands):
            # Rules if-passthrough and token-threading: a terminator written with the
            # values it passes on, without tokens and unchanged values.
            types = ", ".join(v.type.text if v.type else "?" for v in kept)
            uses = ", ".join(f"${i}" for i in range(len(kept)))
            if len(kept) != len(node.operands) and not passthrough:
                self.note("token-threading", op.name)
            return f"{op.name} {uses}: {types}" if kept else op.name
        if "token" in op.attributes and not node.blocks:
            items = _strip_token_keyword(items)
            template = make_template(op.name, items,
                                     [a.name for a in op.regions[0].args] if op.regions else [])
        skip = hidden_results(node)
        if skip:
            items, defs = _strip_token_iter_values(op, skip)
            template = make_template(op.name, items, defs)
            self.note("token-threading", op.name)
        if "optimization_hints" in template:
            items, rules = _normal_hint_items(items)
            for rule in rules:
                self.note(rule, op.name)
            template = make_template(op.name, items,
                                     [a.name for a in op.regions[0].args] if op.regions else [])
        if "dim_map" not in template:
            return template
        items = tuple(_drop_identity_dim_map(i, self) for i in items)
        defs = [a.name for a in op.regions[0].args] if op.regions else []
        return make_template(op.name, items, defs)


def _enclosing_blocks(node: Node) -> list[Block]:
    blocks: list[Block] = []
    block = node.parent
    while block is not None:
        blocks.append(block)
        block = block.owner.parent if block.owner is not None else None
    return blocks


def ceildiv_parts(value: Value) -> tuple[Value, int] | None:
    """(extent, tile) when `value` is ceil(extent / tile) by rule index-space-ceildiv."""
    value = alias(value)
    node = value.node
    if value.kind != "result" or node is None:
        return None
    if node.op.name == "get_index_space_shape":
        return _index_space_extent(node, value.index)
    if node.op.name == "divi" and _is_ceil_division(node):
        tile = _int_literal(splat_literal(node.operands[1]))
        extent = alias(node.operands[0])
        if tile is not None and tile > 0 and _is_view_extent(extent):
            return extent, tile
    return None


def _mergeable(node: Node) -> bool:
    return node.op.name in PURE_OPS and not node.blocks and not is_memory_read(node.op)




def _split_commas(children: tuple[Item, ...]) -> list[list[Item]]:
    parts: list[list[Item]] = [[]]
    for child in children:
        if child.kind == "COMMA":
            parts.append([])
        else:
            parts[-1].append(child)
    return [p for p in parts if p]


def _join_commas(parts: list[list[Item]], kind: str) -> Item:
    children: list[Item] = []
    for index, part in enumerate(parts):
        if index:
            children.append(Item("COMMA", ","))
        children.extend(part)
    return Item(kind, render(tuple(children), kind), tuple(children))


def _strip_token_keyword(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """An op header without its `token = %t` input (rule token-threading)."""
    out: list[Item] = []
    index = 0
    while index < len(items):
        window = items[index:index + 3]
        if (len(window) == 3 and window[0].kind == "NAME" and window[0].text == "token"
                and window[1].kind == "EQUAL" and window[2].kind == "VALUE"):
            index += 3
            continue
        out.append(items[index])
        index += 1
    return tuple(out)


def hidden_results(node: Node) -> set[int]:
    """Result positions of a region op that are not compared: tokens (rule token-threading)
    and pass-through values of an `if` (rule if-passthrough)."""
    if not node.blocks:
        return set()
    tokens = {i for i, t in enumerate(node.op.result_types) if t.kind == "token"}
    return tokens | _passthrough_positions(node)


def _strip_token_iter_values(op: Operation, tokens: set[int]
                             ) -> tuple[tuple[Item, ...], list[str]]:
    """A region op's header without the results at `tokens` (their iter_values and types)."""
    defs = [a.name for a in op.regions[0].args] if op.regions else []
    items = list(op.items)
    out: list[Item] = []
    dropped: set[str] = set()
    index = 0
    while index < len(items):
        item = items[index]
        group = items[index + 1] if index + 1 < len(items) else None
        if item.kind == "NAME" and item.text == "iter_values" and group is not None \
                and group.kind == "paren_group":
            pairs = _split_commas(group.children)
            dropped.update(p[0].text for k, p in enumerate(pairs) if k in tokens)
            kept = [p for k, p in enumerate(pairs) if k not in tokens]
            if kept:
                out += [item, _join_commas(kept, group.kind)]
            index += 2
            continue
        if item.kind == "ARROW" and group is not None and group.kind == "paren_group":
            kept = [p for k, p in enumerate(_split_commas(group.children)) if k not in tokens]
            if kept:
                out += [item, _join_commas(kept, group.kind)]
            index += 2
            continue
        out.append(item)
        index += 1
    return tuple(out), [d for d in defs if d not in dropped]


def _normal_hint_items(items: tuple[Item, ...]) -> tuple[tuple[Item, ...], list[str]]:
    """`items` with each `optimization_hints = <...>` in the normal form of hints.py (left
    out when it asks for nothing), and the rules that normalization applied."""
    out: list[Item] = []
    rules: list[str] = []
    index = 0
    while index < len(items):
        item = items[index]
        window = items[index:index + 3]
        if (len(window) == 3 and item.kind == "NAME" and item.text == "optimization_hints"
                and window[2].kind == "angle_group"):
            hints = normal_hints(window[2].text)
            rules.extend(r for r in hints.rules if r not in rules)
            if not hints.empty:
                # A leaf with the normal text: the template only renders it.
                out.extend((item, window[1], Item("NAME", hints.text())))
            index += 3
            continue
        out.append(item)
        index += 1
    return tuple(out), rules


def _loop_index_bound(value: Value, predicate: str) -> bool:
    node = value.node
    if node is None or value.kind != "blockarg" or node.op.name != "for" or value.index != 0:
        return False
    if not (predicate.startswith("bounded<") and predicate.endswith(">")):
        return False
    parts = [p.strip() for p in predicate[len("bounded<"):-1].split(",")]
    if len(parts) != 2 or len(node.operands) < 3:
        return False
    lower, upper, step = (_int_literal(splat_literal(node.operands[i])) for i in range(3))
    step_root = alias(node.operands[2])
    positive_step = (step is not None and step > 0) or (
        step_root.kind == "result" and step_root.node is not None
        and step_root.node.op.name == "get_num_tile_blocks")
    if not positive_step:
        return False
    low_ok = parts[0] == "?" or (lower is not None and parts[0].lstrip("-").isdigit()
                                 and int(parts[0]) <= lower)
    high_ok = parts[1] == "?" or (upper is not None and parts[1].lstrip("-").isdigit()
                                  and int(parts[1]) >= upper - 1)
    return low_ok and high_ok


_ELEMENT_BYTES = {e.tileir: e.bytes for e in ELEMENTS}


def _element_aligned(value: Value, predicate: str) -> bool:
    """Rule pointer-element-alignment: `div_by<size of the element>` on pointers that
    `offset` computes from a typed pointer."""
    node = value.node
    if value.kind != "result" or node is None or node.op.name != "offset":
        return False
    element = value.type.element if value.type else None
    if not element or not element.startswith("ptr<"):
        return False
    size = _ELEMENT_BYTES.get(element[len("ptr<"):-1])
    return size is not None and predicate == f"div_by<{size}>"


def _div_by(fact: str) -> int | None:
    """n for the fact `div_by<n>` (no `every`/`along` qualifiers), else None."""
    if not (fact.startswith("div_by<") and fact.endswith(">")):
        return None
    text = fact[len("div_by<"):-1]
    return int(text) if text.isdigit() and int(text) > 0 else None


def _known_divisor(value: Value, memo: dict[int, int]) -> int:
    """A number that divides `value` by its own `div_by` facts or its definition; 0 stands
    for a value divisible by every number (the constant 0)."""
    value = alias(value)
    key = id(value)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a cycle through loop-carried values proves nothing
    stated = [d for d in (_div_by(f) for f in value.facts) if d is not None]
    known = math.lcm(*stated, _derived_divisor(value, memo)) if stated else \
        _derived_divisor(value, memo)
    memo[key] = known
    return known


_DIVISOR_KEEPING_OPS = frozenset({"negi", "absi", "broadcast", "reshape", "permute"})


def _derived_divisor(value: Value, memo: dict[int, int]) -> int:
    """What `value`'s defining op implies about its divisibility from its operands
    (rule derived-divisibility); 1 when nothing."""
    node = value.node
    if value.kind != "result" or node is None or value.type is None:
        return 1
    literal = _int_literal(splat_literal(value))
    if literal is not None:
        return abs(literal)
    name, ops = node.op.name, [v for v in node.operands if not alias(v).is_token]
    if name in ("addi", "subi") and len(ops) == 2:
        return math.gcd(_known_divisor(ops[0], memo), _known_divisor(ops[1], memo))
    if name == "muli" and len(ops) == 2:
        return _known_divisor(ops[0], memo) * _known_divisor(ops[1], memo)
    if name in _DIVISOR_KEEPING_OPS and ops:
        return _known_divisor(ops[0], memo)
    if name in ("exti", "trunci") and ops:
        bits = _int_bits(value.type.element)
        return math.gcd(_known_divisor(ops[0], memo), 1 << bits) if bits else 1
    if name == "offset" and len(ops) == 2:
        element = value.type.element or ""
        size = _ELEMENT_BYTES.get(element[len("ptr<"):-1]) if element.startswith(
            "ptr<") else None
        if size is None:
            return 1
        return math.gcd(_known_divisor(ops[0], memo), _known_divisor(ops[1], memo) * size)
    return 1


def _int_bits(element: str | None) -> int | None:
    """The width of an integer element type (`i32` -> 32)."""
    if element and element.startswith("i") and element[1:].isdigit():
        return int(element[1:])
    return None


def _nonnegative_by_construction(value: Value) -> bool:
    node = value.node
    if node is None:
        return False
    if value.kind == "result":
        if node.op.name == "divi" and _is_ceil_division(node):
            tile = _int_literal(splat_literal(node.operands[1]))
            return tile is not None and tile > 0 and _is_view_extent(alias(node.operands[0]))
        return node.op.name in NONNEGATIVE_RESULT_OPS
    if value.kind == "blockarg" and node.op.name == "for" and value.index == 0:
        if len(node.operands) < 3:
            return False
        lower = _int_literal(splat_literal(node.operands[0]))
        step = _int_literal(splat_literal(node.operands[2]))
        return lower is not None and lower >= 0 and step is not None and step > 0
    return False


def splat_literal(value: Value) -> str | None:
    """`<f32: 1.0>` when the value is a scalar constant, maybe reshaped / broadcast /
    converted; float literals are normalized to one spelling of their value."""
    value = alias(value)
    node = value.node
    if value.kind == "arg" and value.bound_literal is not None:
        return value.bound_literal
    if value.kind == "blockarg" and node is not None:
        return _single_trip_index(value)
    if value.kind != "result" or node is None:
        return None
    if node.op.name == "constant":
        literal = node.op.attributes.get("value", "")
        return normal_literal(literal) if literal and "[" not in literal else None
    if node.op.name in ("broadcast", "reshape") and node.operands:
        return splat_literal(node.operands[0])
    if node.op.name in ("itof", "exti") and node.operands and node.results[0].type:
        # Rule constant-folding: an integer constant converted is the converted constant.
        value = _int_literal(splat_literal(node.operands[0]))
        target = node.results[0].type.element
        if value is not None and target:
            if node.op.name == "itof" and target in _FLOAT_TYPES:
                return f"<{target}: {_round_to(target, float(value))!r}>"
            if node.op.name == "exti":
                return f"<{target}: {value}>"
    if node.op.name in _INT_FOLDS and len(node.operands) == 2 and node.results[0].type:
        # Rule constant-folding: integer arithmetic on two constants is a constant.
        lhs, rhs = (_int_literal(splat_literal(v)) for v in node.operands)
        element = node.results[0].type.element
        bits = _INT_BITS.get(element or "")
        if lhs is not None and rhs is not None and bits is not None:
            folded = _INT_FOLDS[node.op.name](lhs, rhs) % (1 << bits)
            return f"<{element}: {folded - (1 << bits) if folded >> (bits - 1) else folded}>"
    if node.op.name == "divi" and len(node.operands) == 2 and node.results[0].type:
        # Rule constant-folding: a signed division of two constants, rounded as written.
        lhs, rhs = (_int_literal(splat_literal(v)) for v in node.operands)
        element = node.results[0].type.element
        rounding = node.op.attributes.get("rounding", "<zero>")
        if lhs is not None and rhs and "signed" in node.op.attributes and rounding in _DIVI:
            folded = _DIVI[rounding](lhs, rhs)
            return f"<{element}: {folded}>"
    if node.op.name in ("cmpi", "cmpf") and len(node.operands) == 2:
        # Rule constant-folding: a comparison of two constants is a constant.
        folded = _fold_compare(node)
        if folded is not None:
            return folded
    if node.op.name == "bitcast" and node.operands and node.results[0].type:
        # Rule constant-bitcast: integer bits reinterpreted as a float of the same width.
        return _bits_literal(_int_literal(splat_literal(node.operands[0])),
                             node.results[0].type.element)
    if node.op.name == "ftof" and node.operands and not node.op.attributes.get("rounding"):
        # Rule constant-conversion: a float constant converted (round to nearest even) is
        # the constant of the target type with the rounded value.
        inner = splat_literal(node.operands[0])
        target = node.results[0].type.element if node.results[0].type else None
        if inner is not None and target is not None:
            return convert_literal(inner, target)
    if node.op.name == "ftoi" and node.operands and node.results[0].type:
        # Rule constant-conversion: a float constant holding an integer, converted to an
        # integer type that holds it, is that integer constant.
        return _integral_literal(splat_literal(node.operands[0]),
                                 node.results[0].type.element)
    return None


def _integral_literal(literal: str | None, target: str) -> str | None:
    parts = _literal_parts(literal) if literal is not None else None
    bits = _INT_BITS.get(target)
    if parts is None or parts[0] not in _FLOAT_TYPES or bits is None:
        return None
    value = _literal_value(*parts)
    if value is None or not float(value).is_integer():
        return None
    number = int(value)
    if not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
        return None
    return f"<{target}: {number}>"


_FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
_INT_BITS = {e.tileir: e.bits for e in ELEMENTS if e.is_int and e.signed}
_DIVI: dict[str, Callable[[int, int], int]] = {
    "<negative_inf>": lambda a, b: a // b, "<positive_inf>": lambda a, b: -(-a // b),
    "<zero>": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)}
_INT_FOLDS: dict[str, Callable[[int, int], int]] = {
    "addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b}


_FLOAT_WIDTHS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def _bits_literal(bits: int | None, target: str | None) -> str | None:
    """The float literal of `target` whose bits are `bits` (a signless integer constant)."""
    width = _FLOAT_WIDTHS.get(target or "")
    if bits is None or width is None or not -(1 << (width - 1)) <= bits < 1 << width:
        return None
    value = _literal_value(target or "", f"0x{bits % (1 << width):x}")
    return None if value is None else _exact_literal(target or "", value)


def _single_trip_index(value: Value) -> str | None:
    """Rule single-trip-loop: the induction variable of a `for` whose constant bounds allow
    exactly one iteration is its lower bound."""
    node = value.node
    if node is None or node.op.name != "for" or value.index != 0 or len(node.operands) < 3:
        return None
    lower, upper, step = (_int_literal(splat_literal(node.operands[i])) for i in range(3))
    if lower is None or upper is None or step is None or step <= 0:
        return None
    if not lower < upper <= lower + step or value.type is None:
        return None
    return f"<{value.type.element}: {lower}>"
_PREDICATES = {"equal": "==", "not_equal": "!=", "less_than": "<", "less_than_or_equal": "<=",
               "greater_than": ">", "greater_than_or_equal": ">="}


def _fold_compare(node: Node) -> str | None:
    """`cmpi` of two integer constants, `cmpf` of two float constants: the boolean constant
    (a float compare with a NaN operand holds exactly when it is unordered)."""
    read = _int_literal if node.op.name == "cmpi" else _float_literal
    lhs, rhs = (read(splat_literal(v)) for v in node.operands)
    predicate = next((p for p in _PREDICATES if p in node.op.attributes), None)
    if lhs is None or rhs is None or predicate is None:
        return None
    if "unsigned" in node.op.attributes:
        lhs, rhs = lhs % (1 << 64), rhs % (1 << 64)
    if math.isnan(lhs) or math.isnan(rhs):
        result = "unordered" in node.op.attributes
    else:
        result = {"==": lhs == rhs, "!=": lhs != rhs, "<": lhs < rhs, "<=": lhs <= rhs,
                  ">": lhs > rhs, ">=": lhs >= rhs}[_PREDICATES[predicate]]
    return f"<i1: {'true' if result else 'false'}>"


def _float_literal(literal: str | None) -> float | None:
    parts = _literal_parts(literal) if literal is not None else None
    if parts is None or parts[0] not in _FLOAT_TYPES:
        return None
    return _literal_value(*parts)


def _literal_parts(literal: str) -> tuple[str, str] | None:
    if ":" not in literal:
        return None
    kind, text = literal.strip("<>").split(":", 1)
    return kind.strip(), text.strip()


def _literal_value(kind: str, text: str) -> float | None:
    if text.lower().startswith("0x"):
        bits = int(text, 16)
        formats = {"f32": (">I", ">f"), "f64": (">Q", ">d"), "f16": (">H", ">e")}
        if kind in formats:
            packed, unpacked = formats[kind]
            return struct.unpack(unpacked, struct.pack(packed, bits))[0]
        if kind == "bf16":
            return struct.unpack(">f", struct.pack(">I", bits << 16))[0]
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _round_to(kind: str, value: float) -> float:
    try:
        return _round_finite(kind, value)
    except OverflowError:
        # Beyond the largest finite value of the type: round-to-nearest gives infinity.
        return math.copysign(math.inf, value)


def _round_finite(kind: str, value: float) -> float:
    if kind == "f16":
        return struct.unpack("<e", struct.pack("<e", value))[0]
    if kind in ("f32", "bf16"):
        f32 = struct.unpack("<f", struct.pack("<f", value))[0]
        if kind == "f32":
            return f32
        bits = struct.unpack("<I", struct.pack("<f", f32))[0]
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return struct.unpack("<f", struct.pack("<I", rounded))[0]
    return value


#: 8-bit float types: (mantissa bits, smallest normal exponent, largest finite value).
_FLOAT8_FORMATS = {"f8E4M3FN": (3, -6, 448.0), "f8E5M2": (2, -14, 57344.0)}


def _float8_exact(kind: str, value: float) -> bool:
    """Whether `value` is a value of the 8-bit float type `kind` (no rounding needed)."""
    mantissa_bits, min_exponent, largest = _FLOAT8_FORMATS[kind]
    if value == 0:
        return True
    if not math.isfinite(value) or abs(value) > largest:
        return False
    exponent = max(math.frexp(abs(value))[1] - 1, min_exponent)
    return (abs(value) / 2.0 ** (exponent - mantissa_bits)).is_integer()


def _exact_literal(kind: str, value: float) -> str | None:
    """The literal of `value` in float type `kind`, rounded to nearest even; for an 8-bit
    float only a value the type holds exactly (no rounding is modelled for those)."""
    if kind in _FLOAT8_FORMATS:
        return f"<{kind}: {float(value)!r}>" if _float8_exact(kind, value) else None
    if kind in _FLOAT_TYPES:
        return f"<{kind}: {_round_to(kind, value)!r}>"
    return None


def normal_literal(literal: str) -> str:
    """One spelling per float constant value (`<f32: 1.000000e+00>` and `<f32: 1.0>` agree)."""
    parts = _literal_parts(literal)
    value = _literal_value(*parts) if parts is not None else None
    if parts is None or value is None:
        return literal
    return _exact_literal(parts[0], value) or literal


def convert_literal(literal: str, target: str) -> str | None:
    parts = _literal_parts(literal)
    if parts is None or parts[0] not in _FLOAT_TYPES:
        return None
    value = _literal_value(*parts)
    if value is None:
        return None
    return _exact_literal(target, value)


def _int_literal(literal: str | None) -> int | None:
    """The integer in a constant literal such as `<i32: 64>`."""
    if literal is None or ":" not in literal:
        return None
    text = literal.strip("<>").split(":", 1)[1].strip()
    try:
        return int(text)
    except ValueError:
        return None


def _is_ceil_division(node: Node) -> bool:
    attrs = node.op.attributes
    return "signed" in attrs and attrs.get("rounding") == "<positive_inf>" and len(
        node.operands) == 2


def _is_view_extent(value: Value) -> bool:
    return value.kind == "arg" and value.role is not None and ".shape[" in value.role


def _index_space_extent(node: Node, index: int) -> tuple[Value, int] | None:
    """(tensor-view extent, tile size) behind result `index` of get_index_space_shape."""
    if not node.operands:
        return None
    pview = alias(node.operands[0])
    pnode = pview.node
    if pnode is None or pnode.op.name != "make_partition_view" or not pnode.op.result_types:
        return None
    ptype = pnode.op.result_types[0]
    dim_map = ptype.field("dim_map")
    if dim_map is not None and not is_identity_list(dim_map):
        return None
    tile = _tile_dims(ptype.field("tile"))
    tview = alias(pnode.operands[0]) if pnode.operands else None
    if tview is None or tview.node is None or tview.node.op.name != "make_tensor_view":
        return None
    if tile is None or index >= len(tile):
        return None
    label = f"shape[{index}]"
    for value, value_label in zip(tview.node.operands, tview.node.op.operand_labels,
                                  strict=False):
        if value_label == label:
            return alias(value), tile[index]
    return None


def _tile_dims(text: str | None) -> list[int] | None:
    if text is None:
        return None
    inner = text.strip("()").strip()
    try:
        return [int(d) for d in inner.split("x")]
    except ValueError:
        return None


def is_identity_list(text: str) -> bool:
    """True for `[0, 1, ..., n-1]` (or `[]`), the default dim_map."""
    inner = text.strip("[]").replace(" ", "")
    if not inner:
        return True
    try:
        return [int(x) for x in inner.split(",")] == list(range(inner.count(",") + 1))
    except ValueError:
        return False


def _drop_identity_dim_map(item: Item, canon: _Canonicalizer) -> Item:
    if not item.is_group:
        return item
    children = list(item.children)
    for i in range(len(children) - 2):
        first, eq, value = children[i], children[i + 1], children[i + 2]
        if (first.kind == "NAME" and first.text == "dim_map" and eq.kind == "EQUAL"
                and value.kind == "bracket_group" and is_identity_list(value.text)):
            start = i - 1 if i > 0 and children[i - 1].kind == "COMMA" else i
            del children[start:i + 3]
            canon.note("identity-dim-map", "partition_view")
            break
    rebuilt = tuple(_drop_identity_dim_map(c, canon) for c in children)
    return Item(item.kind, render(rebuilt, item.kind), rebuilt)


def _describe_def(value: Value) -> str:
    if value.kind == "arg":
        return value.role or f"argument {value.index}"
    if value.node is not None and value.kind == "result":
        return value.node.op.name
    if value.node is not None:
        return f"{value.node.op.name} block argument {value.index}"
    return value.name


# ---------------------------------------------------------------------------------------------
# Printing


def describe(value: Value) -> str:
    """A short human name for a value: its role, or the op that defines it."""
    value = alias(value)
    if value.kind == "arg":
        return value.role or f"argument {value.index}"
    if value.kind == "blockarg" and value.node is not None:
        return f"block argument {value.index} of `{value.node.op.name}`"
    if value.node is not None:
        suffix = f"#{value.index}" if len(value.node.results) > 1 else ""
        return f"`{value.node.op.name}`{suffix} result ({value.node.op.text})"
    return value.name


def canonical_text(canon: CanonicalEntry) -> str:
    """The live, deduplicated ops with values renamed `%v0, %v1, ...` in definition order."""
    printer = _Printer()
    for arg in canon.args:
        printer.names[id(arg)] = f"%{arg.role or f'unused{arg.index}'}"
    printer.block(canon.body, 0)
    return "\n".join(printer.lines)


class _Printer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.printed: dict[int, list[str]] = {}
        self.lines: list[str] = []
        self.count = 0

    def block(self, block: Block, indent: int) -> None:
        outer = dict(self.printed)
        self._block(block, indent)
        self.printed = outer

    def _block(self, block: Block, indent: int) -> None:
        pad = "  " * indent
        for i, arg in enumerate(block.args):
            self.names[id(arg)] = f"%b{indent}_{i}"
        for node in block.nodes:
            if not node.live or node.op.name in TOKEN_OPS or node.op.name == "assume":
                continue
            if node.key in self.printed and _mergeable(node):
                for value, name in zip(node.results, self.printed[node.key], strict=False):
                    self.names[id(value)] = name
                continue
            result_names = []
            for value in node.results:
                name = f"%v{self.count}"
                self.count += 1
                self.names[id(value)] = name
                result_names.append(name)
            self.printed[node.key] = result_names
            lhs = f"{', '.join(result_names)} = " if result_names else ""
            self.lines.append(f"{pad}{lhs}{_substitute(node, self.names)}")
            for inner in node.blocks:
                self.lines.append(f"{pad}{{")
                self.block(inner, indent + 1)
                self.lines.append(f"{pad}}}")


def _substitute(node: Node, names: dict[int, str]) -> str:
    text = node.op.template
    operand_names = []
    for value in node.operands:
        value = alias(value)
        operand_names.append("%token" if value.is_token else names.get(id(value), value.name))
    for i in reversed(range(len(operand_names))):
        text = text.replace(f"${i}", operand_names[i])
    return text
