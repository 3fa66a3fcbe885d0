"""`--verify [--numeric]` at translation: the checks of one freshly translated file.

Takes the displayed source path, the source and Rust texts and the `--spec` files; gives the
outcomes of the structural check, in rounds until every Rust entry is reached
(`ircheck.check.verify_specs`: SKIPPED and NOT_CHECKED lines included), and with `numeric`
the numeric check's outcome of every specialization both sides compiled, from the same IR.
A Triton file's outcomes are those of its proof (`triton_proof`: Triton's interpreter and TTIR
facts), with or without `numeric`: the interpreter is its proof.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from transpiler.driver import read_manifests
from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck.check import IrPair, plan_specs, verify_specs
from transpiler.numeric_check.inputs import load_numeric_settings
from transpiler.numeric_check.run import numeric_check
from transpiler.numeric_check.triton_proof import is_triton_only, prove_triton


@dataclass
class WithNumeric:
    """A structural outcome and the numeric check of the same specialization: a numeric
    FAIL fails it, a numeric check that cannot run makes it an ERROR (never a PASS)."""

    display: str
    structural: Any
    numeric: Any

    @property
    def verdict(self) -> str:
        own = self.structural.verdict
        if own in ("FAIL", "ERROR", "SKIPPED"):
            # SKIPPED: cuTile Python rejects the derived specialization, so neither side
            # has anything to run; that does not fail the check.
            return own
        if self.numeric.verdict == "FAIL":
            return "FAIL"
        return "ERROR" if self.numeric.verdict in ("ERROR", "CANNOT_RUN") else own

    @property
    def text(self) -> str:
        return getattr(self.structural, "text", "")

    # What a reader of structural outcomes (`--report`) looks at, as the structural one has it.
    @property
    def kernel(self) -> str:
        return str(self.structural.kernel)

    @property
    def spec(self) -> Any:
        return getattr(self.structural, "spec", None)

    @property
    def notes(self) -> list[str]:
        return list(getattr(self.structural, "notes", []))

    @property
    def differences(self) -> list[dict[str, Any]]:
        return list(getattr(self.structural, "differences", []))

    @property
    def error(self) -> str | None:
        return getattr(self.structural, "error", None)

    def line(self) -> str:
        return f"{self.structural.line()}\n{self.display}: {self.numeric.line()}"

    def to_json(self) -> dict[str, Any]:
        entry = self.structural.to_json()
        entry["numeric"] = self.numeric.to_json()
        entry["verdict"] = self.verdict
        return entry


def verify_file(display: str, source_text: str, rust_text: str, spec_files: list[str],
                keep_ir: str | None, numeric: bool = False, seed: int = 0,
                derived: bool = True) -> list[Any]:
    """Every outcome (each with `verdict`, `line()`, `to_json()`), with `numeric` each
    structural one that both sides compiled joined to its numeric check. `derived=False`
    checks the spec files' specializations only."""
    source = parse_source(source_text, display)
    if is_triton_only(source_text, len(source.kernels)):
        with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
            rust_path = Path(tmp) / "translation.rs"
            rust_path.write_text(rust_text, encoding="utf-8")
            return list(prove_triton(Path(display), rust_path, spec_files, seed,
                                     keep_ir=Path(keep_ir) if keep_ir else None))
    manifests = read_manifests(rust_text)
    plan = plan_specs(source, manifests, spec_files)
    if not derived:
        plan = replace(plan, pools={})
    compiled: list[IrPair] = []
    with tempfile.TemporaryDirectory(prefix="transpiler-verify-") as tmp:
        rust_path = Path(tmp) / "translation.rs"
        rust_path.write_text(rust_text, encoding="utf-8")
        outcomes: list[Any] = verify_specs(Path(display), rust_path, manifests, plan,
                                           Path(keep_ir) if keep_ir else None, None,
                                           compiled.extend if numeric else None)
        if not numeric:
            return outcomes
        checked = numeric_check(Path(display), rust_path, manifests, compiled,
                                load_numeric_settings(spec_files), seed=seed)
    return join_numeric(display, outcomes, checked)


def join_numeric(display: str, outcomes: list[Any], checked: list[Any]) -> list[Any]:
    """Each structural outcome joined to the numeric check of its specialization, where
    there is one (`WithNumeric`)."""
    by_spec = {(n.kernel, n.spec.label()): n for n in checked}
    joined: list[Any] = []
    for outcome in outcomes:
        spec = getattr(outcome, "spec", None)
        found = by_spec.get((outcome.kernel, spec.label())) if spec is not None else None
        joined.append(outcome if found is None else WithNumeric(display, outcome, found))
    return joined
