"""The op table: Tile IR op name -> the function that interprets it.

Takes nothing; gives `OP_TABLE`, the union of the per-concern tables, so that which ops the
interpreter covers is data (`sorted(OP_TABLE)`) that tests can hold against the ops a corpus
uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from transpiler.tileir_interp.machine import Handler
from transpiler.tileir_interp.ops_arith import COMPARE_OPS, CONVERT_OPS, FLOAT_OPS, INT_OPS
from transpiler.tileir_interp.ops_matrix import MATRIX_OPS
from transpiler.tileir_interp.ops_memory import MEMORY_OPS
from transpiler.tileir_interp.ops_shape import PASS_OPS, SHAPE_OPS
from transpiler.tileir_interp.regions import REGION_OPS

_TABLES: tuple[Mapping[str, Handler], ...] = (
    FLOAT_OPS, INT_OPS, COMPARE_OPS, CONVERT_OPS, SHAPE_OPS, PASS_OPS, MEMORY_OPS,
    MATRIX_OPS, REGION_OPS)


def _merge() -> dict[str, Handler]:
    merged: dict[str, Handler] = {}
    for table in _TABLES:
        overlap = merged.keys() & table.keys()
        if overlap:
            raise RuntimeError(f"ops defined twice: {sorted(overlap)}")
        merged.update(table)
    return merged


OP_TABLE: Mapping[str, Handler] = MappingProxyType(_merge())
