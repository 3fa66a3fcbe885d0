"""The Triton host reader: launch sites, autotune configs, heuristics, grids and keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from transpiler.frontend.triton_host import (
    evaluate_expression,
    read_host,
    scalar_type,
    specialization_key,
)

CASES = Path(__file__).parent / "triton_facts" / "host_cases.py"


def _report():
    return read_host(CASES.read_text(), str(CASES))


def test_kernels_and_their_parameters() -> None:
    kernels = _report().kernels
    assert set(kernels) == {"scale_kernel", "rows_kernel"}
    rows = kernels["rows_kernel"]
    assert rows.constexprs == {"BLOCK_N", "HAS_W"}
    # X is a pointer through `X += row * stride`; stride and N are integers (multiplied /
    # compared, never an address base)
    assert rows.pointers == {"X", "Y", "Rstd"}


def test_autotune_configs_are_pruned_and_heuristics_kept_as_expressions() -> None:
    specs = _report().specializations["scale_kernel"]
    float32 = [s for s in specs if dict(s.pointer_dtypes)["x_ptr"] == "float32"]
    # 4 configs, the prune keeps BLOCK 64 (both warps) and BLOCK 128 with 8 warps
    assert [(dict(s.constexprs)["BLOCK"], dict(s.options)["num_warps"]) for s in float32] == [
        (64, 4), (64, 8), (128, 8)]
    first = float32[0]
    assert dict(first.derived)["EVEN"] == "n % 64 == 0"
    assert first.grid == ("cdiv(n, 64)", "1", "1")
    # the literal 1 passed as `stride` is Triton's constexpr 1
    assert dict(first.int_keys) == {"stride": "1"} and dict(first.constexprs)["stride"] == 1
    assert dict(first.scalars) == {"n": None, "alpha": "fp32"}
    assert dict(first.options)["num_stages"] == 2
    assert {dict(s.pointer_dtypes)["x_ptr"] for s in specs} == {"float32"}


def test_autograd_forward_and_backward_launches() -> None:
    specs = _report().specializations["rows_kernel"]
    forward = [s for s in specs if s.host_function == "_Rows.forward"]
    backward = [s for s in specs if s.host_function == "_Rows.backward"]
    assert forward and backward
    f = forward[0]
    assert dict(f.pointer_dtypes) == {"X": "float32", "Y": "float32", "Rstd": "float32"}
    assert dict(f.derived)["BLOCK_N"] == "min(1024, next_power_of_2(N))"
    assert dict(f.constexprs)["HAS_W"] is False
    assert f.grid == ("X.shape[0]", "1", "1")
    assert dict(f.options)["num_warps"] == 4
    b = backward[0]
    # ctx.BLOCK_N set in forward is read in backward: it depends on the tensor forward saved,
    # which no argument of this launch is (a free host value)
    assert dict(b.derived)["BLOCK_N"] == "min(1024, next_power_of_2(x2.shape[1]))"
    assert "x2" in b.free
    assert dict(b.constexprs)["HAS_W"] is True
    assert b.grid == ("X.shape[0]", "1", "1")


def test_expressions_evaluate_for_concrete_arguments() -> None:
    x = np.zeros((7, 300), np.float32)
    assert evaluate_expression("min(1024, next_power_of_2(N))", {"N": 300}) == 512
    assert evaluate_expression("X.shape[0]", {"X": x}) == 7
    assert evaluate_expression("cdiv(n, 64)", {"n": 129}) == 3
    assert evaluate_expression("n % 64 == 0", {"n": 128}) is True


def test_specialization_keys_follow_triton() -> None:
    assert [specialization_key(v) for v in (1, 16, 17, 0, 4096)] == ["1", "D", "", "D", "D"]
    assert [scalar_type(v) for v in (3, 2**31, 1.5, True)] == ["i32", "i64", "fp32", "i1"]


def test_corpus_tutorial_matmul_grid_and_configs() -> None:
    path = Path("/work/shared/corpora/triton-tutorials/03-matrix-multiplication.py")
    if not path.is_file():
        return
    specs = read_host(path.read_text(), str(path)).specializations["matmul_kernel"]
    host = [s for s in specs if s.host_function == "matmul"]
    assert len(host) == 16  # the CUDA configs; the HIP ones are not taken on a CUDA host
    assert host[0].grid == ("cdiv(M, 128) * cdiv(N, 256)", "1", "1")


def test_functions_imported_from_sibling_modules_are_read(tmp_path: Path) -> None:
    """`from .settings import block_for` and `from pkg.settings import ...`: the host
    reader runs the sibling module's function (a block size from the row length); a module
    outside the file's folders stays unknown."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "settings.py").write_text(
        "import triton\n\n\ndef block_for(n):\n    block = triton.next_power_of_2(n)\n"
        "    return block, 4 if block < 2048 else 8\n\nWARPS = 4\n")
    kernel = (
        "import triton\nimport triton.language as tl\n{imports}\n\n\n@triton.jit\n"
        "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, 1.0, mask=o < n)\n\n\n"
        "def run(x):\n    n = x.shape[-1]\n    block, warps = block_for(n)\n"
        "    k[(1,)](x, n, BLOCK=block, num_warps=WARPS)\n")
    for imports in ("from .settings import WARPS, block_for",
                    "from pkg.settings import WARPS, block_for"):
        path = package / "op.py"
        path.write_text(kernel.format(imports=imports))
        (spec,) = read_host(path.read_text(), str(path)).specializations["k"]
        assert dict(spec.derived)["BLOCK"] == "next_power_of_2(n)"
        assert dict(spec.options)["num_warps"] == 4
    path.write_text(kernel.format(imports="from elsewhere.settings import WARPS, block_for"))
    (spec,) = read_host(path.read_text(), str(path)).specializations["k"]
    assert "BLOCK" not in dict(spec.derived) or "block_for" not in dict(spec.derived)["BLOCK"]
