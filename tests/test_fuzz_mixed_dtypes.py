"""Launches mixing element types (found by the fuzzing campaign, O1): a kernel whose arrays
split on their element type in two classes gets an entry for each mix the host code names
(an int32 counter array beside float16 data), the entry is proven for that launch, and entry
names stay unique."""

from __future__ import annotations

import json
from pathlib import Path

from bench.fuzz import Checker
from transpiler.driver import read_manifests, translate_bytes
from transpiler.ircheck.check import select_manifest
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec

ROOT = Path(__file__).resolve().parent.parent

HISTOGRAM = '''import cuda.tile as ct
import torch

RELAXED = ct.MemoryOrder.RELAXED


@ct.kernel
def histogram_kernel(x, counts, TILE: ct.Constant[int]):
    offs = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    v = ct.gather(x, (offs,))
    bucket = (v.astype(ct.float32) > 0.0).astype(ct.int32)
    ct.atomic_add(counts, (bucket,), ct.full((TILE,), 1, dtype=ct.int32), memory_order=RELAXED)


def histogram(x: torch.Tensor) -> torch.Tensor:
    counts = torch.zeros(2, dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 128),), histogram_kernel,
              (x, counts, 128))
    return counts
'''


def _variants(text: str, path: str) -> list[dict[str, str]]:
    result = translate_bytes(text.encode(), path)
    assert result.ok, [d.message for d in result.all_diagnostics()]
    return [m.get("dtype_variant") or {} for m in read_manifests(result.rust or "").values()]


def test_a_launch_mixing_element_types_gets_its_own_entry() -> None:
    variants = _variants(HISTOGRAM, "histogram.py")
    assert {"x": "float16", "counts": "int32"} in variants
    assert {"x": "float16", "counts": "float16"} in variants  # one type: still there
    # The usual float types are a guess, not a launch: they are not mixed with each other.
    assert {"x": "float16", "counts": "float32"} not in variants


def test_the_mixed_entry_is_proven_for_its_launch(tmp_path: Path) -> None:
    spec = {"histogram_kernel": [{"x": {"dtype": "float16", "ndim": 1},
                                  "counts": {"dtype": "int32", "ndim": 1}, "TILE": 128,
                                  "numeric": {"sizes": [{"N": 256}, {"N": 200}],
                                              "shapes": {"x": ["N"], "counts": [2]},
                                              "grid": ["cdiv(N, TILE)", 1, 1]}}]}
    outcome = Checker("cutile").run(HISTOGRAM, spec, tmp_path)
    assert outcome.klass == "proven", (outcome.key, outcome.text[-2000:])


def test_golden_entry_names_are_unique() -> None:
    for rs in sorted((ROOT / "golden").rglob("*.rs")):
        text = rs.read_text(encoding="utf-8")
        entries = [json.loads(line.split("transpiler-manifest:", 1)[1])["entry"]
                   for line in text.splitlines() if "transpiler-manifest:" in line]
        assert len(entries) == len(set(entries)), rs.name
        assert set(entries) == set(read_manifests(text)), rs.name


MIXED_TRITON = '''import torch
import triton
import triton.language as tl


@triton.jit
def mix_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n, other=0.0)
    b = tl.load(b_ptr + offs, mask=offs < n, other=0.0)
    # Each division's type depends on its operand's: a and b split one after the other.
    tl.store(y_ptr + offs, (a / 3.0).to(tl.float32) + (b / 3.0).to(tl.float32),
             mask=offs < n)


def mix(n):
    a = torch.empty(n, dtype=torch.float16, device="cuda")
    b = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    mix_kernel[(triton.cdiv(n, 64),)](a, b, y, n, BLOCK=64)
'''


def test_a_triton_launch_mixing_float_types_gets_its_own_entry() -> None:
    variants = _variants(MIXED_TRITON, "mix.py")
    # The launch's own mix (f16 beside f32), besides one entry per float type.
    assert {"a_ptr": "float16", "b_ptr": "float32"} in variants
    assert {"a_ptr": "float32", "b_ptr": "float32"} in variants
    assert {"a_ptr": "bfloat16", "b_ptr": "bfloat16"} in variants


SHARED_CLASS = '''import torch
import triton
import triton.language as tl


@triton.jit
def axpy_kernel(a_ptr, b_ptr, y_ptr, unused_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n)
    b = tl.load(b_ptr + offs, mask=offs < n)
    # a, b and y meet in one op and its store: one launch-time type, unless a launch mixes.
    tl.store(y_ptr + offs, a * 2.0 + b, mask=offs < n)


def axpy(n):
    a = torch.empty(n, dtype=torch.float16, device="cuda")
    b = torch.empty(n, dtype=torch.float32, device="cuda")
    y = torch.empty(n, dtype=torch.float32, device="cuda")
    axpy_kernel[(triton.cdiv(n, 64),)](a, b, y, torch.empty(1, device="cuda"), n, BLOCK=64)
'''


def test_pointers_of_one_class_that_a_launch_mixes_get_an_entry_of_that_launch() -> None:
    """O8: the generic entry for launches passing one type, and the launch's own."""
    result = translate_bytes(SHARED_CLASS.encode(), "axpy.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    manifests = read_manifests(result.rust or "")
    variants = [m.get("dtype_variant") or {} for m in manifests.values()]
    assert {} in variants
    assert {"a_ptr": "float16", "b_ptr": "float32", "y_ptr": "float32"} in variants
    mixed = manifests["axpy_kernel_f16_f32_f32"]
    assert not [g for g in mixed["generics"] if g["kind"] == "type"
                and {"a_ptr", "b_ptr"} & set(g["params"])]
    # Triton's promotion in that entry: the product in f16, the sum in f32.
    rust = result.rust or ""
    body = rust[rust.index("fn axpy_kernel_f16_f32_f32"):]
    assert "Tile<f32, { [BLOCK] }> = convert_tile(a * " in body


def test_an_unused_parameter_a_launch_passes_a_tensor_is_a_pointer() -> None:
    """O4: typed by the launch's argument, not as the i32 of an unused scalar."""
    result = translate_bytes(SHARED_CLASS.encode(), "axpy.py")
    params = {p["name"]: p for p in read_manifests(result.rust or "")["axpy_kernel"]["params"]}
    assert params["unused_ptr"]["kind"] == "pointer"
    assert params["n"]["kind"] == "scalar"


def test_a_generic_entry_is_not_selected_for_a_launch_it_cannot_type() -> None:
    """A type generic of `a_ptr` and `b_ptr` cannot be f16 and f32 at once: the mixed
    launch selects the variant entry; a launch of one type the generic entry."""
    manifests = read_manifests(translate_bytes(SHARED_CLASS.encode(), "axpy.py").rust or "")

    def spec(a: str, b: str) -> KernelSpec:
        return KernelSpec("axpy_kernel", (
            ("a_ptr", ArraySpec(a, 1)), ("b_ptr", ArraySpec(b, 1)),
            ("y_ptr", ArraySpec("float32", 1)), ("unused_ptr", ArraySpec("float32", 1)),
            ("n", ScalarSpec("int32")), ("BLOCK", ConstSpec(64))))

    chosen = select_manifest(manifests, "axpy_kernel", spec("float16", "float32"))
    assert chosen is not None and chosen["entry"] == "axpy_kernel_f16_f32_f32"
    chosen = select_manifest(manifests, "axpy_kernel", spec("float32", "float32"))
    assert chosen is not None and chosen["entry"] == "axpy_kernel"
    # A mix no entry has: none, rather than the generic entry with one of the types.
    assert select_manifest(manifests, "axpy_kernel", spec("bfloat16", "float32")) is None
