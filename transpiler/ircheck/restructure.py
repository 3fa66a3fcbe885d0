"""Rewrites of a parsed Tile IR entry that change its op structure, applied before
canonicalization (see canonicalize.RULES for the reasons).

Takes one parsed entry (`parse.TileIrEntry`); gives the same entry rewritten, and how many
times each rule applied.

Rule early-exit. cuTile Python lowers `if c: A; return` followed by `B` as

    %t = if %c -> (token) { A; return } else { yield %tok }
    B (using %t)
    return

cuTile Rust lowers no `return` below the function body (outside `loop`), so the translation
writes the same control flow as `if c { A } else { B }`. Both run A when `c` holds and B
otherwise, and nothing after the `if`: moving B into the `else` region (uses of the `if`'s
results become the values that region yields) changes no behaviour. Only the form above is
restructured: the `then` region ends with `return`, the `else` region ends with `yield` (or
is empty, in an `if` without results, as when A touches no memory), the `if`'s results are
tokens (memory ordering only, which token-threading already relates), and the block ends
with `return` without using them.

Rule scan-axis-swap. cuTile Rust 0.5.0 scans along dimension 0 only, so a scan along axis k
is translated as `permute(swap 0,k)`, `scan dim=0`, `permute(swap 0,k)`. Swapping two axes is
its own inverse, so the three ops are the scan along k of the original tile; they are
rewritten to that single `scan` when the intermediate values have no other use.

Rule flattened-gather. cuTile Rust 0.5.0 reshapes a scalar load padding to rank 1 whatever
the tile's rank, so a gather of rank >= 2 is translated flattened: the pointer tile and the
mask reshaped to rank 1, a rank-1 `load_ptr_tko` with the padding broadcast to rank 1, the
loaded tile reshaped back. Reshapes move no element: element i of the flat tile is element i
of the shaped one in row-major order, on every side of the load. So the chain is the load of
the shaped pointers under the shaped mask with the padding broadcast to that shape, and is
rewritten to it when the flat values have no other use.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from transpiler.ircheck.parse import Operation, Region, TileIrEntry, parse_tileir


def restructure(entry: TileIrEntry) -> tuple[TileIrEntry, dict[str, int]]:
    """`entry` with both rules applied; the count of each rule's rewrites."""
    ops, exits = _tail_block(entry.ops)
    uses = Counter(name for op in _all_ops(ops) for name in op.operands)
    ops, scans = _fold_swapped_scans(ops, uses)
    ops, gathers = _unflatten_gathers(ops)
    counts = {"early-exit": exits, "scan-axis-swap": scans, "flattened-gather": gathers}
    return (replace(entry, ops=ops) if exits or scans or gathers else entry), counts


def _tail_block(ops: list[Operation]) -> tuple[list[Operation], int]:
    """Restructure a block that ends the kernel (its last op is `return`)."""
    if not ops or ops[-1].name != "return":
        return ops, 0
    for index, op in enumerate(ops[:-1]):
        if not _is_early_exit(op, ops[-1]):
            continue
        then_region, else_region = op.regions
        # The `else` region's `yield`; none when it is empty (an `if` without results).
        yields = else_region.ops[-1:]
        renames = dict(zip(op.results, yields[0].operands, strict=False)) if yields else {}
        moved = [_renamed(o, renames) for o in ops[index + 1:-1]]
        then_ops, then_count = _tail_block(then_region.ops)
        else_ops, else_count = _tail_block(
            [*else_region.ops[:-1], *moved, replace(ops[-1], operands=[])])
        guarded = replace(op, regions=[
            Region(then_region.args, then_ops[:-1]),
            Region(else_region.args, [*else_ops[:-1], *yields]),
        ])
        return [*ops[:index], guarded, ops[-1]], 1 + then_count + else_count
    return ops, 0


