"""Tests for transpiler.ircheck.reference, and end-to-end checks on compiled kernels.

Kernels live in tests/ircheck_kernels/: base.py (references), mutants.py (one real change
each: must FAIL with the named difference), variants.py (same meaning: must PASS) and
host_wrapped.py (TileGym's style: a host decorator on `@ct.kernel`, torch type hints, torch /
numpy dtypes). base.py imports numpy and raises at module level, so compiling from it proves
the file is lifted, never imported.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from transpiler.ircheck.compare import FAIL, compare_modules, format_verdict
from transpiler.ircheck.parse import TileIrModule, parse_tileir
from transpiler.ircheck.reference import (
    CUDA_TILE_DTYPES,
    ReferenceIrError,
    array_constraint,
    find_tileirdisasm,
    lift_kernel,
    load_lifted_kernel,
    reference_ir,
)
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, Layout, ScalarSpec

KERNELS = Path(__file__).parent / "ircheck_kernels"
BASE = KERNELS / "base.py"
HOST = KERNELS / "host_wrapped.py"

# Per kernel family: array parameters, then constant values, in parameter order.
FAMILIES: dict[str, tuple[tuple[ArraySpec, ...], tuple[int, ...]]] = {
    "vadd": ((ArraySpec("float32", 1),) * 3, (1024,)),
    "scale": ((ArraySpec("float32", 1),) * 2, (256,)),
    "softmax": ((ArraySpec("bfloat16", 2),) * 2, (4096,)),
    "matmul": ((ArraySpec("float16", 2),) * 3, (128, 128, 64)),
    "exp2_scale": ((ArraySpec("float32", 1),) * 2, (1024,)),
    "split_store": ((ArraySpec("float32", 1),) * 3, (1024,)),
}


def _param_names(path: Path, kernel: str) -> list[str]:
    for stmt in ast.parse(path.read_text()).body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            return [a.arg for a in stmt.args.args]
    raise KeyError(kernel)


def _spec(path: Path, kernel: str, family: str) -> KernelSpec:
    arrays, consts = FAMILIES[family]
    names = _param_names(path, kernel)
    params = [*arrays, *(ConstSpec(c) for c in consts)]
    return KernelSpec(kernel, tuple(zip(names, params, strict=True)))


@pytest.fixture(scope="module")
def compiled() -> Callable[[str, str, str], TileIrModule]:
    """Parsed reference IR of (file, kernel, family), compiled once per test module."""
    cache: dict[tuple[str, str, str], TileIrModule] = {}

    def get(file: str, kernel: str, family: str) -> TileIrModule:
        key = (file, kernel, family)
        if key not in cache:
            path = KERNELS / file
            cache[key] = parse_tileir(reference_ir(path, _spec(path, kernel, family)))
        return cache[key]

    return get


# -- lifting -----------------------------------------------------------------------------------


def test_lifting_keeps_the_kernel_on_its_lines_and_only_what_it_needs() -> None:
    source = BASE.read_text()
    lifted = lift_kernel(source, "exp2_scale", str(BASE))
    original_lines, lifted_lines = source.splitlines(), lifted.splitlines()
    assert len(lifted_lines) == len(original_lines)
    start = next(i for i, line in enumerate(original_lines) if "def exp2_scale" in line)
    assert lifted_lines[start - 1:start + 5] == original_lines[start - 1:start + 5]
    for needed in ("def _scaled", "SCALE = 0.5", "LOG2E =", "import math",
                   "import cuda.tile as ct"):
        assert needed in lifted
    for dropped in ("numpy", "raise", "def host_buffer", "def vadd", "PaddingMode"):
        assert dropped not in lifted


def test_lifting_follows_from_imports(tmp_path: Path) -> None:
    lifted = lift_kernel(BASE.read_text(), "softmax", str(BASE))
    assert "from cuda.tile import PaddingMode" in lifted


def test_lifting_refuses_names_from_other_modules(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "import cuda.tile as ct\n"
        "\n"
        "@ct.kernel\n"
        "def k(x, T: ct.Constant[int]):\n"
        "    ct.store(x, index=(0,), tile=ct.full((T,), torch.pi, dtype=ct.float32))\n"
    )
    with pytest.raises(ReferenceIrError, match="torch"):
        lift_kernel(source, "k")
    # numpy's constants are read from numpy itself (pinned), its dtypes from cuda.tile.
    lifted = lift_kernel(source.replace("import torch", "import numpy as np")
                         .replace("torch.pi", "np.pi"), "k")
    assert "import numpy as np" in lifted


def test_lifting_needs_a_decorated_kernel() -> None:
    with pytest.raises(ReferenceIrError, match="no top-level kernel"):
        lift_kernel(BASE.read_text(), "missing")
    with pytest.raises(ReferenceIrError, match="not decorated"):
        lift_kernel(BASE.read_text(), "host_buffer")


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_lifting_leaves_out_host_decorators_and_type_hints() -> None:
    source = HOST.read_text()
    lifted = lift_kernel(source, "vadd", str(HOST))
    original_lines, lifted_lines = source.splitlines(), lifted.splitlines()
    assert len(lifted_lines) == len(original_lines)
    decorator = _line_of(HOST, "def vadd") - 2
    assert original_lines[decorator - 1] == "@experimental_kernel"
    assert lifted_lines[decorator - 1] == ""
    assert lifted_lines[decorator] == "@ct.kernel"
    for dropped in ("experimental", "tilegym", "torch", "numpy", "raise", "_widen"):
        assert dropped not in lifted
    # The signature keeps its lines and columns; the type hints are blanked in place.
    header = _line_of(HOST, "def vadd")
    assert lifted_lines[header - 1] == "def vadd(a              , b              , c              ,"
    assert lifted_lines[header] == "         TILE: ct.Constant[int])                :"
    body = _line_of(HOST, "ta = ct.load(a")
    assert lifted_lines[body - 2:body + 2] == original_lines[body - 2:body + 2]
    kernel = load_lifted_kernel(HOST, "vadd")
    assert type(kernel).__module__.startswith("cuda.tile")


def test_lifting_reads_torch_and_numpy_dtypes_from_cuda_tile() -> None:
    source = HOST.read_text()
    lifted = lift_kernel(source, "cast_host_dtypes", str(HOST))
    lines = lifted.splitlines()
    assert lines[_line_of(HOST, "import numpy as np") - 1].startswith("import cuda.tile as np")
    assert lines[_line_of(HOST, "import torch") - 1].startswith("import cuda.tile as torch")
    assert lines[_line_of(HOST, "from numpy import float16 as half") - 1].startswith(
        "from cuda.tile import float16 as half")
    assert lines[_line_of(HOST, "ACC_DTYPE =") - 1] == "ACC_DTYPE = torch.float32"
    assert lines[_line_of(HOST, "def _widen") - 1] == "def _widen(t):"
    assert "import numpy" not in lifted and "import torch" not in lifted
    assert "experimental" not in lifted
    assert lines[_line_of(HOST, "def cast_host_dtypes") - 2] == "@ct.kernel(occupancy=2)"


def _refusal(body: str, header: str = "import torch\nimport cuda.tile as ct\n") -> str:
    source = (f"{header}\n@ct.kernel\ndef k(x, T: ct.Constant[int]):\n"
              f"    t = ct.load(x, index=(0,), shape=(T,))\n    {body}\n")
    with pytest.raises(ReferenceIrError) as info:
        lift_kernel(source, "k")
    return str(info.value)


def test_lifting_refuses_torch_for_anything_but_its_dtypes() -> None:
    assert "line 7 reads `torch.zeros`" in _refusal(
        "ct.store(x, index=(0,), tile=t + torch.zeros(1))")
    # `torch.bool` is cuda.tile's `bool_`: not a dtype of the same name.
    assert "`torch.bool`" in _refusal("ct.store(x, index=(0,), tile=t.astype(torch.bool))")
    assert "line 7 reads `torch`" in _refusal("ct.store(x, index=(0,), tile=t + len(torch))")
    assert "imported from `torch.nn`" in _refusal(
        "ct.store(x, index=(0,), tile=nn.relu(t))",
        "import torch.nn as nn\nimport cuda.tile as ct\n")
    assert "imported from `torch`" in _refusal(
        "ct.store(x, index=(0,), tile=t.astype(Tensor))",
        "from torch import Tensor\nimport cuda.tile as ct\n")


def test_lifting_keeps_cuda_tile_annotations_and_line_continuations() -> None:
    source = (
        "import torch\n"
        "import cuda.tile as ct\n"
        "kernel = ct.kernel\n"
        "\n"
        "@kernel\n"
        "def k(x: \"torch.Tensor\", T: ct.Constant[int], U: ct.Constant[int] = 2) \\\n"
        "        -> \\\n"
        "        torch.Tensor:\n"
        "    t = ct.load(x, index=(0,), shape=(T,))\n"
        "    ct.store(x, index=(0,), tile=t.astype(torch.float32))\n"
    )
    lifted = lift_kernel(source, "k")
    compile(lifted, "<lifted>", "exec")
    lines = lifted.splitlines()
    assert lines[2] == "kernel = ct.kernel" and lines[4] == "@kernel"
    assert lines[5].startswith("def k(x                , T: ct.Constant[int], U: ct.Constant")
    assert lines[6].strip() == "\\" and lines[7].strip() == ":"
    assert lines[0].startswith("import cuda.tile as torch")


def test_dtype_names_read_from_torch_and_numpy_are_cuda_tiles() -> None:
    import cuda.tile as ct

    assert {name for name in dir(ct) if isinstance(getattr(ct, name), ct.DType)} \
        == CUDA_TILE_DTYPES


# -- specializations ---------------------------------------------------------------------------


def test_layout_maps_onto_array_constraint() -> None:
    contiguous = array_constraint(ArraySpec("bfloat16", 2), Layout())
    assert contiguous.stride_constant == (None, 1)
    assert contiguous.stride_divisible_by == (16, 1)
    assert contiguous.shape_divisible_by == (16, 16)
    assert contiguous.base_addr_divisible_by == 16
    assert contiguous.stride_lower_bound_incl == (0, None)
    loose = array_constraint(ArraySpec("float32", 2),
                             Layout(shape_divisible_by=1, stride_divisible_by=1,
                                    base_addr_divisible_by=4, last_stride_one=False))
    assert loose.stride_constant == (None, None)
    assert loose.shape_divisible_by == (1, 1)
    assert loose.base_addr_divisible_by == 4


def test_runtime_scalars_become_entry_arguments(tmp_path: Path) -> None:
    path = tmp_path / "shift.py"
    path.write_text(
        "import cuda.tile as ct\n"
        "\n"
        "\n"
        "@ct.kernel\n"
        "def shift(x, y, n: int, T: ct.Constant[int]):\n"
        "    t = ct.load(x, index=(ct.bid(0),), shape=(T,))\n"
        "    ct.store(y, index=(ct.bid(0),), tile=t + n)\n"
    )
    spec = KernelSpec("shift", (("x", ArraySpec("int32", 1)), ("y", ArraySpec("int32", 1)),
                                ("n", ScalarSpec("int32")), ("T", ConstSpec(128))))
    entry = parse_tileir(reference_ir(path, spec)).entry()
    assert entry.args[-1].type is not None and entry.args[-1].type.text == "tile<i32>"
    assert any(op.name == "addi" for op in entry.ops)


def test_a_spec_that_does_not_match_the_parameters_is_refused() -> None:
    spec = KernelSpec("vadd", (("a", ArraySpec("float32", 1)), ("TILE", ConstSpec(64))))
    with pytest.raises(ReferenceIrError, match="parameters"):
        reference_ir(BASE, spec)


def test_cuda_tile_errors_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(
        "import cuda.tile as ct\n"
        "\n"
        "\n"
        "@ct.kernel\n"
        "def bad(x, T: ct.Constant[int]):\n"
        "    t = ct.load(x, index=(ct.bid(0),), shape=(T,))\n"
        "    ct.store(x, index=(ct.bid(0),), tile=t)\n"
    )
    spec = KernelSpec("bad", (("x", ArraySpec("float32", 1)), ("T", ConstSpec(1000))))
    with pytest.raises(ReferenceIrError, match="cuda-tile rejected bad.*power of two"):
        reference_ir(path, spec)


def test_tileirdisasm_can_be_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    found = find_tileirdisasm()
    assert found.name == "tileirdisasm" and found.is_file()
    monkeypatch.setenv("TILEIRDISASM", "/opt/elsewhere/tileirdisasm")
    assert find_tileirdisasm() == Path("/opt/elsewhere/tileirdisasm")


# -- reference IR ------------------------------------------------------------------------------


def test_reference_ir_of_vadd(compiled: Callable[[str, str, str], TileIrModule]) -> None:
    entry = compiled("base.py", "vadd", "vadd").entry()
    assert entry.name.startswith("vadd_")
    counts = Counter(op.name for op in entry.ops)
    assert counts["load_view_tko"] == 2 and counts["store_view_tko"] == 1
    assert counts["make_tensor_view"] == 3
    load = next(op for op in entry.ops if op.name == "load_view_tko")
    line = next(i for i, text in enumerate(BASE.read_text().splitlines(), 1)
                if "ta = ct.load(a" in text)
    assert load.location is not None and load.location.startswith(f"{BASE}:{line}:")


# -- end to end: real changes FAIL, rewrites PASS ---------------------------------------------

MUTANTS = [
    ("vadd", "vadd_half_tile", "tile-shape"),
    ("exp2_scale", "exp2_scale_no_ftz", "flush-to-zero"),
    ("softmax", "softmax_max_axis0", "reduce-axis"),
    ("softmax", "softmax_sum_not_max", "reduce-identity"),
    ("softmax", "softmax_sum_not_max", "reduce-combiner"),
    ("softmax", "softmax_no_padding", "padding-value"),
    ("softmax", "softmax_exp2", "operation"),
    ("matmul", "matmul_swapped_bounds", "loop-bounds"),
    ("matmul", "matmul_f16_acc", "mma-types"),
    ("split_store", "split_store_missing", "store-count"),
    ("split_store", "split_store_extra", "store-count"),
]


@pytest.mark.parametrize(("family", "mutant", "kind"), MUTANTS)
def test_a_real_change_fails_with_the_right_difference(
        compiled: Callable[[str, str, str], TileIrModule], family: str, mutant: str,
        kind: str) -> None:
    verdict = compare_modules(compiled("base.py", family, family),
                              compiled("mutants.py", mutant, family))
    assert verdict.status == FAIL, format_verdict(verdict)
    assert kind in verdict.kinds, format_verdict(verdict)
    assert all(d.message for d in verdict.differences)


def test_a_flush_to_zero_difference_points_at_both_sources(
        compiled: Callable[[str, str, str], TileIrModule]) -> None:
    verdict = compare_modules(compiled("base.py", "exp2_scale", "exp2_scale"),
                              compiled("mutants.py", "exp2_scale_no_ftz", "exp2_scale"))
    (diff,) = verdict.differences
    assert diff.location is not None and "base.py" in diff.location
    assert diff.generated_location is not None and "mutants.py" in diff.generated_location
    assert diff.reference is not None and "flush_to_zero" in diff.reference


VARIANTS = [
    ("vadd", "vadd_renamed"),
    ("vadd", "vadd_reordered"),
    ("vadd", "vadd_dead_code"),
    ("softmax", "softmax_restructured"),
    ("split_store", "split_store_swapped"),
]


@pytest.mark.parametrize(("family", "variant"), VARIANTS)
def test_a_rewrite_with_the_same_meaning_passes(
        compiled: Callable[[str, str, str], TileIrModule], family: str, variant: str) -> None:
    verdict = compare_modules(compiled("base.py", family, family),
                              compiled("variants.py", variant, family))
    assert verdict.passed, format_verdict(verdict)


def test_each_kernel_passes_against_itself(
        compiled: Callable[[str, str, str], TileIrModule]) -> None:
    for family in FAMILIES:
        module = compiled("base.py", family, family)
        verdict = compare_modules(module, module)
        assert verdict.status == "PASS", format_verdict(verdict)


def test_cutile_rust_output_for_vadd_passes_with_notes(
        compiled: Callable[[str, str, str], TileIrModule]) -> None:
    """samples/vadd_rust.tileir: the project harness's cuTile Rust vadd, `tileirdisasm -g`."""
    rust = parse_tileir((KERNELS / "samples" / "vadd_rust.tileir").read_text())
    verdict = compare_modules(compiled("base.py", "vadd", "vadd"), rust)
    assert verdict.status == "PASS_WITH_NOTES", format_verdict(verdict)
    rules = {note.rule for note in verdict.notes}
    assert {"padding-refinement", "token-threading", "assume-bounded-redundant"} <= rules
    assert rust.entry().ops[1].location is not None


