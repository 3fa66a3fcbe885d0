"""Triton golden kernels: every golden/triton/*.py translates byte for byte to its .rs, the
translation is deterministic, rustc accepts it against the `cutile` crate, and cuTile Rust
compiles every entry to Tile IR (with constants a launch would pass).

Regenerate deliberately with `pytest tests/test_triton_golden.py --update-golden`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from transpiler.analysis import evaluate_condition
from transpiler.diagnostics import render
from transpiler.driver import read_manifests, translate_bytes
from transpiler.ircheck import generated

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "triton"
SOURCES = sorted(GOLDEN.glob("*.py"))
# The constant a launch passes for each `tl.constexpr` int (a power of two, like a block
# size) and the element type for each launch-time element type generic.
CONST_INT = 64
TYPE_GENERIC = "f32"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_triton_golden_translation(source: Path, update_golden: bool) -> None:
    result = translate_bytes(source.read_bytes(), f"golden/triton/{source.name}")
    assert result.ok, "\n".join(render(d, result.source) for d in result.all_diagnostics())
    expected = source.with_suffix(".rs")
    if update_golden:
        expected.write_text(result.rust or "", encoding="utf-8")
    assert expected.exists(), f"{expected.name} is missing; run with --update-golden"
    assert result.rust == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_triton_translation_is_deterministic(source: Path) -> None:
    first = translate_bytes(source.read_bytes(), f"golden/triton/{source.name}")
    second = translate_bytes(source.read_bytes(), f"golden/triton/{source.name}")
    assert first.rust == second.rust


def test_triton_golden_corpus_is_large_enough() -> None:
    assert len([s for s in SOURCES if s.with_suffix(".rs").exists()]) >= 12


def _generic_values(manifest: dict[str, object], flag: bool) -> list[str]:
    values: dict[str, object] = {}
    out: list[str] = []
    for generic in manifest["generics"]:  # type: ignore[union-attr]
        kind = generic["kind"]
        if kind == "type":
            out.append(TYPE_GENERIC)
            continue
        if "tree" in generic:
            value = evaluate_condition(generic["tree"], values)
        elif kind == "bool":
            value = flag
        else:
            value = CONST_INT
        values[generic["name"]] = value
        out.append(str(value).lower() if isinstance(value, bool) else str(value))
    return out


@pytest.mark.parametrize("rs", sorted(GOLDEN.glob("*.rs")), ids=lambda p: p.stem)
def test_triton_golden_compiles_to_tile_ir(rs: Path) -> None:
    requests = []
    for entry, manifest in read_manifests(rs.read_text(encoding="utf-8")).items():
        for flag in (True, False):
            requests.append({"entry": entry, "generics": _generic_values(manifest, flag)})
    results = generated.compile_rust_kernels(rs, requests)
    failures = [f"{r.request['entry']} {r.request['generics']}: {r.error}"
                for r in results if not r.ok]
    assert not failures, "\n".join(failures)
    manifests = read_manifests(rs.read_text(encoding="utf-8"))
    for r in results:
        # Each path an access takes in the Tile IR is one its manifest notes name (an access
        # under a compile-time `if` may be folded away in one entry's IR).
        ir, notes = r.disassemble(), " ".join(manifests[r.request["entry"]]["notes"])
        assert "raised to a tensor view" in notes or "_view_tko" not in ir
        assert "kept as a pointer tile" in notes or "_ptr_tko" not in ir


def test_triton_golden_rust_type_checks_against_the_cutile_crate() -> None:
    files = sorted(GOLDEN.glob("*.rs"))
    errors = [d for d in generated.cargo_check_files(files) if d.is_error]
    assert errors == [], "\n".join(f"{d.file}:{d.line}: {d.message}" for d in errors)


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")
def test_triton_golden_outputs_are_rustfmt_clean(tmp_path: Path) -> None:
    outputs = sorted(GOLDEN.glob("*.rs"))
    copies = []
    for out in outputs:
        copy = tmp_path / out.name
        copy.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
        copies.append(copy)
    subprocess.run(["rustfmt", "--edition", "2021", *map(str, copies)], check=True)
    assert [c.name for c, o in zip(copies, outputs, strict=True)
            if c.read_text() != o.read_text()] == []
