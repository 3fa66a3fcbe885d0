"""A side of a numeric check: something that runs a kernel on bound buffers.

Takes nothing; gives the `Side` protocol (given numpy arrays and scalars by logical name and a
grid, run the kernel and leave its results in the arrays) and `TileIrSide`, which interprets
one Tile IR entry through a `BindingPlan`. Other runners (a Triton interpreter as the
reference of a Triton translation) implement the same protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from transpiler.ircheck.parse import TileIrEntry
from transpiler.numeric_check.binding import BindingPlan, LogicalArrays, bind
from transpiler.tileir_interp.grid import Grid, block_order, run_grid
from transpiler.tileir_interp.memory import Memory


class Side(Protocol):
    name: str

    def run(self, launch: LogicalArrays, grid: Grid, shuffle_seed: int | None = None
            ) -> dict[str, str]:
        """Runs the kernel over `launch.arrays` in place; gives, per array, a description
        of the op that last wrote each element's buffer (`writer`), when it knows."""
        ...


@dataclass
class TileIrSide:
    name: str
    entry: TileIrEntry
    plan: BindingPlan
    last_memory: Memory | None = None

    def run(self, launch: LogicalArrays, grid: Grid, shuffle_seed: int | None = None
            ) -> dict[str, str]:
        memory = Memory()
        addresses = {name: memory.allocate(name, array) for name, array in
                     launch.arrays.items()}
        raw = bind(self.plan, launch, addresses, len(self.entry.args))
        run_grid(self.entry, raw, memory, grid, block_order(grid, shuffle_seed))
        for name, array in launch.arrays.items():
            array[...] = memory.read_back(name, array)
        self.last_memory = memory
        return {}

    def writer_of(self, array: str, flat_index: int, itemsize: int) -> str | None:
        """`op` at `file:line:col` that last wrote element `flat_index` of `array`."""
        if self.last_memory is None:
            return None
        written = self.last_memory.writer(array, flat_index, itemsize)
        if not isinstance(written, tuple):
            return None
        store, producer = written
        text = _op_text(store)
        return f"{_op_text(producer)}, stored by {text}" if producer is not None else text


def _op_text(op: object) -> str:
    location = getattr(op, "location", None)
    where = f" at {location}" if location else ""
    return f"`{getattr(op, 'name', '?')}`{where}"
