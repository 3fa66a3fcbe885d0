"""Launch of one entry over a grid: the blocks run one after another over one `Memory`.

Takes a parsed `TileIrEntry`, one value per entry parameter (addresses for pointers, numbers
for scalars), the grid and a block order (row-major, x fastest, or a seeded shuffle); runs
every block to its `return`. A kernel whose result depends on the order is caught by running
it in two orders (`block_order`) and comparing the memory after each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transpiler.ircheck.parse import TileIrEntry
from transpiler.tileir_interp.errors import InterpError
from transpiler.tileir_interp.machine import Machine
from transpiler.tileir_interp.memory import Memory
from transpiler.tileir_interp.table import OP_TABLE
from transpiler.tileir_interp.values import tile_type

Grid = tuple[int, int, int]


def block_order(grid: Grid, shuffle_seed: int | None = None) -> list[Grid]:
    """Every block id of `grid`, x fastest; shuffled when a seed is given."""
    ids = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    if shuffle_seed is None:
        return ids
    permutation = np.random.default_rng(shuffle_seed).permutation(len(ids))
    return [ids[int(i)] for i in permutation]


def entry_values(entry: TileIrEntry, raw: Sequence[Any]) -> list[np.ndarray]:
    """Each raw parameter value as a 0-d tile of the entry parameter's type."""
    if len(raw) != len(entry.args):
        raise InterpError(f"entry `{entry.name}` takes {len(entry.args)} parameters, "
                          f"{len(raw)} given")
    values = []
    for arg, value in zip(entry.args, raw, strict=True):
        if arg.type is None:
            raise InterpError(f"parameter {arg.name} of `{entry.name}` has no type")
        etype = tile_type(arg.type).element
        values.append(np.asarray(value).astype(etype.dtype))
    return values


def run_grid(entry: TileIrEntry, raw_args: Sequence[Any], memory: Memory, grid: Grid,
             order: Sequence[Grid] | None = None) -> list[Machine]:
    """Runs every block; gives the machines (their `printed` output) in run order."""
    values = entry_values(entry, raw_args)
    machines = []
    memo: dict[int, Any] = {}  # constants, computed once for all blocks
    with np.errstate(all="ignore"):
        for block in order if order is not None else block_order(grid):
            machine = Machine(memory, grid, block, OP_TABLE, memo=memo)
            for arg, value in zip(entry.args, values, strict=True):
                machine.env[arg.name] = value
            machine.run_ops(entry.ops)
            machines.append(machine)
    return machines
