"""`python -m transpiler verify`: hand edits of our own output that change meaning must FAIL
with the right difference named; edits that keep it must PASS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from golden_specs import GOLDEN_SPECS

from transpiler.ircheck import toolchain
from transpiler.ircheck.spec import ArraySpec, ConstSpec

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
KERNELS = Path(__file__).resolve().parent / "verify_kernels"


def _require_harness() -> None:
    try:
        toolchain.harness_binary()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"harness not built: {err}")


def _spec_file(tmp_path: Path, stem: str, dtype: str | None = None) -> Path:
    data: dict[str, list[dict[str, object]]] = {}
    for spec in GOLDEN_SPECS[stem]:
        arrays = [p for _, p in spec.params if isinstance(p, ArraySpec)]
        if dtype is not None and arrays[0].dtype != dtype:
            continue
        entry: dict[str, object] = {}
        for name, param in spec.params:
            if isinstance(param, ArraySpec):
                entry[name] = {"dtype": param.dtype, "ndim": param.ndim}
            elif isinstance(param, ConstSpec):
                entry[name] = param.value
            else:
                entry[name] = {"scalar": param.dtype}
        data.setdefault(spec.kernel, []).append(entry)
    path = tmp_path / f"{stem}.spec.json"
    path.write_text(json.dumps(data))
    return path


def _verify(source: Path, rust: Path, spec: Path | None) -> tuple[int, dict]:
    args = [sys.executable, "-m", "transpiler", "verify", str(source), str(rust), "--json"]
    if spec is not None:
        args += ["--spec", str(spec)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    report = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, report | {"stderr": proc.stderr}


def _edited(tmp_path: Path, stem: str, old: str, new: str) -> Path:
    text = (GOLDEN / f"{stem}.rs").read_text()
    assert old in text, f"edit anchor not found in {stem}.rs: {old!r}"
    out = tmp_path / f"{stem}.rs"
    out.write_text(text.replace(old, new, 1))
    return out


# (golden file, text, replacement, difference kind the check must name)
MEANING_CHANGES = [
    ("softmax_rows", "reduce_max(logits, 1i32)", "reduce_min(logits, 1i32)", "reduce-combiner"),
    ("softmax_rows", "padding::NegInf", "padding::Zero", "padding-value"),
    ("softmax_rows", "exp(logits - row_max.broadcast(const_shape![1, TILE_N]))",
     "exp2(logits - row_max.broadcast(const_shape![1, TILE_N]), ftz::Disabled)", "operation"),
    ("online_softmax", "exp2(running_max - new_max, ftz::Enabled)",
     "exp2(running_max - new_max, ftz::Disabled)", "flush-to-zero"),
    ("online_softmax", "divf(t_6, running_sum, rounding::Approx, ftz::Enabled)",
     "divf(t_6, running_sum, rounding::NearestEven, ftz::Enabled)", "rounding"),
    ("matmul", "for kt in 0i32..k_tiles {", "for kt in 1i32..k_tiles {", "loop-bounds"),
    ("transpose", "                perm_3,\n                [bj, bi],",
     "                perm_3,\n                [bi, bj],", "operand-order"),
    ("masked_copy_tail", "Some(in_range),", "None,", "operand-count"),
    ("vector_add", "padding::Zero", "padding::NegInf", "padding-value"),
    ("print_block", '"row max = %f;\\n"', '"row max = %i;\\n"', "operation-form"),
    ("runtime_flags", "let cond: bool = if in_band { bump } else { in_band };",
     "let cond: bool = if in_band { in_band } else { bump };", "operand"),
]


@pytest.mark.parametrize("stem,old,new,kind", MEANING_CHANGES,
                         ids=[f"{c[0]}-{c[3]}" for c in MEANING_CHANGES])
def test_meaning_changing_edit_fails(tmp_path: Path, stem: str, old: str, new: str,
                                    kind: str) -> None:
    _require_harness()
    rust = _edited(tmp_path, stem, old, new)
    code, report = _verify(GOLDEN / f"{stem}.py", rust, _spec_file(tmp_path, stem))
    verdicts = report.get("verdicts", [])
    assert code == 1, report
    failed = [v for v in verdicts if v["verdict"] == "FAIL"]
    assert failed
    kinds = {d["kind"] for v in failed for d in v["differences"]}
    assert kind in kinds, kinds


def test_tile_shape_change_fails(tmp_path: Path) -> None:
    _require_harness()
    text = (GOLDEN / "vector_add.rs").read_text()
    rust = tmp_path / "vector_add.rs"
    rust.write_text(text.replace("{ [TILE] }", "{ [512] }").replace("const_shape![TILE]",
                                                                  "const_shape![512]"))
    code, report = _verify(GOLDEN / "vector_add.py", rust, _spec_file(tmp_path, "vector_add"))
    assert code == 1
    kinds = {d["kind"] for v in report["verdicts"] for d in v["differences"]}
    assert "tile-shape" in kinds, kinds


def test_accumulator_type_change_fails(tmp_path: Path) -> None:
    _require_harness()
    old = ("let mut acc: Tile<f32, { [TILE_M, TILE_N] }> =\n"
           "            constant(0.0f32, const_shape![TILE_M, TILE_N]);")
    new = ("let mut acc: Tile<ET, { [TILE_M, TILE_N] }> = "
           "constant(ET::ZERO, const_shape![TILE_M, TILE_N]);")
    rust = _edited(tmp_path, "matmul", old, new)
    code, report = _verify(GOLDEN / "matmul.py", rust, _spec_file(tmp_path, "matmul", "float16"))
    assert code == 1, report
    kinds = {d["kind"] for v in report["verdicts"] for d in v["differences"]}
    assert kinds & {"mma-types", "element-type"}, kinds


def test_reduce_axis_change_fails(tmp_path: Path) -> None:
    _require_harness()
    source = KERNELS / "row_reduce.py"
    proc = subprocess.run([sys.executable, "-m", "transpiler", str(source)], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    assert "reduce_sum(conv_2, 1i32)" in proc.stdout
    rust = tmp_path / "row_reduce.rs"
    rust.write_text(proc.stdout.replace("reduce_sum(conv_2, 1i32)", "reduce_sum(conv_2, 0i32)"))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"row_sum_kernel": [
        {"x": {"dtype": "float32", "ndim": 2}, "out": {"dtype": "float32", "ndim": 1},
         "T": 64}]}))
    code, report = _verify(source, rust, spec)
    assert code == 1
    kinds = {d["kind"] for v in report["verdicts"] for d in v["differences"]}
    assert "reduce-axis" in kinds, kinds


MEANING_KEEPING = [
    ("softmax_rows", "row_max", "largest"),
    ("softmax_rows", "        let row: i32 = get_tile_block_id().0;\n",
     "        let row: i32 = get_tile_block_id().0;\n        let unused: i32 = row * 2i32;\n"),
    ("softmax_rows", "        let logits: Tile<f32, { [1, TILE_N] }> = convert_tile(logits);\n",
     "        // hand-written note: math in f32\n"
     "        let logits: Tile<f32, { [1, TILE_N] }> = convert_tile(logits);\n"),
    ("matmul", "        let bm: i32 = get_tile_block_id().0;\n        let bn: i32 = "
     "get_tile_block_id().1;\n",
     "        let bn: i32 = get_tile_block_id().1;\n        let bm: i32 = "
     "get_tile_block_id().0;\n"),
]


@pytest.mark.parametrize("stem,old,new", MEANING_KEEPING,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MEANING_KEEPING)])
def test_meaning_keeping_edit_passes(tmp_path: Path, stem: str, old: str, new: str) -> None:
    _require_harness()
    text = (GOLDEN / f"{stem}.rs").read_text()
    assert old in text
    rust = tmp_path / f"{stem}.rs"
    rust.write_text(text.replace(old, new))
    code, report = _verify(GOLDEN / f"{stem}.py", rust, _spec_file(tmp_path, stem))
    assert code == 0, report
    assert all(v["verdict"] in ("PASS", "PASS_WITH_NOTES") for v in report["verdicts"])


def test_hand_written_rust_without_manifest(tmp_path: Path) -> None:
    """A translation that is not ours: no manifest; generics bound from the signature."""
    _require_harness()
    text = (GOLDEN / "vector_add.rs").read_text()
    bare = "\n".join(line for line in text.splitlines() if "transpiler-manifest" not in line)
    rust = tmp_path / "vector_add.rs"
    rust.write_text(bare + "\n")
    code, report = _verify(GOLDEN / "vector_add.py", rust, _spec_file(tmp_path, "vector_add"))
    assert code == 0, report


def test_missing_entry_cannot_run(tmp_path: Path) -> None:
    _require_harness()
    rust = _edited(tmp_path, "vector_add", "fn vector_add_kernel", "fn renamed_kernel")
    code, report = _verify(GOLDEN / "vector_add.py", rust, None)
    assert code == 2
    assert "no `#[cutile::entry]` named `vector_add_kernel`" in report["stderr"]


def test_rust_that_does_not_compile_cannot_run(tmp_path: Path) -> None:
    _require_harness()
    rust = _edited(tmp_path, "vector_add", "ta + tb", "ta + tb + 1")
    code, report = _verify(GOLDEN / "vector_add.py", rust, None)
    assert code == 2
    assert "does not compile" in report["stderr"]
