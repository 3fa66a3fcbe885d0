"""`optimization_hints` values: parsed into their per-target entries and put in normal form.

Takes the text of an `optimization_hints=<...>` attribute, as `tileirdisasm` prints it on an
entry or on a memory op (`<default = {}, sm_100 = {num_cta_in_cga = 2}>`); gives a `Hints`
value whose normal form two sides can be compared by, and the names of the accepted-noise
rules the normalization used.

An attribute maps compile targets (`sm_90`, `sm_100`, or `default` for every other target) to
a dictionary of hints. Two spellings ask for the same compilation when:

- an entry holds no hints (`default = {}`): it asks for nothing, for any target, whichever
  way a compiler merges a target's entry with `default` (rule empty-hint-entry);
- the only entry is keyed by the target the check compiles for (`sm_90`): it applies to that
  compilation exactly as the same entry keyed `default` (rule hint-target-key).

The order of the entries means nothing (a mapping). Everything else stays as written: a
non-empty entry of either side that the other lacks or spells differently is a difference.
"""

from __future__ import annotations

from dataclasses import dataclass

# The target the IR check compiles for: hints keyed by it are the `default` ones.
CHECK_TARGET = "sm_90"
DEFAULT_KEY = "default"
EMPTY_ENTRY = "{}"
_OPENERS, _CLOSERS = "<{[(", ">}])"


@dataclass(frozen=True)
class Hints:
    """Per-target hint entries, in normal form (sorted by key), and the rules applied."""

    entries: tuple[tuple[str, str], ...]
    rules: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.entries

    def text(self) -> str:
        """The normal form as attribute text (`<default = {latency = 3}>`), or `""`."""
        if not self.entries:
            return ""
        if self.entries[0][0] == "":
            return self.entries[0][1]  # not a hint mapping: compared as written
        return "<" + ", ".join(f"{key} = {value}" for key, value in self.entries) + ">"


def split_top_level(text: str, separator: str = ",") -> list[str]:
    """`text` cut at each `separator` outside any bracket pair."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def parse_hints(text: str) -> list[tuple[str, str]] | None:
    """The `(key, value)` entries of `<k = {...}, ...>`, or None when `text` is not of that
    form (it is then compared as written)."""
    text = text.strip()
    if not (text.startswith("<") and text.endswith(">")):
        return None
    entries: list[tuple[str, str]] = []
    for part in split_top_level(text[1:-1]):
        key, eq, value = part.partition("=")
        if not eq or not key.strip().isidentifier():
            return None
        entries.append((key.strip(), " ".join(value.split())))
    return entries


def normal_hints(text: str | None) -> Hints:
    """The normal form of an `optimization_hints` value (None or `""`: no attribute). A value
    that is not a hint mapping is kept whole, as one entry with an empty key."""
    if text is None or text == "":
        return Hints(())
    entries = parse_hints(text)
    if entries is None:
        return Hints((("", text),))
    rules: list[str] = []
    kept = [(k, v) for k, v in entries if v != EMPTY_ENTRY]
    if len(kept) != len(entries):
        rules.append("empty-hint-entry")
    if len(kept) == 1 and kept[0][0] == CHECK_TARGET:
        kept = [(DEFAULT_KEY, kept[0][1])]
        rules.append("hint-target-key")
    return Hints(tuple(sorted(kept)), tuple(rules))
