"""Raising of affine Triton pointer accesses to tensor views (`lowering/raise_pointers`).

Which accesses are raised and which stay pointer tiles (and why), `--no-raise`, the
`--no-raise` goldens (`golden/triton/no_raise/*.rs`: byte for byte, rustc-clean, compiled to
Tile IR), and the raised and pointer-tile translations of the same kernels run side by side
by the Tile IR interpreter: every buffer must come out the same, and a wrong view must not.

Regenerate the `--no-raise` goldens with `pytest tests/test_raise_pointers.py --update-golden`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from raise_numeric import compare_paths, compare_rust, generic_values

from transpiler.diagnostics import render
from transpiler.driver import read_manifests, translate_bytes, translate_text
from transpiler.ircheck import generated
from transpiler.lowering.raise_pointers import POINTER, RAISE_ALL, RAISED, ParamFacts

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "triton"
NO_RAISE = GOLDEN / "no_raise"
# Goldens also kept on the pointer-tile path: 1-D, 2-D with a loop advance, row-wise with a
# base offset, in-place read-modify-write, a barrier between a raised store and a gather.
NO_RAISE_SOURCES = ("vector_add", "matmul", "layer_norm", "inplace_accumulate",
                    "barrier_roundtrip", "transpose_2d")
# Goldens run raised against pointer tiles in the interpreter (each raises accesses of a
# different shape: masks per axis, loop-stepped starts, `-inf` padding, strides, tokens,
# a loaded row index, a program id computed with `%`).
NUMERIC_SOURCES = ("vector_add", "matmul", "layer_norm", "fused_softmax",
                   "inplace_accumulate", "barrier_roundtrip", "embedding", "matmul_grouped")

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _paths(body: str) -> list[str]:
    """The per-access notes of the one kernel in `body` (a kernel after `@triton.jit`), with
    every access the analysis proves raised (`RAISE_ALL`)."""
    result = translate_text(HEADER + body, "k.py", raise_pointers=RAISE_ALL)
    assert result.ok, "\n".join(render(d, result.source) for d in result.all_diagnostics())
    notes = result.kernels[0].variants[0]["notes"]
    return [n for n in notes if RAISED in n or POINTER in n]  # type: ignore[union-attr]


VECTOR = """def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = {offs}
    x = tl.load(x_ptr + offs, mask={mask}{other})
    tl.store(y_ptr + offs, x, mask={mask})
"""


def _vector(offs: str = "pid * BLOCK + tl.arange(0, BLOCK)", mask: str = "offs < n",
            other: str = "") -> list[str]:
    return _paths(VECTOR.format(offs=offs, mask=mask, other=other))


def test_a_block_of_a_vector_is_raised_with_its_padding() -> None:
    assert all(RAISED in n for n in _vector())
    assert "padding zero" in _vector(other=", other=0.0")[0]
    assert "padding neginf" in _vector(other=", other=-float('inf')")[0]
    assert "padding nan" in _vector(other=", other=float('nan')")[0]


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"offs": "pid * BLOCK + 1 + tl.arange(0, BLOCK)"}, "not a multiple of the tile"),
    ({"offs": "pid * (BLOCK // 2) + tl.arange(0, BLOCK)"}, "not a multiple of the tile"),
    ({"offs": "(pid * BLOCK + tl.arange(0, BLOCK)) % n"}, "rem_trunc"),
    ({"mask": "(offs < n) & (offs % 2 == 0)"}, "a mask computed by"),
    ({"mask": "(offs < n) & (offs < n - 1)"}, "two bounds along one axis"),
    ({"mask": "offs * 2 < n"}, "a mask on a scaled index"),
    ({"other": ", other=1.0"}, "which no view padding gives"),
])
def test_what_is_not_proven_stays_a_pointer_tile(kwargs: dict[str, str], reason: str) -> None:
    load = _vector(**kwargs)[0]
    assert POINTER in load and reason in load


def test_an_other_no_padding_names_stays_a_pointer_tile() -> None:
    notes = _paths("""def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1)
    tl.store(y_ptr + offs, x + 1, mask=offs < n)
