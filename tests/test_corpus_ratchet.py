"""Corpus ratchet: the TileGym benchmark never loses a kernel it once translated or proved.

`bench/results/ratchet.json` records the counts of the last accepted run
(`python -m bench.corpus --update-ratchet` raises them, never lowers them). Tests:

- the host-code evaluator (`transpiler.frontend.host`) on a small made-up package (always runs);
- translation only (about 20 s): the number of kernels translated deterministically; runs
  when the `tilegym` wheel is cached or can be downloaded;
- translation + IR check (minutes): the number of deterministic, IR-passing kernels; runs
  only with `TRANSPILER_CORPUS=1`, and when the IR-check toolchain is installed.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from bench import corpus
from transpiler.frontend.host import reader as host_reader
from transpiler.frontend.host import typical as host_typical
from transpiler.frontend.host import values as host_values
from transpiler.ircheck import host_specs

RATCHET = json.loads(corpus.RATCHET.read_text()) if corpus.RATCHET.is_file() else {}


def _corpus_root() -> Path:
    try:
        return corpus.unpack(corpus.fetch_wheel())
    except (corpus.CorpusUnavailable, OSError) as err:
        pytest.skip(f"the corpus wheel is not available: {err}")


# ---- evaluator ------------------------------------------------------------------------------

_HOST = '''
    import cuda.tile as ct
    import torch
    from types import SimpleNamespace
    from cuda.tile.tune import exhaustive_search
    from .helpers import next_power_of_2

    ConstInt = ct.Constant[int]
    _cache = {}


    @ct.kernel
    def scale_kernel(x, y, n, TILE: ConstInt, FAST: ct.Constant[bool]):
        pass


    @ct.kernel
    def tiled_kernel(a, TM: ConstInt, TN: ConstInt):
        pass


    @ct.kernel
    def row_sum_kernel(x, sums):
        pass


    def _configs():
        if torch.cuda.get_device_capability()[0] >= 9:
            yield SimpleNamespace(TM=128, TN=64)
        yield SimpleNamespace(TM=64, TN=64)


    def _launch_tiled(a):
        key = (a.shape, a.dtype)
        if key not in _cache:
            result = exhaustive_search(list(_configs()), None, lambda c: (1,), tiled_kernel,
                                       lambda c: (a, c.TM, c.TN))
            _cache[key] = (result.best.config, tiled_kernel.replace_hints(occupancy=2))
        cfg, kernel = _cache[key]
        ct.launch(None, (1,), kernel, (a, cfg.TM, cfg.TN))


    def scale(x, fast=False):
        n_rows, n_cols = x.shape
        assert x.dtype in (torch.float16, torch.bfloat16)
        y = torch.empty_like(x)
        tile = next_power_of_2(n_cols)
        if n_cols > 4096:
            raise ValueError("too wide")
        ct.launch(None, (n_rows,), scale_kernel, (x, y, n_cols, tile, fast))
        _launch_tiled(y)
        sums = x.new_empty((n_rows,), dtype=torch.float32)
        ct.launch(None, (n_rows,), row_sum_kernel, (x, sums))
        return y
'''

_HELPERS = '''
    def next_power_of_2(n):
        return 1 if n == 0 else 2 ** (n - 1).bit_length()
'''


@pytest.fixture
def package(tmp_path: Path) -> Path:
    ops = tmp_path / "pkg" / "ops"
    ops.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (ops / "__init__.py").write_text("")
    (ops / "scale.py").write_text(textwrap.dedent(_HOST))
    (ops / "helpers.py").write_text(textwrap.dedent(_HELPERS))
    return tmp_path


def test_evaluator_finds_constants_and_dtypes(package: Path) -> None:
    launches, problems, kind = host_reader.discover(package / "pkg/ops/scale.py", package)
    scale = launches["scale_kernel"]
    assert sorted(scale.by_dtype) == ["bfloat16", "float16"]  # the dtype assert rules out f32
    first = scale.by_dtype["float16"][0]
    assert first.args[2:] == [1024, 1024, False]  # n_cols, next_power_of_2, option default
    assert [r.args[4] for r in scale.by_dtype["float16"]][:2] == [False, True]  # option flipped
    sums = launches["row_sum_kernel"].by_dtype["bfloat16"][0].args
    assert [a.dtype.name for a in sums] == ["bfloat16", "float32"]  # new_empty(dtype=) wins
    tiled = launches["tiled_kernel"].by_dtype["float16"][0]
    assert tiled.via == "autotune (first config)"
    assert tiled.args[1:] == [128, 64]  # first config for the sm_90 capability


def test_specs_follow_the_manifest(package: Path) -> None:
    launches, _, _ = host_reader.discover(package / "pkg/ops/scale.py", package)
    manifest = {"params": [
        {"name": "x", "kind": "array", "ndim": 2, "element": "E"},
        {"name": "y", "kind": "array", "ndim": 2, "element": "E"},
        {"name": "n", "kind": "scalar", "element": "i32"},
        {"name": "TILE", "kind": "const", "const_kind": "int"},
        {"name": "FAST", "kind": "const", "const_kind": "bool"}]}
    found = host_specs.specs_for(launches["scale_kernel"], [manifest], {"TILE", "FAST"})
    assert not found.errors
    assert [s.label() for s in found.specs] == [
        "scale_kernel[x:float16/2,y:float16/2,n:int32,TILE=1024,FAST=False]",
        "scale_kernel[x:bfloat16/2,y:bfloat16/2,n:int32,TILE=1024,FAST=False]"]


def test_specializations_cutile_python_rejects_do_not_count() -> None:
    row = corpus.KernelRow("op.py", "k", "translated", ir_mode="file")
    passing = {"verdict": "PASS_WITH_NOTES", "reference_rejected": False}
    rejected = {"verdict": "ERROR", "reference_rejected": True}
    row.ir = [passing, rejected]
    assert row.ir_verdict == "PASS"
    row.ir = [rejected]
    assert row.ir_verdict == "ERROR"
    row.ir = [passing, {"verdict": "ERROR", "reference_rejected": False}]
    assert row.ir_verdict == "ERROR"


def test_a_guessed_input_type_yields_to_the_type_the_kernel_fixes() -> None:
    kind = host_typical.OP_KINDS[-1]
    guessed = host_values.FakeTensor(host_values.DType("float32"), None, kind)
    guessed.dtype_guessed = True
    built = host_values.FakeTensor(host_values.DType("float16"), None, kind)
    fixed = {"kind": "array", "ndim": 2, "element": "f8e4m3fn"}
    generic = {"kind": "array", "ndim": 2, "element": "E"}
    assert host_specs.param_spec(fixed, guessed, "float32").dtype == "float8_e4m3fn"  # type: ignore
    assert host_specs.param_spec(generic, guessed, "float32").dtype == "float32"  # type: ignore
    assert host_specs.param_spec(fixed, built, "float32").dtype == "float16"  # type: ignore
    # A tensor derived from a guessed one keeps the guess unless a dtype is named.
    assert guessed.like().dtype_guessed
    assert not guessed.like(dtype=host_values.DType("bfloat16")).dtype_guessed


def test_isolated_source_keeps_lines(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text("import cuda.tile as ct\n\n@ct.kernel\ndef a(x):\n    pass\n\n"
                      "@ct.kernel\ndef b(x):\n    pass\n")
    text = corpus.isolated_source(source, {"b"})
    assert text.count("\n") == source.read_text().count("\n")
    assert "def a" not in text and "def b" in text


# ---- the corpus -----------------------------------------------------------------------------


def test_translation_ratchet(tmp_path: Path) -> None:
    root = _corpus_root()
    results = corpus.run_benchmark(root, work=tmp_path, ir=False)
    summary = results["summary"]
    assert summary["kernels"] == 66
    assert summary["deterministic"] >= RATCHET.get("deterministic", 0), summary


@pytest.mark.skipif(os.environ.get("TRANSPILER_CORPUS") != "1",
                    reason="the full corpus IR check takes minutes; set TRANSPILER_CORPUS=1")
def test_ir_ratchet(tmp_path: Path) -> None:
    from transpiler.ircheck.toolchain import ToolchainError, harness_binary, tileirdisasm

    try:
        harness_binary()
        tileirdisasm()
    except ToolchainError as err:
        pytest.skip(str(err))
    root = _corpus_root()
    summary = corpus.run_benchmark(root, work=tmp_path, ir=True)["summary"]
    for key in ("ir_passing", "ir_passing_with_isolated"):
        assert summary[key] >= RATCHET.get(key, 0), (key, summary)
