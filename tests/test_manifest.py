"""The typed manifest keeps the text format: every golden entry's manifest reads back into a
`Manifest` and writes out to the same JSON text."""

from __future__ import annotations

from pathlib import Path

import pytest

from specialization.manifest import MANIFEST_PREFIX, Manifest, parse_manifests, read_manifests

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
OUTPUTS = sorted(GOLDEN.glob("*.rs"))


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: p.stem)
def test_manifest_text_round_trips(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = [line.strip()[3:] for line in text.splitlines()
             if line.strip().startswith("// " + MANIFEST_PREFIX)]
    manifests = parse_manifests(text)
    assert len(manifests) == len(lines) > 0
    assert sorted(m.to_text() for m in manifests.values()) == sorted(lines)
    for entry, data in read_manifests(text).items():
        assert Manifest.from_json(data).to_json() == data
        assert manifests[entry].entry == entry


def test_a_changed_field_changes_the_text() -> None:
    text = next(p for p in OUTPUTS).read_text(encoding="utf-8")
    manifest = next(iter(parse_manifests(text).values()))
    changed = Manifest.from_json({**manifest.to_json(), "kernel": manifest.kernel + "_x"})
    assert changed.to_text() != manifest.to_text()


def test_added_params_are_not_kernel_params() -> None:
    data = {"kernel": "k", "entry": "k", "params": [
        {"name": "x", "kind": "array", "ndim": 1, "element": "f32", "written": True},
        {"name": "x_stride_0", "kind": "stride", "element": "i32", "array": "x", "dim": 0}]}
    manifest = Manifest.from_json(data)
    assert [p.name for p in manifest.kernel_params] == ["x"]
    assert manifest.param("x_stride_0").array == "x"
