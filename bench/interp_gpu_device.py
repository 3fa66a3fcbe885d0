"""Device step of `bench/interp_gpu.py`: launch each prepared case with cuTile Python.

Needs only torch, numpy and cuda.tile (the device machine's image plus the cuda-tile wheel).
Takes STAGE (from `python -m bench.interp_gpu prepare STAGE`): cases.json, inputs_<id>.npz and
the golden sources; gives OUT/gpu_<id>.npz, every array argument after the launch, as raw bytes
with its shape (the format `prepare` writes), and OUT/gpu_cases.log, one line per case.

    python3 bench/interp_gpu_device.py STAGE OUT
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path
from typing import Any

import cuda.tile as ct
import numpy as np
import torch


def load_module(stage: Path, stem: str) -> Any:
    path = stage / "golden" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"golden_{stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_case(stage: Path, module: Any, case: dict[str, Any]) -> dict[str, np.ndarray]:
    inputs = np.load(stage / f"inputs_{case['id']}.npz")
    tensors: dict[str, torch.Tensor] = {}
    args: list[Any] = []
    for arg in case["args"]:
        if arg["kind"] == "array":
            name = arg["name"]
            raw = torch.from_numpy(inputs[f"{name}.bytes"].copy())
            shape = tuple(int(d) for d in inputs[f"{name}.shape"])
            tensors[name] = raw.cuda().view(getattr(torch, arg["torch_dtype"])).reshape(shape)
            args.append(tensors[name])
        else:
            args.append(arg["value"])
    kernel = getattr(module, case["kernel"])
    ct.launch(torch.cuda.current_stream(), tuple(case["grid"]), kernel, tuple(args))
    torch.cuda.synchronize()
    out: dict[str, np.ndarray] = {}
    for name, tensor in tensors.items():
        raw = tensor.contiguous().view(torch.uint8).reshape(-1).cpu().numpy()
        out[f"{name}.bytes"] = raw
        out[f"{name}.shape"] = np.asarray(tuple(tensor.shape), dtype=np.int64)
    return out


def main() -> int:
    stage, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    cases = json.loads((stage / "cases.json").read_text(encoding="utf-8"))
    modules: dict[str, Any] = {}
    log = []
    for case in cases:
        try:
            if case["stem"] not in modules:
                modules[case["stem"]] = load_module(stage, case["stem"])
            module = modules[case["stem"]]
            np.savez(out / f"gpu_{case['id']}.npz", **run_case(stage, module, case))
            log.append(f"{case['id']} {case['spec']} {case['case']}: ran")
        except Exception:  # noqa: BLE001  (one case's failure is reported, the rest run)
            log.append(f"{case['id']} {case['spec']} {case['case']}: "
                       + traceback.format_exc().strip().splitlines()[-1])
    (out / "gpu_cases.log").write_text("\n".join(log) + "\n", encoding="utf-8")
    print(f"{sum(line.endswith(': ran') for line in log)}/{len(cases)} cases ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
