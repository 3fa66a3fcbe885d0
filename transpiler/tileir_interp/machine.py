"""The execution of op lists for one tile block: environments, dispatch, terminators.

Takes a block id, the grid, the `Memory` and the op table; runs a list of `Operation`s over an
environment (SSA name -> value) and gives the terminator that ended it (`yield`, `continue`,
`break`, `return`) with its values. One environment per block is enough: the printer never
lets a name inside a region shadow a name visible there. Every error leaving an op names it
and its source location.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from transpiler.ircheck.parse import Operation
from transpiler.tileir_interp.errors import InterpError, UnsupportedOpError
from transpiler.tileir_interp.memory import Memory


@dataclass
class Terminator:
    kind: str  # yield | continue | break | return
    values: list[Any]


Handler = Callable[["Machine", Operation, list[Any]], Any]


@dataclass
class Machine:
    memory: Memory
    grid: tuple[int, int, int]
    block_id: tuple[int, int, int]
    table: Mapping[str, Handler]
    env: dict[str, Any] = field(default_factory=dict)
    printed: list[tuple[str, list[np.ndarray]]] = field(default_factory=list)
    #: the op that produced each value, for reporting where a differing output came from
    origin: dict[str, Operation] = field(default_factory=dict)
    #: values that depend on the op alone (constants), by op identity, shared by the blocks
    #: of one launch; read-only arrays, so that no op can change what another op reads
    memo: dict[int, tuple[Operation, list[Any]]] = field(default_factory=dict)

    def remembered(self, op: Operation, compute: Callable[[], list[Any]]) -> list[Any]:
        """`compute()`'s values for `op`, computed once per launch."""
        found = self.memo.get(id(op))
        if found is not None and found[0] is op:
            return found[1]
        values = compute()
        for value in values:
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
        self.memo[id(op)] = (op, values)
        return values

    def run_ops(self, ops: list[Operation]) -> Terminator | None:
        env = self.env
        for op in ops:
            handler = self.table.get(op.name)
            if handler is None:
                raise UnsupportedOpError("the interpreter has no rule for this op", op.name,
                                         op.location)
            try:
                args = [env[name] for name in op.operands]
            except KeyError as missing:
                raise InterpError(f"uses {missing} before any op defines it", op.name,
                                  op.location) from None
            # what a store records as the writer: the store and the op of the stored value
            self.memory.current_op = (op, self.origin.get(op.operands[0]) if op.operands
                                      else None)
            try:
                out = handler(self, op, args)
            except InterpError as err:
                if err.op is None:
                    raise type(err)(err.message, op.name, op.location) from None
                raise
            except (ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
                raise InterpError(f"cannot evaluate: {err}", op.name, op.location) from None
            if isinstance(out, Terminator):
                return out
            for name, value in zip(op.results, out, strict=False):
                env[name] = value
                self.origin[name] = op
        return None

    def run_region(self, region: Any, args: list[Any]) -> Terminator:
        for block_arg, value in zip(region.args, args, strict=True):
            self.env[block_arg.name] = value
        end = self.run_ops(region.ops)
        return end if end is not None else Terminator("yield", [])
