"""GPU bench for Triton sources: each Triton kernel under Triton against its Rust translation.

Runs on the device machine (torch, Triton, the Tile IR toolchain; launcher/NOTES.md, "Triton
GPU bench"). Takes the staging folder of `launcher/stage_triton_bench.sh`: per operator the
original file (`<op>.py`, run by Triton's own NVIDIA backend) and its `--emit pywrapper`
module (`<op>_wrapper.py`, the same host function calling the Rust translation through
`libtl_triton.so`). Gives, per operator, shape and dtype:

- correctness: the translation's outputs against Triton's on fresh random inputs, within the
  tolerances Triton's own tests use for that kind of op (`TOLERANCES`); bitwise equality
  reported;
- kernel device time: CUPTI kernel durations (torch.profiler) of the file's kernels, the two
  sides interleaved in rounds with L2 flushed, median (bench/gpu_bench.py's method);
- whole-call time: CUDA events around the host function, interleaved, median;

and prints a table with the ratios Rust / Triton side by side (OUT/gpu_triton.{json,md}).

    python3 bench/gpu_bench_triton.py --stage .tlbench_triton --out OUT [--ops a,b] [--quick]
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib.util
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]

#: (rtol, atol) per dtype, by kind of op: Triton's tests compare with torch.testing's
#: defaults for element-wise and reduction ops, and with 1e-2 for `tl.dot` (fp16/bf16
#: operands, tf32 for f32), as its matmul tutorial does.
TOLERANCES: dict[str, dict[str, tuple[float, float]]] = {
    "default": {"f32": (1.3e-6, 1e-5), "f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5)},
    "dot": {"f32": (1e-2, 1e-2), "f16": (1e-2, 1e-2), "bf16": (1e-2, 1e-2)},
    # exp/log reductions: Triton's fast exp against the translation's
    "approx": {"f32": (1e-5, 1e-6), "f16": (1e-3, 1e-5), "bf16": (1.6e-2, 1e-5)},
}


@dataclass(frozen=True)
class TritonCase:
    """One operator: a staged module, its host function, shapes, dtypes, and inputs."""

    op: str  # staged module stem
    function: str
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    inputs: str  # key of INPUTS
    tolerance: str = "default"
    quick: tuple[int, ...] = (0,)


#: Input makers by name: (shape, torch dtype, generator) -> positional arguments. Each is a
#: recipe over `torch` (imported on the device only).
INPUTS: dict[str, Callable[..., tuple[Any, ...]]] = {}


def _input(name: str) -> Callable[[Callable[..., tuple[Any, ...]]], Callable[..., tuple[Any, ...]]]:
    def register(fn: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
        INPUTS[name] = fn
        return fn
    return register


def _rand(torch: Any, shape: tuple[int, ...], dtype: Any, gen: Any) -> Any:
    return torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32).to(dtype)


@_input("x")
def _x(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g),)


@_input("xy")
def _xy(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), _rand(torch, s, d, g))


@_input("saxpy")
def _saxpy(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), _rand(torch, s, d, g), 1.5)


@_input("dropout")
def _dropout(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    noise = torch.rand(s, generator=g, device="cuda", dtype=torch.float32)
    return (_rand(torch, s, d, g), noise, 0.3)


@_input("norm")
def _norm(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), _rand(torch, s[-1:], d, g), 1e-6)


@_input("layer_norm")
def _layer_norm(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), _rand(torch, s[-1:], d, g), _rand(torch, s[-1:], d, g), 1e-5)


@_input("cross_entropy")
def _cross_entropy(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    target = torch.randint(0, s[1], (s[0],), generator=g, device="cuda", dtype=torch.int64)
    return (_rand(torch, s, d, g), target)


@_input("embedding")
def _embedding(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    tokens, vocab, dim = s
    ids = torch.randint(0, vocab, (tokens,), generator=g, device="cuda", dtype=torch.int64)
    return (ids, _rand(torch, (vocab, dim), d, g))


@_input("bias")
def _bias(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), _rand(torch, s[-1:], d, g))


@_input("scale")
def _scale(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    return (_rand(torch, s, d, g), 0.75)


@_input("matmul")
def _matmul(torch: Any, s: tuple[int, ...], d: Any, g: Any) -> tuple[Any, ...]:
    m, n, k = s
    return (_rand(torch, (m, k), d, g), _rand(torch, (k, n), d, g))


_F = ("f32", "f16", "bf16")
_V = ((1 << 24,), (98432,), (1 << 20,))
_ROWS = ((4096, 4096), (16384, 1024), (1823, 781))
CASES: tuple[TritonCase, ...] = (
    TritonCase("vector_add", "vector_add", _V, _F, "xy"),
    TritonCase("saxpy", "saxpy", _V, _F, "saxpy"),
    TritonCase("relu_leaky", "leaky_relu", _V, _F, "x"),
    TritonCase("sigmoid_gate", "gate", _V, _F, "xy", "approx"),
    TritonCase("gelu_helper", "gelu", _V, _F, "x", "approx"),
    TritonCase("static_unroll", "sum4", _V, _F, "x"),
    TritonCase("dropout_mask", "dropout", _V, _F, "dropout"),
    TritonCase("fused_softmax", "softmax", _ROWS, _F, "x", "approx"),
    TritonCase("online_softmax", "online_softmax", _ROWS, _F, "x", "approx"),
    TritonCase("rms_norm", "rms_norm", _ROWS, _F, "norm", "approx"),
    TritonCase("layer_norm", "layer_norm", _ROWS, _F, "layer_norm", "approx"),
    TritonCase("cumsum_rows", "cumsum", ((4096, 1024), (1823, 781)), _F, "x", "approx"),
    TritonCase("argmax_rows", "argmax", _ROWS, _F, "x"),
    TritonCase("cross_entropy", "cross_entropy", ((4096, 4096), (1823, 781)), _F,
               "cross_entropy", "approx"),
    TritonCase("embedding", "embedding", ((8192, 32000, 1024), (1000, 5000, 781)), _F,
               "embedding"),
    TritonCase("transpose_2d", "transpose", ((4096, 4096), (1823, 781)), _F, "x"),
    TritonCase("col_sum_2d", "col_sum", ((4096, 4096), (1823, 781)), ("f16",), "x", "approx"),
    TritonCase("row_extrema", "row_range", ((8192, 512), (1823, 300)), _F, "x"),
    TritonCase("grid_3d", "add_bias", ((16, 512, 1024), (3, 100, 781)), _F, "bias"),
    TritonCase("bias_flag", "linear_bias", ((8192, 1024), (1823, 781)), _F, "bias"),
    TritonCase("early_return", "scale_rows_host", ((8192, 1024), (1823, 781)), _F, "scale"),
    TritonCase("autotuned_scale", "scale", _V, _F, "scale"),
    TritonCase("matmul", "matmul", ((4096, 4096, 4096), (1000, 781, 333)), _F, "matmul", "dot"),
    TritonCase("matmul_grouped", "grouped_matmul", ((4096, 4096, 4096), (1000, 781, 333)),
               ("f16",), "matmul", "dot"),
    TritonCase("tut_01_vector_add", "add", _V, ("f32",), "xy"),
    TritonCase("tut_02_fused_softmax", "bench_softmax", _ROWS, ("f32",), "x", "approx"),
)


# ---- arguments and reporting (no torch) -------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", type=Path, default=REPO / ".tlbench_triton")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--ops", default="", help="comma-separated operators (default: all)")
    parser.add_argument("--quick", action="store_true", help="first shape of each operator")
    parser.add_argument("--rounds", type=int, default=30, help="timing rounds per config")
    parser.add_argument("--budget", type=float, default=540.0, help="seconds for all configs")
    parser.add_argument("--sanity", action="store_true",
                        help="import and check one shape per operator, no timing")
    return parser.parse_args(argv)


def selected_cases(ops: str, quick: bool, cases: tuple[TritonCase, ...] = CASES
                   ) -> list[tuple[TritonCase, tuple[int, ...]]]:
    """The (case, shape) pairs to run: `--ops` names (unknown ones are an error)."""
    wanted = [o for o in ops.split(",") if o]
    known = {c.op for c in cases}
    unknown = [o for o in wanted if o not in known]
    if unknown:
        raise SystemExit(f"gpu_bench_triton: unknown operator(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(known))}")
    out = []
    for case in cases:
        if wanted and case.op not in wanted:
            continue
        shapes = [case.shapes[i] for i in case.quick] if quick else list(case.shapes)
        out += [(case, shape) for shape in shapes]
    return out


def geomean(values: list[float]) -> float | None:
    kept = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in kept) / len(kept)) if kept else None


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The table: per configuration correctness, kernel and whole-call medians of both
    sides and the ratios Triton / Rust (above 1: the translation is faster); then the
    geomeans, overall and per operator."""
    lines = [f"# Triton kernels against their Rust translations ({meta.get('device', '?')})", "",
             f"Triton {meta.get('triton', '?')}, torch {meta.get('torch', '?')}; "
             f"{meta.get('when', '')}. Ratios are Triton / Rust (above 1: Rust faster).", "",
             "| op | shape | dtype | correct | max abs diff | kernel µs Triton | kernel µs Rust "
             "| kernel ratio | call µs Triton | call µs Rust | call ratio |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['op']} | {r['shape']} | {r['dtype']} | ERROR: {r['error']} "
                         "| | | | | | | |")
            continue
        k, c = r.get("kernel_us", {}), r.get("call_us", {})
        lines.append(
            f"| {r['op']} | {r['shape']} | {r['dtype']} | "
            f"{'bitwise' if r['bitwise'] else 'yes' if r['correct'] else 'NO'} | "
            f"{r['max_abs_diff']:.3g} | {_f(k.get('triton'), 2)} | {_f(k.get('rust'), 2)} | "
            f"{_f(r.get('kernel_ratio'))} | {_f(c.get('triton'), 1)} | {_f(c.get('rust'), 1)} "
            f"| {_f(r.get('call_ratio'))} |")
    summary = summarize(rows)
    lines += ["", f"Configurations: {summary['configs']}, correct {summary['correct']}, "
              f"errors {summary['errors']}. Kernel geomean {_f(summary['kernel_geomean'])}, "
              f"whole call {_f(summary['call_geomean'])}; worst operator "
              f"{summary['worst_op'] or '-'} ({_f(summary['worst_kernel'])}).", "",
              "| op | kernel geomean | call geomean |", "| --- | --- | --- |"]
    for op, (kernel, call) in summary["per_op"].items():
        lines.append(f"| {op} | {_f(kernel)} | {_f(call)} |")
    return "\n".join(lines) + "\n"


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if "error" not in r]
    per_op: dict[str, tuple[float | None, float | None]] = {}
    for op in dict.fromkeys(r["op"] for r in ok):
        mine = [r for r in ok if r["op"] == op]
        per_op[op] = (geomean([r.get("kernel_ratio", 0.0) for r in mine]),
                      geomean([r.get("call_ratio", 0.0) for r in mine]))
    scored = [(k, op) for op, (k, _) in per_op.items() if k is not None]
    worst = min(scored) if scored else (None, "")
    return {"configs": len(rows), "correct": sum(1 for r in ok if r["correct"]),
            "errors": len(rows) - len(ok),
            "kernel_geomean": geomean([r.get("kernel_ratio", 0.0) for r in ok]),
            "call_geomean": geomean([r.get("call_ratio", 0.0) for r in ok]),
            "per_op": per_op, "worst_op": worst[1], "worst_kernel": worst[0]}


