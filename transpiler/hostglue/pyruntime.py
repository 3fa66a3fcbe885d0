
# ---- generated launch glue (transpiler --emit pywrapper) ----
import ctypes as _tl_ctypes
import os as _tl_os
import struct as _tl_struct

_TL_ABI_VERSION = 2
_TL_MAX_RANK = 8
#: Set True to check, at each launch, that the Rust-computed grid equals Python's.
CHECK_GRID = _tl_os.environ.get("TRANSPILER_CHECK_GRID") == "1"


class _TlTensorDesc(_tl_ctypes.Structure):
    _fields_ = [("data", _tl_ctypes.c_uint64), ("dtype", _tl_ctypes.c_int32),
                ("ndim", _tl_ctypes.c_int32), ("shape", _tl_ctypes.c_int64 * _TL_MAX_RANK),
                ("strides", _tl_ctypes.c_int64 * _TL_MAX_RANK)]


_TlI64x8 = _tl_ctypes.c_int64 * _TL_MAX_RANK
_TL_DTYPE_CODES = {}
_TL_CTYPES = {"i32": _tl_ctypes.c_int32, "i64": _tl_ctypes.c_int64, "f32": _tl_ctypes.c_float,
              "f64": _tl_ctypes.c_double, "bool": _tl_ctypes.c_bool,
              "u32": _tl_ctypes.c_uint32, "u64": _tl_ctypes.c_uint64,
              "i16": _tl_ctypes.c_int16, "i8": _tl_ctypes.c_int8, "u8": _tl_ctypes.c_uint8,
              "u16": _tl_ctypes.c_uint16}
_tl_state = {"lib": None, "funcs": {}}
#: The host code's kernel objects by name (`_TlKernel`).
_TL_KERNELS = {}
#: `<symbol>__packed` functions by symbol (the fast path's one-pointer calls).
_TL_PACKED = {}


def _tl_dtype_codes():
    if not _TL_DTYPE_CODES:
        import torch as _torch

        names = {"bool": 0, "uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
                 "float16": 6, "bfloat16": 7, "float32": 8, "float64": 9, "uint16": 10,
                 "uint32": 11, "uint64": 12}
        for name, code in names.items():
            if hasattr(_torch, name):
                _TL_DTYPE_CODES[getattr(_torch, name)] = code
    return _TL_DTYPE_CODES


def load_library(path=None):
    """Loads the launcher library (default: $TRANSPILER_LAUNCHER_LIB, else LIBRARY beside
    this file) and returns it."""
    path = (path or _tl_os.environ.get("TRANSPILER_LAUNCHER_LIB")
            or _tl_os.path.join(_tl_os.path.dirname(_tl_os.path.abspath(__file__)), LIBRARY))
    lib = _tl_ctypes.CDLL(str(path))
    lib.tl_last_error.restype = _tl_ctypes.c_char_p
    if lib.tl_abi_version() != _TL_ABI_VERSION:
        raise RuntimeError(f"{path}: launcher ABI {lib.tl_abi_version()}, "
                           f"this wrapper needs {_TL_ABI_VERSION}")
    _tl_state["lib"] = lib
    _tl_state["funcs"] = {}
    _TL_PACKED.clear()
    _tl_install_native(path)
    return lib


