"""f16 reductions and scans in the Triton proof (found by the fuzzing campaign, O5 / O7).

Triton's compiler combines the values of an f16 `tl.sum` / `tl.cumsum` in f16, each step of
a tree rounded; its interpreter sums with numpy (f32 accumulation, or a sequential
`cumsum`). The reference now combines them in f16 in the Tile IR interpreter's tree order
(`reference_triton.COMPILER_SEMANTICS["narrow-accumulation"]`), so the proof compares those
outputs bit for bit instead of within a widened tolerance: a translation that rounds the
partial sums otherwise (a scan in f32, rounded once) must fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from transpiler.driver import translate_bytes
from transpiler.ircheck.reference_triton import TritonInterpreterSide
from transpiler.numeric_check.triton_proof import prove_triton

CASES = Path(__file__).resolve().parent / "fuzz_cases"

SUMS = '''import triton
import triton.language as tl


@triton.jit
def sums_kernel(x_ptr, s_ptr, c_ptr, r_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(s_ptr, tl.sum(x, axis=0))
    tl.store(c_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(r_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
'''


def _tree_sum(x: np.ndarray) -> np.ndarray:
    while x.shape[0] > 1:
        half = x.shape[0] // 2
        x = (x[:half] + x[half:]).astype(x.dtype)
    return x[0]


def _tree_scan(x: np.ndarray) -> np.ndarray:
    shift = 1
    while shift < x.shape[0]:
        x = np.concatenate([x[:shift], (x[:-shift] + x[shift:]).astype(x.dtype)])
        shift *= 2
    return x


def _run(tmp_path: Path, dtype: type) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    source = tmp_path / "sums.py"
    source.write_text(SUMS, encoding="utf-8")
    x = (np.random.default_rng(3).standard_normal(128) * 8).astype(dtype)
    out = {"s_ptr": np.zeros(1, dtype), "c_ptr": np.zeros(128, dtype),
           "r_ptr": np.zeros(128, dtype)}
    TritonInterpreterSide(source, "sums_kernel", {"BLOCK": 128}).run(
        {"x_ptr": x, **out}, {}, (1, 1, 1))
    return x, out


def test_the_reference_combines_f16_in_a_tree_of_f16_steps(tmp_path: Path) -> None:
    x, out = _run(tmp_path, np.float16)
    assert np.array_equal(out["c_ptr"], _tree_scan(x))
    assert np.array_equal(out["r_ptr"], _tree_scan(x[::-1])[::-1])
    assert out["s_ptr"][0] == _tree_sum(x)
    # Not numpy's order: the inputs are chosen so that the two differ.
    assert not np.array_equal(out["c_ptr"], np.cumsum(x))


def test_f32_sums_keep_the_interpreters_numpy(tmp_path: Path) -> None:
    x, out = _run(tmp_path, np.float32)
    assert np.array_equal(out["c_ptr"], np.cumsum(x))
    assert out["s_ptr"][0] == np.sum(x)


def _prove_case(tmp_path: Path, stem: str, mutate: tuple[str, str] | None) -> list[str]:
    record = json.loads((CASES / f"{stem}.json").read_text(encoding="utf-8"))
    source = tmp_path / f"{stem}.py"
    source.write_text((CASES / f"{stem}.py").read_text(encoding="utf-8"), encoding="utf-8")
    rust = translate_bytes(source.read_bytes(), str(source)).rust or ""
    if mutate is not None:
        assert mutate[0] in rust, mutate[0]
        rust = rust.replace(mutate[0], mutate[1])
    rust_path = tmp_path / f"{stem}.rs"
    rust_path.write_text(rust, encoding="utf-8")
    spec = tmp_path / f"{stem}.spec.json"
    spec.write_text(json.dumps(record["spec"]), encoding="utf-8")
    return [o.verdict for o in prove_triton(source, rust_path, [str(spec)], facts=False)]


#: The f16 scan of `triton_4_2` computed in f32 and rounded to f16 once: what Triton's
#: interpreter does for a `tl.sum`, not what its compiler does; a difference of f16
#: roundings of the partial sums, which a tolerance of the f16 rule would accept.
WIDE_SCAN = (
    "let t_30: Tile<f16, { [BLOCK] }> = scan_sum(v_x1, 0i32, reverse::Forward, f16::ZERO);",
    "let wide_30: Tile<f32, { [BLOCK] }> = convert_tile(v_x1);\n"
    "        let t_30: Tile<f16, { [BLOCK] }> = "
    "convert_tile(scan_sum(wide_30, 0i32, reverse::Forward, 0.0f32));")


def test_an_f16_scan_feeding_an_f32_output_is_proven(tmp_path: Path) -> None:
    assert "PASS" in _prove_case(tmp_path, "triton_4_2", None)


def test_an_f16_scan_rounded_once_fails(tmp_path: Path) -> None:
    assert "FAIL" in _prove_case(tmp_path, "triton_4_2", WIDE_SCAN)
