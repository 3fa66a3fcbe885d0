"""Memory order of a Triton kernel: which pointer accesses are chained through tokens.

Takes a typed kernel body with pointer operations (`load_ptr`, `store_ptr`, `atomic_ptr`)
and `barrier` effects; gives the same body with each access's token discipline set (its
`wait` and `record` attributes, see `lowering/pointer_ops.py`), the token variables declared
at the top (`let mut p_written` / `p_accessed = new_token_unordered()`), and the barriers
removed.

The rule (per pointer parameter, program order): a parameter that is written and accessed
more than once, or written inside a loop, gets two tokens, its last write and its last
access. A load waits on the last write and joins the last access (read after write); a
store or an atomic waits on the last access and replaces both (write after read, write after
write). Parameters only read stay unordered, as Triton leaves them. A kernel with
`tl.debug_barrier()` or an atomic orders all its accesses in one chain: the barrier orders
everything before it against everything after, and an atomic is ordered against every
access of the block (Triton's `acq_rel` at `gpu` scope). Two pointer parameters are assumed
not to alias, as Triton's compiler assumes.
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
    TokenType,
    TStmt,
    TWhile,
)

ATOMIC_OPS = ("atomic_ptr", "atomic_cas_ptr")
MEMORY_OPS = ("load_ptr", "store_ptr", *ATOMIC_OPS)
WRITE_OPS = ("store_ptr", *ATOMIC_OPS)
SHARED_CHAIN = "all"


def _exprs(e: TExpr) -> Iterator[TExpr]:
    for arg in e.args:
        yield from _exprs(arg)
    yield e


def _accesses(stmts: list[TStmt], depth: int = 0) -> Iterator[tuple[TExpr, int]]:
    """Memory operations and barriers in program order, with their loop depth: a loop's
    bounds before its body (at the loop's own depth), an `if`'s condition before its arms,
    a `while` condition inside its loop (it runs before every iteration)."""
    for stmt in stmts:
        if isinstance(stmt, TAssign | TEffect):
            yield from _memory(stmt.value, depth)
        elif isinstance(stmt, TFor):
            for bound in (stmt.start, stmt.stop, stmt.step):
                yield from _memory(bound, depth)
            yield from _accesses(stmt.body, depth + 1)
        elif isinstance(stmt, TWhile):
            if stmt.cond is not None:
                yield from _memory(stmt.cond, depth + 1)
            yield from _accesses(stmt.body, depth + 1)
        elif isinstance(stmt, TIf):
            yield from _memory(stmt.cond, depth)
            yield from _accesses(stmt.then, depth)
            yield from _accesses(stmt.orelse, depth)


def _memory(value: TExpr, depth: int) -> Iterator[tuple[TExpr, int]]:
    for e in _exprs(value):
        if e.op in MEMORY_OPS or e.op == "barrier":
            yield e, depth


def _without_barriers(stmts: list[TStmt]) -> list[TStmt]:
    out: list[TStmt] = []
    for stmt in stmts:
        if isinstance(stmt, TEffect) and stmt.value.op == "barrier":
            continue
        if isinstance(stmt, TFor | TWhile):
            stmt.body = _without_barriers(stmt.body)
        elif isinstance(stmt, TIf):
            stmt.then = _without_barriers(stmt.then)
            stmt.orelse = _without_barriers(stmt.orelse)
        out.append(stmt)
    return out


def order_memory(body: list[TStmt], taken: set[str]) -> tuple[list[TStmt], list[str]]:
    """The body with token discipline set, and notes on what was chained."""
    accesses = list(_accesses(body))
    shared = any(e.op == "barrier" or e.op in ATOMIC_OPS for e, _ in accesses)
    key = (lambda e: SHARED_CHAIN) if shared else (lambda e: str(e.attrs["param"]))
    memory = [(e, d) for e, d in accesses if e.op in MEMORY_OPS]
    counts = Counter(key(e) for e, _ in memory)
    chained = {key(e) for e, d in memory if e.op in WRITE_OPS and (counts[key(e)] > 1 or d)}
    if shared and memory:
        chained = {SHARED_CHAIN}
    names: dict[str, tuple[str, str]] = {}
    for group in sorted(chained):
        names[group] = (_fresh(f"{group.lower()}_written", taken),
                        _fresh(f"{group.lower()}_accessed", taken))
    for e, _depth in memory:
        group = key(e)
        if group not in names:
            continue
        written, accessed = names[group]
        if e.op == "load_ptr":
            e.attrs["wait"], e.attrs["record"] = written, [(accessed, "join")]
        else:
            e.attrs["wait"], e.attrs["record"] = accessed, [(written, "set"), (accessed, "set")]
    lets: list[TStmt] = []
    for written, accessed in names.values():
        for name in (written, accessed):
            lets.append(TAssign(name, TExpr("make_token", [], TokenType()), None, mutable=True))
    notes = [f"accesses through `{g}` are ordered through tokens (read after write, write "
             "after read and after write)" if g != SHARED_CHAIN else
             "a barrier or an atomic orders all memory accesses of the kernel in one token "
             "chain" for g in sorted(names)]
    return lets + _without_barriers(body), notes


def _fresh(hint: str, taken: set[str]) -> str:
    name = hint
    while name in taken:
        name += "_"
    taken.add(name)
    return name
