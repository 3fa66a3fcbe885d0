"""The cutile 0.5.0 functions a fragment may call: extracted signatures, by name.

Takes the pinned crate's `src/_core.rs` (at table-generation time) or the shipped table
`cutile_api.json` (at run time); gives `ApiItem`s (name, owning impl for methods, the Tile IR
op it emits, doc lines, signature without body) and `relevant()`, which picks the few items
a prompt needs for one construct. The shipped table keeps prompts byte-stable and the
fallback independent of a local cargo registry; regenerate it after a crate bump with

    python -m llm_fallback.cutile_api [PATH/TO/_core.rs]
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

CRATE = "cutile-0.5.0"
TABLE = Path(__file__).with_name("cutile_api.json")
_FN_RE = re.compile(r"^\s*pub\s+(?:unsafe\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")
_OP_RE = re.compile(r'#\[cuda_tile::op\(name\s*=\s*"([^"]+)"')
_IMPL_RE = re.compile(r"^\s*impl\b(.*)\{\s*$")
# Name parts too common to say that two functions are related.
_COMMON_PARTS = {"tile", "to", "from", "get", "set", "of", "with", "i", "f", "by", "view"}
# cuda.tile names whose cutile counterparts are spelled differently (data, not kernel names).
ALIASES: dict[str, tuple[str, ...]] = {
    "cdiv": ("divi", "ceil_div"), "truediv": ("divf",), "floordiv": ("divi",),
    "mod": ("remi", "remf"), "cumprod": ("scan",), "cumsum": ("scan_sum",),
    "argmax": ("reduce_max", "reduce"), "argmin": ("reduce_min", "reduce"),
    "negative": ("negf", "negi"), "abs": ("absf", "absi"), "bitwise_and": ("andi",),
    "bitwise_or": ("ori",), "bitwise_xor": ("xori",), "bitwise_lshift": ("shli",),
    "bitwise_rshift": ("shri",), "maximum": ("maxf", "maxi"), "minimum": ("minf", "mini"),
    "astype": ("convert_tile",), "where": ("select",), "pow": ("pow",),
}


@dataclass(frozen=True)
class ApiItem:
    name: str
    owner: str  # "" for a free function, else the impl header (`Tile<E, D>`)
    op: str  # the Tile IR op it emits, "" if none is declared
    doc: str
    signature: str

    def render(self) -> str:
        lines = [f"/// {line}" if line else "///" for line in self.doc.splitlines()]
        if self.op:
            lines.append(f"// emits {self.op}")
        head = f"impl {self.owner} {{ {self.signature}; }}" if self.owner else \
            f"{self.signature};"
        return "\n".join([*lines, head])


def default_core_rs() -> Path | None:
    """`_core.rs` of the pinned crate in the local cargo registry, if present."""
    home = Path.home() / ".cargo" / "registry" / "src"
    found = sorted(home.glob(f"index.crates.io-*/{CRATE}/src/_core.rs"))
    return found[0] if found else None


def extract(text: str) -> list[ApiItem]:
    """Every `pub fn` of `_core.rs` with its docs, Tile IR op and signature (no body)."""
    lines = text.splitlines()
    items: list[ApiItem] = []
    impl_stack: list[tuple[int, str]] = []
    depth = 0
    for index, line in enumerate(lines):
        impl = _IMPL_RE.match(line)
        if impl:
            impl_stack.append((depth, _impl_owner(impl.group(1))))
        match = _FN_RE.match(line)
        if match:
            owner = impl_stack[-1][1] if impl_stack else ""
            doc, op = _preamble(lines, index)
            items.append(ApiItem(match.group(1), owner, op, doc, _signature(lines, index)))
        depth += line.count("{") - line.count("}")
        while impl_stack and depth <= impl_stack[-1][0]:
            impl_stack.pop()
    return items


def _impl_owner(header: str) -> str:
    header = header.strip()
    if header.startswith("<"):
        level = 0
        for pos, char in enumerate(header):
            level += {"<": 1, ">": -1}.get(char, 0)
            if level == 0:
                header = header[pos + 1:].strip()
                break
    return header.split(" for ")[-1].strip()


def _preamble(lines: list[str], index: int) -> tuple[str, str]:
    doc: list[str] = []
    op = ""
    pos = index - 1
    while pos >= 0:
        stripped = lines[pos].strip()
        if stripped.startswith("///"):
            doc.insert(0, stripped[3:].strip())
        elif stripped.startswith("#["):
            found = _OP_RE.search(stripped)
            op = found.group(1) if found else op
        else:
            break
        pos -= 1
    return "\n".join(doc), op


def _signature(lines: list[str], index: int) -> str:
    parts: list[str] = []
    for line in lines[index:index + 40]:
        stripped = line.strip()
        cut = _body_start(stripped)
        parts.append(stripped if cut is None else stripped[:cut].rstrip())
        if cut is not None:
            break
    text = " ".join(p for p in parts if p)
    for pattern, repl in ((r"([(<])\s+", r"\1"), (r",\s*([)>])", r"\1")):
        text = re.sub(pattern, repl, text)
    return text


def _body_start(line: str) -> int | None:
    """Position of the `{` or `;` that ends a signature on this line, if any."""
    level = 0
    for pos, char in enumerate(line):
        if char in "(<[":
            level += 1
        elif char in ")>]" and not (char == ">" and pos > 0 and line[pos - 1] == "-"):
            level -= 1
        elif char in "{;" and level <= 0:
            return pos
    return None


@lru_cache(maxsize=1)
def load_table(path: Path = TABLE) -> tuple[ApiItem, ...]:
    """The shipped table; extracted from the crate source when the table is missing."""
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return tuple(ApiItem(**item) for item in data["items"])
    core = default_core_rs()
    return tuple(extract(core.read_text(encoding="utf-8"))) if core else ()


def relevant(construct_name: str, also: tuple[str, ...] = (), limit: int = 6) -> list[ApiItem]:
    """Items whose names relate to `construct_name` (`atan2`, `cumprod`), best first.

    Exact names first, then names containing the other, then names sharing a part (split on
    `_`); `also` adds exact names the context uses. Free functions before methods.
    """
    wanted = construct_name.lower()
    parts = {p for p in wanted.split("_") if p and p not in _COMMON_PARTS}
    aliases = ALIASES.get(wanted, ())
    scored: list[tuple[int, bool, str, ApiItem]] = []
    for item in load_table():
        name = item.name.lower()
        score = 8 if name in aliases else _score(name, wanted, parts)
        score = score or (4 if item.name in also else 0)
        if score:
            scored.append((-score, item.owner != "", item.name + item.owner, item))
    scored.sort(key=lambda s: s[:3])
    out: list[ApiItem] = []
    for _, _, _, item in scored:
        if item not in out:
            out.append(item)
    return out[:limit]


def _score(name: str, wanted: str, parts: set[str]) -> int:
    if name == wanted:
        return 10
    if len(wanted) >= 3 and (wanted in name or (len(name) >= 3 and name in wanted)):
        return 6
    name_parts = {p for p in name.split("_") if p and p not in _COMMON_PARTS}
    return 3 if parts & name_parts else 0


def write_table(core_rs: Path, out: Path = TABLE) -> int:
    items = extract(core_rs.read_text(encoding="utf-8"))
    doc = {"crate": CRATE, "source": "src/_core.rs", "items": [asdict(i) for i in items]}
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return len(items)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    core = Path(args[0]) if args else default_core_rs()
    if core is None or not core.is_file():
        print(f"error: {CRATE}/src/_core.rs not found; pass its path", file=sys.stderr)
        return 2
    count = write_table(core)
    print(f"wrote {count} items to {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