""")
    assert POINTER in notes[0] and "an `other` of -1" in notes[0]
    assert RAISED in notes[1]


def test_a_reversed_range_stays_a_pointer_tile() -> None:
    notes = _vector(offs="pid * BLOCK + (BLOCK - 1 - tl.arange(0, BLOCK))", mask="offs < n")
    assert POINTER in notes[0] and "negative" in notes[0]


def test_a_scalar_row_offset_shifts_the_view_base() -> None:
    notes = _paths("""def k(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + row * stride + cols, x, mask=cols < n)
""")
    assert all(RAISED in n for n in notes)


MATMUL_LOOP = """def k(a_ptr, c_ptr, M, K, stride_am, stride_ak, BM: tl.constexpr,
      BK: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    acc = tl.zeros((BM, BK), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        {before}a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < {bound}),
                    other=0.0)
        acc += a
        {advance}
    c_ptrs = c_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K))
"""


def _matmul(before: str = "", bound: str = "K - k * BK",
            advance: str = "a_ptrs += BK * stride_ak") -> list[str]:
    return _paths(MATMUL_LOOP.format(before=before, bound=bound, advance=advance))


def test_a_pointer_advanced_in_a_loop_is_raised() -> None:
    assert all(RAISED in n for n in _matmul())
    # An advance that is not a whole tile moves the view's base instead (exact).
    assert all(RAISED in n for n in _matmul(advance="a_ptrs += (BK + 1) * stride_ak"))


@pytest.mark.parametrize(("kwargs", "reason"), [
    # The mask's bound does not follow the advance: lanes past K are loaded.
    ({"bound": "K"}, None),
    ({"advance": "a_ptrs += BK * stride_ak\n        a_ptrs += stride_ak"},
     "assigned more than once"),
    ({"advance": "a_ptrs += k * stride_ak"}, "depends on the loop variable"),
    ({"advance": "if k > 0:\n            a_ptrs += BK * stride_ak"}, "in a branch"),
])
def test_a_loop_advance_that_is_not_proven_is_not_raised(kwargs: dict[str, str],
                                                         reason: str | None) -> None:
    load = _matmul(**kwargs)[0]
    if reason is None:
        # Raised, but over an extent that is not K: the bound is what the mask says.
        assert RAISED in load
        return
    assert POINTER in load and reason in load


def test_no_raise_keeps_every_access_a_pointer_tile(tmp_path: Path) -> None:
    out = tmp_path / "v.rs"
    subprocess.run([sys.executable, "-m", "transpiler", str(GOLDEN / "vector_add.py"), "-o",
                    str(out), "--no-raise"], check=True, cwd=ROOT)
    text = out.read_text()
    assert "load_view_raw" not in text and "store_view_raw" not in text
    assert text.count("load_ptr_tko(") == 2 and "raising is off (`--no-raise`)" in text
    raised = translate_bytes((GOLDEN / "vector_add.py").read_bytes(), "v.py",
                             jit_facts=False, raise_pointers=RAISE_ALL).rust or ""
    assert "load_ptr_tko(" not in raised and raised.count("load_view_raw(") == 2


def _no_raise_rust(stem: str) -> str:
    source = GOLDEN / f"{stem}.py"
    result = translate_bytes(source.read_bytes(), f"golden/triton/{source.name}",
                             raise_pointers=False)
    assert result.ok
    return result.rust or ""


@pytest.mark.parametrize("stem", NO_RAISE_SOURCES)
def test_no_raise_goldens_are_byte_identical(stem: str, update_golden: bool) -> None:
    expected = NO_RAISE / f"{stem}.rs"
    rust = _no_raise_rust(stem)
    if update_golden:
        NO_RAISE.mkdir(exist_ok=True)
        expected.write_text(rust, encoding="utf-8")
    assert rust == expected.read_text(encoding="utf-8")
    assert "load_view_raw" not in rust and "store_view_raw" not in rust


def test_no_raise_goldens_type_check_and_compile_to_tile_ir() -> None:
    files = sorted(NO_RAISE.glob("*.rs"))
    assert len(files) == len(NO_RAISE_SOURCES)
    errors = [d for d in generated.cargo_check_files(files) if d.is_error]
    assert errors == [], "\n".join(f"{d.file}:{d.line}: {d.message}" for d in errors)
    for rs in files:
        requests = [{"entry": entry, "generics": generic_values(manifest, True)}
                    for entry, manifest in read_manifests(rs.read_text()).items()]
        results = generated.compile_rust_kernels(rs, requests)
        assert all(r.ok for r in results), [str(r.error) for r in results if not r.ok]
        assert all("load_view_tko" not in r.disassemble() for r in results)


@pytest.mark.parametrize("stem", NUMERIC_SOURCES)
def test_raised_and_pointer_translations_agree_in_the_interpreter(stem: str,
                                                                 tmp_path: Path) -> None:
    outcomes = compare_paths(GOLDEN / f"{stem}.py", tmp_path)
    assert outcomes
    assert [o for o in outcomes if o.verdict == "different"] == []
    assert any(o.verdict == "same" for o in outcomes), [o.detail for o in outcomes]


STRIDED = """def k(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + pid * stride + cols * 2, mask=cols < n // 2, other=0.0)
        tl.store(y_ptr + pid * stride + cols, x * 3.0, mask=cols < n // 2)
"""


def test_a_loop_stepped_strided_access_agrees_in_the_interpreter(tmp_path: Path) -> None:
    source = tmp_path / "strided.py"
    source.write_text(HEADER + STRIDED.replace("n // 2", "half"
                                               ).replace("stride, BLOCK", "stride, half, BLOCK"))
    notes = translate_bytes(source.read_bytes(), str(source), raise_pointers=RAISE_ALL
                            ).kernels[0].variants[0]["notes"]
    assert sum(RAISED in n for n in notes) == 2  # type: ignore[union-attr]
    outcomes = compare_paths(source, tmp_path)
    assert outcomes and all(o.verdict == "same" for o in outcomes), outcomes


def test_a_wrong_view_extent_is_caught_by_the_comparison(tmp_path: Path) -> None:
    source = GOLDEN / "vector_add.py"
    raised = translate_bytes(source.read_bytes(), str(source), jit_facts=False,
                             raise_pointers=RAISE_ALL).rust or ""
    pointer = translate_bytes(source.read_bytes(), str(source), raise_pointers=False).rust
    wrong = raised.replace("dims: &[n_elements]", "dims: &[n_elements + 3i32]")
    assert wrong != raised
    outcomes = compare_rust(wrong, pointer or "", tmp_path / "wrong")
    assert outcomes and all(o.verdict == "different" for o in outcomes)
    assert all("out_ptr" in o.detail for o in outcomes)


def test_a_load_in_an_if_condition_waits_on_the_last_write() -> None:
    rust = translate_text(HEADER + """def k(flag_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(flag_ptr, 1)
    if tl.load(flag_ptr) > 0:
        tl.store(x_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32))
""", "k.py").rust or ""
    load = rust[rust.index("load_ptr_tko("):]
    assert "Some(flag_ptr_written)" in load[:load.index("};")]


def test_raised_and_pointer_accesses_of_one_parameter_share_its_tokens() -> None:
    source = GOLDEN / "barrier_roundtrip.py"
    rust = translate_bytes(source.read_bytes(), str(source), raise_pointers=RAISE_ALL).rust or ""
    # A barrier orders everything: the raised store and the gather after it are chained.
    store = rust[rust.index("store_view_raw("):]
    gather = rust[rust.index("load_ptr_tko("):]
    assert "Some(all_accessed)" in store[:store.index("};")]
    assert "Some(all_written)" in gather[:gather.index("};")]


def test_a_view_that_depends_on_the_block_stays_a_pointer_tile_by_default() -> None:
    # A row offset makes the view's base depend on the block: no tensor memory accelerator,
    # and such a view is slower on the H200 than the pointer tiles (without JIT facts).
    body = """def k(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + row * stride + cols, x, mask=cols < n)
"""
    result = translate_text(HEADER + body, "k.py")
    notes = [n for n in result.kernels[0].variants[0]["notes"]  # type: ignore[union-attr]
             if POINTER in n or RAISED in n]
    # By default a kernel without `tl.dot` keeps pointer tiles (measured on the H200).
    assert len(notes) == 2 and all(POINTER in n and "no `tl.dot`" in n for n in notes)
    assert all(RAISED in n for n in _paths(body))


def test_a_reshape_that_moves_elements_stays_a_pointer_tile() -> None:
    notes = _paths("""def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + tl.reshape(offs, (BLOCK, BLOCK)))
    flipped = tl.reshape(tl.arange(0, BLOCK)[:, None], (1, BLOCK))
    tl.store(y_ptr + flipped, tl.reshape(tl.sum(x, axis=1), (1, BLOCK)))
""")
    assert RAISED in notes[0]
    assert POINTER in notes[1] and "moves elements" in notes[1]


# ---- the tensor memory accelerator and Triton's JIT facts ---------------------------------


def test_only_views_of_parameters_alone_take_the_tensor_memory_accelerator() -> None:
    # A view over the parameter with parameter extents and strides: its descriptor can be
    # built once before the launch. A row offset in the base, or an extent that depends on
    # the block (`offs_m < M` is a mask, the unmasked axis' extent is `k * BK + BK`), would
    # make each block build its own.
    assert all(n.endswith(", tensor memory accelerator)") for n in _matmul())
    row = _paths("""def k(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + cols, x, mask=cols < n)
""")
    assert "no tensor memory accelerator" in row[0]
    assert "(padding none, tensor memory accelerator)" in row[1]
    unmasked = _vector(mask="None")
    assert all("no tensor memory accelerator" in n for n in unmasked)


MATMUL_FACTS = ParamFacts(frozenset({"stride_ak"}),
                          frozenset({"a_ptr", "c_ptr", "M", "K", "stride_am"}))
# Launch values that hold MATMUL_FACTS (the facts Triton's JIT keys these arguments by).
FACT_VALUES = {"M": 48, "K": 48, "stride_am": 48, "stride_ak": 1}


def _with_facts(tmp_path: Path, facts: ParamFacts) -> tuple[str, str]:
    source = tmp_path / "facts.py"
    source.write_text(HEADER + _MATMUL_SOURCE, encoding="utf-8")
    raised = translate_bytes(source.read_bytes(), str(source), param_facts={"k": facts},
                             raise_pointers=RAISE_ALL)
    pointer = translate_bytes(source.read_bytes(), str(source), raise_pointers=False)
    assert raised.ok and pointer.ok
    return raised.rust or "", pointer.rust or ""


_MATMUL_SOURCE = MATMUL_LOOP.format(before="", bound="K - k * BK",
                                    advance="a_ptrs += BK * stride_ak")


def test_jit_facts_give_unit_strides_and_divisibility(tmp_path: Path) -> None:
    rust, _ = _with_facts(tmp_path, MATMUL_FACTS)
    # `stride_ak == 1` makes the inner stride static (contiguous rows: vector loads, TMA).
    assert "Array<{ [-1, 1] }>" in rust
    assert "unsafe { assume_div_by::<_, 16>(pointer_to_tile(a_ptr)) }" in rust
    assert "unsafe { assume_div_by::<_, 16>(stride_am) }" in rust
    assert "assume_div_by::<_, 16>(stride_ak)" not in rust
    assert "assumes Triton's JIT specialization: stride_ak == 1; " in rust
    plain = translate_text(HEADER + _MATMUL_SOURCE, "k.py", jit_facts=False,
                           raise_pointers=RAISE_ALL).rust or ""
    assert "assume_div_by" not in plain and "Array<{ [-1, -1] }>" in plain


def test_a_facts_translation_agrees_where_the_facts_hold(tmp_path: Path) -> None:
    raised, pointer = _with_facts(tmp_path, MATMUL_FACTS)
    outcomes = compare_rust(raised, pointer, tmp_path / "facts", scalars=FACT_VALUES)
    assert outcomes and all(o.verdict == "same" for o in outcomes), outcomes
    # The facts are used: where `stride_ak` is not 1 the two translations part.
    wrong = {**FACT_VALUES, "stride_ak": 2}
    outcomes = compare_rust(raised, pointer, tmp_path / "wrong", scalars=wrong)
    assert outcomes and all(o.verdict == "different" for o in outcomes), outcomes


def test_no_facts_no_note_and_no_raise_ignores_facts(tmp_path: Path) -> None:
    source = tmp_path / "facts.py"
    source.write_text(HEADER + _MATMUL_SOURCE, encoding="utf-8")
    off = translate_bytes(source.read_bytes(), str(source), raise_pointers=False,
                          param_facts={"k": MATMUL_FACTS})
    assert off.ok and "assume_div_by" not in (off.rust or "")
    assert "JIT specialization" not in (off.rust or "")
