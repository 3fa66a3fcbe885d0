"""`python bench/gpu_race_nvidia.py`: three versions of five TileGym operators on the GPU.

Takes the staged bench (`--stage`, as `bench/gpu_bench.py` reads it: TileGym's sources in
`STAGE/tilegym_src`, our wrappers `tg_<op>_wrapper.py` and launcher libraries) and NVIDIA's
cuTile Rust build (`--nvidia DIR`: `libcutile_kernels.so` built from tilegym's
`ops/cutile_rs/cutile_kernels` as shipped, beside the wheel's `ops/cutile_rs/<op>.py`
wrappers); gives, per operator, shape and dtype: correctness of ours and NVIDIA's against
cuTile Python (TileGym's tolerances), and CUPTI kernel time of all three (torch.profiler,
interleaved rounds with L2 flushed, medians), with NVIDIA / ours and ours / Python ratios and
their 95% bootstrap intervals; one table on stdout and `OUT/nvidia_race.{md,json}`.

NVIDIA's side runs through their own Python wrappers (their autotune configurations, grids
and argument packing; they pack `TensorDesc`s and call the `cutile_<op>` C ABI of `ffi.rs`).
Their cffi loader (which also rebuilds the crate when a source is newer) is replaced by
`ctypes_binder` over the prebuilt library, so cffi need not be on the machine: the same
`TensorDesc` (`ffi_util.rs`, `#[repr(C)]`) as a ctypes structure (`CtypesFfi.new`) and each
`cutile_<op>` prototype read from the wrapper's own C declaration (`parse_prototypes`).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import os
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_bench as gb  # noqa: E402 - the bench's own folder, as a script

#: `ffi_util.rs`'s `MAX_DIMS`.
MAX_DIMS = 5


class TensorDesc(ctypes.Structure):
    """`ffi_util.rs`'s `#[repr(C)] struct TensorDesc` (strides in elements)."""

    _fields_ = (("ptr", ctypes.c_uint64), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_DIMS), ("strides", ctypes.c_int64 * MAX_DIMS),
                ("dtype", ctypes.c_int32))


#: C type names of the wrappers' declarations -> ctypes.
C_TYPES: dict[str, Any] = {"int32_t": ctypes.c_int32, "uint64_t": ctypes.c_uint64,
                           "int64_t": ctypes.c_int64, "float": ctypes.c_float,
                           "double": ctypes.c_double,
                           "const TensorDesc*": ctypes.POINTER(TensorDesc),
                           "TensorDesc*": ctypes.POINTER(TensorDesc)}
_PROTOTYPE = re.compile(r"(\w+)\s+(\w+)\s*\(([^)]*)\)\s*;", re.S)


def parse_prototypes(cdef: str) -> dict[str, tuple[Any, list[Any]]]:
    """A C declaration block -> {function: (restype, argtypes)} in ctypes types."""
    out: dict[str, tuple[Any, list[Any]]] = {}
    for restype, name, params in _PROTOTYPE.findall(cdef):
        argtypes = []
        for param in (p.strip() for p in params.split(",") if p.strip()):
            ctype = re.sub(r"\s*\*\s*", "* ", param).rsplit(" ", 1)[0].strip()
            ctype = ctype.replace("* ", "*").replace(" *", "*")
            if ctype not in C_TYPES:
                raise ValueError(f"{name}: C type `{ctype}` has no ctypes mapping")
            argtypes.append(C_TYPES[ctype])
        out[name] = (C_TYPES[restype], argtypes)
    return out


class CtypesFfi:
    """What NVIDIA's wrappers use of a cffi `FFI`: `new("TensorDesc *")`."""

    def new(self, declaration: str) -> TensorDesc:
        if declaration.replace(" ", "") != "TensorDesc*":
            raise ValueError(f"CtypesFfi.new: only `TensorDesc *`, not `{declaration}`")
        return TensorDesc()


