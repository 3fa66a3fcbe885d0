"""`--verify` checks every entry of a translation over the values its constants can take:
specializations derived from the host code (`transpiler.frontend.host`), varied until each
Rust entry, both values of each bool constant and two values of each int constant are
reached (`transpiler.ircheck.coverage`); what cuTile Python rejects is SKIPPED, what nothing
reaches is NOT_CHECKED, and an edit in an arm or entry the host's own launches miss FAILs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from transpiler.driver import read_manifests, translate_bytes
from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck import toolchain
from transpiler.ircheck.canonicalize import convert_literal
from transpiler.ircheck.check import _collect_specs, select_manifest
from transpiler.ircheck.coverage import (
    Coverage,
    alternatives,
    candidates,
    choose,
    reached,
    targets_of,
)
from transpiler.ircheck.spec import ConstSpec, KernelSpec

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
KERNELS = Path(__file__).resolve().parent / "verify_kernels"


def _require_harness() -> None:
    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"toolchain not set up: {err}")


def _run(*args: str, cwd: Path = ROOT) -> tuple[int, dict]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "transpiler", *args, "--json"],
                          capture_output=True, text=True, env=env, cwd=cwd, check=False)
    # `--verify` prints its verdict lines before the report.
    text = proc.stdout if proc.stdout.startswith("{") else proc.stdout.partition("\n{")[2]
    report = json.loads(text if text.startswith("{") or not text else "{" + text)
    return proc.returncode, report or {"stderr": proc.stderr}


def _translation(source: Path) -> str:
    result = translate_bytes(source.read_bytes(), str(source))
    assert result.ok, result.diagnostics
    return result.rust


def _first_round(source: Path, rust: str) -> list[tuple[str, dict[str, object]]]:
    """(entry, constants) of each specialization `--verify` checks first."""
    manifests = read_manifests(rust)
    specs = _collect_specs(parse_source(source.read_text(), str(source)), manifests, [])
    out = []
    for kernel, chosen in specs.items():
        for spec in chosen:
            manifest = select_manifest(manifests, kernel, spec)
            assert manifest is not None, spec.label()
            out.append((manifest["entry"], {n: p.value for n, p in spec.params
                                            if isinstance(p, ConstSpec)}))
    return out


def test_alternatives_of_a_constant() -> None:
    assert alternatives(True) == [False]
    assert alternatives(128) == [256, 64]
    assert alternatives(1) == [2]
    assert alternatives(0) == [16, 1]
    # A float constant is an f32-bits const generic: its value is in both sides' IR.
    assert alternatives(1.5) == [3.0]
    assert alternatives(0.0) == [1.0]


def test_choice_keeps_only_candidates_that_reach_something_new() -> None:
    manifest = {"entry": "k", "kernel": "k", "params": [], "generics": [
        {"name": "FLAG", "kind": "bool", "params": ["FLAG"]},
        {"name": "TILE", "kind": "i32", "params": ["TILE"]}]}
    def spec(flag: bool, tile: int) -> KernelSpec:
        return KernelSpec("k", (("FLAG", ConstSpec(flag)), ("TILE", ConstSpec(tile))))

    pool = candidates([spec(True, 64), spec(True, 64)], [manifest])
    coverage = Coverage([manifest])
    chosen = choose(pool, lambda s: manifest, coverage)
    # The host's, then every int changed at once, then every bool flipped at once.
    assert chosen == [spec(True, 64), spec(True, 128), spec(False, 64)]
    assert coverage.missing() == []


def test_ragged_window_is_checked_in_both_centered_arms_with_a_window() -> None:
    source = GOLDEN / "ragged_window.py"
    checked = [c for _, c in _first_round(source, (GOLDEN / "ragged_window.rs").read_text())]
    assert {c["CENTERED"] for c in checked} == {True, False}
    assert {c["USE_LENS"] for c in checked} == {True, False}
    assert any(c["WINDOW"] > 0 and not c["CENTERED"] for c in checked)
    assert len({c["TILE"] for c in checked}) >= 2


def test_every_entry_of_a_condition_split_kernel_is_reached() -> None:
    source = KERNELS / "gathered_softmax.py"
    rust = _translation(source)
    entries = {m["entry"] for m in read_manifests(rust).values()}
    assert len(entries) == 6  # three element types x both outcomes of TILE_SIZE != N
    assert {e for e, _ in _first_round(source, rust)} == entries


def test_edit_in_the_centered_false_arm_fails() -> None:
    _require_harness()
    text = (GOLDEN / "ragged_window.rs").read_text()
    old = "let dim_11: i32 = (WINDOW / 2);"
    assert text.count(old) == 1
    edited = Path(os.environ.get("TMPDIR", "/tmp")) / "ragged_window_edited.rs"
    edited.write_text(text.replace(old, "let dim_11: i32 = (WINDOW * 2);"))
    code, report = _run("verify", str(GOLDEN / "ragged_window.py"), str(edited))
    assert code == 1, report
    failed = [v for v in report["verdicts"] if v["verdict"] == "FAIL"]
    assert failed and all("CENTERED=False" in v["specialization"] for v in failed)


def test_edit_in_an_entry_the_host_never_launches_fails(tmp_path: Path) -> None:
    _require_harness()
    source = KERNELS / "gathered_softmax.py"
    rust = _translation(source)
    head, entry = "fn gathered_softmax_kernel_f32_when_tile_size_ne_n<", "reduce_sum(numerator"
    start = rust.index(head)
    at = rust.index(entry, start)
    assert at < rust.index("#[cutile::entry", start + 1)
    edited = tmp_path / "gathered_softmax.rs"
    edited.write_text(rust[:at] + "reduce_max(numerator" + rust[at + len(entry):])
    code, report = _run("verify", str(source), str(edited))
    assert code == 1, report
    failed = [v for v in report["verdicts"] if v["verdict"] == "FAIL"]
    assert failed
    for verdict in failed:  # only the edited entry: float32 input, TILE_SIZE != N
        label = verdict["specialization"]
        assert "input:float32" in label
        assert re.search(r"\bN=(\d+)", label)[1] != re.search(r"TILE_SIZE=(\d+)", label)[1]
    assert not [v for v in report["verdicts"] if v["verdict"] == "NOT_CHECKED"]


def test_a_value_cutile_python_rejects_is_skipped_and_its_entry_not_checked(
        tmp_path: Path) -> None:
    _require_harness()
    source = KERNELS / "flag_rejects.py"
    code, report = _run(str(source), "-o", str(tmp_path / "out.rs"), "--verify")
    assert code == 0, report
    verdicts = report["files"][0]["verify"]
    by_verdict = {v["verdict"] for v in verdicts}
    assert by_verdict == {"PASS_WITH_NOTES", "SKIPPED", "NOT_CHECKED"} or by_verdict == {
        "PASS", "SKIPPED", "NOT_CHECKED"}
    assert all("WIDE=False" in v["specialization"] for v in verdicts
               if v["verdict"] == "SKIPPED")
    unchecked = [v for v in verdicts if v["verdict"] == "NOT_CHECKED"]
    assert [(v["entry"], v["generic"]) for v in unchecked] == [("copy_kernel_wide_false", None)]


def test_a_file_without_host_code_verifies(tmp_path: Path) -> None:
    _require_harness()
    source = KERNELS / "gather_no_host.py"
    code, report = _run(str(source), "-o", str(tmp_path / "out.rs"), "--verify")
    assert code == 0, report
    verdicts = report["files"][0]["verify"]
    assert {v["verdict"] for v in verdicts} <= {"PASS", "PASS_WITH_NOTES"}
    assert {("SCALE_BY_TWO=True" in v["specialization"]) for v in verdicts} == {True, False}


def test_a_constant_beyond_the_element_types_range_converts_to_infinity() -> None:
    assert convert_literal("<f32: 1000000.0>", "f16") == "<f16: inf>"
    assert convert_literal("<f32: -1000000.0>", "f16") == "<f16: -inf>"
    assert convert_literal("<f32: 1.5>", "f16") == "<f16: 1.5>"


def test_a_derived_dimension_is_no_condition_with_two_arms() -> None:
    # `TILE_X * TILE_Y` as a const generic (a flattened gather's shape) is arithmetic, not a
    # condition: no launch makes it "false", so it must not be a target of its own.
    manifest = {"entry": "k", "kernel": "k", "generics": [
        {"kind": "i32", "name": "TX", "params": ["TX"], "source": "const(TX)"},
        {"kind": "i32", "name": "TX_TIMES_TY", "params": ["TX", "TY"],
         "source": "derived((TX * TY))", "tree": ["*", ["param", "TX"], ["param", "TY"]]}]}
    assert [t.generic for t in targets_of(manifest)] == [None, "TX"]
    spec = KernelSpec(kernel="k", params=(("TX", ConstSpec(4)), ("TY", ConstSpec(8))))
    assert [t.generic for t, _ in reached(manifest, spec)] == [None, "TX"]
