"""Parse the Tile IR text that `tileirdisasm` prints into plain dataclasses.

Takes the MLIR text of one bytecode file (entries, ops with regions, optional debug-location
aliases from `tileirdisasm -g`); gives a `TileIrModule` of `TileIrEntry`s, each a list of
`Operation`s with name, result names, operand names, attributes, types, regions and the
resolved source location (`file:line:col`) when the text carries `loc(...)` annotations.

The grammar (`grammar/tileir.lark`, LALR) is generic: an op is `results = name item*
region*`. This module interprets the item sequence: values that a header defines (block
arguments such as `%acc: tile<f32>`, `%i in`, `%iter = %init`) versus values it uses, the
`key = value` / `name<...>` / bare-keyword attributes, and the types after the first
top-level `:` or `->`.
"""

from __future__ import annotations

import functools
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError

# transpiler/data/grammar: the repository's grammar/ in a clone, its copy in a wheel.
GRAMMAR_PATH = Path(__file__).resolve().parents[1] / "data" / "grammar" / "tileir.lark"

_OPEN_CLOSE = {"paren_group": "()", "bracket_group": "[]", "angle_group": "<>", "brace_group": "{}"}


class TileIrParseError(ValueError):
    """The text is not Tile IR as `tileirdisasm` prints it."""


@dataclass(frozen=True)
class Item:
    """One element of an op header: a token (`kind` is the terminal) or a bracketed group."""

    kind: str
    text: str
    children: tuple[Item, ...] = ()

    @property
    def is_group(self) -> bool:
        return self.kind in _OPEN_CLOSE


@dataclass(frozen=True)
class TileIrType:
    """A type such as `tile<4x64xf32>`, `partition_view<tile=(4x64), ...>` or `token`.

    `shape` holds the dimensions of tile / tensor_view types (None for `?`), `element` the
    element type (`f32`, `ptr<f32>`), and `fields` the `key = value` parts of view types
    (`tile`, `padding_value`, `strides`, `dim_map`, `tensor_view`).
    """

    text: str
    kind: str
    shape: tuple[int | None, ...] | None = None
    element: str | None = None
    fields: tuple[tuple[str, str], ...] = ()

    def field(self, name: str) -> str | None:
        for key, value in self.fields:
            if key == name:
                return value
        return None


@dataclass
class BlockArg:
    """A value defined by a region header or the entry signature."""

    name: str
    type: TileIrType | None


@dataclass
class Region:
    args: list[BlockArg]
    ops: list[Operation]


@dataclass
class Operation:
    """One op. `operands` are the names used in the header, in printed order.

    `operand_labels[i]` says where operand i sits: `""`, `index` (inside `%view[...]`), the
    attribute that introduced it (`token`, `shape[0]`, `strides[1]`) or the keyword before it
    in a group (`to`, `step`). `template` is the header with results dropped, operands
    written `$i` and defined block arguments `^i`: two ops with equal templates and equal
    operands are the same computation.
    """

    name: str
    results: list[str]
    operands: list[str]
    operand_labels: list[str]
    attributes: dict[str, str]
    result_types: list[TileIrType]
    signature_types: list[TileIrType]
    regions: list[Region] = field(default_factory=list)
    location: str | None = None
    text: str = ""
    template: str = ""
    items: tuple[Item, ...] = ()


@dataclass
class TileIrEntry:
    name: str
    args: list[BlockArg]
    attributes: dict[str, str]
    ops: list[Operation]
    location: str | None = None


@dataclass
class TileIrModule:
    name: str | None
    entries: list[TileIrEntry]
    locations: dict[str, str] = field(default_factory=dict)

    def entry(self) -> TileIrEntry:
        """The only entry; raises if there is not exactly one."""
        if len(self.entries) != 1:
            raise ValueError(f"expected one entry, found {len(self.entries)}")
        return self.entries[0]


@functools.cache
def _parser() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(), parser="lalr", propagate_positions=True)


