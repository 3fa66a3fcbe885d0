"""The wrapper's native argument packing (`launcher/template/src/pyfast.rs`), without a GPU.

The module is built alone with `rustc` and given a Python callback as its `__packed`
function: the record it packs must be byte for byte the one the Python fast path packs
(`struct` with `transpiler.emit_launcher.packed_format`), and anything that path would refuse
must come back False, for the checked path to decide.
"""

from __future__ import annotations

import ctypes
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "launcher" / "template" / "src" / "pyfast.rs"
DTYPES = ("torch.bool", "torch.uint8", "torch.int8", "torch.int16", "torch.int32",
          "torch.int64", "torch.float16", "torch.bfloat16", "torch.float32")


class Tensor:
    """What the fast path reads of a tensor."""

    def __init__(self, shape: tuple[int, ...], dtype: str = "torch.float32", device: int = 0,
                 ptr: int = 0x7F00_0000_1000, strides: tuple[int, ...] | None = None) -> None:
        self.shape, self.dtype, self._device, self._ptr = shape, dtype, device, ptr
        self._strides = strides or tuple(
            _prod(shape[i + 1:]) for i in range(len(shape)))

    def get_device(self) -> int:
        return self._device

    def data_ptr(self) -> int:
        return self._ptr

    def stride(self) -> tuple[int, ...]:
        return self._strides


def _prod(values: tuple[int, ...]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if shutil.which("rustc") is None:
        pytest.skip("rustc not found")
    out = tmp_path_factory.mktemp("pyfast") / "libpyfast.so"
    subprocess.run(["rustc", "--edition", "2021", "--crate-type", "cdylib", "-O", "-o",
                    str(out), str(SOURCE)], check=True, capture_output=True, timeout=600)
    library = ctypes.PyDLL(str(out))
    for fn in (library.tl_py_fast, library.tl_py_dispatch):
        fn.argtypes = [ctypes.py_object]
        fn.restype = ctypes.py_object
    make = library.tl_py_fast
    make.dispatch = library.tl_py_dispatch
    return make


class Recorder:
    """A `__packed` stand-in: keeps each record it is given and returns `code`."""

    def __init__(self, size: int, code: int = 0) -> None:
        self.records: list[bytes] = []
        self.code = code
        self.packed = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)(self._packed)
        self.message = ctypes.create_string_buffer(b"no kernel for you")
        self.last_error = ctypes.CFUNCTYPE(ctypes.c_void_p)(
            lambda: ctypes.addressof(self.message))
        self.size = size

    def _packed(self, record: int) -> int:
        self.records.append(ctypes.string_at(record, self.size))
        return self.code

    def address(self, fn: Any) -> int:
        return ctypes.cast(fn, ctypes.c_void_p).value or 0


def _site(native: Any, layout: str, fmt: str, code: int = 0) -> tuple[Any, Recorder]:
    recorder = Recorder(struct.calcsize(fmt), code)
    site = native((layout.encode(), recorder.address(recorder.packed),
                   recorder.address(recorder.last_error), "tl_demo__k", DTYPES))
    return site, recorder


def test_record_is_the_struct_record(native: Any) -> None:
    fmt = "<QiQiqqQiqqqqi" + "f?q" + "qqq"
    site, rec = _site(native, "A1,A2,i,f,?,q,G", fmt)
    a = Tensor((1000,), ptr=0x1000)
    b = Tensor((8, 16), "torch.bfloat16", ptr=0x2000, strides=(32, 1))
    stream = SimpleNamespace(cuda_stream=0xABC)
    assert site(stream, (4, 2), (a, b, -7, 0.1, 1, 1 << 40)) is True
    want = struct.pack(fmt, 0xABC, 0, 0x1000, 8, 1000, 1, 0x2000, 7, 8, 16, 32, 1,
                       -7, 0.1, True, 1 << 40, 4, 2, 1)
    assert rec.records == [want]


def test_stream_and_grid_forms(native: Any) -> None:
    fmt = "<QiQiqqqqq"
    site, rec = _site(native, "A1,G", fmt)
    t = Tensor((5,), device=3)
    assert site(None, 9, (t,)) is True  # no stream: 0; one int grid: (9, 1, 1)
    assert site(17, [2, 3, 4], (t,)) is True  # a raw handle
    assert rec.records == [struct.pack(fmt, 0, 3, t._ptr, 8, 5, 1, 9, 1, 1),
                           struct.pack(fmt, 17, 3, t._ptr, 8, 5, 1, 2, 3, 4)]


@pytest.mark.parametrize("args", [
    (Tensor((4,), device=-1), 1),                       # not on CUDA
    (Tensor((4, 4)), 1),                                # another rank
    (Tensor((4,), "torch.complex64"), 1),               # a dtype without a code
    (Tensor((4,)), 1 << 31),                            # out of i32
    (Tensor((4,)), 1.5),                                # a float for an int
    (Tensor((4,)),),                                    # too few arguments
    (object(), 1),                                      # not a tensor
])
def test_unusual_arguments_go_to_the_checked_path(native: Any, args: tuple) -> None:
    site, rec = _site(native, "A1,i", "<QiQiqqi")
    assert site(None, (1,), args) is False
    assert rec.records == []