# ---- on the device ----------------------------------------------------------------------------


def load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@functools.cache
def gpu_bench() -> Any:
    """bench/gpu_bench.py, loaded from its file on the device: its kernel and whole-call
    timing (it imports torch at its top, and this module imports without torch)."""
    return load_module("tl_gpu_bench", REPO / "bench" / "gpu_bench.py")


def kernel_names(path: Path) -> tuple[str, ...]:
    """The `@triton.jit` functions of a file: both sides' device kernels carry these names
    (a Rust entry's name starts with its kernel's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(sorted(n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                        and any("jit" in ast.unparse(d) for d in n.decorator_list)))


def _outputs(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple | list) else [value]


def _copies(torch: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)


def max_abs_diff(ours: np.ndarray, theirs: np.ndarray) -> float:
    """The largest elementwise difference of two float outputs, NaN-aware: a NaN on both
    sides (or the same infinity) is no difference, a NaN on one side only is an infinite
    one. Outputs that are NaN everywhere on both sides, or empty, differ by 0."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    nan_ours, nan_theirs = np.isnan(ours), np.isnan(theirs)
    if np.any(nan_ours != nan_theirs):
        return math.inf
    both = ~nan_ours
    with np.errstate(invalid="ignore"):
        diff = np.where(ours[both] == theirs[both], 0.0, np.abs(ours[both] - theirs[both]))
    return float(diff.max()) if diff.size else 0.0