# -- kernels in TileGym's style: host decorators, torch type hints, torch / numpy dtypes -------


def test_a_host_wrapped_kernel_compiles_like_the_plain_one(
        compiled: Callable[[str, str, str], TileIrModule]) -> None:
    wrapped = compiled("host_wrapped.py", "vadd", "vadd")
    verdict = compare_modules(compiled("base.py", "vadd", "vadd"), wrapped)
    assert verdict.status == "PASS", format_verdict(verdict)
    load = next(op for op in wrapped.entry().ops if op.name == "load_view_tko")
    line = _line_of(HOST, "ta = ct.load(a")
    col = HOST.read_text().splitlines()[line - 1].index("ct.load")
    assert load.location == f"{HOST}:{line}:{col}"


def test_torch_and_numpy_dtypes_compile_as_cuda_tiles(
        compiled: Callable[[str, str, str], TileIrModule]) -> None:
    host = compiled("host_wrapped.py", "cast_host_dtypes", "scale")
    verdict = compare_modules(compiled("host_wrapped.py", "cast_tile_dtypes", "scale"), host)
    assert verdict.status == "PASS", format_verdict(verdict)
    swapped = compare_modules(compiled("host_wrapped.py", "cast_other_dtypes", "scale"), host)
    assert swapped.status == FAIL and "element-type" in swapped.kinds, format_verdict(swapped)
    store = [op for op in host.entry().ops if op.name == "store_view_tko"][-1]
    line = _line_of(HOST, "ct.store(y, index=(bid,), tile=(acc * 2.0).astype(half)")
    assert store.location is not None and store.location.startswith(f"{HOST}:{line}:")


def test_tileiras_only_kernel_options_are_left_out_of_the_lift() -> None:
    """`opt_level=` goes to tileiras alone (not into the bytecode); its value may be host
    code the lift cannot keep, so the keyword is blanked, with its comma, on its line."""
    source = (
        "import cuda.tile as ct\n"
        "from helpers import tileiras_version\n"
        "_OPT = 0 if tileiras_version() < 13 else 3\n"
        "\n"
        "@ct.kernel(opt_level=_OPT, occupancy=2)\n"
        "def first(x):\n"
        "    pass\n"
        "\n"
        "@ct.kernel(occupancy=2, opt_level=_OPT)\n"
        "def last(x):\n"
        "    pass\n"
    )
    first = lift_kernel(source, "first").splitlines()
    last = lift_kernel(source, "last").splitlines()
    assert first[4].replace(" ", "") == "@ct.kernel(occupancy=2)"
    assert last[8].replace(" ", "") == "@ct.kernel(occupancy=2)"
    assert "tileiras_version" not in "\n".join(first + last)
