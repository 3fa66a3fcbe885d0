"""What `--emit` can produce and where it is written by default.

Kept apart from `transpiler.emit_launcher` (a large module) so that the command line can
parse its arguments and plan its output paths without importing the launcher generator.
"""

from __future__ import annotations

from pathlib import Path

#: `--emit` choices: the Rust kernels, their C-ABI launchers, a Python drop-in wrapper.
EMIT_KINDS: tuple[str, ...] = ("kernels", "launcher", "pywrapper")
_EMIT_SUFFIX = {"kernels": ".rs", "launcher": "_launcher.rs", "pywrapper": "_wrapper.py"}


def emit_path(path: Path, kind: str) -> Path:
    """Where `--emit KIND` writes the output for source `path` by default."""
    return path.with_name(path.stem + _EMIT_SUFFIX[kind])
