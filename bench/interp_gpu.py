"""The interpreter against the GPU: golden kernels run for real with cuTile Python, and the
interpreter's run of cuTile Python's own Tile IR on the same inputs, compared.

Three steps, because the device machine has torch and cuda.tile but not this project's
dependencies (the reference compiler's disassembler, libcst, lark):

    python -m bench.interp_gpu prepare STAGE [--stems vector_add,matmul]   # here
    python3 bench/interp_gpu_device.py STAGE OUT                           # on the device
    python -m bench.interp_gpu compare STAGE OUT [--out bench/results/interp_gpu.md]  # here

`prepare` takes the golden kernels with `numeric` settings (tests/numeric_settings.py) and
their golden specializations; for each launch case (seeded inputs as the numeric check makes
them) it writes the inputs and the launch (STAGE/cases.json, STAGE/inputs_<id>.npz, the golden
sources under STAGE/golden/) and interprets the reference Tile IR
(`ircheck.reference.reference_ir`, compiled for the inputs' layout facts) on them, keeping the
results
(STAGE/interp_<id>.npz: kept here, not carried). The device step launches each case with
`ct.launch` and writes OUT/gpu_<id>.npz. `compare` writes a table per output: equal bits, ULP
distance at most, mismatches, first difference. A difference is a finding to explain (a
hardware approximation, an accumulation order) or an interpreter bug to fix; this script does
not decide which.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from golden_specs import GOLDEN_SPECS  # noqa: E402
from numeric_settings import NUMERIC_SETTINGS  # noqa: E402

from transpiler.ircheck.parse import parse_tileir  # noqa: E402
from transpiler.ircheck.reference import reference_ir  # noqa: E402
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec  # noqa: E402
from transpiler.numeric_check.binding import LogicalArrays, reference_plan  # noqa: E402
from transpiler.numeric_check.compare import (  # noqa: E402
    TOLERANCES,
    approx_rule,
    compare_output,
)
from transpiler.numeric_check.inputs import LaunchCase, cases_for  # noqa: E402
from transpiler.numeric_check.sides import TileIrSide  # noqa: E402
from transpiler.tileir_interp.errors import InterpError  # noqa: E402

#: cuda.tile dtype names whose torch name differs (the device step builds torch tensors)
TORCH_DTYPES = {"bool_": "bool", "tfloat32": "float32"}


def launch_args(spec: KernelSpec, case: LaunchCase) -> list[dict[str, Any]]:
    """The kernel's arguments in order, as the device step rebuilds them."""
    args: list[dict[str, Any]] = []
    for name, param in spec.params:
        if isinstance(param, ArraySpec):
            args.append({"kind": "array", "name": name,
                         "torch_dtype": TORCH_DTYPES.get(param.dtype, param.dtype)})
        elif isinstance(param, ScalarSpec):
            args.append({"kind": "scalar", "name": name,
                         "value": case.scalars[name].item()})
        elif isinstance(param, ConstSpec):
            args.append({"kind": "const", "name": name, "value": param.value})
    return args