def _tl_install_native(path):
    """Puts the library's native twin (`tl_py_fast`) of each `_tl_fast_N` in its place, and
    a native `ct.launch` stand-in (`tl_py_dispatch`) in place of each `_tl_site_N`: the same
    work without a Python frame. Python's stay where the library lacks them or
    $TRANSPILER_LAUNCHER_PYFAST is 0."""
    for kernel, sites in _TL_FAST_PYTHON.items():
        _TL_FAST[kernel].update(sites)
    globals().update((f"_tl_site_{site}", fn) for site, fn in _TL_SITE_PYTHON.items())
    if _tl_os.environ.get("TRANSPILER_LAUNCHER_PYFAST", "1") == "0":
        return
    try:
        native = _tl_ctypes.PyDLL(str(path))
        make, dispatch = native.tl_py_fast, native.tl_py_dispatch
    except (OSError, AttributeError):
        return
    for fn in (make, dispatch):
        fn.argtypes = [_tl_ctypes.py_object]
        fn.restype = _tl_ctypes.py_object
    last_error = _tl_ctypes.cast(_tl_state["lib"].tl_last_error, _tl_ctypes.c_void_p).value
    try:
        codes = _tl_dtype_codes()
    except ImportError:  # no torch: nothing to launch, the Python path reports it
        return
    dtypes = [None] * (max(codes.values(), default=-1) + 1)
    for dtype, code in codes.items():
        dtypes[code] = dtype
    for kernel, sites in _TL_FAST_PYTHON.items():
        for site, fn in sites.items():
            layout, symbol = fn.native
            address = _tl_ctypes.cast(_tl_packed(symbol), _tl_ctypes.c_void_p).value
            try:
                _TL_FAST[kernel][site] = make((layout.encode(), address, last_error, symbol,
                                                tuple(dtypes)))
            except Exception:  # noqa: BLE001 - keep the Python packing
                pass
    for site in _TL_SITE_PYTHON:
        pairs = tuple((_TL_KERNELS[kernel], fns[site]) for kernel, fns in _TL_FAST.items()
                      if kernel in _TL_KERNELS and site in fns
                      and fns[site] is not _TL_FAST_PYTHON[kernel][site])
        try:
            globals()[f"_tl_site_{site}"] = dispatch((site, globals(), pairs))
        except Exception:  # noqa: BLE001 - keep the Python stand-in
            pass


def _tl_packed(symbol):
    """`<symbol>__packed` of the loaded library: takes one packed argument record."""
    fn = _TL_PACKED.get(symbol)
    if fn is None:
        lib = _tl_state["lib"] or load_library()
        fn = getattr(lib, symbol + "__packed")
        fn.argtypes = [_tl_ctypes.c_char_p]
        fn.restype = _tl_ctypes.c_int32
        _TL_PACKED[symbol] = fn
    return fn


def _tl_function(symbol, specs, grid_param, grid_twin=False):
    key = (symbol, grid_twin)
    fn = _tl_state["funcs"].get(key)
    if fn is None:
        lib = _tl_state["lib"] or load_library()
        fn = getattr(lib, symbol + ("__grid" if grid_twin else ""))
        args = [] if grid_twin else [_tl_ctypes.c_void_p]
        args.append(_tl_ctypes.c_int32)
        for spec in specs:
            args.append(_tl_ctypes.POINTER(_TlTensorDesc) if spec[0] == "A"
                        else _TL_CTYPES[spec])
        if grid_twin:
            args.append(_tl_ctypes.POINTER(_tl_ctypes.c_int64))
        elif grid_param:
            args += [_tl_ctypes.c_int64] * 3
        fn.argtypes = args
        fn.restype = _tl_ctypes.c_int32
        _tl_state["funcs"][key] = fn
    return fn


def _tl_desc(name, value, ndim):
    code = _tl_dtype_codes().get(getattr(value, "dtype", None))
    if code is None or not getattr(value, "is_cuda", False):
        raise TypeError(f"`{name}`: expected a CUDA tensor of a supported dtype, got "
                        f"{type(value).__name__} {getattr(value, 'dtype', '')}")
    if value.dim() != ndim:
        raise ValueError(f"`{name}`: the kernel takes a rank-{ndim} array, got rank "
                         f"{value.dim()}")
    return _TlTensorDesc(value.data_ptr(), code, ndim, _TlI64x8(*value.shape),
                         _TlI64x8(*value.stride()))


