"""Store-token analysis: which arrays' writes are chained through one token.

Takes a kernel's typed body (`list[TStmt]`); gives the names of the arrays whose stores
the lowering orders one after the other through a `mut Token` (`store_view_raw(.., Some(tok),
..)`), carried by the loops and `if`s around them.

Why: cuTile Python orders every store to an array after the previous access to it (its
token-order pass); inside a loop that token is carried from one iteration to the next. cuTile
Rust gives each tensor one entry token and orders nothing, so a loop's stores are
independent, and tileiras then schedules the loop differently (measured on an H200
decode kernel: a third more SASS instructions, a quarter more shared memory, 8% slower).
Outside loops the same holds: a write to an array the kernel also reads or writes elsewhere
waits on the accesses before it (a load of the array that the stored value does not depend
on could otherwise see the store). Python leaves one case unordered, and so do we: a `for`
loop's only access to an array is one store, directly in the loop body, whose index has the
loop variable itself as one coordinate (each iteration writes its own tile: a "parallel
store"). Scatters and atomic adds through a view are chained like stores (Python never
treats them as parallel); a gather from a chained array waits on its last write.

A load from such an array waits on its last store (read after write, also from one
iteration to the next), and the next store waits on the loads since (write after read):
the array has a second token, its last access, that each load joins (`join_tokens`).

Arrays read or written through an `Array.slice` are left alone (Python orders a slice with
the array it slices; the view-per-slice lowering keeps its own order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from transpiler.model import (
    TAssign,
    TEffect,
    TExpr,
    TFor,
    TIf,
    TStmt,
    statement_exprs,
    walk_statements,
)

# Typed operations that write the array given as their first operand.
WRITE_OPS: frozenset[str] = frozenset({"store", "scatter", "view_atomic"})
# Typed operations that read or write the array given as their first operand.
MEMORY_OPS: frozenset[str] = frozenset({"load", "store", "gather", "scatter", "view_atomic",
                                        "atomic"})


def chained_store_arrays(body: list[TStmt]) -> set[str]:
    """Arrays with a store inside a loop that is not a parallel store, or with a write
    outside loops and any other access to them (module docstring)."""
    chained: set[str] = set()
    for loop in _loops(body):
        for stmt, nested in _stores(loop.body):
            name = _array_name(stmt.value)
            if nested or not _is_parallel_store(loop, stmt.value):
                chained.add(name)
    accesses = Counter(_array_name(e) for e in _memory_ops(body))
    for stmt in _writes_outside_loops(body):
        name = _array_name(stmt.value)
        if accesses[name] > 1:
            chained.add(name)
    return chained - sliced_names(body)


def _writes_outside_loops(stmts: list[TStmt]) -> Iterator[TEffect]:
    """The writes of the kernel body and its `if` arms, not those of a loop body."""
    for stmt in stmts:
        if isinstance(stmt, TEffect) and stmt.value.op in WRITE_OPS and \
                _array_name(stmt.value):
            yield stmt
        elif isinstance(stmt, TIf):
            yield from _writes_outside_loops(stmt.then)
            yield from _writes_outside_loops(stmt.orelse)


def _loops(stmts: list[TStmt]) -> Iterator[TFor]:
    return (stmt for stmt in walk_statements(stmts) if isinstance(stmt, TFor))


def _stores(stmts: list[TStmt], nested: bool = False) -> Iterator[tuple[TEffect, bool]]:
    """The writes of a loop body (view stores, scatters, atomic adds through a view), each
    with whether it sits in a nested block (an `if` arm or an inner loop)."""
    for stmt in stmts:
        if isinstance(stmt, TEffect) and stmt.value.op in WRITE_OPS and \
                _array_name(stmt.value):
            yield stmt, nested
        elif isinstance(stmt, TFor):
            yield from _stores(stmt.body, True)
        elif isinstance(stmt, TIf):
            yield from _stores(stmt.then, True)
            yield from _stores(stmt.orelse, True)


def _is_parallel_store(loop: TFor, store: TExpr) -> bool:
    """The store is the loop body's only access to its array (nested blocks included) and
    one of its coordinates is the loop variable."""
    if store.op != "store":
        return False  # cuTile Python leaves only view stores unordered
    name = _array_name(store)
    accesses = [e for e in _memory_ops(loop.body) if _array_name(e) == name]
    if len(accesses) != 1 or accesses[0] is not store:
        return False
    _, *index, _ = store.args
    return any(i.op == "var" and i.attrs.get("name") == loop.var for i in index)


def _memory_ops(stmts: list[TStmt]) -> Iterator[TExpr]:
    for expr in statement_exprs(stmts):
        stack = [expr]
        while stack:
            node = stack.pop()
            if node.op in MEMORY_OPS:
                yield node
            stack.extend(node.args)


def _array_name(e: TExpr) -> str:
    if e.args and e.args[0].op == "array":
        return str(e.args[0].attrs["name"])
    return ""


def sliced_names(body: list[TStmt]) -> set[str]:
    """Slices (local tensors) and the arrays they slice."""
    names: set[str] = set()
    for stmt in walk_statements(body):
        if isinstance(stmt, TAssign) and stmt.value.op == "array_slice":
            names.add(stmt.name)
            names.add(_array_name(stmt.value))
    return names


def shared_chain_needed(body: list[TStmt]) -> bool:
    """Whether an atomic of the body acquires or releases (any order but relaxed): cuTile
    Python orders it after every earlier memory access of the block and every later access
    after it, on all arrays, so the lowering puts every access in one token chain."""
    return any(e.op in ("atomic", "view_atomic") and e.attrs.get("order", "Relaxed")
               != "Relaxed" for e in _memory_ops(body))


def accessed_arrays(body: list[TStmt]) -> set[str]:
    """Every array the body loads, stores, gathers, scatters or updates atomically."""
    return {_array_name(e) for e in _memory_ops(body)} - {""}


def view_loaded_arrays(body: list[TStmt]) -> set[str]:
    """Arrays the body loads through a partition view (`ct.load`)."""
    return {_array_name(e) for e in _memory_ops(body) if e.op == "load"} - {""}


def bound_names(body: list[TStmt]) -> set[str]:
    """Every name the body binds (assignments and loop variables)."""
    names: set[str] = set()
    for stmt in walk_statements(body):
        if isinstance(stmt, TAssign):
            names.add(stmt.name)
        elif isinstance(stmt, TFor):
            names.add(stmt.var)
    return names