def _is_early_exit(op: Operation, terminator: Operation) -> bool:
    if op.name != "if" or len(op.regions) != 2:
        return False
    then_region, else_region = op.regions
    if not then_region.ops or then_region.ops[-1].name != "return":
        return False
    if not else_region.ops:
        # `if c { A; return } else { }`: an `if` without results and an empty `else`.
        return not op.results
    if else_region.ops[-1].name != "yield":
        return False
    if any(t.kind != "token" for t in op.result_types):
        return False
    return not set(op.results) & set(terminator.operands)


def _renamed(op: Operation, renames: dict[str, str]) -> Operation:
    """`op` (and the ops of its regions) with operand names replaced."""
    if not renames:
        return op
    return replace(
        op,
        operands=[renames.get(name, name) for name in op.operands],
        regions=[Region(r.args, [_renamed(o, renames) for o in r.ops]) for r in op.regions],
    )


def _all_ops(ops: list[Operation]) -> Iterator[Operation]:
    for op in ops:
        yield op
        for region in op.regions:
            yield from _all_ops(region.ops)


_PERMUTATION = re.compile(r"^permute \$0\[([0-9, ]+)\]")


def _swapped_axis(op: Operation) -> int | None:
    """k for a `permute` that swaps axes 0 and k (k > 0), else None."""
    match = _PERMUTATION.match(op.template) if op.name == "permute" else None
    if match is None:
        return None
    perm = [int(p) for p in match.group(1).split(",")]
    k = perm[0]
    expected = list(range(len(perm)))
    if k == 0 or k >= len(perm):
        return None
    expected[0], expected[k] = k, 0
    return k if perm == expected else None


def _fold_swapped_scans(ops: list[Operation], uses: Counter[str]) -> tuple[list[Operation], int]:
    """Rule scan-axis-swap in `ops` and, recursively, in their regions."""
    count = 0
    out: list[Operation] = []
    defined = {}
    for op in ops:
        regions = []
        for region in op.regions:
            inner, n = _fold_swapped_scans(region.ops, uses)
            count += n
            regions.append(Region(region.args, inner))
        op = replace(op, regions=regions) if op.regions else op
        folded = _folded_scan(op, defined, uses)
        if folded is not None:
            scan, first = folded
            out = [o for o in out if o is not scan and o is not first]
            op = _scan_along(scan, first, op)
            count += 1
        for name in op.results:
            defined[name] = op
        out.append(op)
    return out, count


def _folded_scan(last: Operation, defined: dict[str, Operation],
                 uses: Counter[str]) -> tuple[Operation, Operation] | None:
    """(scan, first permute) when `last` closes a swap-scan-swap chain."""
    k = _swapped_axis(last)
    scan = defined.get(last.operands[0]) if k is not None and last.operands else None
    if scan is None or scan.name != "scan" or scan.attributes.get("dim") != "0":
        return None
    first = defined.get(scan.operands[0]) if scan.operands else None
    if first is None or _swapped_axis(first) != k:
        return None
    if uses[scan.results[0]] != 1 or uses[first.results[0]] != 1:
        return None
    return scan, first


def _scan_along(scan: Operation, first: Operation, last: Operation) -> Operation:
    """The scan of `first`'s operand along the swapped axis, giving `last`'s results."""
    k = _swapped_axis(first)
    swapped, original = scan.result_types[0].text, last.result_types[0].text

    def rewrite(text: str) -> str:
        return re.sub(r"dim\s*=\s*0\b", f"dim = {k}" if " = " in text else f"dim={k}",
                      text, count=1).replace(swapped, original)

    return replace(scan, results=list(last.results), operands=[first.operands[0]],
                   attributes={**scan.attributes, "dim": str(k)},
                   result_types=list(last.result_types),
                   signature_types=[last.result_types[0] if t.text == swapped else t
                                    for t in scan.signature_types],
                   template=rewrite(scan.template), text=rewrite(scan.text),
                   location=last.location or scan.location)


