"""Rust names for the kernel's Python names.

Takes a Python identifier; gives the identifier the Rust output uses for it: Rust keywords
and the names of the DSL's functions get a `_` suffix so that they neither fail to parse
nor shadow a function the translation calls.
"""

from __future__ import annotations

from transpiler.lowering.reserved_names import DSL_FUNCTIONS, RUST_KEYWORDS


def rust_ident(name: str) -> str:
    """The Rust name of a Python local: keywords and DSL function names get a `_` suffix."""
    return f"{name}_" if name in RUST_KEYWORDS or name in DSL_FUNCTIONS else name