def ctypes_binder(library: Path) -> Callable[..., tuple[CtypesFfi, Any]]:
    """A stand-in for tilegym's `bind_kernel_function_cffi`: (ffi, lib) over `library`."""
    lib = ctypes.CDLL(str(library))
    bound: dict[str, tuple[CtypesFfi, Any]] = {}

    def bind(kernel: str, cdef: str, *_: Any, **__: Any) -> tuple[CtypesFfi, Any]:
        if kernel not in bound:
            functions = {}
            for name, (restype, argtypes) in parse_prototypes(cdef).items():
                function = getattr(lib, name)
                function.restype, function.argtypes = restype, argtypes
                functions[name] = function
            bound[kernel] = (CtypesFfi(), type("CtypesLib", (), functions))
        return bound[kernel]

    return bind


@dataclass(frozen=True)
class Race:
    """One operator configuration of gpu_bench.py (by label), NVIDIA's function for it and
    the keyword arguments that select the same variant there."""

    label: str
    nvidia_module: str
    nvidia_function: str
    nvidia_kwargs: tuple[tuple[str, Any], ...] = ()
    #: NVIDIA's entry names (their device kernels' names start with them)
    nvidia_entries: tuple[str, ...] = ()


RACES: tuple[Race, ...] = (
    Race("tilegym/silu_and_mul", "silu_and_mul", "silu_and_mul",
         nvidia_entries=("silu_and_mul_kernel",)),
    Race("tilegym/swiglu", "swiglu", "swiglu", nvidia_entries=("swiglu_forward_kernel",)),
    Race("tilegym/matmul", "matmul", "matmul", (("static_persistent", False),),
         ("non_persistent_matmul_kernel",)),
    Race("tilegym/matmul_persistent", "matmul", "matmul", (("static_persistent", True),),
         ("static_persistent_matmul_kernel",)),
    Race("tilegym/bmm", "bmm", "bmm", (("static_persistent", False),),
         ("non_persistent_bmm_kernel",)),
    Race("tilegym/bmm_persistent", "bmm", "bmm", (("static_persistent", True),),
         ("static_persistent_bmm_kernel",)),
    Race("tilegym/attention_sink", "attention_sink", "attention_sink",
         nvidia_entries=("attention_sink_kernel",)),
)


def case_for(race: Race) -> gb.Case:
    for case in (*gb.CASES, *gb.TILEGYM_CASES, *gb.TILEGYM_MORE, *gb.TILEGYM_NEW):
        if case.name == race.label:
            return case
    raise KeyError(f"gpu_bench.py has no case `{race.label}`")


def load_nvidia(race: Race, nvidia: Path, stage: Path) -> Callable[..., Any]:
    """NVIDIA's host function, from their wrapper module (loaded as
    `tilegym.ops.cutile_rs.<op>` over the staged TileGym sources), bound to the library."""
    root = stage / "tilegym_src"
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("CUTILE_RS_AUTOBUILD", "0")
    os.environ.setdefault("CUTILE_RS_KERNELS_DIR", str(nvidia))
    name = f"tilegym.ops.cutile_rs.{race.nvidia_module}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, nvidia / f"{race.nvidia_module}.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"no {race.nvidia_module}.py in {nvidia}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        # Their loader (cffi, building the crate when stale) is replaced by the ctypes one
        # over the prebuilt library: the same C ABI, with or without cffi on the machine.
        module.bind_kernel_function_cffi = ctypes_binder(nvidia / "libcutile_kernels.so")
    function = getattr(module, race.nvidia_function)
    kwargs = dict(race.nvidia_kwargs)
    return lambda *a, **k: function(*a, **{**k, **kwargs})


# ---- correctness and timing --------------------------------------------------------------


