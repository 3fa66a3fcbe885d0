"""bench/interp_gpu.py's CPU steps: `prepare` writes cases the device step can launch, and
`compare` reports equal bits, and a changed element, from the device step's output format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from bench import interp_gpu


def _fake_device_run(stage: Path, out: Path, *, flip: str | None = None) -> None:
    """What the device step writes, made from the interpreter's own results."""
    out.mkdir()
    for case in json.loads((stage / "cases.json").read_text()):
        data = dict(np.load(stage / f"interp_{case['id']}.npz"))
        if flip is not None and case["id"] == "0000":
            raw = data[f"{flip}.bytes"].copy()
            raw[0] ^= 0x01
            data[f"{flip}.bytes"] = raw
        np.savez(out / f"gpu_{case['id']}.npz", **data)


def test_prepare_and_compare_vector_add(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    assert interp_gpu.prepare(stage, ["vector_add"]) == 0
    cases = json.loads((stage / "cases.json").read_text())
    assert cases and all(not c["interpreter_fault"] for c in cases)
    first = cases[0]
    assert [a["kind"] for a in first["args"]] == ["array", "array", "array", "const"]
    assert (stage / "golden" / "vector_add.py").exists()
    # Ragged sizes are prepared too, each compiled for its own layout facts.
    assert any("N=1000" in c["case"] for c in cases)

    same = tmp_path / "same"
    _fake_device_run(stage, same)
    report = tmp_path / "same.md"
    interp_gpu.compare(stage, same, report)
    text = report.read_text()
    assert "| no |" not in text
    assert f"{len(cases)} launch cases, {3 * len(cases)} outputs compared, " \
           f"{3 * len(cases)} bitwise equal" in text

    changed = tmp_path / "changed"
    _fake_device_run(stage, changed, flip="c")
    report = tmp_path / "changed.md"
    interp_gpu.compare(stage, changed, report)
    rows = [line for line in report.read_text().splitlines() if "| no |" in line]
    assert len(rows) == 1 and "| c |" in rows[0] and "| 1 |" in rows[0]


def test_compare_lists_cases_the_device_did_not_run(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    interp_gpu.prepare(stage, ["vector_add"])
    partial = tmp_path / "partial"
    _fake_device_run(stage, partial)
    (partial / "gpu_0001.npz").unlink()
    report = tmp_path / "partial.md"
    interp_gpu.compare(stage, partial, report)
    assert "1 cases not run on the GPU" in report.read_text()
    shutil.rmtree(stage)
