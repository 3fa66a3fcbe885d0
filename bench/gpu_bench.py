"""GPU bench: cuTile Python originals against their Rust translations, on the same inputs.

Runs on the device machine (torch, cuda.tile, the Tile IR toolchain; see launcher/NOTES.md,
"GPU bench"). Takes the staging folder of `launcher/stage_bench.sh` (one `--emit pywrapper`
module per golden file and per TileGym op file, the TileGym sources those need under
`tilegym_src/`, and the launcher library they share) and the golden sources. TileGym op
modules are loaded from their files with empty package `__init__`s (the package's own pulls
in every backend). Gives, per operator, shape and dtype:

- correctness: the Rust translation's outputs against the original's on fresh random inputs
  (golden ops: torch.testing's default tolerance for the dtype; TileGym ops: the tolerances
  of TileGym's own tests; bitwise equality reported), both against a torch reference
  (relative L2 error, reported only), and the Rust grid against Python's;
- kernel device time: CUPTI kernel durations through torch.profiler, median per call;
- whole-call time: CUDA events around the Python call on an idle GPU, median per call;

the two implementations interleaved in one run, after warm-up; and the launcher library's
fast-path counters (`tl_fast_stats`). Writes OUT/gpu.json and OUT/gpu.md (per configuration
both pairs and the ratios Rust / Python, per-operator and overall geomeans, the worst
operator, device, driver and versions) and prints the table. `--overhead` instead measures
the host cost per call of each layer of the launch path (OUT/gpu_overhead[_TAG].json).

    python3 bench/gpu_bench.py --stage .tlbench --out OUT [--ops a,b] [--quick] [--sanity]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812

REPO = Path(__file__).resolve().parents[1]
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
Inputs = tuple[tuple[Any, ...], dict[str, Any]]


# ---- operators ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One forward operator of a golden file: its host function, inputs and reference."""

    op: str  # golden file stem
    function: str
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    make: Callable[[tuple[int, ...], torch.dtype, torch.Generator], Inputs]
    reference: Callable[..., Any]
    quick: tuple[int, ...] = (0,)  # shape indices kept by --quick
    #: TileGym op file under tilegym/ops/cutile/ (e.g. "activation/relu.py"); "" for golden
    tilegym: str = ""
    #: (rtol, atol) per dtype name for Rust vs Python and vs the reference (TileGym's tests)
    tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: the results' operator name (default: `op`)
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.op


def _randn(shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator,
           scale: float = 1.0) -> torch.Tensor:
    out = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32) * scale
    return out.to(dtype)


def _rms_ref(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    return y.to(x.dtype)


def _ln_ref(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float = 1e-5):
    xf = x.float()
    mean = xf.mean(-1)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False) + eps)
    y = F.layer_norm(xf, (x.shape[-1],), w.float(), b.float(), eps)
    return y.to(x.dtype), mean, rstd


def _swiglu_ref(gate_up: torch.Tensor, block_h: int = 512) -> torch.Tensor:
    gate, up = gate_up.float().chunk(2, dim=-1)
    return (F.silu(gate) * up).to(gate_up.dtype)


