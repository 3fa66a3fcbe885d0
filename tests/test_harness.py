"""The Rust IR harness: hand-written cuTile Rust samples compile to the expected Tile IR.

Needs the harness binary (`cargo build --release --manifest-path harness/Cargo.toml`, see
`transpiler.ircheck.toolchain.build_instructions()`) and `tileirdisasm`; skipped otherwise.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from transpiler.ircheck import generated, toolchain
from transpiler.ircheck.compare import compare_modules
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.spec import Layout

EXAMPLES = toolchain.HARNESS_DIR / "examples_ir"
REFERENCE_DIR = Path(__file__).resolve().parent / "ircheck_kernels" / "samples"


def _harness_missing_reason() -> str | None:
    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        return str(err)
    return None


_MISSING = _harness_missing_reason()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"IR harness unavailable: {_MISSING}")

# Layout of shared/reference/*.tileir (export_reference_ir.py leaves strides undivisible).
REFERENCE_LAYOUT = Layout(stride_divisible_by=1)

# Ops that differ between the two front ends without changing meaning.
NOISE_OPS = {"assume", "constant", "make_token", "get_tile_block_id", "entry", "return"}


def _meaningful(ir: str) -> list[str]:
    """Op templates (SSA names abstracted), noise ops dropped: what must match across front
    ends."""
    module = parse_tileir(ir)
    return [op.template for op in generated.walk_ops(module) if op.name not in NOISE_OPS]


def _compile(file: str, entry: str, generics: list[str], **extra: object) -> str:
    return generated.generated_ir(EXAMPLES / file, None, entry, generics, extra=extra or None)


def test_vadd_ops_and_views() -> None:
    ir = _compile("vadd.rs", "vadd_nopad", ["1024"])
    ops = Counter(generated.ir_ops(ir))
    assert ops["load_view_tko"] == 2
    assert ops["store_view_tko"] == 1
    assert ops["addf"] == 1
    assert "padding_value" not in ir
    assert "tile=(1024)" in ir
    assert "strides=[1]" in ir
    # Default layout: 16-divisible base pointers and shapes.
    assert ir.count("assume div_by<16>") >= 6


def test_softmax_reductions_and_conversions() -> None:
    ir = _compile("softmax_rows.rs", "softmax_rows", ["bf16", "4096"])
    ops = Counter(generated.ir_ops(ir))
    assert ops["reduce"] == 2
    assert ops["ftof"] == 2
    assert ops["exp"] == 1 and ops["divf"] == 1 and ops["subf"] == 1
    assert "identities=[0xFF800000 : f32]" in ir
    assert "identities=[0.000000e+00 : f32]" in ir
    assert "padding_value = neg_inf" in ir
    assert "tile<1x4096xbf16> -> tile<1x4096xf32>" in ir


def test_matmul_loop() -> None:
    ir = _compile("matmul.rs", "matmul", ["bf16", "128", "128", "64"])
    ops = Counter(generated.ir_ops(ir))
    assert ops["get_index_space_shape"] == 1
    assert ops["for"] == 1
    assert ops["mmaf"] == 1
    assert ops["load_view_tko"] == 2 and ops["store_view_tko"] == 1
    assert "tile<128x64xbf16>, tile<64x128xbf16>, tile<128x128xf32>" in ir
    assert "padding_value = zero" in ir


@pytest.mark.parametrize(
    ("reference", "file", "entry", "generics"),
    [
        ("vadd", "vadd.rs", "vadd_nopad", ["1024"]),
        ("softmax_rows", "softmax_rows.rs", "softmax_rows", ["bf16", "4096"]),
        ("matmul", "matmul.rs", "matmul", ["bf16", "128", "128", "64"]),
    ],
)
def test_matches_python_reference(
    reference: str, file: str, entry: str, generics: list[str]
) -> None:
    ref_path = REFERENCE_DIR / f"{reference}.tileir"
    if not ref_path.is_file():
        pytest.skip(f"{ref_path} not present")
    ir = generated.generated_ir(EXAMPLES / file, None, entry, generics, layout=REFERENCE_LAYOUT)
    # Same ops, same order, same types; only noise ops and SSA names differ.
    assert sorted(_meaningful(ir)) == sorted(_meaningful(ref_path.read_text()))


def test_layout_controls_assumptions() -> None:
    default = _compile("softmax_rows.rs", "softmax_rows", ["f32", "1024"])
    loose = generated.generated_ir(
        EXAMPLES / "softmax_rows.rs",
        None,
        "softmax_rows",
        ["f32", "1024"],
        layout=Layout(shape_divisible_by=1, stride_divisible_by=1, base_addr_divisible_by=1),
    )
    assert default.count("div_by<16>") == 8  # 2 pointers, 4 dims, 2 row strides
    assert "div_by" not in loose


def test_batch_in_one_process(tmp_path: Path) -> None:
    requests = [{"entry": "vadd", "generics": [str(t)], "id": t} for t in (256, 512, 1024, 2048)]
    results = generated.compile_rust_kernels(EXAMPLES / "vadd.rs", requests, out_dir=tmp_path)
    assert [r.ok for r in results] == [True] * 4
    assert all(r.bytecode is not None and r.bytecode.parent == tmp_path for r in results)
    assert "tile=(2048)" in results[3].disassemble()
    assert results[0].raw["id"] == 256


def test_bad_requests_are_structured_errors(tmp_path: Path) -> None:
    bad = EXAMPLES / "bad_kernels.rs"
    results = generated.compile_rust_kernels(
        bad,
        [
            {"entry": "k2"},  # index rank mismatch: located compiler error
            {"entry": "k3"},  # compiler panic: caught, reported, batch goes on
            {"entry": "missing"},
            {"entry": "k2", "no_such_field": 1},
            {"entry": "k2", "generics": ["1"]},
        ],
        out_dir=tmp_path,
    )
    assert not any(r.ok for r in results)
    kinds = [r.error.kind for r in results if r.error]
    assert kinds == ["compile", "panic", "request", "request", "compile"]
    located = results[0].error
    assert located is not None and located.location is not None
    assert located.location["file"].endswith("bad_kernels.rs")
    assert located.location["line"] == 10
    with pytest.raises(generated.HarnessError, match="length mismatch"):
        results[0].raise_for_error()


def test_generated_ir_raises_with_rust_message() -> None:
    with pytest.raises(generated.HarnessError) as info:
        generated.generated_ir(EXAMPLES / "matmul.rs", "matmul_mod", "matmul", ["bf16", "128"])
    assert "generic" in info.value.message
    assert info.value.location is not None


def test_unparsable_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.rs"
    broken.write_text("#[cutile::module]\nmod m {\n    fn f( {\n}\n")
    (result,) = generated.compile_rust_kernels(broken, [{"entry": "f"}], out_dir=tmp_path)
    assert not result.ok and result.error is not None
    assert result.error.kind == "parse"
    assert result.error.location is not None and result.error.location["line"] >= 3


def test_list_kernels() -> None:
    listing = generated.list_kernels(EXAMPLES / "vadd.rs")
    (module,) = listing["modules"]
    assert module["name"] == "vadd_mod"
    entries = {e["name"]: e for e in module["entries"]}
    assert entries["vadd_unchecked"]["unsafe"] is True
    params = {p["name"]: p for p in entries["vadd_mut"]["params"]}
    assert params["c"]["kind"] == "tensor_mut" and params["a"]["rank"] == 1


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo not installed")
def test_cargo_check_files(tmp_path: Path) -> None:
    good = sorted(p for p in EXAMPLES.glob("*.rs") if p.name != "bad_kernels.rs")
    assert [d for d in generated.cargo_check_files(good) if d.is_error] == []
    bad = tmp_path / "typo.rs"
    bad.write_text(
        "#[cutile::module]\npub mod typo {\n    use cutile::core::*;\n"
        "    #[cutile::entry()]\n"
        "    fn k(a: &Tensor<f32, { [-1] }>) {\n"
        "        let t: Tile<f32, { [16] }> = a.partition(const_shape![16]).load([undefined]);\n"
        "    }\n}\n"
    )
    errors = [d for d in generated.cargo_check_files([*good, bad]) if d.is_error]
    assert errors and all(d.file == str(bad) for d in errors)
    assert errors[0].line == 6 and errors[0].code == "E0425"


def test_debug_info_points_at_rust_source() -> None:
    ir = generated.generated_ir(EXAMPLES / "vadd.rs", None, "vadd_nopad", ["1024"], debug_info=True)
    assert str(EXAMPLES / "vadd.rs") in ir or "vadd.rs" in ir
    assert "loc(" in ir


# research.rs entry -> (research_kernels.py kernel, generics). Each pair must give the same
# meaningful IR (IDIOMS.md); `_canonical` removes the known noise.
RESEARCH_PAIRS = {
    "saxpy_tokens": ("saxpy", ["2048"]),
    "scale_lit": ("scale_lit", ["1024"]),
    "silu": ("silu", ["bf16", "1024"]),
    "online_softmax": ("online_softmax", ["bf16", "1024"]),
    "layer_norm_stats": ("layer_norm_stats", ["bf16", "1024"]),
    "persistent_scale": ("persistent_scale", ["1024"]),
    "transpose": ("transpose", ["32", "64"]),
    "transpose_order": ("transpose_order", ["32", "64"]),
    "clamp_flag": ("clamp_flag", ["1024", "true"]),
    "gelu_tanh": ("gelu_tanh", ["bf16", "1024"]),
    "reduce_axis0": ("reduce_axis0", ["16", "128"]),
    "int8_dequant": ("int8_dequant", ["1024"]),
    "cumsum_i32": ("cumsum_i32", ["64"]),
    "bmm": ("bmm", ["bf16", "64", "64", "32"]),
    "runtime_if": ("runtime_if", ["1024"]),
    "hash_bits": ("hash_bits", ["1024"]),
    "split_heads": ("split_heads", ["4", "16", "64", "256"]),
}

@pytest.fixture(scope="module")
def python_research_ir(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    pytest.importorskip("cuda.tile")
    import importlib.util
    import sys

    path = EXAMPLES / "export_py_ir.py"
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location("export_py_ir", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(EXAMPLES))
    out = tmp_path_factory.mktemp("pyir")
    return {name: module.export(name, out) for name, _ in RESEARCH_PAIRS.values()}


def test_research_translations_match_python(
    python_research_ir: dict[str, str], tmp_path: Path
) -> None:
    entries = list(RESEARCH_PAIRS)
    requests = [{"entry": e, "generics": RESEARCH_PAIRS[e][1]} for e in entries]
    results = generated.compile_rust_kernels(EXAMPLES / "research.rs", requests, out_dir=tmp_path)
    mismatched = []
    for entry, result in zip(entries, results, strict=True):
        rust = result.disassemble()
        assert result.checks["in_place"] == 0 and result.checks["hoisted"] == 0, entry
        assert "assert " not in rust, entry
        python = python_research_ir[RESEARCH_PAIRS[entry][0]]
        verdict = compare_modules(parse_tileir(python), parse_tileir(rust))
        if not verdict.passed:
            mismatched.append(entry)
    assert mismatched == []
