"""`--verify --numeric` at translation: the structural and the numeric check of one freshly
translated file, from the same compiled IR.

Takes the displayed source path, the `TranslationResult` and the `--spec` files; prints one
structural and one numeric line per kernel and specialization and gives their JSON.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from transpiler.driver import read_manifests
from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck.check import check_pairs, collect_specs, compile_pairs
from transpiler.numeric_check.inputs import load_numeric_settings
from transpiler.numeric_check.run import numeric_check


def verify_with_numeric(display: str, result: Any, spec_files: list[str],
                        keep_ir: str | None, quiet: bool = False, seed: int = 0
                        ) -> list[dict[str, Any]]:
    source = parse_source(result.source, display)
    manifests = read_manifests(result.rust)
    specs = collect_specs(source, manifests, spec_files)
    settings = load_numeric_settings(spec_files)
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(result.rust, encoding="utf-8")
        pairs = compile_pairs(Path(display), rust_path, manifests, specs)
        numeric = numeric_check(Path(display), rust_path, manifests, pairs, settings,
                                seed=seed)
    outcomes = check_pairs(pairs, Path(keep_ir) if keep_ir else None)
    report: list[dict[str, Any]] = []
    for outcome, checked in zip(outcomes, numeric, strict=True):
        if not quiet:
            print(f"{display}: {outcome.line()}")
            if outcome.verdict == "FAIL" and outcome.text:
                print(outcome.text)
            print(f"{display}: {checked.line()}")
        entry = outcome.to_json()
        entry["numeric"] = checked.to_json()
        # A numeric FAIL (or a check that cannot run) fails the translation's verification.
        if checked.verdict == "FAIL" or checked.verdict in ("ERROR", "CANNOT_RUN"):
            entry["verdict"] = outcome.verdict if outcome.verdict in ("FAIL", "ERROR") else (
                "FAIL" if checked.verdict == "FAIL" else "ERROR")
        report.append(entry)
    return report
