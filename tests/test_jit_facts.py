"""JIT fact entries of Triton kernels (`lowering/jit_facts`): which facts an entry gets (from
the access forms and the parameters its raised views read, less `do_not_specialize`), that
kernels gaining nothing keep one entry, `--no-jit-facts`, the proof's cases for a fact entry
and the interpreter's checked `assume` ops (an entry whose facts its inputs break fails).
Selection by the wrapper and the launcher's refusal are in `test_triton_hostglue.py`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from specialization.manifest import parse_manifests
from transpiler.driver import translate_bytes, translate_text
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec
from transpiler.lowering.raise_pointers import RAISE_ALL
from transpiler.numeric_check.triton_proof import fact_cases, fact_siblings
from transpiler.tileir_interp.errors import AssumptionError, UnsupportedOpError
from transpiler.tileir_interp.grid import run_grid
from transpiler.tileir_interp.memory import Memory

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden" / "triton"
HEADER = "import triton\nimport triton.language as tl\n\n\n"


def _facts(rust: str) -> dict[str, list[str]]:
    """Entry -> the texts of its JIT facts."""
    return {entry: [c.text for c in m.jit_facts] for entry, m in parse_manifests(rust).items()}


def test_matmul_gets_one_fact_entry_per_variant_with_triton_keys() -> None:
    facts = _facts((GOLDEN / "matmul.rs").read_text())
    assert facts["matmul_kernel_f16"] == []  # the general entry: every argument
    assert facts["matmul_kernel_f16_jit"] == [
        "a_ptr % 16 == 0", "b_ptr % 16 == 0", "c_ptr % 16 == 0", "M % 16 == 0",
        "N % 16 == 0", "K % 16 == 0", "stride_am % 16 == 0", "stride_ak == 1",
        "stride_bk % 16 == 0", "stride_bn == 1", "stride_cm % 16 == 0", "stride_cn == 1"]
    assert sorted(facts) == sorted(f"matmul_kernel_{t}{s}" for t in ("f16", "bf16", "f32")
                                   for s in ("", "_jit"))


# A `tl.dot` kernel: views are raised only for tensor-core kernels (`raise_pointers`).
UNIT = HEADER + '''@triton.jit
def k(src, dst, rows, q, r, unused, BLOCK: tl.constexpr):
    rm = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    a = tl.load(src + rm[:, None] * r + cols[None, :] * q, mask=rm[:, None] < rows)
    tl.store(dst + rm[:, None] * BLOCK + cols[None, :], tl.dot(a, a))
'''


def test_unit_stride_facts_come_from_the_access_form_not_names() -> None:
    rust = translate_text(UNIT, "k.py").rust or ""
    facts = _facts(rust)["k_f32_jit"]
    # `q` multiplies the contiguous axis' arange: a 1 key; `r` (the row offset) only div 16;
    # `unused` is read by no view: no fact on it (it would only make selection fail)
    assert "q == 1" in facts and "q % 16 == 0" not in facts
    assert "r % 16 == 0" in facts and "r == 1" not in facts
    assert not any("unused" in f for f in facts)
    assert "Array<{ [-1, 1] }>" in rust  # the static unit stride of the fact entry's view


def test_do_not_specialize_leaves_the_fact_out() -> None:
    text = UNIT.replace("@triton.jit", '@triton.jit(do_not_specialize=["r"], '
                        'do_not_specialize_on_alignment=["src"])')
    facts = _facts(translate_text(text, "k.py").rust or "")["k_f32_jit"]
    assert not any(f.startswith("r ") for f in facts)
    assert "src % 16 == 0" not in facts and "dst % 16 == 0" in facts


def test_a_kernel_whose_views_gain_nothing_keeps_one_entry() -> None:
    text = HEADER + '''@triton.jit
def k(x_ptr, y_ptr, n):
    pid = tl.program_id(0)
    tl.store(y_ptr + pid, tl.load(x_ptr + pid) + n)
'''
    # one entry per element type (the float variants of `+ n`), none with facts
    facts = _facts(translate_text(text, "k.py").rust or "")
    assert facts and all(not f and not e.endswith("_jit") for e, f in facts.items())


def test_a_pointer_tile_kernel_gets_facts_on_the_parameters_its_addresses_read() -> None:
    """Without `tl.dot` the accesses stay pointer tiles; their fact entry restates the
    parameters the addresses and masks read (tileiras then loads 16 bytes per lane)."""
    facts = _facts((GOLDEN / "fused_softmax.rs").read_text())
    assert facts["softmax_kernel"] == []
    assert facts["softmax_kernel_jit"] == [
        "out_ptr % 16 == 0", "in_ptr % 16 == 0", "in_row_stride % 16 == 0",
        "out_row_stride % 16 == 0", "n_cols % 16 == 0"]
    text = HEADER + '''@triton.jit
def k(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * scale, mask=offs < n)
'''
    rust = translate_text(text, "k.py").rust or ""
    # `scale` is data, not an address: no fact narrows the entry's selection on it
    assert _facts(rust)["k_f32_jit"] == ["x_ptr % 16 == 0", "y_ptr % 16 == 0", "n % 16 == 0"]
    assert "assume_div_by::<_, 16>(pointer_to_tile(x_ptr))" in rust


def test_no_jit_facts_gives_only_general_entries(tmp_path: Path) -> None:
    out = tmp_path / "m.rs"
    subprocess.run([sys.executable, "-m", "transpiler", str(GOLDEN / "matmul.py"), "-q",
                    "--no-jit-facts", "-o", str(out)], check=True, cwd=ROOT)
    facts = _facts(out.read_text())
    assert sorted(facts) == ["matmul_kernel_bf16", "matmul_kernel_f16", "matmul_kernel_f32"]
    assert "assume_div_by" not in out.read_text()


# ---- the proof of a fact entry ---------------------------------------------------------------


def _raised_vector_add(raise_pointers: bool | str = RAISE_ALL) -> str:
    """vector_add with its views raised (`RAISE_ALL`; by default a kernel without `tl.dot`
    keeps pointer tiles, and its fact entry assumes the facts on those)."""
    source = GOLDEN / "vector_add.py"
    return translate_bytes(source.read_bytes(), str(source),
                           raise_pointers=raise_pointers).rust or ""


def _vector_add() -> tuple[KernelSpec, dict, list[dict]]:
    spec = KernelSpec("add_kernel", (("x_ptr", ArraySpec("float32", 1)),
                                     ("y_ptr", ArraySpec("float32", 1)),
                                     ("out_ptr", ArraySpec("float32", 1)),
                                     ("n_elements", ScalarSpec("int32")),
                                     ("BLOCK_SIZE", ConstSpec(64))))
    numeric = {"sizes": [{"N": 1000}, {"N": 2048}], "shapes": {"x_ptr": ["N"], "y_ptr": ["N"],
                                                              "out_ptr": ["N"]},
               "grid": ["cdiv(N, BLOCK_SIZE)", 1, 1], "scalars": {"n_elements": "N"}}
    manifests = {e: m.to_json() for e, m in parse_manifests(_raised_vector_add()).items()}
    (fact,) = fact_siblings(manifests, manifests["add_kernel"])
    return spec, numeric, fact["jit_facts"]


def test_a_fact_entry_runs_only_on_cases_that_hold_its_facts() -> None:
    spec, numeric, facts = _vector_add()
    # 1000 breaks `n_elements % 16 == 0`; 2048 holds it: the spec's own case that holds
    assert {case.sizes["N"] for case in fact_cases(spec, numeric, 0, facts)} == {2048}
    # none holds: the sizes are rounded up to multiples of 16
    ragged = {**numeric, "sizes": [{"N": 1000}, {"N": 5}]}
    cases = fact_cases(spec, ragged, 0, facts)
    assert {case.sizes["N"] for case in cases} == {1008, 16}
    assert all(int(case.scalars["n_elements"]) % 16 == 0 for case in cases)
    assert fact_cases(spec, {**numeric, "sizes": [{"N": 1000}], "labels": ["r"]}, 0,
                      facts + [{"tree": ["==", ["arg", "n_elements"], 1], "text": "n == 1",
                                "value": True}]) == []


@pytest.mark.parametrize("raise_pointers", [RAISE_ALL, True], ids=["views", "pointer_tiles"])
def test_an_entry_whose_facts_its_inputs_break_fails_the_proof(tmp_path: Path,
                                                                raise_pointers: bool | str
                                                                ) -> None:
    """The fact entry's manifest is edited to claim fewer facts than its Tile IR assumes:
    the proof then runs it on n = 1000, where its `assume div_by<16>` on n is false."""
    from transpiler.numeric_check.triton_proof import prove_triton

    rust = _raised_vector_add(raise_pointers)
    lines = []
    for line in rust.splitlines():
        if '"entry":"add_kernel_jit"' in line:
            head, data = line.split("transpiler-manifest: ", 1)
            manifest = json.loads(data)
            manifest["jit_facts"] = [f for f in manifest["jit_facts"]
                                     if "n_elements" not in f["text"]]
            line = head + "transpiler-manifest: " + json.dumps(manifest, sort_keys=True,
                                                               separators=(",", ":"))
        lines.append(line)
    edited = tmp_path / "vector_add.rs"
    edited.write_text("\n".join(lines) + "\n")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"add_kernel": [{
        "x_ptr": {"dtype": "float32", "ndim": 1}, "y_ptr": {"dtype": "float32", "ndim": 1},
        "out_ptr": {"dtype": "float32", "ndim": 1}, "n_elements": {"scalar": "int32"},
        "BLOCK_SIZE": 64,
        "numeric": {"sizes": [{"N": 1000}], "shapes": {"x_ptr": ["N"], "y_ptr": ["N"],
                                                       "out_ptr": ["N"]},
                    "grid": ["cdiv(N, BLOCK_SIZE)", 1, 1], "scalars": {"n_elements": "N"}}}]}))
    outcomes = prove_triton(GOLDEN / "vector_add.py", edited, [str(spec)], facts=False)
    by_entry = {getattr(o, "entry", None): o for o in outcomes}
    assert by_entry["add_kernel"].verdict == "PASS"
    broken = by_entry["add_kernel_jit"]
    assert broken.verdict == "FAIL" and "assume" in (broken.reason or "")
    assert "div_by<16>" in (broken.reason or "")


# ---- the interpreter's `assume` ops ----------------------------------------------------------

ASSUME = """entry @k(%arg0: tile<i32>) {{
  %a = assume {predicate}, %arg0 : tile<i32>
  return
}}
"""


def _run_assume(predicate: str, value: int) -> None:
    entry = parse_tileir(ASSUME.format(predicate=predicate)).entry()
    run_grid(entry, [np.int32(value)], Memory(), (1, 1, 1))


def test_assume_div_by_is_a_checked_claim() -> None:
    _run_assume("div_by<16>", 48)
    with pytest.raises(AssumptionError, match=r"div_by<16>.*40 is not a multiple") as caught:
        _run_assume("div_by<16>", 40)
    assert caught.value.op == "assume"


def test_an_assume_the_interpreter_cannot_check_is_an_error() -> None:
    with pytest.raises(UnsupportedOpError, match="same_elements") as caught:
        _run_assume("same_elements<[4]>", 3)
    assert caught.value.op == "assume"
    with pytest.raises(UnsupportedOpError, match="rank 0"):
        _run_assume("div_by<16, every 4 along 0>", 32)


def test_every_fact_entry_of_the_goldens_states_its_facts_as_assumes() -> None:
    """Each `assume_div_by` of a fact entry is on a parameter its manifest has a fact for."""
    for path in sorted(GOLDEN.glob("*.rs")):
        rust = path.read_text()
        for entry, manifest in parse_manifests(rust).items():
            if not manifest.jit_facts:
                continue
            start = rust.index(f"fn {entry}<") if f"fn {entry}<" in rust else \
                rust.index(f"fn {entry}(")
            body = rust[start:rust.index("\n    }\n", start)]
            named = {str(c.tree[1][1][1]) if c.tree[1][0] == "%" else str(c.tree[1][1])
                     for c in manifest.jit_facts}
            assumed = set(re.findall(r"assume_div_by::<_, 16>\((?:pointer_to_tile\()?(\w+)",
                                     body))
            assert assumed <= named, (path.name, entry, assumed - named)