CASES: tuple[Case, ...] = (
    Case("vector_add", "vector_add", ((1 << 20,), (1 << 24,), (1 << 26,)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s, d, g)), {}),
         lambda a, b: a + b, quick=(1,)),
    Case("softmax_rows", "softmax", ((4096, 1024), (8192, 4096), (32768, 512)),
         ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.softmax(x.float(), -1).to(x.dtype), quick=(1,)),
    Case("rms_norm", "rms_norm", ((4096, 4096), (16384, 1024)), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s[1:], d, g)), {"eps": 1e-6}),
         _rms_ref),
    Case("layer_norm", "layer_norm", ((4096, 4096), (16384, 1024)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_randn(s, d, g), _randn(s[1:], d, g), _randn(s[1:], d, g)), {}),
         _ln_ref),
    Case("matmul", "matmul", ((2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)),
         ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn(s[1:], d, g)), {}),
         lambda a, b: (a.float() @ b.float()).to(a.dtype), quick=(1,)),
    Case("gelu_tanh", "gelu", ((4096, 4096),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}),
         lambda x: F.gelu(x.float(), approximate="tanh").to(x.dtype)),
    Case("silu", "silu", ((1 << 24,),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}),
         lambda x: F.silu(x.float()).to(x.dtype)),
    Case("swiglu", "swiglu", ((4096, 8192),), ("bf16", "f16"),
         lambda s, d, g: ((_randn(s, d, g, 2.0),), {}), _swiglu_ref),
    Case("l2_normalize", "l2_normalize", ((16384, 1024),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g),), {}),
         lambda x, rows_per_block=8: F.normalize(x.float(), dim=-1).to(x.dtype)),
    Case("online_softmax", "online_softmax", ((4096, 8192),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x, tile_n=1024: torch.softmax(x.float(), -1).to(x.dtype)),
    Case("log_softmax", "logsumexp", ((8192, 2048),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g, 3.0),), {}),
         lambda x: torch.logsumexp(x.float(), -1)),
    Case("transpose", "transpose", ((4096, 4096),), ("f32", "bf16"),
         lambda s, d, g: ((_randn(s, d, g),), {}),
         lambda x, fold_into_load=False: x.t().contiguous()),
    Case("linear", "linear", ((4096, 4096, 4096),), ("bf16", "f16"),
         lambda s, d, g: ((_randn(s[:2], d, g), _randn((s[2], s[1]), d, g, 0.05),
                           _randn((s[2],), d, g)), {}),
         lambda x, w, b: (x.float() @ w.float().t() + b.float()).to(x.dtype)),
    Case("batched_matmul", "bmm", ((16, 1024, 1024, 1024),), ("f16", "bf16"),
         lambda s, d, g: ((_randn(s[:3], d, g), _randn((s[0], s[2], s[3]), d, g)), {}),
         lambda a, b: torch.bmm(a.float(), b.float()).to(a.dtype)),
)



def _tg_rand(shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator, scale: float,
             shift: float) -> torch.Tensor:
    """`torch.rand(..) * scale + shift`, the input TileGym's tests draw."""
    out = torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * scale + shift
    return out.to(dtype)


def _tg_rms_ref(x: torch.Tensor, shape: tuple[int, ...], w: torch.Tensor, eps: float,
                **_: Any) -> torch.Tensor:
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (w.float() * y.to(w.dtype).float()).to(x.dtype)


#: Forward TileGym ops whose kernels translate with IR verdict PASS/PASS_WITH_NOTES
#: (bench/results/tilegym.json) and whose launch sites get a launcher. Shapes: TileGym's
#: benchmark shapes where it has them (rms_norm: bench_rmsnorm.py, M 4096, N 1024..16384;
#: transpose: test_transpose.py perf, 2^6..2^14 squares), else its test shapes plus one
#: bandwidth-sized shape; tolerances: TileGym's tests'.
TILEGYM_CASES: tuple[Case, ...] = (
    Case("relu", "relu", ((256, 2048), (256, 32768), (8192, 8192)), ("f32", "f16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 1.0, -0.5),), {}),
         lambda x: F.relu(x), quick=(2,), tilegym="activation/relu.py",
         tolerance={"f32": (1e-5, 1e-8), "f16": (1e-5, 1e-8), "bf16": (1e-5, 1e-8)},
         label="tilegym/relu"),
    Case("gelu", "gelu", ((256, 2048), (8192, 8192)), ("f32", "f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 12.0, -6.0),), {"approximate": "tanh"}),
         lambda x, approximate: F.gelu(x.float(), approximate=approximate).to(x.dtype),
         quick=(1,), tilegym="activation/gelu.py",
         tolerance={"f32": (1e-6, 1e-6), "f16": (2e-3, 1e-5), "bf16": (1.6e-2, 1e-4)},
         label="tilegym/gelu_tanh"),
    Case("gelu", "gelu", ((8192, 8192),), ("f32", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 12.0, -6.0),), {"approximate": "none"}),
         lambda x, approximate: F.gelu(x.float(), approximate=approximate).to(x.dtype),
         tilegym="activation/gelu.py",
         tolerance={"f32": (1e-6, 1e-6), "f16": (2e-3, 1e-5), "bf16": (1.6e-2, 1e-4)},
         label="tilegym/gelu"),
    Case("rms_norm", "rms_norm",
         tuple((4096, n) for n in (1024, 2048, 4096, 8192, 16384)), ("f16", "bf16"),
         lambda s, d, g: ((_tg_rand(s, d, g, 0.5, -2.3), (s[1],),
                           _randn((s[1],), d, g), 1e-5), {"mode": "static_persistent"}),
         _tg_rms_ref, quick=(2,), tilegym="rms_norm.py",
         tolerance={"f16": (0.0, 5e-2), "bf16": (0.0, 5e-2), "f32": (0.0, 5e-2)},
         label="tilegym/rms_norm"),
    Case("transpose", "transpose", tuple((1 << e, 1 << e) for e in (6, 8, 10, 12, 14)),
         ("f16", "f32"),
         lambda s, d, g: ((_tg_rand(s, d, g, 1.0, 0.0),), {}),
         lambda x: x.t().contiguous(), quick=(3,), tilegym="transpose.py",
         tolerance={"f16": (0.0, 0.0), "f32": (0.0, 0.0), "bf16": (0.0, 0.0)},
         label="tilegym/transpose"),
)