def _tl_args(names, specs, values):
    out = []
    for name, spec, value in zip(names, specs, values, strict=True):
        out.append(_tl_desc(name, value, int(spec[1:])) if spec[0] == "A" else value)
    return out


def _tl_device(stream, values):
    device = getattr(stream, "device", None)
    if getattr(device, "index", None) is not None:
        return device.index
    for value in values:
        if getattr(value, "is_cuda", False):
            return value.device.index
    import torch as _torch

    return _torch.cuda.current_device()


def _tl_grid3(grid):
    grid = tuple(grid) if isinstance(grid, tuple | list) else (grid,)
    return tuple(int(g) for g in grid) + (1,) * (3 - len(grid))


def _tl_check(code, symbol):
    if code != 0:
        message = (_tl_state["lib"].tl_last_error() or b"").decode("utf-8", "replace")
        raise RuntimeError(f"{symbol} failed (code {code}): {message}")


def _tl_python_site(site):
    """The Python stand-in for `ct.launch` at one launch site (`_tl_site_N`; a native one
    replaces it when the library loads)."""

    def launch(stream, grid, kernel, kernel_args):
        _tl_launch_site(site, stream, grid, kernel, kernel_args)

    launch.__name__ = launch.__qualname__ = f"_tl_site_{site}"
    return launch


def _tl_launch_site(site, stream, grid, kernel, kernel_args):
    """Stands in for `ct.launch` at one launch site: runs the Rust translation (one packed
    call when the arguments are plain CUDA tensors and numbers, else the checked path)."""
    if not CHECK_GRID:
        fast = getattr(kernel, "fast", None)
        if fast:
            fn = fast.get(site)
            if fn is not None and fn(stream, grid, kernel_args):
                return
    _tl_launch_checked(site, stream, grid, kernel, kernel_args)


def _tl_launch_checked(site, stream, grid, kernel, kernel_args):
    """The launch with every argument checked in Python and a descriptor per array."""
    table = _TL_SITES[site]
    name = getattr(kernel, "name", kernel)
    if name not in table:
        # A kernel this launch site calls that got no launcher (why is in _TL_SKIPPED).
        raise RuntimeError(_TL_SKIPPED.get(site, f"no launcher for kernel {name!r} "
                                                 f"at launch site {site}"))
    symbol, names, specs, grid_param = table[name]
    args = _tl_args(names, specs, kernel_args)
    device = _tl_device(stream, kernel_args)
    handle = getattr(stream, "cuda_stream", stream) or None
    extra = _tl_grid3(grid) if grid_param else ()
    if CHECK_GRID and not grid_param:
        out = (_tl_ctypes.c_int64 * 3)()
        twin = _tl_function(symbol, specs, grid_param, grid_twin=True)
        _tl_check(twin(device, *args, out), symbol + "__grid")
        if tuple(out) != _tl_grid3(grid):
            raise AssertionError(f"{symbol}: Rust grid {tuple(out)} != Python grid "
                                 f"{_tl_grid3(grid)}")
    _tl_check(_tl_function(symbol, specs, grid_param)(handle, device, *args, *extra), symbol)


class _TlKernel:
    """Names a translated kernel where host code passes it to `ct.launch`."""

    def __init__(self, name):
        self.name = name
        #: launch site -> its fast-path function (`_tl_fast_N`) for this kernel
        self.fast = _TL_FAST.get(name, {})
        _TL_KERNELS[name] = self

    def __repr__(self):
        return f"<translated kernel {self.name}>"


class _TlConstant:
    def __class_getitem__(cls, item):
        return item


class _TlHostTile:
    """The cuda.tile names host code uses, without cuTile Python (others: from cuda.tile)."""

    Constant = _TlConstant

    @staticmethod
    def cdiv(a, b):
        return -(-a // b)

    def __getattr__(self, name):
        import importlib

        return getattr(importlib.import_module("cuda.tile"), name)


_TL_HOST_TILE = _TlHostTile()