def test_tensors_on_two_devices_go_to_the_checked_path(native: Any) -> None:
    site, rec = _site(native, "A1,A1", "<QiQiqqQiqq")
    assert site(None, (1,), (Tensor((4,), device=0), Tensor((4,), device=1))) is False
    assert rec.records == []


def test_launch_error_raises_like_the_python_path(native: Any) -> None:
    site, rec = _site(native, "A1", "<QiQiqq", code=3)
    with pytest.raises(RuntimeError, match=r"^tl_demo__k failed \(code 3\): no kernel for you$"):
        site(None, (1,), (Tensor((4,)),))
    assert len(rec.records) == 1


def test_bad_site_descriptions_are_refused(native: Any) -> None:
    with pytest.raises(TypeError):
        native((b"A9", 1, 1, "x", DTYPES))
    with pytest.raises(TypeError):
        native((b"A1", 1, 1, "x"))


# ---- the native `ct.launch` stand-in (`tl_py_dispatch`) ---------------------------------------


class Module:
    """A wrapper module's globals, with a `_tl_launch_checked` that records its calls."""

    def __init__(self) -> None:
        self.checked: list[tuple[Any, ...]] = []
        self.globals = {"CHECK_GRID": False, "_tl_launch_checked": self._checked}

    def _checked(self, *args: Any) -> str:
        self.checked.append(args)
        return "checked"


def _dispatch(native: Any, site: int = 4) -> tuple[Any, Any, Recorder, Module]:
    fast, rec = _site(native, "A1,i", "<QiQiqqi")
    kernel, module = object(), Module()
    return native.dispatch((site, module.globals, ((kernel, fast),))), kernel, rec, module


def test_dispatch_launches_its_kernel_natively(native: Any) -> None:
    launch, kernel, rec, module = _dispatch(native)
    t = Tensor((4,))
    assert launch(None, (1,), kernel, (t, 7)) is None  # what ct.launch returns
    assert rec.records == [struct.pack("<QiQiqqi", 0, 0, t._ptr, 8, 4, 1, 7)]
    assert module.checked == []


def test_dispatch_leaves_the_rest_to_the_checked_path(native: Any) -> None:
    launch, kernel, rec, module = _dispatch(native)
    other, args = object(), (Tensor((4,)), 7)
    assert launch("s", (2,), other, args) == "checked"  # a kernel it does not pack
    assert launch("s", (2,), kernel, (Tensor((4, 4)), 7)) == "checked"  # args do not fit
    module.globals["CHECK_GRID"] = True  # read at each call
    assert launch("s", (2,), kernel, args) == "checked"
    assert [(c[0], c[1], c[3]) for c in module.checked] == [(4, "s", other), (4, "s", kernel),
                                                           (4, "s", kernel)]
    assert rec.records == []
    # The checked path is looked up at each call too (tests and benches replace it).
    module.globals["_tl_launch_checked"] = lambda *args: "replaced"
    assert launch("s", (2,), kernel, args) == "replaced"


def test_dispatch_errors(native: Any) -> None:
    launch, kernel, rec, module = _dispatch(native)
    module.globals["_tl_launch_checked"] = lambda *args: 1 / 0
    with pytest.raises(ZeroDivisionError):
        launch(None, (1,), object(), ())
    with pytest.raises(TypeError):
        launch(None, (1,), kernel)
    fast, rec = _site(native, "A1", "<QiQiqq", code=3)
    launch = native.dispatch((0, module.globals, ((kernel, fast),)))
    with pytest.raises(RuntimeError, match=r"^tl_demo__k failed \(code 3\)"):
        launch(None, (1,), kernel, (Tensor((4,)),))
    with pytest.raises(TypeError):
        native.dispatch((0, module.globals, ((kernel, lambda *a: True),)))


def test_dispatch_keeps_reference_counts(native: Any) -> None:
    launch, kernel, rec, module = _dispatch(native)
    t, stream, grid = Tensor((4,)), SimpleNamespace(cuda_stream=5), (1,)
    args = (t, 7)
    before = [sys.getrefcount(x) for x in (t, stream, grid, args, kernel)]
    for _ in range(100):
        launch(stream, grid, kernel, args)
        launch(stream, grid, object(), args)
    module.checked.clear()
    assert [sys.getrefcount(x) for x in (t, stream, grid, args, kernel)] == before
    # None's count moves with the interpreter's own work: a lost reference per launch
    # would show as thousands.
    none_before = sys.getrefcount(None)
    for _ in range(2000):
        launch(stream, grid, kernel, args)
    assert abs(sys.getrefcount(None) - none_before) < 100