def correctness(fns: dict[str, Callable[..., Any]], case: gb.Case, shape: tuple[int, ...],
                dtype: Any, seed: int) -> dict[str, Any]:
    """Each side on its own copy of the same seeded inputs; ours and NVIDIA's compared
    with cuTile Python's outputs (the case's tolerance, else torch's default)."""
    import torch

    outputs: dict[str, list[Any]] = {}
    for name, fn in fns.items():
        args, kwargs = case.make(shape, dtype, torch.Generator(device="cuda").manual_seed(seed))
        gb._poison(4 * gb._bytes(args))
        outputs[name] = gb._tensors(fn(*args, **kwargs))
    torch.cuda.synchronize()
    tolerance = case.tolerance.get(gb._dtype_name(dtype))
    close = {} if tolerance is None else {"rtol": tolerance[0], "atol": tolerance[1]}
    out: dict[str, Any] = {"tolerance": close or "torch.testing default"}
    for name in ("ours", "nvidia"):
        got, want = outputs[name], outputs["python"]
        out[name] = {"ok": len(got) == len(want) and gb._all_close(got, want, close),
                     "bitwise": len(got) == len(want) and all(
                         g.shape == w.shape and bool(torch.equal(g, w))
                         for g, w in zip(got, want, strict=True)),
                     "nan": any(bool(torch.isnan(g.float()).any()) for g in got),
                     "max_abs_diff": max((float((g.float() - w.float()).abs().max())
                                          for g, w in zip(got, want, strict=False)
                                          if g.shape == w.shape and g.numel()), default=0.0)}
    return out


def ratio_row(times: dict[str, list[float]], seed: int = 0) -> dict[str, Any]:
    """Medians of each side, and the two ratios with 95% bootstrap intervals over rounds:
    NVIDIA / ours (>= 1: ours at least as fast) and ours / Python."""
    medians = {name: statistics.median(values) for name, values in times.items()}
    return {"kernel_us": medians,
            "nvidia_over_ours": medians["nvidia"] / medians["ours"],
            "nvidia_over_ours_ci95": list(gb.ratio_interval(times["ours"], times["nvidia"],
                                                            seed)),
            "ours_over_python": medians["ours"] / medians["python"],
            "ours_over_python_ci95": list(gb.ratio_interval(times["python"], times["ours"],
                                                            seed))}


def kernel_names(case: gb.Case, race: Race, source: Path) -> tuple[str, ...]:
    return tuple(sorted({*gb.translated_kernel_names(source, case), *race.nvidia_entries}))


def run_race(race: Race, args: argparse.Namespace, l2_bytes: int) -> list[dict[str, Any]]:
    import torch

    case = case_for(race)
    rows: list[dict[str, Any]] = []
    try:
        pair = gb.load_pair(case, args.stage, args.stage / "libtl_tilegym.so")
        nvidia = load_nvidia(race, args.nvidia, args.stage)
    except Exception as err:  # noqa: BLE001 - reported per operator
        return [{"op": race.label, "shape": [], "dtype": "-", "error": f"load: {err!r}"}]
    fns = {"python": pair.python, "ours": pair.rust, "nvidia": nvidia}
    shapes = [case.shapes[i] for i in case.quick] if args.quick else list(case.shapes)
    for shape in shapes:
        for dname in case.dtypes:
            row: dict[str, Any] = {"op": race.label, "shape": list(shape), "dtype": dname}
            dtype = gb.DTYPES[dname]
            try:
                row["check"] = correctness(fns, case, shape, dtype, seed=sum(shape) % 1000)
                sets = gb.input_sets(case, shape, dtype, l2_bytes)
                for _ in range(3):
                    for fn in fns.values():
                        fn(*sets[0][0], **sets[0][1])
                flush = torch.empty(2 * l2_bytes // 4 + 1024, dtype=torch.float32,
                                    device="cuda")
                times = gb.kernel_rounds(fns, sets, args.iters,
                                         kernel_names(case, race, pair.source), flush)
                del flush
                row["timing"] = ratio_row(times)
            except Exception as err:  # noqa: BLE001 - reported per configuration
                row["error"] = f"{type(err).__name__}: {err}"
            finally:
                torch.cuda.empty_cache()
            rows.append(row)
            print(row_line(row), flush=True)
    return rows


