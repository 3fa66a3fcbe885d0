"""The interpreter against the GPU: golden kernels run for real with cuTile Python, and the
interpreter's run of cuTile Python's own Tile IR on the same inputs, compared.

    python bench/interp_gpu.py [--stems vector_add,matmul] [--out bench/results/interp_gpu.md]

Needs a CUDA GPU, `cuda-tile` and `torch`. Takes the golden kernels with `numeric` settings
(tests/numeric_settings.py) and their golden specializations; for each launch case (seeded
inputs as the numeric check makes them) launches the kernel with `ct.launch` on torch tensors,
interprets the reference Tile IR (`ircheck.reference.reference_ir`) with the same inputs, and
writes a table per output: equal bits, ULP distance at most, mismatches, first difference.
A difference is a finding to explain (a hardware approximation, an accumulation order) or
an interpreter bug to fix; this script does not decide which.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from golden_specs import GOLDEN_SPECS  # noqa: E402
from numeric_settings import NUMERIC_SETTINGS  # noqa: E402

from transpiler.ircheck.parse import parse_tileir  # noqa: E402
from transpiler.ircheck.reference import reference_ir  # noqa: E402
from transpiler.ircheck.spec import ArraySpec, ConstSpec, ScalarSpec  # noqa: E402
from transpiler.numeric_check.binding import LogicalArrays, reference_plan  # noqa: E402
from transpiler.numeric_check.compare import TOLERANCES, compare_output  # noqa: E402
from transpiler.numeric_check.inputs import cases_for  # noqa: E402
from transpiler.numeric_check.sides import TileIrSide  # noqa: E402
from transpiler.tileir_interp.errors import InterpError  # noqa: E402


def _load(stem: str) -> Any:
    path = ROOT / "golden" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"golden_{stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gpu_run(module: Any, spec: Any, case: Any) -> dict[str, np.ndarray]:
    import cuda.tile as ct
    import torch

    tensors: dict[str, Any] = {}
    args: list[Any] = []
    for name, param in spec.params:
        if isinstance(param, ArraySpec):
            host = np.ascontiguousarray(case.arrays[name])
            raw = torch.frombuffer(bytearray(host.tobytes()), dtype=torch.uint8)
            dtype = getattr(torch, _TORCH_DTYPES.get(param.dtype, param.dtype))
            tensors[name] = raw.cuda().view(dtype).reshape(host.shape)
            args.append(tensors[name])
        elif isinstance(param, ScalarSpec):
            args.append(case.scalars[name].item())
        elif isinstance(param, ConstSpec):
            args.append(param.value)
    ct.launch(torch.cuda.current_stream(), case.grid, getattr(module, spec.kernel), tuple(args))
    torch.cuda.synchronize()
    out = {}
    for name, tensor in tensors.items():
        host = case.arrays[name]
        raw = tensor.contiguous().view(torch.uint8).cpu().numpy()
        out[name] = raw.view(host.dtype).reshape(host.shape)
    return out


#: cuda.tile dtype names whose torch name differs
_TORCH_DTYPES = {"bool_": "bool", "tfloat32": "float32"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stems", default="")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "interp_gpu.md"))
    args = parser.parse_args()
    stems = [s for s in args.stems.split(",") if s] or sorted(
        stem for stem, specs in GOLDEN_SPECS.items()
        if any(s.kernel in NUMERIC_SETTINGS for s in specs))
    lines = ["| kernel / spec | case | output | rule | ok | max ulps | mismatches | first |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for stem in stems:
        module = _load(stem)
        for spec in (s for s in GOLDEN_SPECS[stem] if s.kernel in NUMERIC_SETTINGS):
            text = reference_ir(ROOT / "golden" / f"{stem}.py", spec)
            side = TileIrSide("interpreter", parse_tileir(text).entry(), reference_plan(spec))
            for case in cases_for(spec, NUMERIC_SETTINGS[spec.kernel], 0):
                if case.layout != spec.layout:
                    continue  # the IR above assumes the default layout facts
                gpu = _gpu_run(module, spec, case)
                arrays = {k: v.copy() for k, v in case.arrays.items()}
                try:
                    side.run(LogicalArrays(arrays, dict(case.scalars)), case.grid)
                except InterpError as err:
                    lines.append(f"| {spec.label()} | {case.label} | - | interpreter fault: "
                                 f"{err} | no | | | |")
                    continue
                for name in arrays:
                    v = compare_output(name, gpu[name], arrays[name], TOLERANCES["exact"])
                    first = (f"{list(v.index or ())}: gpu {v.reference}, interp {v.generated}"
                             if not v.ok else "")
                    lines.append(f"| {spec.label()} | {case.label} | {name} | bitwise | "
                                 f"{'yes' if v.ok else 'no'} | {v.max_ulps} | {v.mismatches} "
                                 f"| {first} |")
            print(f"{stem}: {spec.label()} done", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("# Interpreter vs GPU (cuTile Python on the device)\n\n"
                              + "\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
