"""Solved examples for a prompt: golden `*.py` kernels with their `*.rs` translations.

Takes a folder of pairs (default `golden/`) and the Python source of the kernel that holds a
hole; gives the one or two pairs whose cuda.tile calls overlap most with it (ties: the
smaller pair, then the name), with comments, docstrings and the translator's manifest
comments removed. Pairs whose `.rs` is missing or whose text is too large are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from llm_fallback.context import strip_python_comments

MAX_PAIR_CHARS = 7000
_CALL_RE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@dataclass(frozen=True)
class Example:
    name: str
    python: str
    rust: str


def call_names(text: str) -> set[str]:
    """Names called as attributes (`ct.load(` -> `load`)."""
    return set(_CALL_RE.findall(text))


def _clean_rust(text: str) -> str:
    kept = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(kept).strip()


def _clean_python(text: str) -> str:
    lines = strip_python_comments(text).splitlines()
    out: list[str] = []
    for line in lines:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    return "\n".join(out).strip()


def load_pairs(folder: Path) -> list[Example]:
    pairs: list[Example] = []
    for py in sorted(folder.glob("*.py")):
        rs = py.with_suffix(".rs")
        if not rs.is_file():
            continue
        python = _clean_python(py.read_text(encoding="utf-8"))
        rust = _clean_rust(rs.read_text(encoding="utf-8"))
        if len(python) + len(rust) <= MAX_PAIR_CHARS:
            pairs.append(Example(py.name, python, rust))
    return pairs


def pick(folder: Path | None, source: str, exclude: str | None = None,
         count: int = 2) -> list[Example]:
    """The `count` pairs most similar to `source` by shared called names."""
    if folder is None or not folder.is_dir():
        return []
    wanted = call_names(source)
    scored: list[tuple[float, int, str, Example]] = []
    for pair in load_pairs(folder):
        if pair.name == exclude:
            continue
        names = call_names(pair.python)
        union = wanted | names
        score = len(wanted & names) / len(union) if union else 0.0
        scored.append((-score, len(pair.python) + len(pair.rust), pair.name, pair))
    scored.sort(key=lambda s: s[:3])
    return [s[3] for s in scored[:count] if s[0] < 0]
