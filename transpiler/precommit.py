"""`transpiler-precommit [--check] FILE.py ...`: the pre-commit hooks' entry point.

Takes the Python files pre-commit passes (the staged ones); gives, for each kernel file, its
translation `FILE.rs` beside it kept in sync: regenerated (default; exit 1 when it changed a
file, as pre-commit expects of a hook that edits), or only compared (`--check`, for CI: exit
1 when a translation is stale). A file is a kernel file when it defines a kernel; modules that
hold only helpers (`from .common import f`) have no translation of their own and are skipped.
A file that has kernels but does not translate fails the hook with its diagnostics.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from transpiler.cli import defines_no_kernel
from transpiler.cli import main as cli_main
from transpiler.driver import translate_bytes


def is_kernel_file(path: Path) -> bool:
    return not defines_no_kernel(translate_bytes(path.read_bytes(), str(path)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="transpiler-precommit",
                                     description="Keep FILE.rs beside each kernel FILE.py "
                                     "in sync with its translation.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a translation is stale")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        path = Path(name)
        if path.suffix != ".py" or not path.is_file() or not is_kernel_file(path):
            continue
        output = path.with_suffix(".rs")
        before = output.read_bytes() if output.exists() else None
        # --check says "would update FILE.rs"; a regeneration says so below.
        flags = ["--check"] if args.check else ["--quiet"]
        code = cli_main([str(path), "-o", str(output), *flags])
        changed = not args.check and (output.read_bytes() if output.exists() else None) != before
        if changed:
            print(f"transpiler: updated {output}")
        status = max(status, 1 if code or changed else 0)
    return status
