"""`--verify [--numeric]` at translation: the checks of one freshly translated file.

Takes the displayed source path, the source and Rust texts and the `--spec` files; gives the
outcomes of the structural check, in rounds until every Rust entry is reached
(`ircheck.check.verify_specs`: SKIPPED and NOT_CHECKED lines included), and with `numeric`
the numeric check's outcome of every specialization both sides compiled, from the same IR.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from transpiler.driver import read_manifests
from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck.check import IrPair, plan_specs, verify_specs
from transpiler.numeric_check.inputs import load_numeric_settings
from transpiler.numeric_check.run import numeric_check


def verify_file(display: str, source_text: str, rust_text: str, spec_files: list[str],
                keep_ir: str | None, numeric: bool = False, seed: int = 0) -> list[Any]:
    """Every outcome (each with `verdict`, `line()`, `to_json()`): structural first, then
    numeric."""
    source = parse_source(source_text, display)
    manifests = read_manifests(rust_text)
    plan = plan_specs(source, manifests, spec_files)
    compiled: list[IrPair] = []
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(rust_text, encoding="utf-8")
        outcomes: list[Any] = verify_specs(Path(display), rust_path, manifests, plan,
                                           Path(keep_ir) if keep_ir else None, None,
                                           compiled.extend if numeric else None)
        if numeric:
            outcomes += numeric_check(Path(display), rust_path, manifests, compiled,
                                      load_numeric_settings(spec_files), seed=seed)
    return outcomes
