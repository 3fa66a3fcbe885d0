"""`verify --numeric`: golden translations whose outputs must equal cuTile Python's on the
interpreter, and edits of their Rust that must fail it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from golden_specs import GOLDEN_SPECS
from numeric_settings import NUMERIC_SETTINGS

from transpiler.driver import read_manifests
from transpiler.ircheck import toolchain
from transpiler.ircheck.check import compile_pairs
from transpiler.numeric_check.run import NumericOutcome, numeric_check

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def _require_harness() -> None:
    try:
        toolchain.harness_binary()
        toolchain.tileirdisasm()
    except toolchain.ToolchainError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"toolchain not set up (run `bash setup.sh`): {err}")


def _numeric(stem: str, kernel: str, rust_text: str | None = None,
             tmp_path: Path | None = None, host: bool = False) -> list[NumericOutcome]:
    """The numeric check of `kernel`'s first golden specialization: shapes from
    `NUMERIC_SETTINGS`, or (`host`) from the host code's launches."""
    rust = GOLDEN / f"{stem}.rs"
    if rust_text is not None:
        assert tmp_path is not None
        rust = tmp_path / f"{stem}.rs"
        rust.write_text(rust_text)
    source = GOLDEN / f"{stem}.py"
    spec = next(s for s in GOLDEN_SPECS[stem] if s.kernel == kernel)
    manifests = read_manifests(rust.read_text())
    pairs = compile_pairs(source, rust, manifests, {kernel: [spec]})
    settings = {} if host else {kernel: [(spec, NUMERIC_SETTINGS[kernel])]}
    return numeric_check(source, rust, manifests, pairs, settings)


#: shapes, grid and scalars from the host code (no spec): row-wise with scalars, loops with
#: a runtime `if`, approximate tanh and division on both sides, 3-D views
HOST_PASSING = [
    ("layer_norm", "layer_norm_fwd_kernel"),
    ("alternating_rows", "alternating_rows_kernel"),
    ("gelu_tanh", "gelu_kernel"),
    ("silu", "silu_kernel"),
    ("batched_matmul", "bmm_kernel"),
    ("fp8_block_scaled_matmul", "fp8_block_matmul_kernel"),  # 0-d bitcasts, pointer loads
]


@pytest.mark.parametrize(("stem", "kernel"), HOST_PASSING, ids=[p[0] for p in HOST_PASSING])
def test_golden_translation_passes_on_host_shapes(stem: str, kernel: str) -> None:
    _require_harness()
    [outcome] = _numeric(stem, kernel, host=True)
    assert outcome.verdict == "PASS", outcome.reason
    assert len({c.label.removesuffix(" special") for c in outcome.cases}) >= 2
    assert all(c.label.startswith("host shapes") for c in outcome.cases)


HOST_MUTANTS = [
    ("silu", "silu_kernel", "denom, rounding::Approx", "denom, rounding::NearestEven",
     "approximate division made exact"),
    ("gelu_tanh", "gelu_kernel", "gelu_tanh_inner, rounding::Approx",
     "gelu_tanh_inner, rounding::Full", "approximate tanh made full precision"),
    ("layer_norm", "layer_norm_fwd_kernel", "reduce_sum(", "reduce_max(", "sum -> max"),
]


@pytest.mark.parametrize(("stem", "kernel", "old", "new", "what"), HOST_MUTANTS,
                         ids=[m[4] for m in HOST_MUTANTS])
def test_edited_translation_fails_on_host_shapes(stem: str, kernel: str, old: str, new: str,
                                                 what: str, tmp_path: Path) -> None:
    _require_harness()
    text = (GOLDEN / f"{stem}.rs").read_text()
    assert old in text, f"the golden no longer has `{old}`"
    [outcome] = _numeric(stem, kernel, text.replace(old, new, 1), tmp_path, host=True)
    assert outcome.verdict == "FAIL", outcome.line()


PASSING = [
    ("vector_add", "vector_add_kernel"),
    ("softmax_rows", "softmax_row_kernel"),
    ("matmul", "matmul_kernel"),
    ("embedding", "embedding_fwd_kernel"),       # gather / scatter through pointer tiles
    ("online_softmax", "online_softmax_kernel"),  # loops and reductions
    ("bucket_scatter", "row_scatter_add_kernel"),  # atomics
]


@pytest.mark.parametrize(("stem", "kernel"), PASSING, ids=[p[0] for p in PASSING])
def test_golden_translation_passes(stem: str, kernel: str) -> None:
    _require_harness()
    [outcome] = _numeric(stem, kernel)
    assert outcome.verdict == "PASS", outcome.reason
    assert len(outcome.cases) >= 3


