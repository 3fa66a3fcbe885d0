"""Golden Triton translations give what Triton's own interpreter (triton==3.9.0) gives:
the random numbers (`seeded_dropout`: Philox in integer tile operations, on seeds whose sign
matters too) and device-side tensor descriptors (`descriptor_copy`: ragged extents, zero
padding outside, no write outside).

Our side: the golden Rust compiled to Tile IR by the harness, run by `tileir_interp`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from transpiler.driver import read_manifests
from transpiler.ircheck import generated
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.reference_triton import TritonInterpreterSide
from transpiler.numeric_check.binding import BindingPlan, LogicalArrays, Slot
from transpiler.numeric_check.sides import TileIrSide

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "triton"
SOURCE = GOLDEN / "seeded_dropout.py"
BLOCK = 64
BLOCKS = 3


def _ours(entry: str, generics: list[str], arrays: dict[str, np.ndarray],
          scalars: dict[str, object], source: Path = SOURCE,
          grid: tuple[int, int, int] = (BLOCKS, 1, 1)) -> None:
    rust = source.with_suffix(".rs")
    manifest = read_manifests(rust.read_text(encoding="utf-8"))[entry]
    (result,) = generated.compile_rust_kernels(rust, [{"entry": entry, "generics": generics}])
    assert result.ok, result.error
    module = parse_tileir(result.disassemble())
    tile_entry = module.entry()
    slots = tuple(Slot("base" if p["kind"] == "pointer" else "scalar", p["name"])
                  for p in manifest["params"] if p["kind"] != "const")
    side = TileIrSide("cuTile Rust", tile_entry, BindingPlan("cuTile Rust", slots))
    side.run(LogicalArrays(arrays, dict(scalars)), grid)


def _triton(kernel: str, arrays: dict[str, np.ndarray], scalars: dict[str, object],
            source: Path = SOURCE, constexprs: dict[str, object] | None = None,
            grid: tuple[int, int, int] = (BLOCKS, 1, 1)) -> None:
    pytest.importorskip("triton")
    TritonInterpreterSide(source, kernel, constexprs or {"BLOCK": BLOCK}).run(
        arrays, dict(scalars), grid)


@pytest.mark.parametrize("seed", [0, 123456789, -5])
def test_randint_and_randn_match_tritons_interpreter(seed: int) -> None:
    n = BLOCK * BLOCKS
    ours = {"bits_ptr": np.zeros(n, np.int32), "normal_ptr": np.zeros(n, np.float32)}
    theirs = {k: v.copy() for k, v in ours.items()}
    _ours("random_streams_f32", ["i32", str(BLOCK)], ours, {"seed": np.int32(seed)})
    _triton("random_streams", theirs, {"seed": seed})
    np.testing.assert_array_equal(ours["bits_ptr"], theirs["bits_ptr"])
    # randn goes through log, sqrt and cos: equal to a few ulp (the two sides' math
    # libraries may round differently), never more.
    np.testing.assert_allclose(ours["normal_ptr"], theirs["normal_ptr"], rtol=1e-5,
                               atol=1e-6)
    assert len(set(ours["bits_ptr"].tolist())) == n  # the streams are not trivially equal


def test_dropout_keeps_the_same_elements_as_triton() -> None:
    n = BLOCK * BLOCKS - 7
    x = np.random.default_rng(1).standard_normal(BLOCK * BLOCKS).astype(np.float32)
    ours = {"x_ptr": x.copy(), "out_ptr": np.zeros_like(x)}
    theirs = {k: v.copy() for k, v in ours.items()}
    scalars = {"n": n, "p": 0.5, "seed": 2024}
    _ours("seeded_dropout_f32", ["f32", str(BLOCK)], ours,
          {"n": np.int32(n), "p": np.float32(0.5), "seed": np.int32(2024)})
    _triton("seeded_dropout", theirs, scalars)
    np.testing.assert_array_equal(ours["out_ptr"], theirs["out_ptr"])
    kept = np.count_nonzero(ours["out_ptr"][:n])
    assert 0.3 * n < kept < 0.7 * n


# Triton asks descriptor strides to be 16-byte aligned: n is a multiple of 4 floats.
@pytest.mark.parametrize(("m", "n"), [(32, 48), (29, 36)])
def test_descriptor_loads_and_stores_match_triton(m: int, n: int) -> None:
    source = GOLDEN / "descriptor_copy.py"
    tile = {"BLOCK_M": 16, "BLOCK_N": 16}
    grid = (-(-m // 16), -(-n // 16), 1)
    x = np.random.default_rng(2).standard_normal(m * n).astype(np.float32)
    # The output has room past the tensor: a store outside it must leave that alone.
    ours = {"x_ptr": x, "y_ptr": np.full(m * n + 64, 7.0, np.float32)}
    theirs = {k: v.copy() for k, v in ours.items()}
    _ours("scaled_copy_2d_f32", ["f32", "16", "16", "256"], ours,
          {"M": np.int32(m), "N": np.int32(n), "scale": np.float32(2.0)}, source, grid)
    _triton("scaled_copy_2d", theirs, {"M": m, "N": n, "scale": 2.0}, source, tile, grid)
    np.testing.assert_array_equal(ours["y_ptr"], theirs["y_ptr"])
    np.testing.assert_array_equal(ours["y_ptr"][:m * n], 2.0 * x)
    assert (ours["y_ptr"][m * n:] == 7.0).all()


def test_split_and_join_match_triton() -> None:
    source = GOLDEN / "split_join.py"
    x = np.arange(2 * BLOCK * BLOCKS, dtype=np.float32)
    ours = {"x_ptr": x.copy(), "y_ptr": np.zeros_like(x)}
    theirs = {k: v.copy() for k, v in ours.items()}
    _ours("swap_pairs", ["f32", str(BLOCK), str(2 * BLOCK)], ours, {}, source)
    _triton("swap_pairs", theirs, {}, source)
    np.testing.assert_array_equal(ours["y_ptr"], theirs["y_ptr"])
    np.testing.assert_array_equal(ours["y_ptr"][:4], [2.0, 0.0, 6.0, 2.0])
