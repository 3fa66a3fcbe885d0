"""Triton reference side of the numeric check: run a `@triton.jit` kernel on numpy buffers.

Takes a Triton source file, a kernel name and its constexpr values; gives a side
(`TritonInterpreterSide`) whose `run(buffers, scalars, grid)` runs the kernel under Triton's
own interpreter (`TRITON_INTERPRET=1` semantics, Triton 3.9) and leaves the results in the
numpy buffers, as a GPU launch would leave them in device memory.

The user's file is never imported. `lift_triton` keeps only what the kernels need, on their
original lines: the imports of `triton` (any submodule, any alias) and `math`, every
function with a device decorator (`DEVICE_DECORATORS`: jit kernels and helpers,
`constexpr_function`s) without its host-side decorators (`autotune`, `heuristics`, whose
values come in as constexprs), and the module constants those functions read whose values
are built from what is kept. Every other statement becomes a blank line.

The interpreter reads its environment variable when `triton.jit` decorates, and patches
`triton.language` while it runs, so each run is a fresh Python subprocess (the current
interpreter, `-I`); buffers and results travel as `.npz` files. Torch is not needed: a buffer is
passed as an object with `data_ptr()` (the numpy array's address) and a dtype name, and the
interpreter's two device-to-host copy steps are identity functions for host memory.
`run_launches` runs many launches of one file's kernels in one such subprocess (the import of
Triton costs about a second), each with its own result or error.

Where Triton's interpreter computes otherwise than Triton's compiler, the child makes it
compute as the compiler does (`COMPILER_SEMANTICS`), so that the reference is the kernel as
a GPU runs it: the interpreter multiplies f32 `tl.dot` operands in full f32, the compiler
(with the default `input_precision="tf32"`) rounds them to tf32 first.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

#: Top-level modules whose imports a lifted kernel keeps.
KEPT_MODULES: tuple[str, ...] = ("triton", "math")
#: `triton` decorators that make device code: the functions a lifted module keeps.
DEVICE_DECORATORS: frozenset[str] = frozenset({"jit", "constexpr_function", "must_use_result"})
#: numpy dtype name -> the dtype name Triton's JIT reads from a tensor (`str(t.dtype)`).
TRITON_DTYPE_NAMES: dict[str, str] = {
    "float32": "float32", "float16": "float16", "float64": "float64", "int8": "int8",
    "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool": "bool",
}
DEFAULT_TIMEOUT_S = 600.0
#: Where the child patches Triton's interpreter to compute as Triton's compiler does, and why.
COMPILER_SEMANTICS: dict[str, str] = {
    "tf32-dot": "`tl.dot` of f32 operands with input_precision tf32 (the default) rounds both "
    "operands to tf32 (round to nearest even at 10 mantissa bits) before multiplying; the "
    "interpreter skips the rounding",
    "narrow-accumulation": "`tl.sum` / `tl.cumsum` / `tl.cumprod` of f16 values: the "
    "compiler combines them in f16, rounding every step of a tree (its order depends on the "
    "layout, and is not specified); the interpreter sums with numpy (`sum` accumulates in "
    "f32 and rounds once, `cumsum` adds sequentially), which differs from every tree by f16 "
    "roundings of the partial sums, as large as the sums themselves. The child combines "
    "them in f16 in one tree order the compiler may use, the one the Tile IR interpreter "
    "uses (pairwise halving for a reduction, doubling strides for a scan), so that the "
    "comparison measures the translation and not an order neither program fixes",
    "libdevice": "the interpreter has no libdevice (`triton.language.extra.libdevice` "
    "functions are stubs there); the element-wise ones of `LIBDEVICE_NUMPY` are computed "
    "with numpy in the operand's type, as libdevice computes them to within its ulp bounds",
}
#: Element types Triton 3.9's interpreter cannot compute with on host buffers, and why: a
#: specialization with one is no reference (an ERROR, never a PASS or a FAIL).
UNSUPPORTED_DTYPES: dict[str, str] = {
    "bfloat16": "Triton 3.9's interpreter keeps bfloat16 values as uint16 bit patterns, and "
    "its arithmetic on them does not give bfloat16 results (`x * scale` on a bfloat16 tile "
    "stores zeros or huge values on numpy buffers)",
}
#: libdevice function -> the numpy function the reference computes it with.
LIBDEVICE_NUMPY: dict[str, str] = {
    "tanh": "tanh", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2",
    "log1p": "log1p", "expm1": "expm1", "sqrt": "sqrt", "sin": "sin", "cos": "cos",
    "tan": "tan", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh",
    "cosh": "cosh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
    "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint", "fabs": "fabs",
    "erf": "erf",
}


class Side(Protocol):
    """One side of the numeric check: runs a kernel on bound buffers, in place."""

    def run(self, buffers: dict[str, np.ndarray], scalars: dict[str, int | float],
            grid: tuple[int, int, int]) -> None: ...


class TritonReferenceError(RuntimeError):
    """The reference could not run; the message says why (Triton's own text where it has
    one)."""


# ---- lifting --------------------------------------------------------------------------------


def lift_triton(source: str, filename: str = "<kernel>") -> str:
    """The kernels of `source` as a standalone module, on their original lines."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise TritonReferenceError(f"{filename} is not valid Python: {exc}") from exc
    aliases = _triton_aliases(tree)
    keep: set[int] = set()
    drop_ranges: list[tuple[int, int]] = []
    bound: set[str] = set(dir(builtins))
    for index, stmt in enumerate(tree.body):
        if _kept_import(stmt):
            keep.add(index)
            bound.update(_import_names(stmt))
    functions = {}
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.FunctionDef) and _is_triton_function(stmt, aliases):
            keep.add(index)
            functions[stmt.name] = stmt
            bound.add(stmt.name)
            for dec in stmt.decorator_list:
                if _decorator_name(dec, aliases) not in DEVICE_DECORATORS:
                    drop_ranges.append((dec.lineno, dec.end_lineno or dec.lineno))
    needed = {name for f in functions.values() for name in _free_names(f)}
    grown = True
    while grown:  # constants read by needed constants are needed
        before = len(needed)
        for _, stmt in _constants(tree):
            if _assigned_names(stmt) & needed and stmt.value is not None:
                needed |= {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        grown = len(needed) > before
    for index, stmt in _constants(tree):
        targets = _assigned_names(stmt)
        value = stmt.value
        reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} if value else set()
        if targets & needed and reads <= bound:
            keep.add(index)
            bound.update(targets)
    lines = source.splitlines()
    out = [""] * len(lines)
    for index in sorted(keep):
        stmt = tree.body[index]
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        for line in range(first, (stmt.end_lineno or stmt.lineno) + 1):
            out[line - 1] = lines[line - 1]
    for start, end in drop_ranges:
        for line in range(start, end + 1):
            out[line - 1] = ""
    return "\n".join(out + _guarded_imports(tree)) + "\n"


