"""The two checks a spliced fragment must pass: the Rust compile check, then the IR check.

Takes the Python source and the whole Rust file with the fragments spliced in; gives
`Problem`s (the stage, the message that becomes the model's feedback, and the `.rs` lines it
points at, so it can be blamed on a hole) and, for the IR check, the per-specialization
outcomes. The compile check is `cargo check` of the file as a module of the harness's
`golden-check` crate against the real `cutile` crate (`ircheck.generated.cargo_check_files`);
the IR check is `ircheck.check.check_file` on every specialization of each kernel with a hole
(`--spec` files, else `derive_specs`). Both run in a fresh temporary folder under fixed file
names, and messages are stripped of that folder and of the home directory, so the feedback
(and so the next prompt) is the same on every run. Model output is compiled here, never
executed or imported.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from specialization.manifest import parse_manifests, read_manifests

RUST_NAME = "translation.rs"
_LOC_RE = re.compile(re.escape(RUST_NAME) + r":(\d+)")


@dataclass
class Problem:
    stage: str  # "compile" | "ir"
    text: str
    lines: list[int] = field(default_factory=list)
    kernel: str | None = None
    fixable: bool = True  # False: the reference side failed; no fragment can help


@dataclass
class IrResult:
    outcomes: list[dict[str, Any]]
    problems: list[Problem]

    def verdict_of(self, kernel: str) -> str:
        """`PASS`, `PASS_WITH_NOTES` (worst of the kernel's specializations) and their count."""
        mine = [o for o in self.outcomes if o["kernel"] == kernel]
        worst = "PASS_WITH_NOTES" if any(o["verdict"] == "PASS_WITH_NOTES" for o in mine) \
            else "PASS"
        return f"{worst} on {len(mine)} specialization{'s' if len(mine) != 1 else ''}"


class Verifier(Protocol):
    def compile_problems(self, rust: str) -> list[Problem]: ...

    def ir_check(self, source: str, display: str, rust: str,
                 kernels: list[str]) -> IrResult: ...


def _clean(text: str, folder: Path) -> str:
    text = text.replace(str(folder) + "/", "").replace(str(folder), ".")
    return text.replace(str(Path.home()), "~")


@dataclass
class HarnessVerifier:
    """The real checks (needs cargo, the harness binary, cuda-tile and tileirdisasm)."""

    spec_files: list[str] = field(default_factory=list)

    def compile_problems(self, rust: str) -> list[Problem]:
        from transpiler.ircheck.generated import cargo_check_files

        with tempfile.TemporaryDirectory(prefix="llm-fallback-") as tmp:
            folder = Path(tmp)
            path = folder / RUST_NAME
            path.write_text(rust, encoding="utf-8")
            diagnostics = cargo_check_files([path])
            return [Problem("compile", _clean(d.rendered or d.message, folder),
                            [d.line] if d.line and d.file and d.file.endswith(RUST_NAME) else [])
                    for d in diagnostics if d.is_error]

    def ir_check(self, source: str, display: str, rust: str, kernels: list[str]) -> IrResult:
        from transpiler.ircheck.check import check_file

        manifests = read_manifests(rust)
        with tempfile.TemporaryDirectory(prefix="llm-fallback-") as tmp:
            folder = Path(tmp)
            py_path = folder / (Path(display).name if display.endswith(".py") else "source.py")
            py_path.write_text(source, encoding="utf-8")
            rs_path = folder / RUST_NAME
            rs_path.write_text(rust, encoding="utf-8")
            specs = self._specs(source, display, manifests, kernels)
            outcomes = check_file(py_path, rs_path, parse_manifests(rust), specs)
            data = [_outcome_json(o, folder) for o in outcomes]
        problems = [_problem(o) for o in data if o["verdict"] in ("FAIL", "ERROR")]
        for kernel in kernels:
            if not any(o["kernel"] == kernel for o in data):
                problems.append(Problem("ir", f"no specialization of `{kernel}` could be "
                                        "checked (give one with --spec)", [], kernel, False))
        return IrResult(data, problems)

    def _specs(self, source: str, display: str, manifests: dict[str, dict[str, Any]],
               kernels: list[str]) -> dict[str, list[Any]]:
        """`--verify`'s own choice (`--spec` files, else derived), for these kernels only."""
        from transpiler.frontend.cutile_py import parse_source
        from transpiler.ircheck import check

        collect = getattr(check, "collect_specs", None) or check._collect_specs
        specs = collect(parse_source(source, display), manifests, self.spec_files)
        return {k: list(specs.get(k, [])) for k in kernels}


def _outcome_json(outcome: Any, folder: Path) -> dict[str, Any]:
    data = outcome.to_json()
    data["error"] = _clean(data["error"], folder) if data.get("error") else None
    for diff in data.get("differences", []):
        for key in ("reference", "generated", "location", "generated_location", "message"):
            if isinstance(diff.get(key), str):
                diff[key] = _clean(diff[key], folder)
    return data


def _problem(outcome: dict[str, Any]) -> Problem:
    kernel = str(outcome["kernel"])
    head = f"{outcome['verdict']} for {outcome['specialization']}"
    error = outcome.get("error")
    if error:
        fixable = "cuTile Python did not compile" not in error
        return Problem("ir", f"{head}: {error}", _lines(error), kernel, fixable)
    parts = [head]
    lines: list[int] = []
    for diff in outcome.get("differences", []):
        parts.append(f"difference [{diff['kind']}] {diff['message']}")
        parts.append(f"  cuTile Python: {diff.get('reference')}")
        parts.append(f"  cuTile Rust:   {diff.get('generated')}")
        lines += _lines(str(diff.get("generated_location") or ""))
    return Problem("ir", "\n".join(parts), lines, kernel)


def _lines(text: str) -> list[int]:
    return [int(n) for n in _LOC_RE.findall(text)]
