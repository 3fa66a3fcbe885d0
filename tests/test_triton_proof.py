"""The proof of Triton translations: every golden Triton kernel passes it (Triton's interpreter
against the translation's Tile IR on seeded inputs of several shapes, ragged ones included,
and Triton's TTIR facts), edits of translations that change what they compute are rejected,
and differences that change nothing (another reduction order, NaN where NaN is) are not.

Launch shapes are the spec files in `tests/triton_specs/` (one per golden, small shapes).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from transpiler.driver import translate_bytes
from transpiler.ircheck.check import generics_for
from transpiler.ircheck.spec import ConstSpec, KernelSpec
from transpiler.lowering.raise_pointers import RAISE_ALL
from transpiler.numeric_check.compare import ELEMENT_TOLERANCES, compare_output
from transpiler.numeric_check.triton_proof import TritonOutcome, prove_triton

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "triton"
SPECS = Path(__file__).parent / "triton_specs"
SOURCES = sorted(GOLDEN.glob("*.py"))
PASSING = ("PASS", "PASS_WITH_NOTES")


def _prove(name: str, rust: Path | None = None, facts: bool = True
           ) -> list[TritonOutcome]:
    stem = Path(name).name  # `no_raise/x` names the pointer-tile translation of `x.py`
    found = prove_triton(GOLDEN / f"{stem}.py", rust or GOLDEN / f"{name}.rs",
                         [str(SPECS / f"{stem}.json")], facts=facts)
    return [o for o in found if isinstance(o, TritonOutcome)]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_golden_triton_translation_is_proved(source: Path) -> None:
    assert (SPECS / f"{source.stem}.json").exists(), "every golden needs launch shapes"
    outcomes = _prove(source.stem)
    assert outcomes
    bad = [o.line() + ("\n" + o.text if o.text else "") for o in outcomes
           if o.verdict not in PASSING]
    assert not bad, "\n".join(bad)
    for outcome in outcomes:
        assert outcome.numeric == "PASS" and outcome.facts is not None
        # a JIT fact entry runs on the spec's cases that hold its facts (at least one)
        assert any(c.grid != outcome.cases[0].grid for c in outcome.cases) or len(
            outcome.cases) >= (1 if outcome.jit_facts else 2)


# ---- inputs that must fail --------------------------------------------------------------------

#: (golden, what the edit breaks, text of the translation, its replacement); `no_raise/`
#: edits the pointer-tile translation (masks and offsets are explicit there)
MUTANTS: list[tuple[str, str, str, str]] = [
    ("no_raise/vector_add", "mask bound", "let mask: Tile<bool, { [BLOCK_SIZE] }> = lt_tile(",
     "let mask: Tile<bool, { [BLOCK_SIZE] }> = le_tile("),
    ("no_raise/vector_add", "offset off by one", "let block_start: i32 = pid * BLOCK_SIZE;",
     "let block_start: i32 = pid * BLOCK_SIZE + 1i32;"),
    ("fused_softmax", "other", "constant(f32::NEG_INFINITY, const_shape![])",
     "constant(0.0f32, const_shape![])"),
    ("c_division", "truncating division", "rounding::Zero", "rounding::NegativeInf"),
    ("fused_softmax", "operand order", "= x_2\n            - value_15\n"
     "                .reshape(const_shape![1])\n"
     "                .broadcast(const_shape![BLOCK_SIZE]);",
     "= value_15.reshape(const_shape![1]).broadcast(const_shape![BLOCK_SIZE]) - x_2;"),
    ("layer_norm", "accumulator type", "            _mean = _mean + a;\n",
     "            let low: Tile<f16, { [BLOCK_SIZE] }> = convert_tile(_mean + a);\n"
     "            _mean = convert_tile(low);\n"),
    ("constexpr_choices", "leaky slope", "constant(0.01f32, const_shape![BLOCK])",
     "constant(0.02f32, const_shape![BLOCK])"),
    ("seeded_dropout", "philox key schedule", "philox_k0_9 + philox_key_a;",
     "philox_k0_9 + philox_key_b;"),
    ("split_join", "split half", "extract(pairs, [index_tile_12, index_tile_13])",
     "extract(pairs, [index_tile_12, index_tile_12])"),
    ("bit_invert", "all-ones xor", "constant(-1i32, const_shape![BLOCK])",
     "constant(-2i32, const_shape![BLOCK])"),
    ("bit_invert", "bool not", "let keep: Tile<bool, { [BLOCK] }> = arg_13 ^ t_12;",
     "let keep: Tile<bool, { [BLOCK] }> = arg_13;"),
    ("host_descriptor_norm", "descriptor extent",
     "broadcast_scalar(w_desc_shape_0, const_shape![BLOCK_N])",
     "broadcast_scalar(w_desc_shape_0 - 1i32, const_shape![BLOCK_N])"),
    ("host_descriptor_norm", "descriptor row stride",
     "broadcast_scalar(x_desc_stride_0, const_shape![BLOCK_M, 1])",
     "broadcast_scalar(x_desc_stride_0 + 1i32, const_shape![BLOCK_M, 1])"),
    ("clamp_rows", "NaN propagation", "maxf(conv_19, t_20, nan::Enabled, ftz::Disabled)",
     "maxf(conv_19, t_20, nan::Disabled, ftz::Disabled)"),
    ("dtype_constexpr", "element-type constexpr", "let conv_17: Tile<f16, { [BLOCK] }> = "
     "convert_tile(acc_2);", "let conv_17: Tile<bf16, { [BLOCK] }> = convert_tile(acc_2);"),
    ("optional_mask", "mask of the tensor entry", "select(arg_22, x, t_21)",
     "select(arg_22, t_21, x)"),
    ("descending_loops", "count-down trip count", "scalar_to_tile((arg_2 + dim_1) / BLOCK)",
     "scalar_to_tile(arg_2 / BLOCK)"),
    ("strided_rows_i64", "counted loop step", "row = row + step;", "row = row + step + step;"),
    ("strided_rows_i64", "counted loop exit", "if row < stop {", "if row < stop - 1i64 {"),
    ("float_constexpr", "float constexpr bits", "let bits_39: Tile<i32, { [] }> = "
     "scalar_to_tile(TEMPERATURE_BITS);", "let bits_39: Tile<i32, { [] }> = "
     "scalar_to_tile(BETA_BITS);"),
    ("float_constexpr", "float constexpr arithmetic", "broadcast_scalar(val_13 - BETA, "
     "const_shape![BLOCK])", "broadcast_scalar(val_13 + BETA, const_shape![BLOCK])"),
    ("ignored_rows", "pointer moved in the exit arm",
     "let flag_ptr_3: PointerTile<*mut EFlagPtr, { [] }> = flag_ptr_2.offset_tile(offsets_15);",
     "let flag_ptr_3: PointerTile<*mut EFlagPtr, { [] }> = flag_ptr_2;"),
    ("skip_masked_rows", "nested early exit", "let cond: Tile<bool, { [] }> = eq_tile(keep, t_7);",
     "let cond: Tile<bool, { [] }> = ne_tile(keep, t_7);"),
]


def _mutate(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (GOLDEN / f"{name}.rs").read_text(encoding="utf-8")
    assert old in text, old
    out = tmp_path / f"{Path(name).name}.rs"
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


@pytest.mark.parametrize("name,what,old,new", MUTANTS, ids=[f"{m[0]}-{m[1]}" for m in MUTANTS])
def test_a_changed_translation_fails(tmp_path: Path, name: str, what: str, old: str,
                                     new: str) -> None:
    outcomes = _prove(name, _mutate(tmp_path, name, old, new), facts=False)
    assert any(o.verdict == "FAIL" for o in outcomes), [o.line() for o in outcomes]
    failed = next(o for o in outcomes if o.verdict == "FAIL")
    assert failed.reason and ("Triton" in failed.reason or "faults" in failed.reason)


def _activation_spec(tmp_path: Path, activation: str) -> Path:
    entry = json.loads((SPECS / "constexpr_choices.json").read_text(encoding="utf-8"))
    first = entry["activate"][0]
    spec = tmp_path / "activate.json"
    spec.write_text(json.dumps({"activate": [{**first, "ACTIVATION": activation}]}),
                    encoding="utf-8")
    return spec


def test_a_string_constexpr_selects_its_entry(tmp_path: Path) -> None:
    outcomes = [o for o in prove_triton(
        GOLDEN / "constexpr_choices.py", GOLDEN / "constexpr_choices.rs",
        [str(_activation_spec(tmp_path, "leaky_relu"))], facts=False)
        if isinstance(o, TritonOutcome)]
    # the general entry and its JIT fact entry, both of the leaky_relu choice
    assert [o.jit_facts != () for o in outcomes] == [False, True]
    assert all(o.verdict == "PASS" and o.entry.startswith("activate_activation_leaky_relu")
               for o in outcomes)


def test_a_string_constexpr_no_entry_folds_is_an_error(tmp_path: Path) -> None:
    (outcome,) = [o for o in prove_triton(
        GOLDEN / "constexpr_choices.py", GOLDEN / "constexpr_choices.rs",
        [str(_activation_spec(tmp_path, "gelu"))], facts=False)
        if isinstance(o, TritonOutcome)]
    assert outcome.verdict == "ERROR" and "no Rust entry" in (outcome.reason or "")


def test_a_folded_string_constant_refuses_another_string() -> None:
    manifest = {"params": [{"name": "ACTIVATION", "kind": "const", "fixed": "relu"}],
                "generics": []}
    asked = KernelSpec("activate", (("ACTIVATION", ConstSpec("leaky_relu")),))
    with pytest.raises(ValueError, match="folds `ACTIVATION`"):
        generics_for(manifest, asked)
    assert generics_for(manifest, KernelSpec("activate", (("ACTIVATION", ConstSpec("relu")),))
                        ) == []


def _general_rust(stem: str) -> str:
    """A golden's translation without its JIT fact entries (the general entries only), its
    accesses raised to views (`RAISE_ALL`: the edits below cut a view store)."""
    source = GOLDEN / f"{stem}.py"
    return translate_bytes(source.read_bytes(), f"golden/triton/{source.name}",
                           jit_facts=False, raise_pointers=RAISE_ALL).rust or ""


def test_a_dropped_store_fails(tmp_path: Path) -> None:
    text = _general_rust("c_division")
    stores = [m.start() for m in re.finditer(r"\n        unsafe \{\n            store_view_raw",
                                             text)]
    assert len(stores) == 2
    end = text.index("};\n", stores[1]) + 2
    out = tmp_path / "c_division.rs"
    out.write_text(text[:stores[1]] + text[end:], encoding="utf-8")
    outcomes = prove_triton(GOLDEN / "c_division.py", out, [str(SPECS / "c_division.json")],
                            facts=False)
    failed = [o for o in outcomes if o.verdict == "FAIL"]
    assert failed and "`r_ptr`" in (failed[0].reason or "")


def test_a_dropped_store_breaks_the_ttir_facts(tmp_path: Path) -> None:
    text = _general_rust("c_division")
    start = text.rindex("\n        unsafe {\n            store_view_raw")
    end = text.index("};\n", start) + 2
    out = tmp_path / "c_division.rs"
    out.write_text(text[:start] + text[end:], encoding="utf-8")
    (outcome,) = _prove("c_division", out)
    assert outcome.facts is not None and outcome.facts.status == "FAIL"
    assert any("number of store ops" in d.what for d in outcome.facts.differences)


# ---- no crying wolf ---------------------------------------------------------------------------


def test_another_summation_order_is_within_tolerance() -> None:
    rng = np.random.default_rng(3)
    values = (rng.standard_normal((8, 1000)) * 4).astype(np.float32)
    forward = np.array([np.add.reduce(row, dtype=np.float32) for row in values])
    backward = np.zeros(8, np.float32)
    for column in range(values.shape[1] - 1, -1, -1):
        backward = (backward + values[:, column]).astype(np.float32)
    assert not np.array_equal(forward, backward)
    assert compare_output("y", forward, backward, ELEMENT_TOLERANCES["float32"]).ok
    assert not compare_output("y", forward, forward.astype(np.float16).astype(np.float32),
                              ELEMENT_TOLERANCES["float32"]).ok


def test_nan_compares_as_nan() -> None:
    reference = np.array([1.0, np.nan, -np.inf, 0.0], np.float32)
    same = np.array([1.0, np.nan, -np.inf, 0.0], np.float32)
    same[1] = np.float32(np.nan) * -1  # another NaN bit pattern
    assert compare_output("y", reference, same, ELEMENT_TOLERANCES["float32"]).ok
    moved = np.array([np.nan, 1.0, -np.inf, 0.0], np.float32)
    verdict = compare_output("y", reference, moved, ELEMENT_TOLERANCES["float32"])
    assert not verdict.ok and verdict.index == (0,)


def test_integers_are_exact() -> None:
    reference = np.array([3, -2, 7], np.int32)
    assert not compare_output("q", reference, reference + np.array([0, 1, 0], np.int32),
                              ELEMENT_TOLERANCES["exact"]).ok


# ---- the commands -----------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "transpiler", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, timeout=600)


def test_verify_command_passes_and_reports_json() -> None:
    done = _cli("verify", "golden/triton/saxpy.py", "golden/triton/saxpy.rs", "--spec",
                "tests/triton_specs/saxpy.json", "--json")
    assert done.returncode == 0, done.stderr
    assert "PASS" in done.stderr
    import json

    report = json.loads(done.stdout)
    # no `tl.dot`: pointer tiles; the JIT fact entry assumes facts on them
    verdict, fact = report["verdicts"]
    assert verdict["numeric"]["verdict"] == "PASS" and fact["numeric"]["verdict"] == "PASS"
    assert verdict["ttir_facts"]["verdict"] in PASSING
    assert not verdict["jit_facts"] and fact["jit_facts"]


def test_verify_command_fails_a_mutant(tmp_path: Path) -> None:
    name, _, old, new = MUTANTS[1]
    rust = _mutate(tmp_path, name, old, new)
    stem = Path(name).name
    done = _cli("verify", f"golden/triton/{stem}.py", str(rust), "--spec",
                f"tests/triton_specs/{stem}.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL" in done.stdout and "Triton" in done.stdout


def test_translate_and_verify(tmp_path: Path) -> None:
    source = tmp_path / "saxpy.py"
    shutil.copy(GOLDEN / "saxpy.py", source)
    report = tmp_path / "report.html"
    done = _cli(str(source), "-o", str(tmp_path / "saxpy.rs"), "--verify", "--spec",
                str(SPECS / "saxpy.json"), "--report", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "Triton's interpreter" in done.stdout
    page = report.read_text(encoding="utf-8")
    assert "saxpy_kernel[x_ptr:float32/1" in page and "PASS" in page


def test_no_shapes_is_an_error_not_a_pass(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text('{"saxpy_kernel": [{"x_ptr": {"dtype": "float32", "ndim": 1}, '
                    '"y_ptr": {"dtype": "float32", "ndim": 1}, "a": {"scalar": "float32"}, '
                    '"n": {"scalar": "int32"}, "BLOCK": 64}]}', encoding="utf-8")
    done = _cli("verify", "golden/triton/saxpy.py", "golden/triton/saxpy.rs", "--spec",
                str(spec))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ERROR" in done.stdout and "numeric" in done.stdout


HOST_FILE = '''import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x * alpha, mask=mask)


def scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 128),)](x, y, n, alpha, BLOCK=128)
    return y
'''
HOST_SHAPES = ('{"scale_kernel": [{"numeric": {"sizes": [{"N": 256}, {"N": 300}], '
               '"shapes": {"x_ptr": ["N"], "y_ptr": ["N"]}, "scalars": {"n": "N", '
               '"alpha": 0.5}, "grid": ["cdiv(N, BLOCK)", 1, 1]}}]}')


def test_host_launches_give_the_specializations(tmp_path: Path) -> None:
    source = tmp_path / "scale.py"
    source.write_text(HOST_FILE, encoding="utf-8")
    shapes = tmp_path / "shapes.json"
    shapes.write_text(HOST_SHAPES, encoding="utf-8")
    done = _cli(str(source), "-o", str(tmp_path / "scale.rs"), "--verify", "--spec",
                str(shapes), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    import json

    (file_report,) = json.loads(done.stdout)["files"]
    checked = [v for v in file_report["verify"] if v["verdict"] != "NOT_CHECKED"]
    label = "scale_kernel[x_ptr:float32/1,y_ptr:float32/1,n:int32,alpha:float32,BLOCK=128]"
    # the launched entry, and its JIT fact entry on the cases that hold its facts
    assert [v["specialization"] for v in checked] == [
        label, f"{label} [JIT fact entry scale_kernel_f32_jit]"]
    assert all(v["numeric"]["verdict"] == "PASS" for v in checked)
    # the f16 and bf16 entries no launch reaches are listed, never passed
    assert {v["entry"] for v in file_report["verify"] if v["verdict"] == "NOT_CHECKED"} == {
        "scale_kernel_f16", "scale_kernel_bf16", "scale_kernel_f16_jit", "scale_kernel_bf16_jit"}


def test_bfloat16_has_no_reference(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(
        '{"scale_rows": [{"x_ptr": {"dtype": "bfloat16", "ndim": 2}, "y_ptr": {"dtype": '
        '"bfloat16", "ndim": 2}, "n_rows": {"scalar": "int32"}, "n_cols": {"scalar": "int32"}, '
        '"scale": {"scalar": "float32"}, "BLOCK": 64, "numeric": {"sizes": [{"R": 2, "C": 50}],'
        ' "shapes": {"x_ptr": ["R", "C"], "y_ptr": ["R", "C"]}, "grid": ["R", 1, 1], '
        '"scalars": {"n_rows": "R", "n_cols": "C", "scale": 0.5}}}]}', encoding="utf-8")
    (outcome, *_) = prove_triton(GOLDEN / "early_return.py", GOLDEN / "early_return.rs",
                                 [str(spec)])
    assert outcome.verdict == "ERROR" and "bfloat16" in (outcome.reason or "")


def test_a_descriptor_load_padded_with_nonzero_breaks_the_ttir_facts(tmp_path: Path) -> None:
    # The pointer-tile form of a descriptor load is accepted only with zero in masked lanes.
    out = _mutate(tmp_path, "descriptor_copy",
                  "constant(f16::ZERO, const_shape![BLOCK_M, BLOCK_N])",
                  "constant(f16::ONE, const_shape![BLOCK_M, BLOCK_N])")
    outcomes = _prove("descriptor_copy", out)
    half = [o for o in outcomes if "float16" in o.line()]
    assert half and all(o.facts is not None and o.facts.status == "FAIL" for o in half)
    assert all(any(d.what == "descriptor padding (zero)" for d in o.facts.differences)
               for o in half)


def test_a_descriptor_block_shape_other_than_the_entrys_is_not_proved(tmp_path: Path) -> None:
    # The manifest's block shape builds the reference's descriptor: one that differs from
    # the tiles the entry computes with must not pass.
    out = _mutate(tmp_path, "host_descriptor_norm", '{"block":[["param","BLOCK_N"]]',
                  '{"block":[16]')
    outcomes = _prove("host_descriptor_norm", out, facts=False)
    assert outcomes and all(o.verdict not in PASSING for o in outcomes), [
        o.line() for o in outcomes]


# ---- the element types the launches use ------------------------------------------------------


def _as_float16(spec: dict) -> dict | None:
    """The spec's launches with every float32 pointer made float16 (None when it has none):
    Triton kernels are launched with half-precision tensors as often as with float32 ones,
    and cutile's compiler types some generic code differently then. A spec that launches
    float16 already is left alone: its author chose half-precision shapes (a descriptor's
    strides must be 16-byte aligned, which float32 sizes need not be in float16)."""
    if any(isinstance(v, dict) and v.get("dtype") == "float16"
           for launches in spec.values() for launch in launches for v in launch.values()):
        return None
    changed = False
    out = {}
    for kernel, launches in spec.items():
        out[kernel] = []
        for launch in launches:
            copy = dict(launch)
            for name, value in launch.items():
                if isinstance(value, dict) and value.get("dtype") == "float32" \
                        and "ndim" in value:
                    copy[name] = {**value, "dtype": "float16"}
                    changed = True
            out[kernel].append(copy)
    return out if changed else None


HALF_SOURCES = [s for s in SOURCES if _as_float16(
    json.loads((SPECS / f"{s.stem}.json").read_text(encoding="utf-8"))) is not None]


@pytest.mark.parametrize("source", HALF_SOURCES, ids=lambda p: p.stem)
def test_golden_triton_translation_is_proved_in_float16(tmp_path: Path, source: Path) -> None:
    half = _as_float16(json.loads((SPECS / f"{source.stem}.json").read_text(encoding="utf-8")))
    spec = tmp_path / f"{source.stem}.json"
    spec.write_text(json.dumps(half), encoding="utf-8")
    outcomes = [o for o in prove_triton(source, GOLDEN / f"{source.stem}.rs", [str(spec)],
                                        facts=False) if isinstance(o, TritonOutcome)]
    bad = [o.line() + ("\n" + o.text if o.text else "") for o in outcomes
           if o.verdict not in PASSING]
    assert outcomes and not bad, "\n".join(bad)