# ---- report ------------------------------------------------------------------------------


def _ci(values: list[float] | None) -> str:
    return f"[{values[0]:.2f}, {values[1]:.2f}]" if values else "-"


def row_line(row: dict[str, Any]) -> str:
    head = f"{row['op']:28s} {'x'.join(map(str, row['shape'])):20s} {row['dtype']:5s}"
    if row.get("error"):
        return f"{head} ERROR {row['error'][:160]}"
    t, c = row["timing"], row["check"]
    us = t["kernel_us"]
    return (f"{head} py/ours/nv {us['python']:.1f}/{us['ours']:.1f}/{us['nvidia']:.1f} us  "
            f"nv/ours {t['nvidia_over_ours']:.2f} {_ci(t['nvidia_over_ours_ci95'])}  "
            f"ok ours={c['ours']['ok']} nv={c['nvidia']['ok']}")


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = ["# Race: cuTile Python, NVIDIA's cuTile Rust, our translation (H200)", "",
             "Generated by `python bench/gpu_race_nvidia.py`. Kernel time: CUPTI "
             "(torch.profiler), medians over interleaved rounds with L2 flushed; ratios with "
             "95% bootstrap intervals over rounds. NVIDIA/ours >= 1.00: ours at least as "
             "fast. Correct: within TileGym's tolerance of cuTile Python's output.", "",
             "| operator | shape | dtype | Python us | ours us | NVIDIA us | NVIDIA/ours | "
             "ours/Python | ours ok | NVIDIA ok |",
             "| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for row in rows:
        shape = "x".join(map(str, row["shape"]))
        if row.get("error"):
            lines.append(f"| {row['op']} | {shape} | {row['dtype']} | error: "
                         f"{row['error'][:120]} | | | | | | |")
            continue
        t, c = row["timing"], row["check"]
        us = t["kernel_us"]
        lines.append(
            f"| {row['op']} | {shape} | {row['dtype']} | {us['python']:.1f} | "
            f"{us['ours']:.1f} | {us['nvidia']:.1f} | {t['nvidia_over_ours']:.2f} "
            f"{_ci(t['nvidia_over_ours_ci95'])} | {t['ours_over_python']:.2f} "
            f"{_ci(t['ours_over_python_ci95'])} | {_ok(c['ours'])} | {_ok(c['nvidia'])} |")
    lines += ["", "```", json.dumps(meta, indent=1, default=str), "```"]
    return "\n".join(lines) + "\n"


def _ok(check: dict[str, Any]) -> str:
    text = "yes" if check["ok"] else f"NO (max diff {check['max_abs_diff']:.3g})"
    return text + (", NaN" if check["nan"] else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", type=Path, default=gb.REPO / ".tlbench")
    parser.add_argument("--nvidia", type=Path, help="libcutile_kernels.so and NVIDIA's "
                        "ops/cutile_rs/<op>.py wrappers (default STAGE/nvidia)")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "bench/results")))
    parser.add_argument("--ops", help="comma-separated labels (default: all)")
    parser.add_argument("--iters", type=int, default=60)
    parser.add_argument("--quick", action="store_true", help="one shape per operator")
    args = parser.parse_args(argv)
    args.nvidia = args.nvidia or args.stage / "nvidia"
    import torch

    l2_bytes = int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20))
    chosen = [r for r in RACES if not args.ops or r.label in args.ops.split(",")]
    rows = [row for race in chosen for row in run_race(race, args, l2_bytes)]
    meta = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cffi": importlib.util.find_spec("cffi") is not None, "iters": args.iters}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "nvidia_race.json").write_text(json.dumps({"meta": meta, "rows": rows},
                                                          indent=1, default=str) + "\n")
    text = markdown(rows, meta)
    (args.out / "nvidia_race.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