def _unflatten_gathers(ops: list[Operation]) -> tuple[list[Operation], int]:
    """Rule flattened-gather in `ops` and, recursively, in their regions. Uses are counted
    in `ops` and the regions below them: sibling regions may print the same value names."""
    uses = Counter(name for op in _all_ops(ops) for name in op.operands)
    count = 0
    out: list[Operation] = []
    defined: dict[str, Operation] = {}
    for op in ops:
        if op.regions:
            regions = []
            for region in op.regions:
                inner, n = _unflatten_gathers(region.ops)
                count += n
                regions.append(Region(region.args, inner))
            op = replace(op, regions=regions)
        chain = _flat_gather(op, defined, uses)
        if chain is not None:
            load, dropped, shaped = chain
            index = next(i for i, o in enumerate(out) if o is load)
            out[index:index + 1] = shaped
            out = [o for o in out if not any(o is d for d in dropped)]
            count += 1
            for new in shaped:
                for name in new.results:
                    defined[name] = new
            continue
        for name in op.results:
            defined[name] = op
        out.append(op)
    return out, count


def _single_def(name: str, defined: dict[str, Operation], uses: Counter[str],
                op_name: str) -> Operation | None:
    op = defined.get(name)
    return op if op is not None and op.name == op_name and uses[name] == 1 else None


def _flat_gather(reshape: Operation, defined: dict[str, Operation], uses: Counter[str]
                 ) -> tuple[Operation, list[Operation], list[Operation]] | None:
    """When `reshape` closes a flattened gather: (the flat load, the ops the rewrite drops,
    the shaped ops that replace the load)."""
    if reshape.name != "reshape" or len(reshape.operands) != 1 or not reshape.result_types:
        return None
    load = _single_def(reshape.operands[0], defined, uses, "load_ptr_tko")
    if load is None or load.results[0] != reshape.operands[0]:
        return None
    data = [n for n, label in zip(load.operands, load.operand_labels, strict=True) if label == ""]
    if len(data) != 3:
        return None
    shape = reshape.result_types[0].shape
    flat = reshape.signature_types[0].shape if reshape.signature_types else None
    if not shape or flat is None or len(flat) != 1 or None in shape or math.prod(shape) != flat[0]:
        return None
    pointers = _single_def(data[0], defined, uses, "reshape")
    mask = _single_def(data[1], defined, uses, "reshape")
    spread = _single_def(data[2], defined, uses, "broadcast")
    scalar = _single_def(spread.operands[0], defined, uses, "reshape") if spread else None
    if pointers is None or mask is None or spread is None or scalar is None:
        return None
    if any(o.signature_types[0].shape != shape for o in (pointers, mask)) or \
            scalar.signature_types[0].shape != ():
        return None
    element = scalar.signature_types[0].element
    ones, dims = "x".join("1" * len(shape)), "x".join(map(str, shape))
    padding, spread_name = f"{data[2]}_shaped_1", f"{data[2]}_shaped"
    renames = {reshape.operands[0]: reshape.results[0], data[0]: pointers.operands[0],
               data[1]: mask.operands[0], data[2]: spread_name}
    load_text = re.sub(rf"tile<{flat[0]}x", f"tile<{dims}x", _rename_text(load.text, renames))
    lines = [f"{padding} = reshape {scalar.operands[0]} : {scalar.signature_types[0].text}"
             f" -> tile<{ones}x{element}>",
             f"{spread_name} = broadcast {padding} : tile<{ones}x{element}> -> "
             f"tile<{dims}x{element}>",
             load_text]
    parsed = parse_tileir("entry @rewrite() {\n" + "\n".join(lines) + "\nreturn\n}\n")
    shaped = [replace(o, location=load.location) for o in parsed.entry().ops[:-1]]
    return load, [pointers, mask, spread, scalar], shaped


def _rename_text(text: str, renames: dict[str, str]) -> str:
    """`text` with each whole value name in `renames` replaced."""
    return re.sub(r"%[\w.$-]+", lambda m: renames.get(m.group(0), m.group(0)), text)