def _npz_bytes(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Arrays as raw bytes with their shapes: bf16/f8 survive `np.savez` on any machine."""
    out: dict[str, np.ndarray] = {}
    for name, array in arrays.items():
        contiguous = np.ascontiguousarray(array)
        out[f"{name}.bytes"] = contiguous.view(np.uint8).reshape(-1)
        out[f"{name}.shape"] = np.asarray(contiguous.shape, dtype=np.int64)
    return out


def _from_npz(path: Path, like: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    data = np.load(path)
    return {name: data[f"{name}.bytes"].view(ref.dtype).reshape(tuple(data[f"{name}.shape"]))
            for name, ref in like.items()}


def prepare(stage: Path, stems: list[str]) -> int:
    stage.mkdir(parents=True, exist_ok=True)
    (stage / "golden").mkdir(exist_ok=True)
    cases: list[dict[str, Any]] = []
    for stem in stems:
        shutil.copy(ROOT / "golden" / f"{stem}.py", stage / "golden" / f"{stem}.py")
        for spec in (s for s in GOLDEN_SPECS[stem] if s.kernel in NUMERIC_SETTINGS):
            sides: dict[Any, TileIrSide] = {}
            approx: dict[Any, str] = {}
            for case in cases_for(spec, NUMERIC_SETTINGS[spec.kernel], 0):
                # Compiled for the case's own layout facts (a ragged size is not divisible
                # by 16), as cuTile Python's JIT compiles for the tensors it is given.
                if case.layout not in sides:
                    laid = replace(spec, layout=case.layout)
                    text = reference_ir(ROOT / "golden" / f"{stem}.py", laid)
                    module = parse_tileir(text)
                    approx[case.layout] = approx_rule(module)
                    sides[case.layout] = TileIrSide("interpreter", module.entry(),
                                                    reference_plan(laid))
                side = sides[case.layout]
                ident = f"{len(cases):04d}"
                np.savez(stage / f"inputs_{ident}.npz", **_npz_bytes(case.arrays))
                arrays = {k: v.copy() for k, v in case.arrays.items()}
                fault = ""
                try:
                    side.run(LogicalArrays(arrays, dict(case.scalars)), case.grid)
                    np.savez(stage / f"interp_{ident}.npz", **_npz_bytes(arrays))
                except InterpError as err:
                    fault = str(err)
                cases.append({"id": ident, "stem": stem, "kernel": spec.kernel,
                              "spec": spec.label(), "case": case.label,
                              "grid": list(case.grid), "args": launch_args(spec, case),
                              "dtypes": {k: str(v.dtype) for k, v in case.arrays.items()},
                              "interpreter_fault": fault,
                              "tolerance": approx[case.layout]})
            print(f"{stem}: {spec.label()} prepared", flush=True)
    (stage / "cases.json").write_text(json.dumps(cases, indent=1), encoding="utf-8")
    print(f"{len(cases)} cases in {stage}")
    return 0


def compare(stage: Path, gpu_out: Path, out: Path) -> int:
    cases = json.loads((stage / "cases.json").read_text(encoding="utf-8"))
    lines = ["| kernel / spec | case | output | rule | ok | max ulps | mismatches | first |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    totals = {"outputs": 0, "bitwise": 0, "faults": 0, "missing": 0}
    for case in cases:
        head = f"| {case['spec']} | {case['case']}"
        if case["interpreter_fault"]:
            totals["faults"] += 1
            lines.append(f"{head} | - | interpreter fault: {case['interpreter_fault']} "
                         "| no | | | |")
            continue
        gpu_file = gpu_out / f"gpu_{case['id']}.npz"
        if not gpu_file.exists():
            totals["missing"] += 1
            lines.append(f"{head} | - | not run on the GPU | | | | |")
            continue
        like = {name: np.empty(0, dtype=_dtype(dtype)) for name, dtype in case["dtypes"].items()}
        interp = _from_npz(stage / f"interp_{case['id']}.npz", like)
        gpu = _from_npz(gpu_file, like)
        for name in like:
            rule = case.get("tolerance", "exact")
            verdict = compare_output(name, gpu[name], interp[name], TOLERANCES[rule])
            totals["outputs"] += 1
            totals["bitwise"] += int(verdict.ok)
            first = (f"{list(verdict.index or ())}: gpu {verdict.reference}, "
                     f"interp {verdict.generated}" if not verdict.ok else "")
            lines.append(f"{head} | {name} | {verdict.rule} | {'yes' if verdict.ok else 'no'} | "
                         f"{verdict.max_ulps} | {verdict.mismatches} | {first} |")
    summary = (f"{len(cases)} launch cases, {totals['outputs']} outputs compared, "
               f"{totals['bitwise']} bitwise equal; {totals['faults']} interpreter faults, "
               f"{totals['missing']} cases not run on the GPU.")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Interpreter vs GPU (cuTile Python on the device)\n\n" + summary + "\n\n"
                   + "\n".join(lines) + "\n", encoding="utf-8")
    print(summary)
    print("\n".join(line for line in lines if "| no |" in line))
    return 0


def _dtype(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name, name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    prep = steps.add_parser("prepare", help="inputs and interpreter results, here")
    prep.add_argument("stage", type=Path)
    prep.add_argument("--stems", default="")
    comp = steps.add_parser("compare", help="the table, from the device step's results")
    comp.add_argument("stage", type=Path)
    comp.add_argument("gpu_out", type=Path)
    comp.add_argument("--out", type=Path,
                      default=ROOT / "bench" / "results" / "interp_gpu.md")
    args = parser.parse_args()
    if args.step == "prepare":
        stems = [s for s in args.stems.split(",") if s] or sorted(
            stem for stem, specs in GOLDEN_SPECS.items()
            if any(s.kernel in NUMERIC_SETTINGS for s in specs))
        return prepare(args.stage, stems)
    return compare(args.stage, args.gpu_out, args.out)


if __name__ == "__main__":
    sys.exit(main())
