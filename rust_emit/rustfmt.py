"""Final layout pass: printer text -> the same text as rustfmt lays it out.

Takes Rust text from `rust_emit.printer`; gives it back formatted by `rustfmt --edition 2021`
(found on PATH or through `$RUSTFMT`), so the output is unchanged by a user's own rustfmt run.
The printer already follows rustfmt's layout for short lines; rustfmt's width heuristics for
long calls and chains are applied here rather than re-implemented. Without rustfmt the
printer's layout is returned as it is.
"""

from __future__ import annotations

import os
import shutil
import subprocess


def rustfmt_path() -> str | None:
    return os.environ.get("RUSTFMT") or shutil.which("rustfmt")


def format_rust(text: str) -> str:
    exe = rustfmt_path()
    if exe is None:
        return text
    proc = subprocess.run(
        [exe, "--edition", "2021", "--emit", "stdout"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        # Never hide a printer bug behind a formatter failure: return the printer's text,
        # which the compile check will then reject with rustc's own message.
        return text
    return proc.stdout
