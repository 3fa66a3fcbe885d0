"""Per-call host cost of the launcher path, measured without a GPU (stub driver, fake torch).

Takes a launcher library built by `launcher/build.sh` with golden ops among its pairs, the
`--emit pywrapper` modules of those ops (one folder), and the stub driver of
`launcher/stub/libcuda_stub.c` (built here with `cc` when not given). Kernels compile for real
on their first launch, so `CUTILE_TILEIRAS_PATH` must name a `tileiras` (the toolchain of
`../shared/gpu`, unpacked; with `CUDA_HOME` unset). Gives, per case, microseconds per call
of each layer (median of several rounds of many calls) and the library's fast-path counters:

- `wrapper`: the drop-in host function (fake `torch.empty_like` + the launch glue);
- `wrapper_python_site`: the same with the Python stand-in for `ct.launch` (`_tl_site_N`
  calling `_tl_launch_site`) instead of the library's native one (`tl_py_dispatch`;
  `native_launch_site` says whether it was in use); the layers below all use the Python one;
- `wrapper_python_fast`: the same with the argument packing in Python (`_tl_fast_N`) instead
  of the library's native twin (`tl_py_fast`; `native_fast_path` says whether it was in use);
- `wrapper_checked`: the same with the wrapper's fast path off (a descriptor per array, every
  argument checked in Python: what every call did before the fast path);
- `c_packed_prebuilt`: `<symbol>__packed` with a prebuilt record (the Rust side alone, plus
  one ctypes call);
- `c_launcher_prebuilt`: the descriptor entry point with prebuilt descriptors;
- `ctypes_empty_call`: `tl_abi_version()`, the floor of any ctypes call.

A library or wrapper from before the fast path lacks `__packed`; those layers are skipped.

    CUTILE_TILEIRAS_PATH=/path/tileiras python launcher/stub/overhead.py \\
        --library OUT/libtl_launchers.so --wrappers DIR [--json FILE]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: (golden op, host function, input shapes, kernel parameter sizes in bytes, as cutile pushes
#: them: per tensor pointer 8 + i32 shape and strides; then the scalars).
CASES: tuple[tuple[str, str, tuple[tuple[int, ...], ...], tuple[int, ...]], ...] = (
    ("vector_add", "vector_add", ((1 << 20,), (1 << 20,)), (8, 4, 4) * 3),
    ("softmax_rows", "softmax", ((4096, 1024),), (8, 4, 4, 4, 4) * 2),
    ("layer_norm", "layer_norm", ((4096, 1024), (1024,), (1024,)),
     (8, 4, 4, 4, 4) + (8, 4, 4) * 2 + (8, 4, 4, 4, 4) + (8, 4, 4) * 2 + (4, 4)),
)


class FakeTensor:
    """What the wrappers read of a CUDA tensor (no memory behind it)."""

    _next = 0x7F0000000000

    def __init__(self, shape: tuple[int, ...], dtype: object) -> None:
        self.shape, self.dtype, self.is_cuda = tuple(shape), dtype, True
        self.device = types.SimpleNamespace(index=0)
        FakeTensor._next += 1 << 28
        self._ptr = FakeTensor._next

    def dim(self) -> int:
        return len(self.shape)

    def get_device(self) -> int:
        return 0

    def numel(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out

    def stride(self) -> tuple[int, ...]:
        strides, step = [], 1
        for dim in reversed(self.shape):
            strides.insert(0, step)
            step *= dim
        return tuple(strides)

    def data_ptr(self) -> int:
        return self._ptr


def fake_torch() -> types.ModuleType:
    """A `torch` module with what the golden host functions call."""
    torch = types.ModuleType("torch")
    for name in ("float32", "float16", "bfloat16", "int32", "int64", "bool", "uint8", "int8",
                 "int16", "float64"):
        setattr(torch, name, f"torch.{name}")
    torch.Tensor = FakeTensor

    def empty(shape: Any, dtype: object = "torch.float32", **_: Any) -> FakeTensor:
        return FakeTensor(tuple(shape) if isinstance(shape, tuple | list) else (shape,), dtype)

    torch.empty = empty
    torch.empty_like = lambda t, dtype=None, **_: FakeTensor(t.shape, dtype or t.dtype)
    stream = types.SimpleNamespace(cuda_stream=0, device=types.SimpleNamespace(index=0))
    torch.cuda = types.SimpleNamespace(current_stream=lambda: stream, current_device=lambda: 0)
    return torch


def build_stub(out_dir: Path) -> Path:
    """Compiles the stub driver; returns its path (soname libcuda.so.1)."""
    path = out_dir / "libcuda.so.1"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o",
                    str(path), str(HERE / "libcuda_stub.c")], check=True)
    return path


def per_call_us(fn: Callable[[], object], calls: int = 20000, rounds: int = 5) -> float:
    for _ in range(calls // 10):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return round(statistics.median(samples), 3)


def measure(library: Path, wrappers: Path, stub: ctypes.CDLL) -> dict[str, Any]:
    torch = fake_torch()
    sys.modules["torch"] = torch
    lib = ctypes.CDLL(str(library))
    results: dict[str, Any] = {}
    for op, function, shapes, sizes in CASES:
        path = wrappers / f"{op}_wrapper.py"
        if not path.exists():
            continue
        spec = importlib.util.spec_from_file_location(f"tl_{op}", path)
        assert spec is not None and spec.loader is not None
        wrapper = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(wrapper)
        wrapper.load_library(library)
        stub.stub_set_param_sizes(bytes(sizes), len(sizes))
        args = [FakeTensor(shape, torch.float32) for shape in shapes]
        row = measure_case(wrapper, getattr(wrapper, function), args, lib)
        results[f"{op} {'/'.join('x'.join(map(str, s)) for s in shapes)}"] = row
        print(op, row, flush=True)
    return results


def measure_case(wrapper: Any, host: Callable[..., Any], args: list[FakeTensor],
                 lib: ctypes.CDLL) -> dict[str, Any]:
    """The layers of one host function (see the module docstring)."""
    host(*args)  # compiles (tileiras), then the checked path remembers the key
    host(*args)
    row: dict[str, Any] = {"wrapper": per_call_us(lambda: host(*args))}
    python_sites = getattr(wrapper, "_TL_SITE_PYTHON", {})
    native_sites = {n: getattr(wrapper, f"_tl_site_{n}") for n in python_sites}
    row["native_launch_site"] = any(not hasattr(fn, "__code__") for fn in native_sites.values())
    for n, fn in python_sites.items():  # the layers below are the Python stand-in's
        setattr(wrapper, f"_tl_site_{n}", fn)
    if row["native_launch_site"]:
        row["wrapper_python_site"] = per_call_us(lambda: host(*args))
    kernels = [v for v in vars(wrapper).values() if isinstance(v, wrapper._TlKernel)]
    saved = [(k, getattr(k, "fast", None)) for k in kernels]
    for kernel in kernels:
        kernel.fast = {}
    row["wrapper_checked"] = per_call_us(lambda: host(*args))
    for kernel, fast in saved:
        kernel.fast = fast
    native = {kernel: dict(sites) for kernel, sites in getattr(wrapper, "_TL_FAST", {}).items()}
    row["native_fast_path"] = any(not hasattr(fn, "__code__")
                                  for sites in native.values() for fn in sites.values())
    if row["native_fast_path"]:
        for kernel, sites in wrapper._TL_FAST_PYTHON.items():
            wrapper._TL_FAST[kernel].update(sites)
        row["wrapper_python_fast"] = per_call_us(lambda: host(*args))
        for kernel, sites in native.items():
            wrapper._TL_FAST[kernel].update(sites)
    for n, fn in native_sites.items():
        setattr(wrapper, f"_tl_site_{n}", fn)
    symbol, names, specs, grid_param = next(iter(wrapper._TL_SITES[0].values()))
    site_args = _site_args(wrapper, host, args)
    if hasattr(wrapper, "_tl_pack_0"):
        values = [0, 0]
        for value, kind in zip(site_args, specs, strict=True):
            values += ([value.data_ptr(), 8, *value.shape, *value.stride()]
                       if kind[0] == "A" else [value])
        record = wrapper._tl_pack_0(*values)
        packed = wrapper._tl_packed(symbol)
        row["c_packed_prebuilt"] = per_call_us(lambda: packed(record))
        row["python_pack_only"] = per_call_us(lambda: wrapper._tl_pack_0(*values))
    cargs = wrapper._tl_args(names, specs, site_args)
    launch = wrapper._tl_function(symbol, specs, grid_param)
    row["c_launcher_prebuilt"] = per_call_us(lambda: launch(None, 0, *cargs))
    row["ctypes_empty_call"] = per_call_us(lib.tl_abi_version)
    if hasattr(lib, "tl_fast_stats"):
        stats = (ctypes.c_uint64 * 4)()
        lib.tl_fast_stats(stats)
        row["fast_stats"] = dict(zip(("fast", "checked", "remembered", "refused"), stats,
                                     strict=True))
    return row


def _site_args(wrapper: Any, host: Callable[..., Any],
               args: list[FakeTensor]) -> tuple[Any, ...]:
    """The kernel arguments the host function passes at its launch site (captured once)."""
    captured: list[tuple[Any, ...]] = []
    name = "_tl_launch_checked" if hasattr(wrapper, "_tl_launch_checked") else "_tl_launch_site"
    original = getattr(wrapper, name)

    def capture(site: int, stream: Any, grid: Any, kernel: Any, kernel_args: Any) -> None:
        captured.append(tuple(kernel_args))
        original(site, stream, grid, kernel, kernel_args)

    setattr(wrapper, name, capture)
    saved = wrapper.CHECK_GRID
    wrapper.CHECK_GRID = True  # routes the call through the checked path
    try:
        host(*args)
    finally:
        setattr(wrapper, name, original)
        wrapper.CHECK_GRID = saved
    return captured[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--wrappers", type=Path, required=True)
    parser.add_argument("--stub", type=Path, help="a built stub (default: build one)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        stub_path = args.stub or build_stub(Path(tmp))
        stub = ctypes.CDLL(str(stub_path), mode=ctypes.RTLD_GLOBAL)
        results = measure(args.library, args.wrappers, stub)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