def run_config(torch: Any, case: TritonCase, shape: tuple[int, ...], dname: str,
               sides: dict[str, Callable[..., Any]], names: tuple[str, ...],
               rounds: int) -> dict[str, Any]:
    timing = gpu_bench()
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dname]
    gen = torch.Generator(device="cuda").manual_seed(1234)
    args = INPUTS[case.inputs](torch, shape, dtype, gen)
    got = {name: _outputs(fn(*_copies(torch, args))) for name, fn in sides.items()}
    torch.cuda.synchronize()
    rtol, atol = TOLERANCES[case.tolerance][dname]
    diffs, correct, bitwise = [], True, True
    for ours, theirs in zip(got["rust"], got["triton"], strict=True):
        if ours.dtype.is_floating_point:
            diffs.append(max_abs_diff(ours.float().cpu().numpy(), theirs.float().cpu().numpy()))
        else:
            diffs.append(float((ours.long() - theirs.long()).abs().max()))
        bitwise &= bool(torch.equal(ours, theirs))
        correct &= bool(torch.allclose(ours.float(), theirs.float(), rtol=rtol, atol=atol,
                                       equal_nan=True))
    row: dict[str, Any] = {"op": case.op, "shape": "x".join(map(str, shape)), "dtype": dname,
                           "correct": correct, "bitwise": bitwise, "max_abs_diff": max(diffs)}
    sets = [args] + [INPUTS[case.inputs](torch, shape, dtype, gen) for _ in range(3)]
    sets = [(s, {}) for s in sets]
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4 + 1024, dtype=torch.float32, device="cuda")
    for kind, data in (("kernel_us", timing.kernel_rounds(sides, sets, rounds, names, flush)),
                       ("call_us", timing.whole_call_us(sides, sets, rounds))):
        med = {name: statistics.median(v) for name, v in data.items()}
        row[kind] = med
        row[kind.replace("_us", "_ratio")] = med["triton"] / med["rust"]
    return row