MUTANTS = [
    ("softmax_rows", "softmax_row_kernel",
     "exp(logits - row_max.broadcast(const_shape![1, TILE_N]))",
     "exp(row_max.broadcast(const_shape![1, TILE_N]) - logits)", "swapped operands"),
    ("softmax_rows", "softmax_row_kernel", "reduce_sum(numer, 1i32)",
     "reduce_max(numer, 1i32)", "sum -> max"),
    ("softmax_rows", "softmax_row_kernel", "padding::NegInf", "padding::Zero",
     "changed padding"),
    ("online_softmax", "online_softmax_kernel", "1.4426950408889634f32", "1.4426f32",
     "changed constant"),
    # 1 / s approximate -> correctly rounded: the approximate reciprocal is not the exact one
    ("online_softmax", "online_softmax_kernel", "running_sum, rounding::Approx",
     "running_sum, rounding::NearestEven", "approximate division made exact"),
]


@pytest.mark.parametrize(("stem", "kernel", "old", "new", "what"), MUTANTS,
                         ids=[m[4] for m in MUTANTS])
def test_edited_translation_fails(stem: str, kernel: str, old: str, new: str, what: str,
                                  tmp_path: Path) -> None:
    _require_harness()
    text = (GOLDEN / f"{stem}.rs").read_text()
    assert old in text, f"the golden no longer has `{old}`"
    [outcome] = _numeric(stem, kernel, text.replace(old, new, 1), tmp_path)
    assert outcome.verdict == "FAIL", outcome.line()
    failing = next(c for c in outcome.cases if c.failure)
    assert "cuTile Python" in failing.failure and "cuTile Rust" in failing.failure
    assert any(not o.ok and o.index is not None for o in failing.outputs)


def test_verify_numeric_at_translation_json_host_and_default_shapes(tmp_path: Path) -> None:
    _require_harness()
    spec = ROOT / "tests" / "numeric_specs" / "vector_add.json"
    cmd = [sys.executable, "-m", "transpiler", str(GOLDEN / "vector_add.py"), "-o",
           str(tmp_path / "out.rs"), "--verify", "--numeric", "--json", "-q"]
    done = subprocess.run([*cmd, "--spec", str(spec)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    [entry] = json.loads(done.stdout)["files"]
    # The spec's specialization and those --verify adds to reach every entry and value:
    # the kernel's numeric settings serve them all.
    verdicts = [v["numeric"]["verdict"] for v in entry["verify"]]
    assert verdicts and set(verdicts) == {"PASS"}
    # Without a spec the host code's launches give shapes, grid and scalars.
    bare = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert bare.returncode == 0, bare.stderr
    [entry] = json.loads(bare.stdout)["files"]
    assert {v["numeric"]["verdict"] for v in entry["verify"]} == {"PASS"}
    labels = [c["case"] for v in entry["verify"] for c in v["numeric"]["cases"]]
    assert labels and all(label.startswith("host shapes") for label in labels)
    # Without host code that launches the kernel: the default shape family.
    alone = tmp_path / "kernel_only.py"
    text = (GOLDEN / "vector_add.py").read_text()
    alone.write_text(text[:text.index("def vector_add(")])
    bare_spec = tmp_path / "no_numeric.json"
    _write_bare_spec(spec, bare_spec)
    done = subprocess.run([sys.executable, "-m", "transpiler", str(alone), "-o",
                           str(tmp_path / "alone.rs"), "--verify", "--numeric", "--json", "-q",
                           "--spec", str(bare_spec)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    [entry] = json.loads(done.stdout)["files"]
    assert {v["numeric"]["verdict"] for v in entry["verify"]} == {"PASS"}
    labels = {c["case"].split(" (")[0] for v in entry["verify"]
              for c in v["numeric"]["cases"]}
    assert labels == {"default shapes, tile multiple", "default shapes, ragged",
                      "default shapes, tiny"}


def _write_bare_spec(spec: Path, out: Path) -> None:
    """`spec` without its `numeric` settings."""
    data = json.loads(spec.read_text())
    for entries in data.values():
        for entry in entries:
            entry.pop("numeric", None)
    out.write_text(json.dumps(data))


def test_same_seed_same_verdicts() -> None:
    _require_harness()
    first = [o.to_json() for o in _numeric("vector_add", "vector_add_kernel")]
    again = [o.to_json() for o in _numeric("vector_add", "vector_add_kernel")]
    for o in (*first, *again):
        o.pop("seconds")
        o.pop("cpu_seconds")
    assert first == again
