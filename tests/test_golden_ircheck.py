"""Every golden translation: compiles against the real `cutile` crate (`cargo check`) and its
Tile IR matches cuTile Python's for each specialization in `golden_specs.py`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from golden_specs import GOLDEN_SPECS

from transpiler.driver import read_manifests
from transpiler.ircheck import toolchain
from transpiler.ircheck.check import check_file

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
OUTPUTS = sorted(GOLDEN.glob("*.rs"))


def _require_harness() -> None:
    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"toolchain not set up (run `bash setup.sh`): {err}")


def test_golden_outputs_compile_against_cutile() -> None:
    _require_harness()
    from transpiler.ircheck.generated import cargo_check_files

    errors = [d for d in cargo_check_files(OUTPUTS) if d.is_error]
    assert not errors, "\n".join(d.rendered for d in errors[:5])


def test_every_golden_kernel_has_a_specialization() -> None:
    for out in OUTPUTS:
        kernels = {m["kernel"] for m in read_manifests(out.read_text()).values()}
        specified = {s.kernel for s in GOLDEN_SPECS.get(out.stem, [])}
        assert kernels <= specified, f"{out.name}: no spec for {kernels - specified}"


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda p: p.stem)
def test_golden_ir_matches_python(output: Path) -> None:
    _require_harness()
    specs: dict[str, list] = {}
    for spec in GOLDEN_SPECS[output.stem]:
        specs.setdefault(spec.kernel, []).append(spec)
    manifests = read_manifests(output.read_text())
    outcomes = check_file(output.with_suffix(".py"), output, manifests, specs)
    assert outcomes
    failed = [o for o in outcomes if o.verdict not in ("PASS", "PASS_WITH_NOTES")]
    assert not failed, "\n\n".join(f"{o.line()}\n{o.text}" for o in failed)
