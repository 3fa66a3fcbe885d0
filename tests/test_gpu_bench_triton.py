"""CPU-side tests of the Triton GPU bench: arguments, case selection, the table, and the
staging helpers (bench host functions, tutorials as libraries). Nothing here needs torch or a GPU.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from bench import gpu_bench_triton as bench
from bench.triton_hosts import HOSTS, TUTORIAL_HOSTS, library_text, with_host
from transpiler.driver import translate_text
from transpiler.hostglue.triton_plan import plan_triton

REPO = Path(__file__).resolve().parents[1]
#: The tutorial corpus beside the checkout, or one level up from a worktree.
TUTORIALS = next((p for p in (REPO.parent / "shared" / "corpora" / "triton-tutorials",
                              REPO.parent.parent / "shared" / "corpora" / "triton-tutorials")
                  if p.is_dir()), REPO / "missing")


def test_arguments_and_selection() -> None:
    args = bench.parse_args(["--ops", "matmul,vector_add", "--quick", "--rounds", "5"])
    assert args.rounds == 5 and args.quick
    picked = bench.selected_cases(args.ops, args.quick)
    assert [(c.op, s) for c, s in picked] == [("vector_add", (1 << 24,)),
                                             ("matmul", (4096, 4096, 4096))]
    assert len(bench.selected_cases("matmul", False)) == 2
    with pytest.raises(SystemExit, match="unknown operator.*nope"):
        bench.selected_cases("nope", False)


def test_every_case_has_inputs_tolerances_and_a_host() -> None:
    for case in bench.CASES:
        assert case.inputs in bench.INPUTS, case
        assert set(case.dtypes) <= set(bench.TOLERANCES[case.tolerance]), case
        if not case.op.startswith("tut_"):
            assert f"def {case.function}(" in HOSTS[case.op], case


def _row(op: str, kernel: float, call: float, correct: bool = True) -> dict:
    return {"op": op, "shape": "8x8", "dtype": "f32", "correct": correct, "bitwise": False,
            "max_abs_diff": 1e-7, "kernel_us": {"triton": 10.0, "rust": 10.0 / kernel},
            "call_us": {"triton": 20.0, "rust": 20.0 / call}, "kernel_ratio": kernel,
            "call_ratio": call}


def test_table_and_geomeans() -> None:
    rows = [_row("a", 1.0, 0.5), _row("a", 4.0, 2.0), _row("b", 0.8, 1.0, correct=False),
            {"op": "c", "shape": "1", "dtype": "f16", "error": "RuntimeError: boom"}]
    summary = bench.summarize(rows)
    assert summary["configs"] == 4 and summary["correct"] == 2 and summary["errors"] == 1
    assert summary["per_op"]["a"] == pytest.approx((2.0, 1.0))
    assert summary["worst_op"] == "b" and summary["worst_kernel"] == pytest.approx(0.8)
    assert summary["kernel_geomean"] == pytest.approx((1.0 * 4.0 * 0.8) ** (1 / 3))
    text = bench.markdown(rows, {"device": "H200", "triton": "3.6.0", "torch": "2.11"})
    assert "| a | 8x8 | f32 | yes | 1e-07 | 10.00 | 10.00 | 1.000 | 20.0 | 40.0 | 0.500 |" in text
    assert "| b | 8x8 | f32 | NO |" in text and "ERROR: RuntimeError: boom" in text
    assert "worst operator b (0.800)" in text


def test_geomean_ignores_missing_values() -> None:
    assert bench.geomean([2.0, 8.0, 0.0, float("nan")]) == pytest.approx(4.0)
    assert bench.geomean([]) is None


def test_with_host_appends_a_launching_host_function() -> None:
    text = with_host("matmul", (REPO / "golden/triton/matmul.py").read_text())
    tree = ast.parse(text)
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == [
        "matmul_kernel", "matmul"]
    assert with_host("no_such_op", "x = 1\n") == "x = 1\n"


@pytest.mark.skipif(not TUTORIALS.is_dir(), reason="the tutorial corpus is not here")
def test_tutorials_become_libraries_that_translate() -> None:
    for stem in ("01-vector-add", "02-fused-softmax"):
        text = library_text((TUTORIALS / f"{stem}.py").read_text())
        text += TUTORIAL_HOSTS.get(stem, "")
        tree = ast.parse(text)
        calls = [ast.unparse(s) for s in tree.body if isinstance(s, ast.Expr)]
        assert calls == []  # no test or benchmark runs at import
        assert "benchmark" not in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        result = translate_text(text, f"{stem}.py")
        assert result.rust is not None, [d.message for d in result.all_diagnostics()]
        plan = plan_triton(text, f"{stem}.py", result.rust)
        assert all(k.entries for k in plan.kernels)


def test_library_text_drops_what_depends_on_dropped_names() -> None:
    text = ("import torch\nN = 4\nx = torch.rand(N)\ny = x + 1\nz = N * 2\nprint(z)\n"
            "def f():\n    return z\n")
    kept = library_text(text)
    assert "x = torch.rand" not in kept and "y = x + 1" not in kept and "print" not in kept
    assert "N = 4" in kept and "z = N * 2" in kept and "def f():" in kept


def test_unknown_operators_fail_before_torch_is_needed() -> None:
    with pytest.raises(SystemExit, match="unknown operator"):
        bench.main(["--ops", "vector_add,nope"])


def test_max_abs_diff_is_nan_aware() -> None:
    nan, inf = float("nan"), float("inf")
    # NaN everywhere on both sides (a bench case whose rows are all masked) is no difference.
    assert bench.max_abs_diff(np.full((3, 4), nan), np.full((3, 4), nan)) == 0.0
    assert bench.max_abs_diff(np.zeros((0, 5)), np.zeros((0, 5))) == 0.0
    assert bench.max_abs_diff(np.array([1.0, nan, inf]), np.array([1.5, nan, inf])) == 0.5
    # A NaN or an infinity on one side only must not be hidden.
    assert bench.max_abs_diff(np.array([1.0, nan]), np.array([1.0, 2.0])) == inf
    assert bench.max_abs_diff(np.array([inf]), np.array([-inf])) == inf
    assert bench.max_abs_diff(np.array([inf]), np.array([3.0])) == inf