def parse_tileir(text: str) -> TileIrModule:
    """Parse `tileirdisasm` output (with or without `-g`) into a `TileIrModule`. Each call
    gives a module of its own (callers rewrite what they get); a text parsed before is
    copied from the first parse, which costs a fiftieth of parsing it again (one proof
    reads each text for the structural check and again for the interpreter)."""
    return pickle.loads(_parsed(text))


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> bytes:
    try:
        tree = _parser().parse(text)
    except LarkError as exc:
        raise TileIrParseError(f"not Tile IR text: {exc}") from exc
    return pickle.dumps(_Builder(text).module(tree), protocol=pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------------------------------------
# Items and rendering


def _to_item(node: Tree | Token) -> Item:
    if isinstance(node, Token):
        return Item(node.type, str(node))
    if node.data == "number":
        return _to_item(node.children[0])
    if node.data in ("loc", "loc_group", "loc_list"):
        return Item("loc", "loc(...)")
    if node.data == "type_ref":
        name = _to_item(node.children[0])
        rest = tuple(_to_item(c) for c in node.children[1:])
        return Item("type_ref", render([name, *rest]), (name, *rest))
    children = tuple(_to_item(c) for c in node.children)
    return Item(str(node.data), render(children, str(node.data)), children)


_NO_SPACE_BEFORE = {"COMMA", "COLON"}


def render(items: list[Item] | tuple[Item, ...], group: str | None = None) -> str:
    """Deterministic text for an item sequence (optionally wrapped in its brackets)."""
    parts: list[str] = []
    prev: Item | None = None
    for item in items:
        text = item.text
        glued = prev is not None and (
            item.kind in _NO_SPACE_BEFORE
            or (item.kind in ("angle_group", "paren_group") and prev.kind == "NAME")
            or (item.kind == "bracket_group" and prev.kind == "VALUE")
        )
        if parts and not glued:
            parts.append(" ")
        parts.append(text)
        prev = item
    body = "".join(parts)
    if group is None:
        return body
    open_, close = _OPEN_CLOSE[group]
    return f"{open_}{body}{close}"


def _split_commas(items: tuple[Item, ...] | list[Item]) -> list[list[Item]]:
    parts: list[list[Item]] = [[]]
    for item in items:
        if item.kind == "COMMA":
            parts.append([])
        else:
            parts[-1].append(item)
    return [p for p in parts if p]


# ---------------------------------------------------------------------------------------------
# Types


def parse_type(items: list[Item]) -> TileIrType:
    """A type from its items: a NAME optionally followed by an angle group."""
    text = render(items)
    if not items or items[0].kind not in ("NAME", "SHAPE"):
        return TileIrType(text=text, kind="other")
    kind = items[0].text
    angle = items[1] if len(items) > 1 and items[1].kind == "angle_group" else None
    if angle is None:
        return TileIrType(text=text, kind=kind)
    parts = _split_commas(angle.children)
    if kind in ("tile", "tensor_view"):
        shape, element = _shape_and_element(parts[0] if parts else [])
        fields = tuple(_field(p) for p in parts[1:])
        return TileIrType(text, kind, shape, element, fields)
    if kind == "partition_view":
        return TileIrType(text, kind, fields=tuple(_field(p) for p in parts))
    return TileIrType(text, kind, element=render(angle.children))


def _shape_and_element(part: list[Item]) -> tuple[tuple[int | None, ...], str]:
    if part and part[0].kind == "SHAPE":
        # `64x64xf32`, or `1xptr` followed by `<f32>` for a tile of pointers.
        *dims, head = part[0].text.split("x")
        element = (head + render(part[1:])).replace(" ", "")
        return tuple(None if d == "?" else int(d) for d in dims), element
    return (), render(part).replace(" ", "")


def _field(part: list[Item]) -> tuple[str, str]:
    if len(part) >= 3 and part[0].kind == "NAME" and part[1].kind == "EQUAL":
        return part[0].text, render(part[2:])
    if part and part[0].kind == "NAME":
        return part[0].text, render(part)
    return "", render(part)


def _group_types(items: list[Item]) -> list[TileIrType]:
    """Types in a comma-separated list, looking inside parentheses `(t1, t2)`."""
    types: list[TileIrType] = []
    for part in _split_commas(items):
        if len(part) == 1 and part[0].kind == "paren_group":
            if part[0].children and part[0].children[0].kind == "VALUE":
                continue  # block-argument declarations, not types
            types.extend(_group_types(list(part[0].children)))
        elif part and part[0].kind in ("NAME", "SHAPE"):
            end = 2 if len(part) > 1 and part[1].kind == "angle_group" else 1
            types.append(parse_type(part[:end]))
    return types


# ---------------------------------------------------------------------------------------------
# Op headers


@dataclass
class _Header:
    """What an op header says, before the region bodies are attached."""

    uses: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    defs: list[tuple[str, TileIrType | None, str]] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    template_parts: list[str] = field(default_factory=list)


def _signature_start(items: list[Item]) -> int:
    for i, item in enumerate(items):
        if item.kind in ("COLON", "ARROW"):
            return i
    return len(items)


def _interpret_header(items: list[Item], result_types: list[TileIrType]) -> _Header:
    header = _Header()
    _collect_values(items, header, label="", in_group=False)
    header.attributes = _attributes(items[: _signature_start(items)])
    sig = items[_signature_start(items) :]
    for i, item in enumerate(sig):
        if item.kind == "NAME" and i + 1 < len(sig) and sig[i + 1].kind == "paren_group":
            header.attributes[item.text] = _attr_text([sig[i + 1]])
    _type_block_args(header, sig, result_types)
    return header


def _collect_values(items: list[Item] | tuple[Item, ...], header: _Header, label: str,
                    in_group: bool) -> None:
    """Record uses and block-argument definitions, depth first, in printed order."""
    for i, item in enumerate(items):
        nxt = items[i + 1] if i + 1 < len(items) else None
        prev = items[i - 1] if i > 0 else None
        if item.kind == "VALUE":
            if in_group and nxt is not None and nxt.kind == "COLON":
                header.defs.append((item.text, _decl_type(items, i), "decl"))
            elif nxt is not None and nxt.kind == "NAME" and nxt.text == "in":
                header.defs.append((item.text, None, "induction"))
            elif in_group and nxt is not None and nxt.kind == "EQUAL":
                header.defs.append((item.text, None, "iter"))
            else:
                header.uses.append(item.text)
                header.labels.append(_value_label(items, i, label, in_group, prev))
        elif item.is_group:
            _collect_values(item.children, header, _group_label(items, i, label), True)


def _decl_type(items: list[Item] | tuple[Item, ...], i: int) -> TileIrType | None:
    rest: list[Item] = []
    for item in items[i + 2 :]:
        if item.kind in ("COMMA", "loc"):
            break
        rest.append(item)
    return parse_type(rest) if rest else None


def _group_label(items: list[Item] | tuple[Item, ...], i: int, label: str) -> str:
    if i >= 2 and items[i - 1].kind == "EQUAL" and items[i - 2].kind == "NAME":
        return items[i - 2].text
    if i >= 1 and items[i - 1].kind == "VALUE" and items[i].kind == "bracket_group":
        return "index"
    return label


def _value_label(items: list[Item] | tuple[Item, ...], i: int, label: str, in_group: bool,
                 prev: Item | None) -> str:
    if prev is not None and prev.kind == "EQUAL" and i >= 2 and items[i - 2].kind == "NAME":
        return items[i - 2].text
    if label and label != "index" and items[i].kind == "VALUE" and in_group:
        position = sum(1 for x in items[:i] if x.kind == "COMMA")
        return f"{label}[{position}]"
    if in_group and prev is not None and prev.kind == "NAME":
        return prev.text
    return label


def _attributes(items: list[Item]) -> dict[str, str]:
    """`key = value`, `name<...>`, bare keywords and a leading `<...>` literal."""
    attrs: dict[str, str] = {}
    i = 0
    while i < len(items):
        item = items[i]
        nxt = items[i + 1] if i + 1 < len(items) else None
        if item.kind == "NAME" and nxt is not None and nxt.kind == "EQUAL" and i + 2 < len(items):
            attrs[item.text] = _attr_text([items[i + 2]])
            i += 3
            continue
        if item.kind == "NAME" and nxt is not None and nxt.kind in ("angle_group", "paren_group"):
            attrs[item.text] = _attr_text([nxt])
            i += 2
            continue
        if item.kind == "NAME":
            attrs.setdefault(item.text, "")
        elif item.kind == "angle_group" and "value" not in attrs:
            attrs["value"] = _attr_text([item])
        i += 1
    return attrs


def _attr_text(items: list[Item] | tuple[Item, ...]) -> str:
    """Render with every SSA value written `%` (operands are compared separately)."""
    return render([_anonymize(item) for item in items])


def _anonymize(item: Item) -> Item:
    if item.kind == "VALUE":
        return Item("VALUE", "%")
    if item.is_group:
        children = tuple(_anonymize(c) for c in item.children)
        return Item(item.kind, render(children, item.kind), children)
    return item


def _type_block_args(header: _Header, sig: list[Item], result_types: list[TileIrType]) -> None:
    """Give `%i in` the first signature type and `%iter = %init` the matching result type."""
    sig_types = _group_types([x for x in sig if x.kind not in ("COLON", "ARROW")])
    iter_index = 0
    typed: list[tuple[str, TileIrType | None, str]] = []
    for name, type_, how in header.defs:
        if how == "induction" and type_ is None and sig_types:
            type_ = sig_types[0]
        elif how == "iter":
            if iter_index < len(result_types):
                type_ = result_types[iter_index]
            iter_index += 1
        typed.append((name, type_, how))
    header.defs = typed


def make_template(op_name: str, items: list[Item] | tuple[Item, ...], defs: list[str]) -> str:
    """The header with uses written `$i` and the defined block arguments (`defs`) `^i`."""
    counter = {"use": 0, "def": 0}
    def_set = set(defs)

    def rewrite(item: Item) -> Item:
        if item.kind == "VALUE":
            next_def = defs[counter["def"]] if counter["def"] < len(defs) else None
            if item.text in def_set and next_def == item.text:
                counter["def"] += 1
                return Item("VALUE", f"^{counter['def'] - 1}")
            counter["use"] += 1
            return Item("VALUE", f"${counter['use'] - 1}")
        if item.is_group:
            children = tuple(rewrite(c) for c in item.children)
            return Item(item.kind, render(children, item.kind), children)
        return item

    return render([Item("NAME", op_name), *[rewrite(x) for x in items]])


def _result_types(items: list[Item], n_results: int) -> list[TileIrType]:
    sig = items[_signature_start(items) :]
    if not sig or n_results == 0:
        return []
    arrows = [i for i, x in enumerate(sig) if x.kind == "ARROW"]
    tail = sig[arrows[-1] + 1 :] if arrows else sig[1:]
    types = _group_types([x for x in tail if x.kind != "COLON"])
    if not types:
        return []
    if not arrows:
        types = types[-1:]
    if len(types) == n_results:
        return types
    return [types[min(i, len(types) - 1)] for i in range(n_results)]


# ---------------------------------------------------------------------------------------------
# Tree walking


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.aliases: dict[str, Tree | Token] = {}
        self.pending: list[tuple[object, Tree | None]] = []

    def module(self, tree: Tree) -> TileIrModule:
        name: str | None = None
        entries: list[TileIrEntry] = []
        for child in tree.children:
            if not isinstance(child, Tree):
                continue
            if child.data == "alias_def":
                self.aliases[str(child.children[0])] = child.children[2]
            elif child.data == "entry":
                entries.append(self.entry(child))
            elif child.data == "module":
                name = str(child.children[1]).lstrip("@")
                entries.extend(self.entry(c) for c in child.children
                               if isinstance(c, Tree) and c.data == "entry")
        locations = self._resolve_locations()
        return TileIrModule(name=name, entries=entries, locations=locations)

    def _resolve_locations(self) -> dict[str, str]:
        resolved: dict[str, str] = {}
        for owner, loc in self.pending:
            text = self.loc_text(loc) if loc is not None else None
            if text is not None:
                owner.location = text  # type: ignore[attr-defined]
        for alias in self.aliases:
            text = self._alias_text(alias, set())
            if text is not None:
                resolved[alias] = text
        return resolved

    def entry(self, tree: Tree) -> TileIrEntry:
        children = tree.children
        name = str(children[0]).lstrip("@")
        args: list[BlockArg] = []
        header: list[Item] = []
        body: Tree | None = None
        loc: Tree | None = None
        for child in children[1:]:
            if isinstance(child, Tree) and child.data == "arg_decl":
                args.append(BlockArg(str(child.children[0]), _arg_type(child)))
            elif isinstance(child, Tree) and child.data == "body":
                body = child
            elif isinstance(child, Tree) and child.data == "loc":
                loc = child
            elif child is not None and not (isinstance(child, Token) and child.type == "COMMA"):
                header.append(_to_item(child))
        ops = [self.op(line.children[0]) for line in body.children] if body is not None else []
        entry = TileIrEntry(name, args, _attributes(header), ops)
        self.pending.append((entry, loc))
        return entry

    def op(self, tree: Tree) -> Operation:
        results: list[str] = []
        items: list[Item] = []
        regions_tree: Tree | None = None
        loc: Tree | None = None
        name = ""
        for child in tree.children:
            if child is None:
                continue
            if isinstance(child, Tree) and child.data == "results":
                results = _result_names(child)
            elif isinstance(child, Tree) and child.data == "regions":
                regions_tree = child
            elif isinstance(child, Tree) and child.data == "loc":
                loc = child
            elif isinstance(child, Token) and child.type == "EQUAL" and not name:
                continue
            elif isinstance(child, Token) and child.type == "NAME" and not name:
                name = str(child)
            else:
                items.append(_to_item(child))
        result_types = _result_types(items, len(results))
        header = _interpret_header(items, result_types)
        regions = self._regions(regions_tree, header)
        op = Operation(
            name=name,
            results=results,
            operands=header.uses,
            operand_labels=header.labels,
            attributes=header.attributes,
            result_types=result_types,
            signature_types=_group_types(
                [x for x in items[_signature_start(items):] if x.kind not in ("COLON", "ARROW")]),
            regions=regions,
            text=self._header_text(tree, name, items),
            template=make_template(name, items, [d[0] for d in header.defs]),
            items=tuple(items),
        )
        self.pending.append((op, loc))
        return op

    def _regions(self, tree: Tree | None, header: _Header) -> list[Region]:
        if tree is None:
            return []
        regions: list[Region] = []
        for child in tree.children:
            if isinstance(child, Tree) and child.data == "region":
                ops = [self.op(line.children[0]) for line in child.children]
                regions.append(Region([], ops))
        if regions:
            regions[0].args = [BlockArg(name, type_) for name, type_, _ in header.defs]
        return regions

    def _header_text(self, tree: Tree, name: str, items: list[Item]) -> str:
        meta = tree.meta
        if getattr(meta, "empty", True):
            return render([Item("NAME", name), *items])
        end = meta.end_pos
        for child in tree.children:
            if isinstance(child, Tree) and child.data in ("regions", "loc"):
                end = child.meta.start_pos
                break
        raw = self.text[meta.start_pos:end]
        return " ".join(raw.split()).rstrip(" {")

    # -- locations -------------------------------------------------------------------------

    def loc_text(self, loc: Tree) -> str | None:
        return self._loc_items([c for c in loc.children if c is not None], set())

    def _alias_text(self, alias: str, seen: set[str]) -> str | None:
        if alias in seen or alias not in self.aliases:
            return None
        seen = seen | {alias}
        value = self.aliases[alias]
        if isinstance(value, Tree) and value.data == "loc":
            return self._loc_items(list(value.children), seen)
        if isinstance(value, Tree) and value.data == "alias_value":
            head = value.children[0]
            if str(head).endswith("di_loc") and len(value.children) > 1:
                inner = value.children[1]
                refs = [c for c in inner.children if isinstance(c, Token) and c.type == "HASHID"]
                if refs:
                    return self._alias_text(str(refs[0]), seen)
        return None

    def _loc_items(self, items: list[Tree | Token], seen: set[str]) -> str | None:
        tokens = [c for c in items if isinstance(c, Token)]
        kinds = [t.type for t in tokens]
        if kinds[:5] == ["STRING", "COLON", "INT", "COLON", "INT"] and len(items) == 5:
            return f"{tokens[0][1:-1]}:{tokens[2]}:{tokens[4]}"
        if len(items) == 1 and isinstance(items[0], Token):
            tok = items[0]
            if tok.type == "HASHID":
                return self._alias_text(str(tok), seen)
            if tok.type == "STRING":
                return str(tok)[1:-1]
            return None
        if (len(items) == 2 and isinstance(items[0], Token) and str(items[0]) == "callsite"
                and isinstance(items[1], Tree)):
            return self._callsite(list(items[1].children), seen)
        if len(items) == 2 and isinstance(items[0], Token) and str(items[0]) == "fused":
            parts = [self._loc_items([p], seen) for p in _tree_children(items[1])]
            return "; ".join(p for p in parts if p) or None
        return None

    def _callsite(self, inner: list[Tree | Token], seen: set[str]) -> str | None:
        at = next((i for i, c in enumerate(inner) if isinstance(c, Token) and str(c) == "at"), None)
        if at is None:
            return None
        callee = self._loc_items(inner[:at], seen)
        caller = self._loc_items(inner[at + 1:], seen)
        if callee and caller:
            return f"{caller} (inlined {callee})"
        return caller or callee


def _tree_children(node: Tree | Token) -> list[Tree | Token]:
    if isinstance(node, Tree):
        return [c for c in node.children if not (isinstance(c, Token) and c.type == "COMMA")]
    return [node]


def _arg_type(arg: Tree) -> TileIrType | None:
    for child in arg.children:
        if isinstance(child, Tree) and child.data == "type_ref":
            item = _to_item(child)
            return parse_type(list(item.children))
    return None


def _result_names(tree: Tree) -> list[str]:
    names: list[str] = []
    for result in tree.children:
        if not isinstance(result, Tree):
            continue
        value = str(result.children[0])
        count = [c for c in result.children[1:] if isinstance(c, Token) and c.type == "INT"]
        if count:
            names.extend(f"{value}#{i}" for i in range(int(count[0])))
        else:
            names.append(value)
    return names