def metadata(torch: Any) -> dict[str, Any]:
    import triton  # on the device only (the CPU-side tests run without Triton's driver)

    return {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "triton": triton.__version__,
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configs = selected_cases(args.ops, args.quick or args.sanity)
    import torch  # on the device only: argument parsing and the table need no torch

    library = args.stage / "libtl_triton.so"
    rows: list[dict[str, Any]] = []
    start = time.monotonic()
    loaded: dict[str, tuple[Any, Any]] = {}
    for case, shape in configs:
        for dname in case.dtypes[:1] if args.sanity else case.dtypes:
            if time.monotonic() - start > args.budget:
                rows.append({"op": case.op, "shape": "x".join(map(str, shape)),
                             "dtype": dname, "error": "skipped: time budget"})
                continue
            try:
                if case.op not in loaded:
                    original = load_module(f"tlb_{case.op}", args.stage / f"{case.op}.py")
                    wrapper = load_module(f"tlb_{case.op}_wrapper",
                                          args.stage / f"{case.op}_wrapper.py")
                    wrapper.load_library(library)
                    loaded[case.op] = (original, wrapper)
                original, wrapper = loaded[case.op]
                sides = {"triton": getattr(original, case.function),
                         "rust": getattr(wrapper, case.function)}
                names = kernel_names(args.stage / f"{case.op}.py")
                row = run_config(torch, case, shape, dname, sides, names,
                                 2 if args.sanity else args.rounds)
            except Exception as err:  # noqa: BLE001 - one config's failure is a table row
                row = {"op": case.op, "shape": "x".join(map(str, shape)), "dtype": dname,
                       "error": f"{type(err).__name__}: {str(err)[:300]}"}
            rows.append(row)
            print(json.dumps(row), flush=True)
    meta = metadata(torch)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_triton.json").write_text(json.dumps({"meta": meta, "rows": rows},
                                                         indent=1))
    text = markdown(rows, meta)
    (args.out / "gpu_triton.md").write_text(text)
    print(text)
    return 0 if all("error" not in r and r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
