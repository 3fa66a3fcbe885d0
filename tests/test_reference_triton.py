"""The Triton reference side: lifting without importing, and Triton's interpreter on numpy."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from transpiler.ircheck.reference_triton import (
    TritonInterpreterSide,
    TritonReferenceError,
    lift_triton,
)

HERE = Path(__file__).parent / "triton_facts"
KERNELS = HERE / "kernels.py"
HOST = HERE / "host_cases.py"


def test_lifting_keeps_kernels_helpers_constants_on_their_lines() -> None:
    source = KERNELS.read_text()
    lifted = lift_triton(source, str(KERNELS))
    assert len(lifted.splitlines()) == len(source.splitlines())
    tree = ast.parse(lifted)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert functions == {"add_kernel", "_row_max", "row_max_kernel", "dot_kernel"}
    assert "ROWS_PER_PROGRAM = tl.constexpr(2)" in lifted
    assert "autotune" not in lifted and "torch" not in lifted
    for line_no, line in enumerate(lifted.splitlines()):
        if line:
            assert line == source.splitlines()[line_no]


def test_host_decorators_and_host_code_are_dropped() -> None:
    lifted = lift_triton(HOST.read_text(), str(HOST))
    assert "heuristics" not in lifted and "autotune" not in lifted
    assert "import torch" not in lifted and "class _Rows" not in lifted


def test_vector_add_is_bit_exact() -> None:
    rng = np.random.default_rng(0)
    n = 5000  # not a multiple of the block: the mask matters
    x, y = (rng.standard_normal(n, dtype=np.float32) for _ in range(2))
    out = np.full(n, np.nan, np.float32)
    TritonInterpreterSide(KERNELS, "add_kernel", {"BLOCK": 1024}).run(
        {"x_ptr": x, "y_ptr": y, "out_ptr": out}, {"n": n}, (5, 1, 1))
    assert np.array_equal(out, x + y)


def test_row_max_with_helper_global_constexpr_and_padding() -> None:
    rng = np.random.default_rng(1)
    rows, cols = 5, 50
    x = rng.standard_normal((rows, cols), dtype=np.float32) - 10.0  # all negative: -inf pads
    out = np.zeros(rows + 1, np.float32)  # one extra element the mask must leave alone
    out[-1] = 7.0
    TritonInterpreterSide(KERNELS, "row_max_kernel", {"BLOCK": 64}).run(
        {"x_ptr": x, "out_ptr": out}, {"n_rows": rows, "n_cols": cols, "stride": cols},
        (3, 1, 1))
    assert np.array_equal(out[:rows], x.max(axis=1)) and out[-1] == 7.0


def test_missing_arguments_and_kernels_are_errors() -> None:
    side = TritonInterpreterSide(KERNELS, "add_kernel", {"BLOCK": 64})
    x = np.zeros(4, np.float32)
    with pytest.raises(TritonReferenceError, match="no value for `n`"):
        side.run({"x_ptr": x, "y_ptr": x, "out_ptr": x}, {}, (1, 1, 1))
    with pytest.raises(TritonReferenceError, match="no @triton.jit kernel `nope`"):
        TritonInterpreterSide(KERNELS, "nope").run({}, {}, (1, 1, 1))