# ---- loading --------------------------------------------------------------------------------


def load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Pair:
    """The original host function and its drop-in, for one operator."""

    case: Case
    python: Callable[..., Any]
    rust: Callable[..., Any]
    wrapper: Any


def load_pair(case: Case, stage: Path, library: Path) -> Pair:
    if case.tilegym:
        original, wrapper = load_tilegym(case.tilegym, stage)
        library = library.parent / "libtl_tilegym.so"
    else:
        original = load_module(f"orig_{case.op}", REPO / "golden" / f"{case.op}.py")
        wrapper = load_module(f"tl_{case.op}", stage / f"{case.op}_wrapper.py")
    wrapper.load_library(library)
    return Pair(case, getattr(original, case.function), getattr(wrapper, case.function), wrapper)


def load_tilegym(relative: str, stage: Path) -> tuple[Any, Any]:
    """TileGym's op module `tilegym/ops/cutile/<relative>` and its wrapper, both loaded as
    modules of that package (relative imports work) from `STAGE/tilegym_src`, whose package
    `__init__`s are empty."""
    import importlib
    import sys as _sys

    root = stage / "tilegym_src"
    if str(root) not in _sys.path:
        _sys.path.insert(0, str(root))
    dotted = "tilegym.ops.cutile." + relative.removesuffix(".py").replace("/", ".")
    original = importlib.import_module(dotted)
    package, _, stem = dotted.rpartition(".")
    name = f"{package}._tl_{stem}"
    if name in _sys.modules:
        return original, _sys.modules[name]
    wrapper_path = stage / f"tg_{relative.removesuffix('.py').replace('/', '_')}_wrapper.py"
    spec = importlib.util.spec_from_file_location(name, wrapper_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {wrapper_path}")
    wrapper = importlib.util.module_from_spec(spec)
    _sys.modules[name] = wrapper
    spec.loader.exec_module(wrapper)
    return original, wrapper


# ---- correctness ----------------------------------------------------------------------------


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tensors(v)]
    return []