def _guarded_imports(tree: ast.Module) -> list[str]:
    """Lines (for after the file's last line, so the kernels keep their lines) that make
    the imports a file guards with `try`/`if` (`from triton.language.extra.libdevice
    import tanh`, else another path): each name from the first of its imports that
    succeeds, as the file's own guard would pick it; the guards' conditions are not run
    (they may call the file's helpers)."""
    lines: list[str] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.If | ast.Try):
            continue
        for node in ast.walk(stmt):
            if not _kept_import(node):
                continue
            names = sorted(_import_names(node))
            missing = " or ".join(f"{name!r} not in globals()" for name in names)
            lines += [f"if {missing}:", "    try:", f"        {ast.unparse(node)}",
                      "    except ImportError:", "        pass"]
    return lines


def _triton_aliases(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for a in stmt.names:
                out[a.asname or a.name] = f"{stmt.module}.{a.name}"
    return out


def _kept_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(a.name.split(".")[0] in KEPT_MODULES for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        return not stmt.level and (stmt.module or "").split(".")[0] in KEPT_MODULES
    return False


def _import_names(stmt: ast.stmt) -> set[str]:
    names = stmt.names if isinstance(stmt, ast.Import | ast.ImportFrom) else []
    return {a.asname or a.name.split(".")[0] for a in names}


def _decorator_name(dec: ast.expr, aliases: dict[str, str]) -> str | None:
    """The triton decorator's last name (`jit`, `autotune`), else None."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    parts: list[str] = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if not isinstance(target, ast.Name):
        return None
    full = ".".join([aliases.get(target.id, target.id), *reversed(parts)])
    return full.split(".")[-1] if full.split(".")[0] == "triton" else None


def _is_triton_function(fn: ast.FunctionDef, aliases: dict[str, str]) -> bool:
    return any(_decorator_name(d, aliases) in DEVICE_DECORATORS for d in fn.decorator_list)


def _free_names(fn: ast.FunctionDef) -> set[str]:
    """Names a function reads that it does not bind itself (its globals)."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    loaded = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    return loaded - params - stored


def _constants(tree: ast.Module) -> list[tuple[int, ast.Assign | ast.AnnAssign]]:
    return [(i, s) for i, s in enumerate(tree.body)
            if isinstance(s, ast.Assign) or isinstance(s, ast.AnnAssign) and s.value]


def _assigned_names(stmt: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def element_type_params(source: str, kernel: str) -> set[str]:
    """The parameters `kernel` uses as an element type (`x.to(P)`, `dtype=P`,
    `tl.cast(x, P)`): a constexpr launch value read as a dtype name (`"float16"`) is passed
    to Triton as its dtype (`tl.float16`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    fn = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == kernel),
              None)
    if fn is None:
        return set()
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    used: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else None
        operands = [k.value for k in node.keywords if k.arg == "dtype"]
        if name == "to" and node.args:
            operands.append(node.args[0])
        if name == "cast" and len(node.args) >= 2:
            operands.append(node.args[1])
        used |= {o.id for o in operands if isinstance(o, ast.Name)}
    return used & params


def dtype_constexprs(source: str, kernel: str, constexprs: Mapping[str, object]) -> list[str]:
    """The constexprs of a launch to pass to Triton as dtypes (see `element_type_params`)."""
    used = element_type_params(source, kernel)
    return sorted(n for n, v in constexprs.items() if n in used and isinstance(v, str))


# ---- the side --------------------------------------------------------------------------------


@dataclass
class TritonInterpreterSide:
    """Triton's interpreter running `kernel` of `source_path` with fixed constexprs.

    `buffer_dtypes` names the Triton dtype of a buffer whose numpy dtype cannot say it
    (`bfloat16` stored as `uint16`, the float8 types as `uint8`); `options` are launch keywords
    such as `num_warps` (the interpreter ignores them, Triton accepts them)."""

    source_path: Path
    kernel: str
    constexprs: Mapping[str, object] = field(default_factory=dict)
    buffer_dtypes: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S

    def run(self, buffers: dict[str, np.ndarray], scalars: dict[str, int | float],
            grid: tuple[int, int, int]) -> None:
        """Run the kernel; every buffer holds what the kernel left in it afterwards."""
        (result,) = run_launches(self.source_path, [TritonLaunch(
            self.kernel, self.constexprs, scalars, grid, buffers, self.buffer_dtypes)],
            self.timeout_s)
        if isinstance(result, str):
            raise TritonReferenceError(result)
        for name, array in buffers.items():
            array[...] = result[name]


@dataclass
class TritonLaunch:
    """One launch of `run_launches`: a kernel, its constexprs, runtime scalars, grid and
    buffers (by parameter name; a buffer's Triton dtype from `buffer_dtypes` or its numpy
    dtype, `bfloat16` for ml_dtypes' bfloat16)."""

    kernel: str
    constexprs: Mapping[str, object]
    scalars: Mapping[str, int | float]
    grid: tuple[int, int, int]
    buffers: dict[str, np.ndarray]
    buffer_dtypes: Mapping[str, str] = field(default_factory=dict)
    # Buffer -> block shape: passed as a host-made `TensorDescriptor` over the whole buffer.
    descriptors: Mapping[str, list[int]] = field(default_factory=dict)


def run_launches(source_path: Path, launches: list[TritonLaunch],
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> list[dict[str, np.ndarray] | str]:
    """Every launch in one subprocess: per launch, its buffers after the kernel ran (copies;
    the launch's own arrays are left as they were), or the reason it did not run."""
    if not launches:
        return []
    source_text = source_path.read_text(encoding="utf-8")
    text = lift_triton(source_text, str(source_path))
    with tempfile.TemporaryDirectory(prefix="transpiler-triton-") as tmp:
        work = Path(tmp)
        lifted = work / f"lifted_{source_path.stem.replace('-', '_')}.py"
        lifted.write_text(text, encoding="utf-8")
        jobs = []
        for number, launch in enumerate(launches):
            stored = {k: _storage(v) for k, v in launch.buffers.items()}
            np.savez(work / f"in{number}.npz", **stored)
            jobs.append({"module": str(lifted), "kernel": launch.kernel,
                         "scalars": {k: _plain(v) for k, v in launch.scalars.items()},
                         "constexprs": {k: _plain(v) for k, v in launch.constexprs.items()},
                         "dtype_constexprs": dtype_constexprs(source_text, launch.kernel,
                                                              launch.constexprs),
                         "grid": list(launch.grid),
                         "descriptors": {k: list(v) for k, v in launch.descriptors.items()},
                         "dtypes": {name: launch.buffer_dtypes.get(name) or _triton_dtype(a)
                                    for name, a in launch.buffers.items()},
                         "inputs": str(work / f"in{number}.npz"),
                         "outputs": str(work / f"out{number}.npz"),
                         "error": str(work / f"error{number}.txt")})
        (work / "batch.json").write_text(json.dumps(jobs), encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", _BATCH_CHILD, str(work / "batch.json"),
                 json.dumps(LIBDEVICE_NUMPY)],
                capture_output=True, text=True, timeout=timeout_s, check=False,
                env=_child_env())
        except subprocess.TimeoutExpired:
            raise TritonReferenceError(f"Triton's interpreter ran past {timeout_s:.0f} s on "
                                       f"{len(launches)} launches") from None
        if done.returncode != 0:
            raise TritonReferenceError(_child_error(done.stderr, launches[0].kernel))
        out: list[dict[str, np.ndarray] | str] = []
        for job, launch in zip(jobs, launches, strict=True):
            error = Path(job["error"])
            if error.exists():
                out.append(error.read_text(encoding="utf-8"))
                continue
            with np.load(job["outputs"]) as results:
                out.append({name: results[name].reshape(array.shape).view(array.dtype)
                            for name, array in launch.buffers.items()})
        return out


def _storage(array: np.ndarray) -> np.ndarray:
    """The array as Triton's interpreter stores its dtype (bfloat16 as uint16 bits)."""
    contiguous = np.ascontiguousarray(array)
    return contiguous.view(np.uint16) if contiguous.dtype.name == "bfloat16" else contiguous


def _plain(value: object) -> object:
    """A numpy scalar as the Python value Triton's launch reads (JSON has no numpy types)."""
    return value.item() if isinstance(value, np.generic | np.ndarray) else value


def _triton_dtype(array: np.ndarray) -> str:
    if array.dtype.name == "bfloat16":
        return "bfloat16"
    name = TRITON_DTYPE_NAMES.get(array.dtype.name)
    if name is None:
        raise TritonReferenceError(f"no Triton dtype for numpy {array.dtype.name}: "
                                   "name it in buffer_dtypes")
    return name


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
    env["TRITON_INTERPRET"] = "1"
    return env


def _child_error(stderr: str, kernel: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    marker = "triton-reference: "
    for line in lines:
        if line.startswith(marker):
            return line[len(marker):]
    return f"Triton's interpreter failed on `{kernel}`: {last}"


#: Child-process text shared by the subprocesses that run Triton on a lifted module: imports it
#: from its file (so `inspect` finds the kernel's source) and returns the named kernel.
CHILD_LOAD_KERNEL = r'''
import importlib.util, sys
def load_kernel(job, tag):
    spec = importlib.util.spec_from_file_location("lifted_kernel", job["module"])
    module = importlib.util.module_from_spec(spec)
    sys.modules["lifted_kernel"] = module
    spec.loader.exec_module(module)
    found = getattr(module, job["kernel"], None)
    if found is None:
        sys.exit(f"{tag}: no @triton.jit kernel `{job['kernel']}` in the file")
    return found
'''

# Compiler semantics the interpreter lacks (`COMPILER_SEMANTICS`), patched into its builder.
CHILD_COMPILER_SEMANTICS = r'''
def use_compiler_semantics(interpreter):
    builder = type(interpreter.interpreter_builder)
    plain_dot = builder.create_dot
    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        import numpy as np
        import triton.language as tl
        tf32 = str(input_precision).rsplit(".", 1)[-1] == "TF32"
        if tf32 and a.dtype.scalar == tl.float32 and b.dtype.scalar == tl.float32:
            rounded = interpreter._round_f32_to_tf32
            a = interpreter.TensorHandle(rounded(a.data), a.dtype.scalar)
            b = interpreter.TensorHandle(rounded(b.data), b.dtype.scalar)
        return plain_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
    builder.create_dot = create_dot
    use_tree_accumulation(interpreter)


def use_tree_accumulation(interpreter):
    import numpy as np
    narrow = lambda data: data.dtype.kind == "f" and data.dtype.itemsize < 4
    def tree_reduce(data, axis, keep_dims, combine):
        flat = axis is None
        t = np.moveaxis(data.reshape(-1) if flat else data, 0 if flat else axis, 0)
        while t.shape[0] > 1:
            if t.shape[0] % 2:
                t = np.concatenate([t, np.full((1, *t.shape[1:]), combine.identity, t.dtype)])
            half = t.shape[0] // 2
            t = combine(t[:half], t[half:]).astype(data.dtype)
        result = t[0]
        if keep_dims:
            result = result.reshape((1,) * data.ndim) if flat else np.expand_dims(result, axis)
        return result
    def tree_scan(data, axis, combine):
        t = np.moveaxis(data, axis, 0)
        shift = 1
        while shift < t.shape[0]:
            t = np.concatenate([t[:shift], combine(t[:-shift], t[shift:]).astype(t.dtype)])
            shift *= 2
        return np.ascontiguousarray(np.moveaxis(t, 0, axis))
    plain_sum = interpreter.ReduceOps.sum
    def reduce_sum(self, input):
        data = input.handle.data
        if not narrow(data):
            return plain_sum(self, input)
        return self.to_tensor(tree_reduce(data, self.axis, self.keep_dims, np.add), input.dtype)
    interpreter.ReduceOps.sum = reduce_sum
    for name, combine in (("cumsum", np.add), ("cumprod", np.multiply)):
        plain = getattr(interpreter.ScanOps, name)
        def scan(self, input, plain=plain, combine=combine):
            data = input.handle.data
            if not narrow(data):
                return plain(self, input)
            return [self.to_tensor(tree_scan(data, self.axis, combine), dtype=input.dtype)]
        setattr(interpreter.ScanOps, name, scan)


def use_numpy_libdevice(interpreter, table):
    import numpy as np
    import triton.language as tl
    from triton.language.extra import libdevice
    def elementwise(function):
        def run(x, *rest, **keywords):
            data = function(x.handle.data).astype(x.handle.data.dtype)
            return tl.core.tensor(interpreter.TensorHandle(data, x.handle.dtype.scalar),
                                  x.type)
        return run
    for name, numpy_name in table.items():
        function = getattr(np, numpy_name, None)
        if function is None and numpy_name == "erf":
            import math
            function = np.vectorize(math.erf)
        if hasattr(libdevice, name) and function is not None:
            setattr(libdevice, name, elementwise(function))
'''

# The batch child: like `_CHILD`, for a list of launches, each saving its buffers or its error.
_BATCH_CHILD = CHILD_LOAD_KERNEL + CHILD_COMPILER_SEMANTICS + r'''
import json, sys
import numpy as np
jobs = json.load(open(sys.argv[1]))
try:
    import triton
    from triton.runtime import interpreter
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError as err:
    sys.exit(f"triton-reference: Triton is not installed ({err}); see requirements.lock")

class HostBuffer:
    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype
    def data_ptr(self):
        return self.array.ctypes.data

interpreter.GridExecutor._init_args_hst = lambda self, args, kwargs: (args, kwargs)
interpreter.GridExecutor._restore_args_dev = lambda self, *rest: None
use_compiler_semantics(interpreter)
use_numpy_libdevice(interpreter, json.loads(sys.argv[2]))
kernels = {}
for job in jobs:
    def fail(message):
        with open(job["error"], "w") as handle:
            handle.write(message)
    try:
        if job["kernel"] not in kernels:
            kernels[job["kernel"]] = load_kernel(job, "triton-reference")
    except SystemExit as err:
        fail(str(err).removeprefix("triton-reference: "))
        continue
    kernel = kernels[job["kernel"]]
    arrays = dict(np.load(job["inputs"]))
    args = {name: HostBuffer(array, job["dtypes"][name]) for name, array in arrays.items()}
    for name, block in job.get("descriptors", {}).items():
        # A host-made descriptor over the whole buffer; built without its checks, which
        # read a torch dtype (the interpreter reads only these fields).
        array = arrays[name]
        desc = object.__new__(TensorDescriptor)
        desc.base, desc.block_shape = args[name], list(block)
        desc.shape = list(array.shape)
        desc.strides = [s // array.itemsize for s in array.strides]
        desc.padding, desc.round_f32_to_tf32 = "zero", False
        args[name] = desc
    args.update(job["scalars"])
    args.update(job["constexprs"])
    for name in job["dtype_constexprs"]:
        args[name] = getattr(triton.language, args[name])
    missing = [n for n in kernel.arg_names if n not in args]
    if missing:
        fail("no value for " + ", ".join(f"`{n}`" for n in missing))
        continue
    try:
        kernel[tuple(job["grid"])](**{n: args[n] for n in kernel.arg_names})
    except Exception as err:
        fail(f"Triton's interpreter failed on `{job['kernel']}`: {' '.join(str(err).split())}")
        continue
    np.savez(job["outputs"], **arrays)
'''
