"""SASS of one Rust entry under several specializations, side by side, on a CPU.

`bench/sass_parity.py` compiles both sides with one default layout. When the two runtimes
compile a kernel differently on the GPU (captured with `launcher/tileiras_capture.sh`), this
script answers which difference matters: it compiles the entry through the harness once per
variant (explicit `SpecializationBits` per tensor parameter, compile options, or another
copy of the translation with textual edits) and prints each variant's SASS
instruction count, registers, stack frame and the opcodes that differ from the first row.
Captured bytecode files (`--bytecode LABEL=FILE`) are compiled with the same tileiras and
printed beside them.

    .venv/bin/python -m bench.sass_variants --variants VARIANTS.json \
        [--bytecode python=CAPTURED.bytecode ...]

VARIANTS.json: {"file": "op.rs", "entry": "name", "generics": ["f16", "64"],
"variants": {"label": {"spec": {...}, "options": {...}, "replace": [["old", "new"]]}, ...}};
`spec` and `options` have the harness request's form (`harness/src/compile.rs`); `replace`
edits the source text (each `old` must occur exactly once). `file` is relative to the plan.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.sass_parity import SassStats, ensure_toolchain, sass_stats
from transpiler.ircheck.generated import compile_rust_kernels


def compile_variant(plan: dict[str, Any], variant: dict[str, Any], toolchain: Path) -> SassStats:
    """One variant's SASS statistics (the harness builds the bytecode, tileiras the cubin)."""
    source = Path(plan["file"])
    request = {"entry": plan["entry"], "id": "variant", "generics": plan.get("generics", [])}
    for key in ("spec", "options", "layout", "scalar_hints"):
        if key in variant:
            request[key] = variant[key]
    with tempfile.TemporaryDirectory(prefix="sass-variant-") as tmp:
        edits = variant.get("replace", [])
        if edits:
            source = edited_copy(source, edits, Path(tmp))
        result = compile_rust_kernels(source, [request], out_dir=tmp)[0]
        result.raise_for_error()
        assert result.bytecode is not None
        return sass_stats(result.bytecode.read_bytes(), toolchain)


def edited_copy(source: Path, edits: list[list[str]], folder: Path) -> Path:
    """`source` with each (old, new) replacement applied, written into `folder`."""
    text = source.read_text(encoding="utf-8")
    for old, new in edits:
        if text.count(old) != 1:
            raise SystemExit(f"sass_variants: {old!r} occurs {text.count(old)} times in {source}")
        text = text.replace(old, new)
    copy = folder / source.name
    copy.write_text(text, encoding="utf-8")
    return copy


def opcode_changes(base: SassStats, other: SassStats) -> str:
    """The opcodes whose counts differ, as `NAME a->b`."""
    names = sorted(set(base.opcodes) | set(other.opcodes))
    changed = [f"{n} {base.opcodes.get(n, 0)}->{other.opcodes.get(n, 0)}" for n in names
               if base.opcodes.get(n, 0) != other.opcodes.get(n, 0)]
    return ", ".join(changed) or "same opcodes"


def table(rows: list[tuple[str, SassStats]]) -> str:
    lines = ["| variant | instructions | registers | stack B | against the first row |",
             "| --- | --- | --- | --- | --- |"]
    base = rows[0][1]
    for label, stats in rows:
        lines.append(f"| {label} | {stats.instructions} | {stats.registers} | "
                     f"{stats.stack_bytes} | {opcode_changes(base, stats)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=Path, required=True, help="the plan (JSON)")
    parser.add_argument("--bytecode", action="append", default=[], metavar="LABEL=FILE",
                        help="captured Tile IR bytecode to compile beside the variants")
    args = parser.parse_args(argv)
    plan = json.loads(args.variants.read_text(encoding="utf-8"))
    base = args.variants.parent
    plan["file"] = str(base / plan["file"])
    toolchain = ensure_toolchain()
    rows: list[tuple[str, SassStats]] = []
    for item in args.bytecode:
        label, _, path = item.partition("=")
        rows.append((f"captured: {label}", sass_stats(Path(path).read_bytes(), toolchain)))
    for label, variant in plan["variants"].items():
        rows.append((label, compile_variant(plan, variant, toolchain)))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
