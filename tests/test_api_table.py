"""The API table covers every public cuda.tile function, each with a status."""

from __future__ import annotations

from transpiler.lowering import signatures
from transpiler.lowering.lower import RULES
from transpiler.lowering.table import API, coverage
from transpiler.lowering.typing_rules import TYPERS

STATUSES = {"lowered", "front-end", "not-lowered", "inexpressible"}


def test_every_function_has_an_entry() -> None:
    for name in signatures.all_names():
        if name != "item":
            assert name in API, name
    assert {"kernel", "function", "launch"} <= set(API)


def test_statuses_and_forms() -> None:
    for entry in API.values():
        assert entry.status in STATUSES
        assert entry.rust, entry.name
        if entry.status == "lowered":
            assert entry.name in TYPERS


def test_typed_ops_have_rust_rules() -> None:
    # Every op the typing rules produce for a value has a lowering rule (effects aside).
    for op in ("load", "gather", "binary", "compare", "unary", "reduce", "scan", "mma",
               "convert", "reshape", "broadcast", "permute", "where", "full", "splat",
               "arange", "num_tiles", "bid", "num_blocks", "cdiv", "fma"):
        assert op in RULES, op


def test_coverage_counts() -> None:
    handled, total = coverage()
    assert total >= 100
    assert handled >= 65