def _poison(nbytes: int) -> None:
    """Leaves NaN-filled blocks in the caching allocator, so an unwritten output shows."""
    block = torch.full((max(nbytes, 4) // 4,), float("nan"), device="cuda")
    del block


def _bytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for t in _tensors(value))


def check(pair: Pair, shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> dict[str, Any]:
    gen = torch.Generator(device="cuda").manual_seed(seed)
    args, kwargs = pair.case.make(shape, dtype, gen)
    pair.wrapper.CHECK_GRID = True
    try:
        _poison(4 * _bytes(args))
        got = pair.rust(*args, **kwargs)
        _poison(4 * _bytes(args))
        want = pair.python(*args, **kwargs)
        torch.cuda.synchronize()
    finally:
        pair.wrapper.CHECK_GRID = False
    ref = pair.case.reference(*args, **kwargs)
    got_t, want_t, ref_t = _tensors(got), _tensors(want), _tensors(ref)
    result: dict[str, Any] = {"outputs": len(got_t), "seed": seed}
    if len(got_t) != len(want_t):
        return {**result, "ok": False, "error": f"{len(got_t)} outputs vs {len(want_t)}"}
    mismatch = []
    tolerance = pair.case.tolerance.get(_dtype_name(dtype))
    close = {} if tolerance is None else {"rtol": tolerance[0], "atol": tolerance[1]}
    result["tolerance"] = close or "torch.testing default"
    for i, (g, w) in enumerate(zip(got_t, want_t, strict=True)):
        try:
            torch.testing.assert_close(g, w, equal_nan=False, **close)
        except AssertionError as err:
            mismatch.append(f"output {i}: {str(err).splitlines()[0:3]}")
    if tolerance is not None:  # TileGym's tests compare with the reference: so do we
        result["rust_within_tolerance_of_reference"] = _all_close(got_t, ref_t, close)
        result["python_within_tolerance_of_reference"] = _all_close(want_t, ref_t, close)
    result["ok"] = not mismatch
    result["mismatch"] = mismatch
    result["bitwise"] = all(g.shape == w.shape and bool(torch.equal(g, w))
                            for g, w in zip(got_t, want_t, strict=True))
    result["max_abs_diff"] = max((float((g.float() - w.float()).abs().max())
                                  for g, w in zip(got_t, want_t, strict=True)
                                  if g.shape == w.shape and g.numel()), default=0.0)
    result["nan_in_rust"] = any(bool(torch.isnan(g.float()).any()) for g in got_t)
    result["rel_l2_vs_torch"] = {
        "rust": [_rel_l2(g, r) for g, r in zip(got_t, ref_t, strict=False)],
        "python": [_rel_l2(w, r) for w, r in zip(want_t, ref_t, strict=False)],
    }
    return result


def _dtype_name(dtype: torch.dtype) -> str:
    return next(name for name, value in DTYPES.items() if value == dtype)


def _all_close(got: list[torch.Tensor], ref: list[torch.Tensor],
               close: dict[str, float]) -> bool:
    try:
        for g, r in zip(got, ref, strict=False):
            torch.testing.assert_close(g, r.to(g.dtype), **close)
    except AssertionError:
        return False
    return True


def _rel_l2(x: torch.Tensor, ref: torch.Tensor) -> float:
    if x.shape != ref.shape:
        return float("nan")
    ref64 = ref.double()
    return float((x.double() - ref64).norm() / ref64.norm().clamp_min(1e-30))


# ---- timing ---------------------------------------------------------------------------------


def input_sets(case: Case, shape: tuple[int, ...], dtype: torch.dtype,
               l2_bytes: int) -> list[Inputs]:
    """Enough input sets that rotating through them does not run from L2 (at most 8)."""
    gen = torch.Generator(device="cuda").manual_seed(1234)
    first = case.make(shape, dtype, gen)
    per_call = max(2 * _bytes(first[0]), 1)
    count = min(8, max(1, math.ceil(3 * l2_bytes / per_call)))
    return [first] + [case.make(shape, dtype, gen) for _ in range(count - 1)]


def whole_call_us(fns: dict[str, Callable[..., Any]], sets: list[Inputs],
                  iters: int) -> dict[str, list[float]]:
    """CUDA events around each Python call on an idle GPU; the two interleaved."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for i in range(iters):
        args, kwargs = sets[i % len(sets)]
        for name in (names if i % 2 == 0 else names[::-1]):
            torch.cuda.synchronize()
            start.record()
            fns[name](*args, **kwargs)
            end.record()
            end.synchronize()
            out[name].append(start.elapsed_time(end) * 1000.0)
    return out


def kernel_us(fn: Callable[..., Any], sets: list[Inputs], iters: int) -> list[float]:
    """CUPTI kernel durations (torch.profiler), summed per call."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(iters):
            args, kwargs = sets[i % len(sets)]
            fn(*args, **kwargs)
        torch.cuda.synchronize()
    kernels = sorted((e for e in prof.events() if e.device_type == DeviceType.CUDA),
                     key=lambda e: e.time_range.start)
    if not kernels or len(kernels) % iters:
        raise RuntimeError(f"{len(kernels)} device events for {iters} calls")
    per = len(kernels) // iters
    return [sum(e.time_range.elapsed_us() for e in kernels[i * per:(i + 1) * per])
            for i in range(iters)]


def time_pair(pair: Pair, shape: tuple[int, ...], dtype: torch.dtype, l2_bytes: int,
              iters: int) -> dict[str, Any]:
    sets = input_sets(pair.case, shape, dtype, l2_bytes)
    fns = {"python": pair.python, "rust": pair.rust}
    for _ in range(3):
        for fn in fns.values():
            for args, kwargs in sets[:2]:
                fn(*args, **kwargs)
    torch.cuda.synchronize()
    call = whole_call_us(fns, sets, iters)
    out: dict[str, Any] = {"input_sets": len(sets), "iters": iters}
    measured: list[tuple[str, dict[str, list[float]]]] = [("call_us", call)]
    try:
        kern: dict[str, list[float]] = {name: [] for name in fns}
        for chunk in range(4):  # alternate sessions: clocks drift under sustained load
            for name in (list(fns) if chunk % 2 == 0 else list(fns)[::-1]):
                kern[name] += kernel_us(fns[name], sets, max(iters // 4, 1))
        measured.insert(0, ("kernel_us", kern))
    except Exception as err:  # noqa: BLE001 - keep the call times
        out["kernel_error"] = f"{type(err).__name__}: {err}"
    for kind, data in measured:
        med = {name: statistics.median(v) for name, v in data.items()}
        spread = {name: [_pct(v, 0.1), _pct(v, 0.9)] for name, v in data.items()}
        out[kind] = med
        out[kind + "_p10_p90"] = spread
        out[kind.replace("_us", "_ratio")] = med["rust"] / med["python"]
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- report ---------------------------------------------------------------------------------


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    timed = [r for r in rows if "timing" in r]
    per_op: dict[str, Any] = {}
    for op in dict.fromkeys(r["op"] for r in timed):
        mine = [r["timing"] for r in timed if r["op"] == op]
        per_op[op] = {"configs": len(mine),
                      "kernel_ratio_geomean": geomean([t["kernel_ratio"] for t in mine]),
                      "call_ratio_geomean": geomean([t["call_ratio"] for t in mine])}
    ranked = sorted((s["kernel_ratio_geomean"], op) for op, s in per_op.items()
                    if s["kernel_ratio_geomean"])
    return {
        "per_op": per_op,
        "worst_op_kernel": ({"op": ranked[-1][1], "kernel_ratio_geomean": ranked[-1][0]}
                            if ranked else None),
        "overall": {
            "configs": len(timed),
            "kernel_ratio_geomean": geomean([r["timing"]["kernel_ratio"] for r in timed]),
            "call_ratio_geomean": geomean([r["timing"]["call_ratio"] for r in timed]),
            "correct": sum(1 for r in rows if r.get("check", {}).get("ok")),
            "bitwise": sum(1 for r in rows if r.get("check", {}).get("bitwise")),
            "checked": sum(1 for r in rows if "check" in r),
            "errors": sum(1 for r in rows if r.get("error")),
        },
    }


def _f(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(meta: dict[str, Any], rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    lines = ["# GPU bench: cuTile Python originals vs Rust translations", "",
             "Generated by `bench/gpu_bench.py` on the device machine; ratio = Rust / Python "
             "(below 1: the Rust translation is faster). Kernel: CUPTI kernel time per call "
             "(torch.profiler), median. Call: CUDA events around the Python call on an idle GPU "
             "(host work + launch + kernel), median. Both interleaved in one run after warm-up; "
             "inputs rotate over several sets to stay out of L2.", "",
             "## Setup", ""]
    lines += [f"- {key}: {value}" for key, value in meta.items()]
    lines += ["", "## Per configuration", "",
              "| op | shape | dtype | correct | bitwise | kernel py µs | kernel rs µs | ratio "
              "| call py µs | call rs µs | ratio |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c, t = r.get("check", {}), r.get("timing", {})
        k, w = t.get("kernel_us", {}), t.get("call_us", {})
        status = "ERROR" if r.get("error") else ("yes" if c.get("ok") else "**NO**")
        lines.append(
            f"| {r['op']} | {'x'.join(map(str, r['shape']))} | {r['dtype']} | {status} | "
            f"{'yes' if c.get('bitwise') else 'no'} | {_f(k.get('python'))} | "
            f"{_f(k.get('rust'))} | {_f(t.get('kernel_ratio'), 3)} | {_f(w.get('python'))} | "
            f"{_f(w.get('rust'))} | {_f(t.get('call_ratio'), 3)} |")
    lines += ["", "## Geomeans of Rust / Python", "", "| op | configs | kernel | call |",
              "|---|---|---|---|"]
    for op, s in summary["per_op"].items():
        lines.append(f"| {op} | {s['configs']} | {_f(s['kernel_ratio_geomean'], 3)} | "
                     f"{_f(s['call_ratio_geomean'], 3)} |")
    o = summary["overall"]
    lines.append(f"| **all** | {o['configs']} | {_f(o['kernel_ratio_geomean'], 3)} | "
                 f"{_f(o['call_ratio_geomean'], 3)} |")
    worst = summary.get("worst_op_kernel")
    lines += ["", f"Correct: {o['correct']}/{o['checked']} (bitwise {o['bitwise']}); "
              f"errors: {o['errors']}."
              + (f" Slowest operator (kernel, Rust / Python): {worst['op']} "
                 f"{worst['kernel_ratio_geomean']:.3f}." if worst else ""), ""]
    fast = [(r["op"], r["fast_stats_op"]) for r in rows if "fast_stats_op" in r]
    if fast:
        lines += ["## Launcher fast path (calls per operator)", "",
                  "| op | fast | checked | keys remembered | refused |", "|---|---|---|---|---|"]
        lines += [f"| {op} | {f['fast']} | {f['checked']} | {f['remembered']} | {f['refused']} |"
                  for op, f in fast]
        lines.append("")
    problems = [r for r in rows if r.get("error") or not r.get("check", {}).get("ok", True)]
    if problems:
        lines += ["## Problems (bugs to report, not tolerances to loosen)", ""]
        for r in problems:
            detail = r.get("error") or "; ".join(r["check"].get("mismatch", []))
            lines.append(f"- {r['op']} {r['shape']} {r['dtype']}: {detail[:600]}")
        lines.append("")
    return "\n".join(lines)


def metadata(stage: Path) -> dict[str, Any]:
    props = torch.cuda.get_device_properties(0)
    meta: dict[str, Any] = {
        "device": f"{props.name} ({props.multi_processor_count} SMs, "
                  f"{props.total_memory / 2**30:.0f} GiB, "
                  f"L2 {props.L2_cache_size / 2**20:.0f} MiB)",
        "driver": _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]),
        "torch": torch.__version__, "cuda (torch)": torch.version.cuda,
        "python": platform.python_version(),
        "cuda-tile (cuTile Python)": _version("cuda-tile"),
        "cutile (Rust)": "0.5.0", "tileiras": _run(["tileiras", "--version"]).splitlines()[-1:],
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    stage_info = stage / "stage.json"
    if stage_info.exists():
        meta.update(json.loads(stage_info.read_text()))
    return meta


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return f"({err})"


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "(not installed)"


# ---- driver ---------------------------------------------------------------------------------


@dataclass
class Budget:
    seconds: float
    start: float = field(default_factory=time.monotonic)

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.start)


def run_case(case: Case, stage: Path, library: Path, args: argparse.Namespace,
             budget: Budget, l2_bytes: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    try:
        pair = load_pair(case, stage, library)
    except Exception as err:  # noqa: BLE001 - reported per operator
        return [{"op": case.name, "shape": [], "dtype": "-", "error": f"load: {err!r}"}]
    shapes = [case.shapes[i] for i in case.quick] if args.quick else list(case.shapes)
    before = fast_stats(pair.wrapper)
    for shape in shapes:
        for dname in case.dtypes:
            if budget.left() < 20:
                rows.append({"op": case.name, "shape": list(shape), "dtype": dname,
                             "error": "skipped: time budget"})
                continue
            rows.append(run_config(pair, shape, dname, args, l2_bytes))
            print(_row_line(rows[-1]), flush=True)
    after = fast_stats(pair.wrapper)
    if rows and before and after:
        rows[-1]["fast_stats_op"] = {k: after[k] - before[k] for k in after}
    return rows


def fast_stats(wrapper: Any) -> dict[str, int] | None:
    """The launcher library's fast-path counters (`tl_fast_stats`), or None without them."""
    import ctypes

    lib = wrapper._tl_state.get("lib")
    if lib is None or not hasattr(lib, "tl_fast_stats"):
        return None
    out = (ctypes.c_uint64 * 4)()
    lib.tl_fast_stats(out)
    return dict(zip(("fast", "checked", "remembered", "refused"), out, strict=True))


def run_config(pair: Pair, shape: tuple[int, ...], dname: str, args: argparse.Namespace,
               l2_bytes: int) -> dict[str, Any]:
    row: dict[str, Any] = {"op": pair.case.name, "function": pair.case.function,
                           "shape": list(shape), "dtype": dname}
    dtype = DTYPES[dname]
    try:
        started = time.monotonic()
        row["check"] = check(pair, shape, dtype, seed=len(shape) * 7919 + sum(shape) % 1000)
        row["first_call_s"] = round(time.monotonic() - started, 2)
        if not args.no_timing:
            row["timing"] = time_pair(pair, shape, dtype, l2_bytes, args.iters)
    except Exception as err:  # noqa: BLE001 - reported per configuration
        row["error"] = f"{type(err).__name__}: {err}"
        row["traceback"] = traceback.format_exc()[-3000:]
    finally:
        torch.cuda.empty_cache()
    return row


def _row_line(r: dict[str, Any]) -> str:
    t = r.get("timing", {})
    head = f"{r['op']:16s} {'x'.join(map(str, r['shape'])):18s} {r['dtype']:5s}"
    if r.get("error"):
        return f"{head} ERROR {r['error'][:200]}"
    c = r["check"]
    return (f"{head} ok={c['ok']} bitwise={c['bitwise']} "
            f"kernel py/rs {_f(t.get('kernel_us', {}).get('python'))}/"
            f"{_f(t.get('kernel_us', {}).get('rust'))} us  call py/rs "
            f"{_f(t.get('call_us', {}).get('python'))}/{_f(t.get('call_us', {}).get('rust'))} us")


def sanity(stage: Path, library: Path) -> int:
    """No Tile IR toolchain needed: versions, the library loads, every wrapper imports."""
    print(json.dumps(metadata(stage), indent=1, default=str))
    import ctypes

    lib = ctypes.CDLL(str(library))
    print("abi", lib.tl_abi_version())
    for case in (*CASES, *TILEGYM_CASES):
        try:
            import cuda.tile  # noqa: F401 - the originals need it

            pair = load_pair(case, stage, library)
            print("ok", case.name, sorted(pair.wrapper._TL_SITES))
        except Exception as err:  # noqa: BLE001
            print("FAIL", case.name, repr(err))
    return 0


def overhead(stage: Path, library: Path) -> dict[str, Any]:
    """Host cost per call of each layer (wall clock over many unsynchronized calls on small
    inputs, so the host, not the GPU, is the bottleneck), in microseconds."""
    out: dict[str, Any] = {}
    cases = {c.op: c for c in CASES}
    for op, shape in (("vector_add", (1 << 16,)), ("softmax_rows", (256, 1024)),
                      ("layer_norm", (256, 1024))):
        res = _overhead_case(cases[op], shape, stage, library)
        out[f"{op} {shape}"] = res
        print(op, {k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()},
              flush=True)
    return out


def _overhead_case(case: Case, shape: tuple[int, ...], stage: Path,
                   library: Path) -> dict[str, Any]:
    import cuda.tile as ct

    pair = load_pair(case, stage, library)
    args, kwargs = case.make(shape, torch.float32, torch.Generator(device="cuda"))
    w = pair.wrapper
    # The arguments each side's launch site gets, captured from one call.
    site: list[tuple[Any, ...]] = []
    checked = w._tl_launch_checked

    def capture(*launch: Any) -> None:
        site.append(launch)
        checked(*launch)

    w._tl_launch_checked, w.CHECK_GRID = capture, True
    try:
        pair.rust(*args, **kwargs)
    finally:
        w._tl_launch_checked, w.CHECK_GRID = checked, False
    number, stream, grid, kernel, kargs = site[0]
    launched: list[tuple[Any, ...]] = []
    real_launch = ct.launch
    ct.launch = lambda *a: launched.append(a) or real_launch(*a)
    try:
        pair.python(*args, **kwargs)
    finally:
        ct.launch = real_launch
    symbol, names, specs, grid_param = w._TL_SITES[number][kernel.name]
    launch = w._tl_function(symbol, specs, grid_param)
    cargs = w._tl_args(names, specs, kargs)
    handle = torch.cuda.current_stream().cuda_stream or None
    values: list[Any] = [handle or 0, torch.cuda.current_device()]
    for value, kind in zip(kargs, specs, strict=True):
        values += ([value.data_ptr(), w._TL_DTYPE_CODES[value.dtype], *value.shape,
                    *value.stride()] if kind[0] == "A" else [value])
    pack = getattr(w, "_tl_pack_0", None)
    record = pack(*values) if pack else None
    packed = w._tl_packed(symbol) if pack else None
    fast = dict(kernel.fast)
    fns: dict[str, Callable[[], Any]] = {
        "python_original": lambda: pair.python(*args, **kwargs),
        "rust_wrapper": lambda: pair.rust(*args, **kwargs),
        "cutile_python_launch_only": lambda: real_launch(*launched[0]),
        "rust_launch_site_only": lambda: w._tl_launch_site(number, stream, grid, kernel, kargs),
        "c_launcher_prebuilt_args": lambda: launch(handle, 0, *cargs),
        "torch_empty_like": lambda: torch.empty_like(args[0]),
        "ctypes_empty_call": w._tl_state["lib"].tl_abi_version,
    }
    if packed is not None:
        fns["c_packed_prebuilt"] = lambda: packed(record)
        fns["python_pack_only"] = lambda: pack(*values)
    res: dict[str, Any] = {name: _host_us(fn) for name, fn in fns.items()}
    kernel.fast = {}
    try:
        res["rust_wrapper_checked_python_path"] = _host_us(lambda: pair.rust(*args, **kwargs))
    finally:
        kernel.fast = fast
    res["fast_stats"] = fast_stats(w)
    res["fast_path_env"] = os.environ.get("TRANSPILER_LAUNCHER_FAST", "(unset)")
    return res


def _host_us(fn: Callable[[], Any], calls: int = 3000) -> float:
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", type=Path, default=REPO / ".tlbench")
    parser.add_argument("--library", type=Path, help="default: STAGE/libtl_launchers.so")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "bench/results")))
    parser.add_argument("--ops", help="comma-separated golden stems (default: all)")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="one shape per operator")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--budget", type=float, default=480.0, help="seconds before skipping")
    parser.add_argument("--sanity", action="store_true")
    parser.add_argument("--overhead", action="store_true", help="host cost per layer only")
    parser.add_argument("--tag", default="", help="suffix of the --overhead output file")
    args = parser.parse_args(argv)
    library = args.library or args.stage / "libtl_launchers.so"
    if args.sanity:
        return sanity(args.stage, library)
    if args.overhead:
        args.out.mkdir(parents=True, exist_ok=True)
        data = overhead(args.stage, library)
        name = f"gpu_overhead{'_' + args.tag if args.tag else ''}.json"
        (args.out / name).write_text(json.dumps(data, indent=1, default=str))
        return 0
    wanted = set(args.ops.split(",")) if args.ops else None
    budget = Budget(args.budget)
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    meta = metadata(args.stage)
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for case in (*CASES, *TILEGYM_CASES):
        if wanted is None or case.op in wanted or case.name in wanted:
            rows.extend(run_case(case, args.stage, library, args, budget, l2_bytes))
            summary = summarize(rows)
            report = {"meta": meta, "configs": rows, **summary}
            (args.out / "gpu.json").write_text(json.dumps(report, indent=1, default=str))
            (args.out / "gpu.md").write_text(markdown(meta, rows, summary))
    print(markdown(meta, rows, summarize(rows)))
    return 0 if all(r.get("check", {}).get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
