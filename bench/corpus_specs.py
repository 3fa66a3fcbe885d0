"""Corpus specializations: what a kernel's own host code launches it with, found by evaluation.

Takes one op file of an unpacked package (plus the package root, for `from .utils import f`
and `from <package>.x import f`), the names of its kernels and, per kernel, the translator's
specialization manifest; gives, per kernel, one `KernelSpec` per element type the op runs
with (float32 / float16 / bfloat16, or the kind's own list), or the reason none could be
derived.

How: a small abstract interpreter walks the file's host code (nothing is imported or run;
only this module's models of `torch`, `cuda.tile`, `math`, `types`, `dataclasses` and the
Python builtins are used). Every top-level function and every `forward`/`backward` method
is an entry point; entries nobody in the file calls ("roots") go first. An entry's
parameters get their defaults, else a typical value: a fake tensor whose every dimension is
the op kind's typical size and whose element type is the run's dtype (int32 for index-like
names) unless the kernel fixes the parameter's type (a float8 operand), or the typical size
for an `int` annotation; a tensor the host code builds has the dtype it names.
`ct.launch(stream, grid, kernel, args)` and `exhaustive_search(configs, stream, grid_fn,
kernel, args_fn, ...)` (first config) record the kernel's arguments. Conditions the
interpreter cannot decide run both arms; a condition that compares a tensor dimension also
runs both arms (so size-dependent paths such as a decode `T == 1` branch are reached) but
keeps the arm the typical size takes.

When every launch of a kernel leaves a `ct.Constant` argument unknown (it depends on a
parameter only a caller gives, such as a `config` dict), the callers of the functions that
launched it are looked for in the whole package (calls by the function's name or by a name
its decorators register it under), then their callers, and run from the outermost one with
typical arguments; a call by a name found on the way runs the function it was found for
(the caller may see a dispatch stub under that name).

All corpus knowledge is data: `OP_KINDS` (typical size, rank and dtypes per op kind, chosen
by a regular expression over the op names the file registers or defines),
`INDEX_TENSOR_NAME`, `TARGET_CAPABILITY`, `SM_COUNT`. No rule names a file or a kernel.
"""

from __future__ import annotations

import ast
import collections
import collections.abc
import copy
import functools
import math
import operator
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.ircheck.spec import (
    RUST_ELEMENT_TYPES,
    ArraySpec,
    ConstSpec,
    KernelSpec,
    ParamSpec,
    ScalarSpec,
    dtype_of_rust,
)

# ---- data ----------------------------------------------------------------------------------

#: The GPU the host code is evaluated for (the IR check targets sm_90).
TARGET_CAPABILITY: tuple[int, int] = (9, 0)
#: Streaming multiprocessors of that GPU (an H100 SXM).
SM_COUNT = 132
FLOAT_DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class OpKind:
    """Typical inputs for one kind of op.

    An input tensor of rank r has the shape (`last`,) for r = 1, (`mid`, `last`) for r = 2,
    and (`lead`, `mid`, ..., `mid`, `last`) above: a small batch, middle sizes (rows,
    heads, sequence), and the innermost size (hidden or head dimension). An `int` input is
    `mid`.
    """

    name: str
    pattern: str  # regular expression over the op names of the file
    lead: int
    mid: int
    last: int
    rank: int  # rank of an input tensor whose rank the code never fixes
    dtypes: tuple[str, ...] = FLOAT_DTYPES

    def dims(self, rank: int) -> tuple[int, ...]:
        if rank <= 0:
            return ()
        if rank == 1:
            return (Dim(self.last),)
        middle = (Dim(self.mid),) * (rank - 1 if rank == 2 else rank - 2)
        return ((Dim(self.lead),) if rank > 2 else ()) + middle + (Dim(self.last),)


#: First match wins; the last entry matches everything.
OP_KINDS: tuple[OpKind, ...] = (
    # float32: the type of the inputs an fp8 op does not quantize (its scales); the
    # float8 type of the quantized operands is the one the kernel fixes for them.
    OpKind("fp8 gemm", r"fp8", 2, 512, 512, 2, ("float32",)),
    OpKind("attention", r"attention|attn|fmha|mla|decod|splitk", 2, 32, 128, 4),
    OpKind("recurrent / chunked scan", r"mamba|delta|recurrent|rope|chunk", 2, 64, 64, 4),
    OpKind("gemm", r"matmul|gemm|bmm|linear|moe|expert", 2, 512, 512, 2),
    OpKind("row-wise", r".", 2, 1024, 1024, 2),
)

#: Tensor parameters whose name says they hold indices get int32 elements.
INDEX_TENSOR_NAME = re.compile(
    r"(^|_)(ids?|idx|index|indices|lens|offsets?|positions?|counts?|seqlens?|cu_seqlens)($|_)")

#: Annotations of parameters that hold no tensor (a typical value cannot be made up):
#: strings, callables and containers, in builtin or `typing` spelling.
CONTAINER_ANNOTATION = re.compile(
    r"(typing\.)?(str|callable|dict|list|tuple|set|sequence|mapping)\b", re.IGNORECASE)

MAX_STEPS = 400_000  # statements + expressions per entry run
MAX_DEPTH = 40  # nested interpreted calls
MAX_ITERATIONS = 64  # iterations of one loop
MAX_EXPLORE_DEPTH = 3  # nested explorations of an `if`'s other arm
EXPLORE_STEPS = 50_000  # steps one exploration may take
MAX_VARIANTS = 12  # runs of one entry (defaults, then each option flipped)
MAX_RANK = 6  # a tensor whose rank only `shape[i]` reads fix grows up to this


def kind_for(op_names: list[str]) -> OpKind:
    """The first kind whose pattern matches one of the op names."""
    for kind in OP_KINDS:
        if any(re.search(kind.pattern, name, re.IGNORECASE) for name in op_names):
            return kind
    return OP_KINDS[-1]


# ---- abstract values -----------------------------------------------------------------------


class Unknown:
    """A value the evaluator cannot know (hashable by identity)."""

    __slots__ = ("why",)

    def __init__(self, why: str = "unknown") -> None:
        self.why = why

    def __repr__(self) -> str:
        return f"<unknown: {self.why}>"


UNKNOWN = Unknown()


class Dim(int):
    """A size read from a tensor's shape; `if` tests that compare one run both arms."""


@dataclass(frozen=True)
class Cond:
    """The outcome of comparing a `Dim`, kept as a value (`use_x = W >= 16`): an `if` on
    it runs both arms, as if the comparison were written in the test."""

    value: bool


@dataclass(frozen=True)
class DType:
    name: str

    @property
    def itemsize(self) -> int:
        digits = re.findall(r"\d+", self.name)
        return max(1, int(digits[0]) // 8) if digits else 1

    @property
    def is_floating_point(self) -> bool:
        return self.name.startswith(("float", "bfloat", "tfloat"))


_TORCH_DTYPES = {
    "float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "float64": "float64", "double": "float64", "int32": "int32",
    "int": "int32", "int64": "int64", "long": "int64", "int16": "int16", "int8": "int8",
    "uint8": "uint8", "bool": "bool_", "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2", "tfloat32": "tfloat32", "bool_": "bool_",
}


class LazyShape:
    """The shape of a tensor whose rank is fixed by the first use that needs it."""

    def __init__(self, tensor: FakeTensor) -> None:
        self.tensor = tensor

    def item(self, index: object) -> object:
        tensor = self.tensor
        if isinstance(index, int) and (tensor.shape is None or tensor.rank_guessed):
            needed = index + 1 if index >= 0 else -index
            if needed > MAX_RANK:
                return Unknown("dimension beyond the largest rank")
            if tensor.shape is None or needed > len(tensor.shape):
                tensor.shape = tensor.kind.dims(max(needed, tensor.kind.rank))
                tensor.rank_guessed = True
        return _subscript_value(tensor.dims(), index)

    def unpack(self, count: int) -> list[object]:
        if self.tensor.shape is None:
            self.tensor.shape = self.tensor.kind.dims(count)
        return list(self.tensor.dims())

    def real(self) -> tuple[int, ...]:
        return self.tensor.dims()


class FakeTensor:
    """A tensor argument: element type and shape only."""

    def __init__(self, dtype: DType | Unknown, shape: tuple[int, ...] | None, kind: OpKind,
                 poly: bool = False) -> None:
        self.dtype = dtype
        self.shape = shape
        self.kind = kind
        self.poly = poly  # an untyped entry parameter: may also stand for a size
        self.rank_guessed = False  # rank set by `shape[i]` reads only: may still grow
        # The element type is the run's guess for an input the host code does not build
        # (not a `dtype=` it names): a type the kernel itself fixes for it wins.
        self.dtype_guessed = False

    @property
    def size(self) -> int:
        return self.kind.mid

    @property
    def default_rank(self) -> int:
        return self.kind.rank

    def dims(self) -> tuple[int, ...]:
        if self.shape is None:
            self.shape = self.kind.dims(self.kind.rank)
        return self.shape

    def like(self, shape: tuple[int, ...] | None | str = "same",
             dtype: DType | Unknown | None = None) -> FakeTensor:
        """A tensor of this kind: same shape unless given (None: not known)."""
        keep = self.shape if shape == "same" else shape
        out = FakeTensor(self.dtype if dtype is None else dtype, keep,  # type: ignore[arg-type]
                         self.kind)
        out.dtype_guessed = self.dtype_guessed and (dtype is None or dtype == self.dtype)
        return out

    def __repr__(self) -> str:
        dtype = self.dtype.name if isinstance(self.dtype, DType) else "?"
        return f"<tensor {dtype} {self.shape}>"


@dataclass(frozen=True)
class KernelRef:
    name: str


@dataclass
class Native:
    """A callable modelled in Python: fn(interpreter, args, kwargs)."""

    fn: Callable[..., object]
    name: str = "native"


@dataclass
class FunctionValue:
    node: ast.FunctionDef | ast.Lambda
    module: ModuleEnv
    closure: list[dict[str, object]]
    is_generator: bool = False

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")


@dataclass
class BoundMethod:
    function: object
    receiver: object


@dataclass
class ClassValue:
    name: str
    bases: list[object]
    attrs: dict[str, object]
    fields: list[tuple[str, ast.expr | None]]
    is_dataclass: bool
    module: ModuleEnv

    def lookup(self, name: str) -> object | None:
        if name in self.attrs:
            return self.attrs[name]
        for base in self.bases:
            if isinstance(base, ClassValue):
                found = base.lookup(name)
                if found is not None:
                    return found
        return None

    def derives(self, marker: str) -> bool:
        return any(base is MARKERS.get(marker) or (isinstance(base, ClassValue)
                                                    and base.derives(marker))
                   for base in self.bases)


class Instance:
    """An object of an interpreted class, a `ctx`, or a result record."""

    def __init__(self, cls: ClassValue | None = None, **attrs: object) -> None:
        self.cls = cls
        self.attrs: dict[str, object] = dict(attrs)


class Marker:
    """A base class or type from a modelled library (`torch.autograd.Function`, ...)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<marker {self.name}>"


MARKERS: dict[str, Marker] = {n: Marker(n) for n in (
    "autograd.Function", "nn.Module", "Tensor", "IntEnum", "Enum", "dataclass", "staticmethod",
    "classmethod", "property", "generic")}


@dataclass
class Record:
    """One launch of a kernel seen while evaluating an entry."""

    kernel: str
    args: list[object]
    entry: str
    via: str
    origin: str = ""  # the top-level function the entry run started from ("" for methods)


# ---- control-flow signals ------------------------------------------------------------------


class Signal:
    pass


@dataclass
class Return(Signal):
    value: object


@dataclass
class Raise(Signal):
    reason: str


class Break(Signal):
    pass


class Continue(Signal):
    pass


class EvalError(Exception):
    """The evaluator met something it does not model; the entry run stops."""


class BudgetExceeded(EvalError):
    pass


# ---- modules -------------------------------------------------------------------------------


class ModuleEnv:
    """A source module of the package: top-level bindings, evaluated on first use."""

    def __init__(self, path: Path, package: Package) -> None:
        self.path = path
        self.package = package
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.values: dict[str, object] = {}
        self.bindings: dict[str, ast.stmt] = {}
        self.kernels: set[str] = set()
        for stmt in _top_statements(self.tree.body):
            for name in _bound_names(stmt):
                self.bindings[name] = stmt
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and _is_kernel_def(stmt):
                self.kernels.add(stmt.name)
        self.in_progress: set[str] = set()

    def lookup(self, interp: Interpreter, name: str) -> object:
        if name in self.values:
            return self.values[name]
        stmt = self.bindings.get(name)
        if stmt is None or name in self.in_progress:
            raise KeyError(name)
        self.in_progress.add(name)
        try:
            interp.define_global(self, stmt, name)
        finally:
            self.in_progress.discard(name)
        if name not in self.values:
            raise KeyError(name)
        return self.values[name]


def _top_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, ast.Try):
            yield from _top_statements(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from _top_statements(stmt.body)
        else:
            yield stmt


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"]
    return []


def _is_kernel_def(fn: ast.FunctionDef) -> bool:
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Attribute) and target.attr == "kernel":
            return True
    return False


class Package:
    """The unpacked distribution: modules by dotted name, parsed on demand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: dict[Path, ModuleEnv] = {}

    def module_at(self, path: Path) -> ModuleEnv:
        path = path.resolve()
        if path not in self.modules:
            self.modules[path] = ModuleEnv(path, self)
        return self.modules[path]

    def resolve(self, dotted: str) -> Path | None:
        base = self.root.joinpath(*dotted.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def owns(self, dotted: str) -> bool:
        head = dotted.split(".")[0]
        return (self.root / head).is_dir() or (self.root / f"{head}.py").is_file()


# ---- the interpreter -----------------------------------------------------------------------


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_COMPARES: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_PLAIN = (int, float, bool, str, type(None))
_SAFE_RECEIVERS = (list, dict, tuple, str, set, frozenset, int, float, collections.OrderedDict,
                   types.SimpleNamespace, range)


class Interpreter:
    """Evaluates host functions of one package on abstract values; collects launches."""

    def __init__(self, package: Package, kind: OpKind, dtype: str) -> None:
        self.package = package
        self.kind = kind
        self.dtype = DType(dtype)
        self.records: list[Record] = []
        self.entry = ""
        self.origin = ""  # the top-level function of the current entry run
        # Called name -> the function a call by that name runs (callers followed across the
        # package: the name a caller uses may be bound to a dispatch stub there).
        self.redirects: dict[str, FunctionValue] = {}
        self.steps = 0
        self.step_limit = MAX_STEPS
        self.exploring = 0
        self.depth = 0
        self.soft = False
        self.frames: list[dict[str, object]] = []
        self.module: ModuleEnv | None = None
        self.builtins = _builtins()

    # ---- entry points ------------------------------------------------------------------

    def run_entry(self, module: ModuleEnv, label: str, function: object,
                  args: list[object], kwargs: dict[str, object]) -> str | None:
        """Call one entry; returns None, or why it stopped early."""
        self.entry, self.steps, self.depth = label, 0, 0
        self.step_limit, self.exploring = MAX_STEPS, 0
        try:
            self.call(function, args, dict(kwargs))
        except RecursionError:
            return "evaluation nested too deeply"
        except EvalError as err:
            return str(err)
        return None

    def record(self, kernel: str, args: list[object], via: str) -> None:
        """Note one launch of `kernel` with `args` in the current entry run."""
        self.records.append(Record(kernel, args, self.entry, via, self.origin))

    def typical_tensor(self, name: str, poly: bool = False) -> FakeTensor:
        dtype = DType("int32") if INDEX_TENSOR_NAME.search(name) else self.dtype
        tensor = FakeTensor(dtype, None, self.kind, poly)
        tensor.dtype_guessed = True
        return tensor

    def typical_argument(self, module: ModuleEnv, arg: ast.arg) -> object:
        text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if re.fullmatch(r"int", text):
            return Dim(self.kind.mid)
        if re.fullmatch(r"float", text):
            return 1.0
        if re.fullmatch(r"bool", text):
            return False
        if CONTAINER_ANNOTATION.match(text):
            return Unknown(f"{arg.arg}: {text}")
        return self.typical_tensor(arg.arg, poly=not text)

    # ---- frames and names --------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.step_limit:
            raise BudgetExceeded(f"step budget ({MAX_STEPS}) exhausted")

    def lookup(self, name: str) -> object:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        assert self.module is not None
        try:
            return self.module.lookup(self, name)
        except KeyError:
            pass
        if name in self.builtins:
            return self.builtins[name]
        return Unknown(f"name {name}")

    def assign_name(self, name: str, value: object) -> None:
        frame = self.frames[-1]
        declared = frame.get("__nonlocal__")
        if isinstance(declared, set) and name in declared:
            for outer in reversed(self.frames[:-1]):
                if name in outer:
                    outer[name] = value
                    return
        frame[name] = value

    def stmt_Nonlocal(self, stmt: ast.Nonlocal | ast.Global) -> None:
        declared = self.frames[-1].setdefault("__nonlocal__", set())
        if isinstance(declared, set):
            declared.update(stmt.names)

    stmt_Global = stmt_Nonlocal

    # ---- module-level definitions ------------------------------------------------------

    def define_global(self, module: ModuleEnv, stmt: ast.stmt, name: str) -> None:
        saved_module, saved_frames = self.module, self.frames
        self.module, self.frames = module, [module.values]
        try:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                self.exec_import(stmt, module, only=name)
            elif isinstance(stmt, ast.FunctionDef) and stmt.name in module.kernels:
                module.values[name] = KernelRef(stmt.name)
            else:
                signal = self.exec_stmt(stmt)
                if isinstance(signal, Raise):
                    module.values[name] = Unknown(signal.reason)
        except EvalError as err:
            module.values[name] = Unknown(str(err))
        finally:
            self.module, self.frames = saved_module, saved_frames

    def exec_import(self, stmt: ast.Import | ast.ImportFrom, module: ModuleEnv,
                    only: str | None = None) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                if only is None or bound == only:
                    target = alias.name if alias.asname else alias.name.split(".")[0]
                    self.assign_name(bound, self.import_module(target, module))
            return
        base = self.import_base(stmt, module)
        for alias in stmt.names:
            bound = alias.asname or alias.name
            if only is not None and bound != only:
                continue
            self.assign_name(bound, self.import_member(base, alias.name, module))

    def import_base(self, stmt: ast.ImportFrom, module: ModuleEnv) -> str:
        if not stmt.level:
            return stmt.module or ""
        rel = module.path.relative_to(self.package.root.resolve()).with_suffix("")
        parts = list(rel.parts[:-1])
        parts = parts[: len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
        return ".".join([*parts, *(stmt.module.split(".") if stmt.module else [])])

    def import_module(self, dotted: str, module: ModuleEnv) -> object:
        model = MODULE_MODELS.get(dotted)
        if model is not None:
            return model
        if self.package.owns(dotted):
            path = self.package.resolve(dotted)
            if path is not None:
                return self.package.module_at(path)
        return Unknown(f"module {dotted}")

    def import_member(self, base: str, name: str, module: ModuleEnv) -> object:
        model = MODULE_MODELS.get(base)
        if model is not None:
            return self.get_attr(model, name)
        if self.package.owns(base):
            sub = self.package.resolve(f"{base}.{name}")
            if sub is not None:
                return self.package.module_at(sub)
            path = self.package.resolve(base)
            if path is not None:
                try:
                    return self.package.module_at(path).lookup(self, name)
                except KeyError:
                    return Unknown(f"{base}.{name}")
        return Unknown(f"{base}.{name}")

    # ---- statements --------------------------------------------------------------------

    def exec_block(self, body: list[ast.stmt]) -> Signal | None:
        for index, stmt in enumerate(body):
            signal = self.exec_stmt(stmt)
            if isinstance(signal, _Forked):
                rest = body[index + 1:]
                result = signal.signal if signal.signal is not None else self.exec_block(rest)
                self.explore(signal.other, rest)
                return result
            if signal is not None:
                return signal
        return None

    def explore(self, frame: dict[str, object], rest: list[ast.stmt]) -> None:
        """Run the rest of a block on the other arm's state, only to find more launches."""
        if not rest or self.exploring >= MAX_EXPLORE_DEPTH:
            return
        saved = (self.frames, self.steps, self.step_limit)
        self.frames = [*saved[0][:-1], frame]
        self.step_limit = self.steps + EXPLORE_STEPS
        self.exploring += 1
        try:
            self.exec_block(rest)
        except EvalError:
            pass
        finally:
            self.exploring -= 1
            self.frames, self.steps, self.step_limit = saved

    def exec_stmt(self, stmt: ast.stmt) -> Signal | None:
        self.tick()
        handler = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if handler is None:
            return None  # pass, global, nonlocal, delete, type aliases: no effect we track
        return handler(stmt)

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Yield | ast.YieldFrom):
            self.do_yield(stmt.value)
            return
        self.eval(stmt.value)

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value))

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        current = self.eval(_load(stmt.target))
        self.assign(stmt.target, self.binop(type(stmt.op), current, self.eval(stmt.value)))

    def stmt_Return(self, stmt: ast.Return) -> Return:
        return Return(self.eval(stmt.value) if stmt.value is not None else None)

    def stmt_Raise(self, stmt: ast.Raise) -> Raise:
        return Raise(ast.unparse(stmt.exc)[:120] if stmt.exc is not None else "raise")

    def stmt_Assert(self, stmt: ast.Assert) -> Raise | None:
        """An assert on element types decides which dtypes the op supports; other asserts
        check shapes and layouts the typical input need not meet, and are not enforced."""
        text = ast.unparse(stmt.test)
        if "dtype" in text and self.truth(self.eval(stmt.test)) is False:
            return Raise(f"assert {text[:120]}")
        return None

    def stmt_Break(self, stmt: ast.Break) -> Break:
        return Break()

    def stmt_Continue(self, stmt: ast.Continue) -> Continue:
        return Continue()

    def stmt_Import(self, stmt: ast.Import) -> None:
        assert self.module is not None
        self.exec_import(stmt, self.module)

    stmt_ImportFrom = stmt_Import

    def stmt_FunctionDef(self, stmt: ast.FunctionDef) -> None:
        assert self.module is not None
        self.assign_name(stmt.name, self.make_function(stmt))

    def stmt_ClassDef(self, stmt: ast.ClassDef) -> None:
        self.assign_name(stmt.name, self.make_class(stmt))

    def stmt_With(self, stmt: ast.With) -> Signal | None:
        for item in stmt.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value)
        return self.exec_block(stmt.body)

    def stmt_Try(self, stmt: ast.Try) -> Signal | None:
        signal = self.exec_block(stmt.body)
        if isinstance(signal, Raise) and stmt.handlers:
            signal = self.exec_block(stmt.handlers[0].body)
        elif signal is None and stmt.orelse:
            signal = self.exec_block(stmt.orelse)
        if stmt.finalbody:
            self.exec_block(stmt.finalbody)
        return signal

    def stmt_If(self, stmt: ast.If) -> Signal | None:
        self.soft = False
        test = self.eval(stmt.test)
        truth = self.truth(test)
        soft, self.soft = self.soft, False
        if truth is not None and not soft:
            return self.exec_block(stmt.body if truth else stmt.orelse)
        preferred_then = truth is not False
        return self.fork(stmt.body if preferred_then else stmt.orelse,
                         stmt.orelse if preferred_then else stmt.body, truth is None)

    def fork(self, first: list[ast.stmt], second: list[ast.stmt], unknown: bool
             ) -> Signal | None:
        """Run both arms on copies of the frame; keep the first arm's values where known.

        The first arm is the one the typical input takes (the `if` arm when the condition
        is unknown). When it ends the function and the other arm does not, the rest of the
        block still runs on the other arm's state: as the main path when the condition was
        unknown (a guard such as `if n <= 0: return`), else as an exploration.
        """
        base = self.frames[-1]
        first_frame, first_signal = self.run_arm(base, first)
        second_frame, second_signal = self.run_arm(base, second)
        if first_signal is not None and second_signal is None:
            if unknown:
                base.clear()
                base.update(second_frame)
                return None
            return _Forked(first_signal, second_frame)
        chosen = first_frame if first_signal is None and second_signal is not None else None
        alternative: dict[str, object] | None = None
        if chosen is None:
            chosen = dict(second_frame)
            for name, value in first_frame.items():
                if not isinstance(value, Unknown) or name not in chosen:
                    chosen[name] = value
            if _differs(chosen, second_frame):
                alternative = second_frame
        base.clear()
        base.update(chosen)
        if first_signal is not None and second_signal is not None:
            return first_signal
        return _Forked(None, alternative) if alternative is not None else None

    def run_arm(self, base: dict[str, object], body: list[ast.stmt]
                ) -> tuple[dict[str, object], Signal | None]:
        frame = dict(base)
        saved = self.frames
        self.frames = [*saved[:-1], frame]
        try:
            signal = self.exec_block(body)
        except BudgetExceeded:
            raise
        except EvalError as err:
            signal = Raise(str(err))
        finally:
            self.frames = saved
        return frame, signal

    def stmt_For(self, stmt: ast.For) -> Signal | None:
        iterable = self.eval(stmt.iter)
        items = self.iterate(iterable)
        if items is None:
            items = [Unknown("loop item")]
        for count, item in enumerate(items):
            if count >= MAX_ITERATIONS:
                break
            self.assign(stmt.target, item)
            signal = _settled(self.exec_block(stmt.body))
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
        return self.exec_block(stmt.orelse)

    def stmt_While(self, stmt: ast.While) -> Signal | None:
        for _ in range(MAX_ITERATIONS):
            truth = self.truth(self.eval(stmt.test))
            if truth is False:
                return None
            signal = _settled(self.exec_block(stmt.body))
            if isinstance(signal, Break):
                return None
            if isinstance(signal, Return | Raise):
                return signal
            if truth is None:
                return None
        return None

    # ---- assignment targets ------------------------------------------------------------

    def assign(self, target: ast.expr, value: object) -> None:
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value)
        elif isinstance(target, ast.Tuple | ast.List):
            self.assign_many(target.elts, value)
        elif isinstance(target, ast.Attribute):
            self.set_attr(self.eval(target.value), target.attr, value)
        elif isinstance(target, ast.Subscript):
            self.set_item(self.eval(target.value), self.eval(target.slice), value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)

    def assign_many(self, targets: list[ast.expr], value: object) -> None:
        star = next((i for i, t in enumerate(targets) if isinstance(t, ast.Starred)), None)
        count = len(targets)
        items = self.unpack(value, count if star is None else None)
        if star is None:
            if len(items) != count:
                raise EvalError(f"cannot unpack {len(items)} values into {count}")
            for target, item in zip(targets, items, strict=True):
                self.assign(target, item)
            return
        after = count - star - 1
        head, middle = items[:star], items[star:len(items) - after]
        tail = items[len(items) - after:] if after else []
        for target, item in zip(targets[:star], head, strict=False):
            self.assign(target, item)
        self.assign(targets[star], list(middle))
        for target, item in zip(targets[star + 1:], tail, strict=False):
            self.assign(target, item)

    def unpack(self, value: object, count: int | None) -> list[object]:
        if isinstance(value, LazyShape):
            return value.unpack(count or value.tensor.default_rank)
        if isinstance(value, Unknown | FakeTensor | Instance):
            if isinstance(value, Instance) and value.attrs.get("__saved__") is not None:
                return list(value.attrs["__saved__"])  # type: ignore[arg-type]
            return [self.unknown_item(value) for _ in range(count or 1)]
        items = self.iterate(value)
        if items is None:
            return [Unknown("unpack") for _ in range(count or 1)]
        return list(items)

    def unknown_item(self, value: object) -> object:
        if isinstance(value, Instance):  # ctx.saved_tensors of a fresh ctx
            return self.typical_tensor("saved")
        return Unknown("unpacked")

    def set_attr(self, target: object, name: str, value: object) -> None:
        if isinstance(target, Instance):
            target.attrs[name] = value
        elif isinstance(target, types.SimpleNamespace):
            setattr(target, name, value)

    def set_item(self, target: object, key: object, value: object) -> None:
        if isinstance(target, dict):
            if _hashable(key):
                target[key] = value
        elif isinstance(target, list) and isinstance(key, int) and -len(target) <= key < len(
                target):
            target[key] = value

    # ---- expressions -------------------------------------------------------------------

    def eval(self, node: ast.expr) -> object:
        self.tick()
        handler = getattr(self, f"expr_{type(node).__name__}", None)
        if handler is None:
            return Unknown(type(node).__name__)
        return handler(node)

    def expr_Constant(self, node: ast.Constant) -> object:
        return node.value

    def expr_Name(self, node: ast.Name) -> object:
        return self.lookup(node.id)

    def expr_Attribute(self, node: ast.Attribute) -> object:
        return self.get_attr(self.eval(node.value), node.attr)

    def expr_Subscript(self, node: ast.Subscript) -> object:
        return self.get_item(self.eval(node.value), self.eval(node.slice))

    def expr_Slice(self, node: ast.Slice) -> object:
        parts = [self.eval(p) if p is not None else None for p in (node.lower, node.upper,
                                                                   node.step)]
        if any(isinstance(p, Unknown) for p in parts):
            return Unknown("slice")
        return slice(*parts)

    def expr_Tuple(self, node: ast.Tuple) -> object:
        return tuple(self.eval_elements(node.elts))

    def expr_List(self, node: ast.List) -> object:
        return self.eval_elements(node.elts)

    def expr_Set(self, node: ast.Set) -> object:
        items = self.eval_elements(node.elts)
        return set(items) if all(_hashable(i) for i in items) else Unknown("set")

    def expr_Dict(self, node: ast.Dict) -> object:
        out: dict[object, object] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                merged = self.eval(value)
                if isinstance(merged, dict):
                    out.update(merged)
                continue
            k = self.eval(key)
            if _hashable(k):
                out[k] = self.eval(value)
        return out

    def eval_elements(self, elts: list[ast.expr]) -> list[object]:
        out: list[object] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                out.extend(self.unpack(self.eval(elt.value), None))
            else:
                out.append(self.eval(elt))
        return out

    def expr_JoinedStr(self, node: ast.JoinedStr) -> object:
        """An f-string whose every field is a known plain value; else unknown."""
        parts: list[str] = []
        for value in node.values:
            part = self.eval(value)
            if not isinstance(part, str):
                return Unknown("f-string")
            parts.append(part)
        return "".join(parts)

    def expr_FormattedValue(self, node: ast.FormattedValue) -> object:
        value = self.as_number(self.eval(node.value))
        spec = self.eval(node.format_spec) if node.format_spec is not None else ""
        if isinstance(value, LazyShape):
            value = value.real()
        if not _plain_tree(value) or not isinstance(spec, str):
            return Unknown("f-string field")
        converted = {ord("s"): str, ord("r"): repr, ord("a"): ascii}.get(node.conversion)
        try:
            return format(converted(value) if converted else value, spec)
        except (TypeError, ValueError):
            return Unknown("f-string field")

    def expr_BinOp(self, node: ast.BinOp) -> object:
        return self.binop(type(node.op), self.eval(node.left), self.eval(node.right))

    def binop(self, op: type, left: object, right: object) -> object:
        left, right = self.as_number(left), self.as_number(right)
        if isinstance(left, FakeTensor) or isinstance(right, FakeTensor):
            tensor = left if isinstance(left, FakeTensor) else right
            assert isinstance(tensor, FakeTensor)
            return tensor.like()
        if isinstance(left, LazyShape):
            left = left.real()
        if isinstance(right, LazyShape):
            right = right.real()
        if op is ast.Add and type(left) is type(right) and isinstance(left, tuple | list):
            return left + right  # type: ignore[operator]
        if op is ast.Mult and isinstance(left, tuple | list) and isinstance(right, int):
            return left * right
        if not _plain_tree(left) or not _plain_tree(right):
            return Unknown("operand")
        try:
            return _BINOPS[op](left, right)
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return Unknown("arithmetic")

    def as_number(self, value: object) -> object:
        if isinstance(value, FakeTensor) and value.poly:
            return Dim(value.size)
        if isinstance(value, Cond):
            self.soft = True
            return value.value
        return value

    def expr_UnaryOp(self, node: ast.UnaryOp) -> object:
        value = self.as_number(self.eval(node.operand))
        if isinstance(node.op, ast.Not):
            truth = self.truth(value)
            return Unknown("not") if truth is None else not truth
        if isinstance(value, FakeTensor):
            return value.like()
        if not isinstance(value, int | float):
            return Unknown("unary")
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.Invert):
            return ~int(value)
        return +value

    def expr_BoolOp(self, node: ast.BoolOp) -> object:
        is_and = isinstance(node.op, ast.And)
        result: object = None
        for value_node in node.values:
            result = self.eval(value_node)
            truth = self.truth(result)
            if truth is None:
                return Unknown("bool op")
            if truth is not is_and:
                return result
        return result

    def expr_Compare(self, node: ast.Compare) -> object:
        left = self.eval(node.left)
        result: object = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node)
            if isinstance(left, Dim) or isinstance(right, Dim):
                self.soft = True
            step = self.compare(op, left, right)
            if step is False:
                return Cond(False) if self.soft else False
            if not isinstance(step, bool):
                result = Unknown("compare")
            left = right
        return Cond(True) if self.soft and result is True else result

    def compare(self, op: ast.cmpop, left: object, right: object) -> object:
        if isinstance(op, ast.Is | ast.IsNot):
            known = _identity_known(left, right)
            if known is None:
                return Unknown("is")
            return known if isinstance(op, ast.Is) else not known
        if isinstance(op, ast.In | ast.NotIn):
            found = self.contains(right, left)
            if found is None:
                return Unknown("in")
            return found if isinstance(op, ast.In) else not found
        left, right = self.as_number(left), self.as_number(right)
        if isinstance(left, LazyShape) and isinstance(right, LazyShape):
            left, right = left.real(), right.real()
        if isinstance(left, LazyShape):
            left = left.real()
        if isinstance(right, LazyShape):
            right = right.real()
        if not _plain_tree(left) or not _plain_tree(right):
            if isinstance(left, DType | KernelRef) and isinstance(right, DType | KernelRef):
                return _COMPARES[type(op)](left, right) if isinstance(op, ast.Eq | ast.NotEq) \
                    else Unknown("compare")
            return Unknown("compare")
        try:
            return bool(_COMPARES[type(op)](left, right))
        except TypeError:
            return Unknown("compare")

    def contains(self, container: object, item: object) -> bool | None:
        if isinstance(item, Unknown):
            return None
        if isinstance(container, dict):
            return item in container if _hashable(item) else None
        items = self.iterate(container)
        if items is None:
            return None
        if any(isinstance(i, Unknown) for i in items) or isinstance(item, Unknown):
            return None
        try:
            return item in items
        except TypeError:
            return None

    def expr_IfExp(self, node: ast.IfExp) -> object:
        truth = self.truth(self.eval(node.test))
        if truth is None:
            value = self.eval(node.body)
            return value if not isinstance(value, Unknown) else self.eval(node.orelse)
        return self.eval(node.body if truth else node.orelse)

    def expr_Lambda(self, node: ast.Lambda) -> object:
        assert self.module is not None
        return FunctionValue(node, self.module, list(self.frames))

    def expr_NamedExpr(self, node: ast.NamedExpr) -> object:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return value

    def expr_Starred(self, node: ast.Starred) -> object:
        return self.eval(node.value)

    def expr_ListComp(self, node: ast.ListComp) -> object:
        return self.comprehension(node.generators, lambda: self.eval(node.elt))

    def expr_GeneratorExp(self, node: ast.GeneratorExp) -> object:
        return self.comprehension(node.generators, lambda: self.eval(node.elt))

    def expr_SetComp(self, node: ast.SetComp) -> object:
        items = self.comprehension(node.generators, lambda: self.eval(node.elt))
        return set(items) if isinstance(items, list) and all(map(_hashable, items)) \
            else Unknown("set")

    def expr_DictComp(self, node: ast.DictComp) -> object:
        pairs = self.comprehension(node.generators,
                                   lambda: (self.eval(node.key), self.eval(node.value)))
        if not isinstance(pairs, list):
            return pairs
        return {k: v for k, v in pairs if _hashable(k)}  # type: ignore[misc]

    def comprehension(self, generators: list[ast.comprehension],
                      element: Callable[[], object]) -> object:
        self.frames.append({})
        try:
            out: list[object] = []
            if not self.comprehend(generators, element, out):
                return Unknown("comprehension")
            return out
        finally:
            self.frames.pop()

    def comprehend(self, generators: list[ast.comprehension], element: Callable[[], object],
                   out: list[object]) -> bool:
        if not generators:
            out.append(element())
            return True
        first, rest = generators[0], generators[1:]
        items = self.iterate(self.eval(first.iter))
        if items is None:
            return False
        for item in items[:MAX_ITERATIONS * 4]:
            self.assign(first.target, item)
            truths = [self.truth(self.eval(cond)) for cond in first.ifs]
            if any(t is None for t in truths):
                return False
            if all(truths) and not self.comprehend(rest, element, out):
                return False
        return True

    def expr_Yield(self, node: ast.Yield) -> object:
        self.do_yield(node)
        return None

    def do_yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        sink = self.lookup("__yielded__")
        if not isinstance(sink, list):
            return
        if isinstance(node, ast.YieldFrom):
            items = self.iterate(self.eval(node.value))
            sink.extend(items or [])
        else:
            sink.append(self.eval(node.value) if node.value is not None else None)

    def expr_Call(self, node: ast.Call) -> object:
        function = self.eval(node.func)
        args: list[object] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.unpack(self.eval(arg.value), None))
            else:
                args.append(self.eval(arg))
        kwargs: dict[str, object] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value)
            if keyword.arg is None:
                if isinstance(value, dict):
                    kwargs.update({str(k): v for k, v in value.items()})
            else:
                kwargs[keyword.arg] = value
        return self.call(function, args, kwargs)

    # ---- calls -------------------------------------------------------------------------

    def call(self, function: object, args: list[object], kwargs: dict[str, object]) -> object:
        if isinstance(function, Native):
            return function.fn(self, args, kwargs)
        if isinstance(function, FunctionValue):
            return self.call_function(self.redirects.get(function.name, function), args,
                                      kwargs)
        if isinstance(function, BoundMethod):
            return self.call(function.function, [function.receiver, *args], kwargs)
        if isinstance(function, ClassValue):
            return self.instantiate(function, args, kwargs)
        if isinstance(function, KernelRef):
            return function
        if callable(function) and _safe_callable(function):
            return _call_real(function, args, kwargs)
        return Unknown("call")

    def call_function(self, function: FunctionValue, args: list[object],
                      kwargs: dict[str, object]) -> object:
        if self.depth >= MAX_DEPTH:
            raise EvalError(f"calls nested deeper than {MAX_DEPTH}")
        frame = self.bind(function, args, kwargs)
        if function.is_generator:
            frame["__yielded__"] = []
        saved = (self.frames, self.module)
        self.frames, self.module = [*function.closure, frame], function.module
        self.depth += 1
        try:
            node = function.node
            if isinstance(node, ast.Lambda):
                return self.eval(node.body)
            signal = self.exec_block(node.body)
        finally:
            self.depth -= 1
            self.frames, self.module = saved
        if function.is_generator:
            return frame["__yielded__"]
        if isinstance(signal, Return):
            return signal.value
        if isinstance(signal, Raise):
            return Unknown(f"raised {signal.reason}")
        return None

    def bind(self, function: FunctionValue, args: list[object],
             kwargs: dict[str, object]) -> dict[str, object]:
        spec = function.node.args
        positional = [*spec.posonlyargs, *spec.args]
        frame: dict[str, object] = {}
        defaults = spec.defaults
        first_default = len(positional) - len(defaults)
        for index, param in enumerate(positional):
            if index < len(args):
                frame[param.arg] = args[index]
            elif param.arg in kwargs:
                frame[param.arg] = kwargs.pop(param.arg)
            elif index >= first_default:
                frame[param.arg] = self.default(function, defaults[index - first_default])
            else:
                frame[param.arg] = Unknown(f"argument {param.arg}")
        if spec.vararg is not None:
            frame[spec.vararg.arg] = tuple(args[len(positional):])
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
            if param.arg in kwargs:
                frame[param.arg] = kwargs.pop(param.arg)
            else:
                frame[param.arg] = (self.default(function, default) if default is not None
                                    else Unknown(f"argument {param.arg}"))
        if spec.kwarg is not None:
            frame[spec.kwarg.arg] = dict(kwargs)
        return frame

    def default(self, function: FunctionValue, node: ast.expr) -> object:
        saved = (self.frames, self.module)
        self.frames, self.module = list(function.closure) or [function.module.values], \
            function.module
        try:
            return self.eval(node)
        finally:
            self.frames, self.module = saved

    def make_function(self, stmt: ast.FunctionDef) -> FunctionValue:
        assert self.module is not None
        generator = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(stmt))
        closure = [] if self.frames and self.frames[-1] is self.module.values else list(
            self.frames)
        return FunctionValue(stmt, self.module, closure, generator)

    def make_class(self, stmt: ast.ClassDef) -> ClassValue:
        assert self.module is not None
        bases = [self.eval(b) for b in stmt.bases]
        decorators = [ast.unparse(d) for d in stmt.decorator_list]
        cls = ClassValue(stmt.name, bases, {}, [], any("dataclass" in d for d in decorators),
                         self.module)
        self.frames.append(cls.attrs)
        try:
            for item in stmt.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    cls.fields.append((item.target.id, item.value))
                if isinstance(item, ast.FunctionDef):
                    function = self.make_function(item)
                    function.closure = [f for f in function.closure if f is not cls.attrs]
                    cls.attrs[item.name] = function
                elif isinstance(item, ast.Assign | ast.AnnAssign):
                    self.exec_stmt(item)
        finally:
            self.frames.pop()
        return cls

    def instantiate(self, cls: ClassValue, args: list[object],
                    kwargs: dict[str, object]) -> object:
        if cls.derives("IntEnum") or cls.derives("Enum"):
            return args[0] if args else Unknown("enum")
        instance = Instance(cls)
        if cls.is_dataclass:
            for index, (name, default) in enumerate(cls.fields):
                if index < len(args):
                    instance.attrs[name] = args[index]
                elif name in kwargs:
                    instance.attrs[name] = kwargs[name]
                elif default is not None:
                    instance.attrs[name] = self.eval(default)
            return instance
        init = cls.lookup("__init__")
        if isinstance(init, FunctionValue):
            self.call_function(init, [instance, *args], kwargs)
        return instance

    def apply_autograd(self, cls: ClassValue, args: list[object]) -> object:
        """`Function.apply(*args)`: run `forward(ctx, *args)`, then `backward` on its output."""
        ctx = Instance(None, needs_input_grad=tuple(True for _ in args))
        forward = cls.lookup("forward")
        output = self.call(forward, [ctx, *args], {}) if forward is not None else UNKNOWN
        backward = cls.lookup("backward")
        if backward is not None:
            outputs = output if isinstance(output, tuple) else (output,)
            grads = [o.like() if isinstance(o, FakeTensor) else self.typical_tensor("grad")
                     for o in outputs]
            self.call(backward, [ctx, *grads], {})
        return output

    # ---- attributes and items ----------------------------------------------------------

    def get_attr(self, value: object, name: str) -> object:
        if isinstance(value, ModuleEnv):
            try:
                return value.lookup(self, name)
            except KeyError:
                return Unknown(f"{value.path.stem}.{name}")
        if isinstance(value, ModelModule):
            return value.attr(name)
        if isinstance(value, FakeTensor):
            return tensor_attr(self, value, name)
        if isinstance(value, LazyShape):
            return Unknown(f"shape.{name}")
        if isinstance(value, DType):
            return getattr(value, name) if name in ("itemsize", "is_floating_point") else \
                Unknown(f"dtype.{name}")
        if isinstance(value, KernelRef):
            return kernel_attr(value, name)
        if isinstance(value, Instance):
            return self.instance_attr(value, name)
        if isinstance(value, ClassValue):
            return self.class_attr(value, name)
        if isinstance(value, _SAFE_RECEIVERS) and not name.startswith("_"):
            found = getattr(value, name, None)
            if found is not None:
                return found
        return Unknown(f".{name}")

    def instance_attr(self, instance: Instance, name: str) -> object:
        if name in instance.attrs:
            return instance.attrs[name]
        if instance.cls is None:
            return ctx_attr(instance, name)
        found = instance.cls.lookup(name)
        if isinstance(found, FunctionValue):
            return BoundMethod(found, instance)
        return found if found is not None else Unknown(f".{name}")

    def class_attr(self, cls: ClassValue, name: str) -> object:
        if name == "apply" and cls.lookup("forward") is not None:
            return Native(lambda interp, args, kwargs: interp.apply_autograd(cls, args))
        found = cls.lookup(name)
        return found if found is not None else Unknown(f"{cls.name}.{name}")

    def get_item(self, value: object, key: object) -> object:
        if isinstance(value, LazyShape):
            return value.item(key)
        if isinstance(value, FakeTensor):
            return value.like(shape=None if value.shape is None else _slice_shape(value, key))
        if isinstance(value, Unknown) or isinstance(key, Unknown):
            return Unknown("item")
        if isinstance(value, dict):
            return value.get(key, Unknown("key")) if _hashable(key) else Unknown("key")
        if isinstance(value, list | tuple | str | range):
            return _subscript_value(value, key)
        if isinstance(value, Marker | ModelModule):
            return value  # typing subscripts: Optional[...], ct.Constant[int]
        return Unknown("item")

    # ---- truth and iteration -----------------------------------------------------------

    def truth(self, value: object) -> bool | None:
        value = self.as_number(value)
        if isinstance(value, Unknown | FakeTensor | Instance | LazyShape):
            return None
        if isinstance(value, list | tuple | dict) and any(isinstance(v, Unknown) for v in value):
            return bool(value) if value else False
        try:
            return bool(value)
        except Exception:  # noqa: BLE001 - objects of the evaluated program
            return None

    def iterate(self, value: object) -> list[object] | None:
        if isinstance(value, LazyShape):
            return list(value.real())
        if isinstance(value, list | tuple | set | frozenset | str):
            return list(value)
        if isinstance(value, dict):
            return list(value.keys())
        if isinstance(value, collections.abc.KeysView | collections.abc.ValuesView
                      | collections.abc.ItemsView):
            return list(value)  # dict.keys() / .values() / .items()
        if isinstance(value, range):
            return list(value[: MAX_ITERATIONS * 4])
        if isinstance(value, Iterator):
            return list(value)
        return None


@dataclass
class _Forked(Signal):
    """An arm of an `if` ended the block; the other arm's state goes on (exploration only)."""

    signal: Signal | None
    other: dict[str, object]


def _settled(signal: Signal | None) -> Signal | None:
    return signal.signal if isinstance(signal, _Forked) else signal


def _differs(frame: dict[str, object], other: dict[str, object]) -> bool:
    for name, value in other.items():
        mine = frame.get(name)
        if mine is value:
            continue
        if not (_plain_tree(mine) and _plain_tree(value) and mine == value):
            return True
    return False


def _load(target: ast.expr) -> ast.expr:
    clone = copy.deepcopy(target)
    for node in ast.walk(clone):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()  # type: ignore[attr-defined]
    return clone


def _own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.Lambda | ast.ClassDef):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _plain_tree(value: object) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, tuple | list):
        return all(_plain_tree(v) for v in value)
    return False


def _identity_known(left: object, right: object) -> bool | None:
    if left is None or right is None:
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return None
        return left is right
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return None
    return left is right


def _subscript_value(value: object, key: object) -> object:
    try:
        return value[key]  # type: ignore[index]
    except (IndexError, TypeError, KeyError):
        return Unknown("index")


def _slice_shape(tensor: FakeTensor, key: object) -> tuple[int, ...] | None:
    keys = key if isinstance(key, tuple) else (key,)
    dims = list(tensor.dims())
    out: list[int] = []
    position = 0
    for item in keys:
        if item is None:
            out.append(1)
        elif item is Ellipsis:
            rest = len(dims) - position - sum(1 for k in keys if k not in (None, Ellipsis))
            out.extend(dims[position:position + max(rest, 0) + 1])
            position += max(rest, 0) + 1
        elif isinstance(item, slice):
            if position < len(dims):
                out.append(len(range(dims[position])[item]))
            position += 1
        elif isinstance(item, int):
            position += 1
        else:
            return None
    out.extend(dims[position:])
    return tuple(out)


def _safe_callable(function: object) -> bool:
    receiver = getattr(function, "__self__", None)
    module = getattr(function, "__module__", None)
    if isinstance(receiver, _SAFE_RECEIVERS) and not getattr(function, "__name__", "_"
                                                             ).startswith("_"):
        return True
    return module == "math" or function in _REAL_SAFE


def _call_real(function: Callable[..., object], args: list[object],
               kwargs: dict[str, object]) -> object:
    args = [a.real() if isinstance(a, LazyShape) else a for a in args]
    if any(isinstance(a, Unknown) for a in [*args, *kwargs.values()]):
        if getattr(function, "__name__", "") in ("append", "extend", "update", "setdefault"):
            pass
        else:
            return Unknown("call of real function")
    try:
        return function(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the evaluated program's own error
        return Unknown(f"{getattr(function, '__name__', 'call')} failed")


_REAL_SAFE: tuple[object, ...] = (types.SimpleNamespace,)


# ---- models of libraries -------------------------------------------------------------------


class ModelModule:
    """A modelled library module: attributes from a table, anything else unknown."""

    def __init__(self, name: str, members: dict[str, object]) -> None:
        self.name = name
        self.members = members

    def attr(self, name: str) -> object:
        if name in self.members:
            return self.members[name]
        return Unknown(f"{self.name}.{name}")

    def __repr__(self) -> str:
        return f"<model {self.name}>"


def _shape_args(interp: Interpreter, args: list[object]) -> tuple[int, ...] | None:
    if len(args) == 1 and isinstance(args[0], tuple | list | LazyShape):
        args = list(args[0].real() if isinstance(args[0], LazyShape) else args[0])
    dims: list[int] = []
    for arg in args:
        arg = interp.as_number(arg)
        if not isinstance(arg, int):
            return None
        dims.append(arg)
    return tuple(dims)


def _dtype_arg(interp: Interpreter, kwargs: dict[str, object], like: object = None
               ) -> DType | Unknown:
    dtype = kwargs.get("dtype")
    if isinstance(dtype, DType):
        return dtype
    if isinstance(like, FakeTensor):
        return like.dtype
    return interp.dtype if dtype is None else Unknown("dtype")


def _torch_new(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    shape = _shape_args(interp, [a for a in args if not isinstance(a, DType | float)][:8])
    return FakeTensor(_dtype_arg(interp, kwargs), shape, interp.kind)


def _torch_like(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    source = args[0] if args else None
    if not isinstance(source, FakeTensor):
        return FakeTensor(_dtype_arg(interp, kwargs), None, interp.kind)
    return source.like(dtype=_dtype_arg(interp, kwargs, source))


def _torch_full(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    return FakeTensor(_dtype_arg(interp, kwargs), _shape_args(interp, args[:1]), interp.kind)


def _torch_arange(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    bounds = [interp.as_number(a) for a in args]
    length = len(range(*bounds)) if bounds and all(isinstance(b, int) for b in bounds) else None
    dtype = kwargs.get("dtype")
    return FakeTensor(dtype if isinstance(dtype, DType) else DType("int64"),
                      None if length is None else (length,), interp.kind)


def _torch_first_tensor(interp: Interpreter, args: list[object],
                        kwargs: dict[str, object]) -> object:
    for arg in args:
        if isinstance(arg, FakeTensor):
            return arg.like(shape=None)
        if isinstance(arg, list | tuple):
            for item in arg:
                if isinstance(item, FakeTensor):
                    return item.like(shape=None)
    return Unknown("torch op")


def _device_properties(interp: Interpreter, args: list[object],
                       kwargs: dict[str, object]) -> object:
    return types.SimpleNamespace(multi_processor_count=SM_COUNT, major=TARGET_CAPABILITY[0],
                                 minor=TARGET_CAPABILITY[1], name="model GPU")


def _context_manager(interp: Interpreter, args: list[object],
                     kwargs: dict[str, object]) -> object:
    return Unknown("context")


def _constant(value: object) -> Native:
    return Native(lambda interp, args, kwargs: value)


def _torch_model() -> ModelModule:
    dtypes = {name: DType(canon) for name, canon in _TORCH_DTYPES.items()}
    cuda = ModelModule("torch.cuda", {
        "get_device_capability": _constant(TARGET_CAPABILITY),
        "get_device_properties": Native(_device_properties),
        "current_stream": _constant(Unknown("stream")),
        "current_device": _constant(0),
        "device_count": _constant(1),
        "is_available": _constant(True),
        "device": Native(_context_manager),
        "stream": Native(_context_manager),
    })
    members: dict[str, object] = {
        **dtypes,
        "empty": Native(_torch_new), "zeros": Native(_torch_new), "ones": Native(_torch_new),
        "randn": Native(_torch_new), "rand": Native(_torch_new),
        "empty_like": Native(_torch_like), "zeros_like": Native(_torch_like),
        "ones_like": Native(_torch_like), "full_like": Native(_torch_like),
        "randn_like": Native(_torch_like), "full": Native(_torch_full),
        "arange": Native(_torch_arange),
        "cat": Native(_torch_first_tensor), "stack": Native(_torch_first_tensor),
        "exp": Native(_torch_first_tensor), "sqrt": Native(_torch_first_tensor),
        "rsqrt": Native(_torch_first_tensor), "cumsum": Native(_torch_first_tensor),
        "Tensor": MARKERS["Tensor"], "Size": Native(lambda i, a, k: tuple(a[0]) if a else ()),
        "cuda": cuda,
        "device": _constant("cuda"),
        "no_grad": Native(_context_manager), "inference_mode": Native(_context_manager),
        "is_tensor": Native(lambda i, a, k: isinstance(a[0], FakeTensor) if a else False),
        "is_grad_enabled": _constant(True),
        "autograd": ModelModule("torch.autograd", {"Function": MARKERS["autograd.Function"]}),
        "nn": ModelModule("torch.nn", {"Module": MARKERS["nn.Module"]}),
        "dtype": MARKERS["generic"],
    }
    return ModelModule("torch", members)


def _ct_launch(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    names = ("stream", "grid", "kernel", "kernel_args")
    values = dict(zip(names, args, strict=False))
    values.update(kwargs)
    kernel, kernel_args = values.get("kernel"), values.get("kernel_args")
    if isinstance(kernel, KernelRef):
        listed = interp.iterate(kernel_args)
        interp.record(kernel.name, listed if listed is not None else [], "ct.launch")
    return None


def _ct_search(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    names = ("search_space", "stream", "grid_fn", "kernel", "args_fn", "hints_fn")
    values = dict(zip(names, args, strict=False))
    values.update(kwargs)
    configs = interp.iterate(values.get("search_space"))
    config = configs[0] if configs else Unknown("empty search space")
    kernel, args_fn = values.get("kernel"), values.get("args_fn")
    if isinstance(kernel, KernelRef) and args_fn is not None:
        kernel_args = interp.call(args_fn, [config], {})
        listed = interp.iterate(kernel_args)
        interp.record(kernel.name, listed if listed is not None else [],
                      "autotune (first config)")
    best = types.SimpleNamespace(config=config, mean_us=Unknown("timing"),
                                 time_us=Unknown("timing"))
    return types.SimpleNamespace(best=best, timings=Unknown("timings"))


def _ct_kernel(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    if args and isinstance(args[0], KernelRef):
        return args[0]
    return Native(lambda i, a, k: a[0] if a else Unknown("kernel"))


def _ct_model() -> ModelModule:
    from_tile = {name: DType(name) for name in RUST_ELEMENT_TYPES}
    tune = ModelModule("cuda.tile.tune", {"exhaustive_search": Native(_ct_search)})
    return ModelModule("cuda.tile", {
        **from_tile,
        "launch": Native(_ct_launch), "kernel": Native(_ct_kernel), "tune": tune,
        "cdiv": Native(lambda i, a, k: _cdiv(i, a)),
        "compiler_timeout": Native(_context_manager),
        "Constant": MARKERS["generic"],
    })


def _cdiv(interp: Interpreter, args: list[object]) -> object:
    if len(args) != 2:
        return Unknown("cdiv")
    x, y = (interp.as_number(a) for a in args)
    if isinstance(x, int) and isinstance(y, int) and y:
        return -(-x // y)
    return Unknown("cdiv")


def _dataclass(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    if args and isinstance(args[0], ClassValue):
        args[0].is_dataclass = True
        return args[0]
    return Native(_dataclass)


MODULE_MODELS: dict[str, object] = {}
_OPERATOR_NAMES: dict[str, type] = {
    "mul": ast.Mult, "add": ast.Add, "sub": ast.Sub, "floordiv": ast.FloorDiv,
    "truediv": ast.Div, "mod": ast.Mod, "and_": ast.BitAnd, "or_": ast.BitOr,
}


def _binop_native(op: type) -> Callable[..., object]:
    def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        return interp.binop(op, args[0], args[1]) if len(args) == 2 else Unknown("operator")
    return run


def _install_models() -> None:
    torch = _torch_model()
    ct = _ct_model()
    MODULE_MODELS.update({
        "torch": torch, "torch.nn": torch.members["nn"], "torch.cuda": torch.members["cuda"],
        "torch.autograd": torch.members["autograd"],
        "cuda.tile": ct, "cuda.tile.tune": ct.members["tune"], "cuda": ModelModule(
            "cuda", {"tile": ct}),
        "math": ModelModule("math", {k: getattr(math, k) for k in dir(math)
                                     if not k.startswith("_")}),
        "types": ModelModule("types", {"SimpleNamespace": types.SimpleNamespace}),
        "dataclasses": ModelModule("dataclasses", {"dataclass": Native(_dataclass),
                                                   "field": Native(_field)}),
        "collections": ModelModule("collections", {
            "OrderedDict": Native(lambda i, a, k: collections.OrderedDict()),
            "defaultdict": Native(lambda i, a, k: {})}),
        "enum": ModelModule("enum", {"IntEnum": MARKERS["IntEnum"], "Enum": MARKERS["Enum"]}),
        "functools": ModelModule("functools", {
            "lru_cache": Native(_identity_decorator), "cache": Native(_identity_decorator),
            "wraps": Native(_identity_decorator), "reduce": Native(_reduce)}),
        "operator": ModelModule("operator", {
            name: Native(_binop_native(op), name) for name, op in _OPERATOR_NAMES.items()}),
        "typing": ModelModule("typing", {n: MARKERS["generic"] for n in (
            "Optional", "Tuple", "List", "Dict", "Any", "Union", "Callable", "Sequence")}),
    })


def _reduce(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    if len(args) < 2:
        return Unknown("reduce")
    items = interp.iterate(args[1])
    if items is None:
        return Unknown("reduce")
    if len(args) > 2:
        items = [args[2], *items]
    if not items:
        return Unknown("reduce of nothing")
    total = items[0]
    for item in items[1:]:
        total = interp.call(args[0], [total, item], {})
    return total


def _field(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
    return kwargs.get("default", Unknown("field"))


def _identity_decorator(interp: Interpreter, args: list[object],
                        kwargs: dict[str, object]) -> object:
    if args and isinstance(args[0], FunctionValue):
        return args[0]
    return Native(lambda i, a, k: a[0] if a else Unknown("decorator"))


def tensor_attr(interp: Interpreter, tensor: FakeTensor, name: str) -> object:
    """Attributes and methods of a fake tensor."""
    simple: dict[str, object] = {
        "dtype": tensor.dtype, "device": "cuda", "requires_grad": Unknown("requires_grad"),
        "is_cuda": True, "data": tensor, "T": tensor.like(shape=None),
    }
    if name in simple:
        return simple[name]
    if name == "shape":
        return LazyShape(tensor) if tensor.shape is None or tensor.rank_guessed \
            else tensor.shape
    if name == "ndim":
        return len(tensor.dims())
    method = _TENSOR_METHODS.get(name)
    if method is not None:
        return Native(lambda interp, args, kwargs: method(interp, tensor, args, kwargs))
    return Unknown(f"tensor.{name}")


def _t_size(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
            ) -> object:
    if args and isinstance(args[0], int):
        return LazyShape(t).item(args[0]) if t.shape is None else _subscript_value(
            t.shape, args[0])
    return t.dims()


def _t_stride(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
              ) -> object:
    dims = t.dims()
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
    if args and isinstance(args[0], int):
        return _subscript_value(strides, args[0])
    return tuple(strides)


def _t_view(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
            ) -> object:
    if args and isinstance(args[0], DType):
        return t.like(dtype=args[0])
    shape = _shape_args(interp, args)
    if shape is None:
        return t.like(shape=None)
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1) or 1
        total = math.prod(t.dims())
        shape = tuple(max(total // known, 1) if d == -1 else d for d in shape)
    return t.like(shape=tuple(shape))


def _t_to(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
          ) -> object:
    dtype = kw.get("dtype") or next((a for a in args if isinstance(a, DType)), None)
    return t.like(dtype=dtype if isinstance(dtype, DType) else None)


def _t_transpose(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
                 ) -> object:
    dims = list(t.dims())
    if len(args) == 2 and all(isinstance(a, int) for a in args):
        a, b = (int(x) for x in args)
        try:
            dims[a], dims[b] = dims[b], dims[a]
        except IndexError:
            return t.like(shape=None)
    elif not args:
        dims.reverse()
    return t.like(shape=tuple(dims))


def _t_permute(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
               ) -> object:
    order = _shape_args(interp, args)
    dims = t.dims()
    if order is None or sorted(order) != list(range(len(dims))):
        return t.like(shape=None)
    return t.like(shape=tuple(dims[i] for i in order))


def _t_unsqueeze(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
                 ) -> object:
    dims = list(t.dims())
    axis = args[0] if args and isinstance(args[0], int) else 0
    axis = axis + len(dims) + 1 if axis < 0 else axis
    dims.insert(axis, 1)
    return t.like(shape=tuple(dims))


def _t_squeeze(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
               ) -> object:
    dims = [d for d in t.dims() if d != 1] if not args else list(t.dims())
    if args and isinstance(args[0], int) and -len(dims) <= args[0] < len(dims) \
            and dims[args[0]] == 1:
        del dims[args[0]]
    return t.like(shape=tuple(dims))


def _t_flatten(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
               ) -> object:
    dims = list(t.dims())
    start = args[0] if args and isinstance(args[0], int) else 0
    end = args[1] if len(args) > 1 and isinstance(args[1], int) else -1
    start, end = start % max(len(dims), 1), end % max(len(dims), 1)
    merged = math.prod(dims[start:end + 1])
    return t.like(shape=(*dims[:start], merged, *dims[end + 1:]))


def _t_same(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
            ) -> object:
    return t


def _t_numel(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
             ) -> object:
    return Dim(math.prod(t.dims()))


def _t_cast(dtype: str) -> Callable[..., object]:
    return lambda interp, t, args, kw: t.like(dtype=DType(dtype))


def _t_new(interp: Interpreter, t: FakeTensor, args: list[object],
           kwargs: dict[str, object]) -> object:
    """`x.new_empty(shape, dtype=...)`: x's dtype unless `dtype=` names another."""
    return t.like(shape=_shape_args(interp, args), dtype=_dtype_arg(interp, kwargs, t))


def _t_new_full(interp: Interpreter, t: FakeTensor, args: list[object],
                kwargs: dict[str, object]) -> object:
    return _t_new(interp, t, args[:1], kwargs)


_TENSOR_METHODS: dict[str, Callable[..., object]] = {
    "size": _t_size, "stride": _t_stride, "view": _t_view, "reshape": _t_view,
    "to": _t_to, "transpose": _t_transpose, "permute": _t_permute, "t": _t_transpose,
    "unsqueeze": _t_unsqueeze, "squeeze": _t_squeeze, "flatten": _t_flatten,
    "contiguous": _t_same, "clone": _t_same, "detach": _t_same, "cuda": _t_same,
    "fill_": _t_same, "zero_": _t_same, "copy_": _t_same, "expand": _t_same,
    "expand_as": _t_same, "requires_grad_": _t_same, "narrow": _t_same,
    "numel": _t_numel, "float": _t_cast("float32"), "half": _t_cast("float16"),
    "bfloat16": _t_cast("bfloat16"), "int": _t_cast("int32"), "long": _t_cast("int64"),
    "dim": lambda interp, t, a, k: len(t.dims()),
    "is_contiguous": lambda interp, t, a, k: True,
    "element_size": lambda interp, t, a, k: t.dtype.itemsize if isinstance(t.dtype, DType)
    else Unknown("element size"),
    "new_empty": _t_new, "new_zeros": _t_new, "new_ones": _t_new, "new_full": _t_new_full,
    "data_ptr": lambda interp, t, a, k: Unknown("pointer"),
    "item": lambda interp, t, a, k: Unknown("item"),
    "sum": lambda interp, t, a, k: t.like(shape=None),
    "max": lambda interp, t, a, k: t.like(shape=None),
    "mean": lambda interp, t, a, k: t.like(shape=None),
    "sqrt": _t_same, "exp": _t_same, "abs": _t_same, "mul": _t_same, "add": _t_same,
}


def kernel_attr(kernel: KernelRef, name: str) -> object:
    if name in ("replace_hints", "with_hints"):
        return Native(lambda interp, args, kwargs: kernel)
    if name in ("_pyfunc", "pyfunc", "__wrapped__"):
        return kernel
    return Unknown(f"kernel.{name}")


def ctx_attr(ctx: Instance, name: str) -> object:
    """A fresh autograd `ctx`: `save_for_backward` stores, `saved_tensors` reads back."""
    if name == "save_for_backward":
        def save(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> None:
            ctx.attrs["__saved__"] = tuple(args)
            ctx.attrs["saved_tensors"] = tuple(args)
        return Native(save)
    if name in ("mark_non_differentiable", "set_materialize_grads", "mark_dirty"):
        return Native(lambda interp, args, kwargs: None)
    if name == "saved_tensors":
        return ctx
    return Unknown(f"ctx.{name}")


# ---- builtins ------------------------------------------------------------------------------


def _builtins() -> dict[str, object]:
    def numeric(fn: Callable[..., object]) -> Native:
        def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
            values = [interp.as_number(a) for a in args]
            if len(values) == 1 and not isinstance(values[0], int | float):
                items = interp.iterate(values[0])
                values = [interp.as_number(v) for v in items] if items is not None else values
            if not values or not all(isinstance(v, int | float) for v in values):
                return Unknown(fn.__name__)
            try:
                return fn(values) if fn in (min, max, sum) else fn(*values)
            except (ValueError, TypeError, ArithmeticError):
                return Unknown(fn.__name__)
        return Native(run, fn.__name__)

    def convert(kind: type) -> Native:
        def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
            if not args:
                return kind()
            value = interp.as_number(args[0])
            if kind is bool:
                truth = interp.truth(value)
                return Unknown("bool") if truth is None else truth
            if isinstance(value, int | float | str | bool):
                try:
                    return kind(value)
                except ValueError:
                    return Unknown(kind.__name__)
            return Unknown(kind.__name__)
        return Native(run, kind.__name__)

    def container(kind: type) -> Native:
        def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
            if not args:
                return kind()
            items = interp.iterate(args[0])
            if items is None:
                return Unknown(kind.__name__)
            if kind is dict:
                return dict(p for p in items if isinstance(p, tuple) and len(p) == 2)
            if kind in (set, frozenset) and not all(map(_hashable, items)):
                return Unknown(kind.__name__)
            return kind(items)
        return Native(run, kind.__name__)

    def iterated(fn: Callable[..., object]) -> Native:
        def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
            lists = [interp.iterate(a) for a in args]
            if any(items is None for items in lists):
                return Unknown(fn.__name__)
            try:
                return list(fn(*lists, **kwargs))  # type: ignore[operator]
            except TypeError:
                return Unknown(fn.__name__)
        return Native(run, fn.__name__)

    def length(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        items = interp.iterate(args[0]) if args else None
        if isinstance(args[0] if args else None, dict):
            return len(args[0])  # type: ignore[arg-type]
        return len(items) if items is not None else Unknown("len")

    def range_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        values = [interp.as_number(a) for a in args]
        if not values or not all(isinstance(v, int) for v in values):
            return Unknown("range")
        return range(*values)  # type: ignore[arg-type]

    def getattr_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        if len(args) < 2 or not isinstance(args[1], str):
            return Unknown("getattr")
        value = interp.get_attr(args[0], args[1])
        if isinstance(value, Unknown) and len(args) > 2:
            return args[2]
        return value

    def isinstance_(interp: Interpreter, args: list[object], kwargs: dict[str, object]
                    ) -> object:
        if len(args) != 2:
            return Unknown("isinstance")
        value, kinds = args
        kinds_list = list(kinds) if isinstance(kinds, tuple) else [kinds]
        if any(k is MARKERS["Tensor"] for k in kinds_list):
            return isinstance(value, FakeTensor) or (Unknown("isinstance") if isinstance(
                value, Unknown) else False)
        real = tuple(k for k in kinds_list if isinstance(k, type))
        if real and isinstance(value, _PLAIN + (list, tuple, dict)):
            return isinstance(value, real)
        return Unknown("isinstance")

    def next_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        items = interp.iterate(args[0]) if args else None
        if items:
            return items[0]
        return args[1] if len(args) > 1 else Unknown("next")

    def sorted_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        items = interp.iterate(args[0]) if args else None
        if items is None or "key" in kwargs or not all(_plain_tree(i) for i in items):
            return Unknown("sorted")
        try:
            return sorted(items, reverse=bool(kwargs.get("reverse", False)))  # type: ignore
        except TypeError:
            return Unknown("sorted")

    def vars_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        if args and isinstance(args[0], types.SimpleNamespace):
            return dict(vars(args[0]))
        if args and isinstance(args[0], Instance):
            return dict(args[0].attrs)
        return Unknown("vars")

    def hasattr_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        if len(args) != 2 or not isinstance(args[1], str):
            return Unknown("hasattr")
        return not isinstance(interp.get_attr(args[0], args[1]), Unknown) or Unknown("hasattr")

    def exception(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        return Unknown("exception")

    def map_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        if len(args) < 2:
            return Unknown("map")
        lists = [interp.iterate(a) for a in args[1:]]
        if any(items is None for items in lists):
            return Unknown("map")
        return [interp.call(args[0], list(group), {})
                for group in zip(*lists, strict=False)]  # type: ignore[arg-type]

    table: dict[str, object] = {
        "min": numeric(min), "max": numeric(max), "abs": numeric(abs), "round": numeric(round),
        "pow": numeric(pow), "divmod": numeric(divmod), "sum": numeric(sum),
        "int": convert(int), "float": convert(float), "bool": convert(bool),
        "str": convert(str), "list": container(list), "tuple": container(tuple),
        "dict": container(dict), "set": container(set), "frozenset": container(frozenset),
        "len": Native(length), "range": Native(range_), "enumerate": iterated(enumerate),
        "zip": iterated(zip), "reversed": iterated(reversed), "sorted": Native(sorted_),
        "any": iterated(lambda items: [any(items)]), "all": iterated(lambda i: [all(i)]),
        "getattr": Native(getattr_), "hasattr": Native(hasattr_), "vars": Native(vars_),
        "setattr": Native(lambda i, a, k: i.set_attr(a[0], str(a[1]), a[2])
                          if len(a) == 3 else None),
        "isinstance": Native(isinstance_), "next": Native(next_), "iter": Native(
            lambda i, a, k: a[0] if a else Unknown("iter")), "map": Native(map_),
        "print": Native(lambda i, a, k: None), "id": Native(lambda i, a, k: Unknown("id")),
        "hash": Native(lambda i, a, k: Unknown("hash")),
        "type": Native(lambda i, a, k: Unknown("type")),
        "super": Native(lambda i, a, k: Unknown("super")),
        "object": MARKERS["generic"], "staticmethod": Native(_identity_decorator),
        "classmethod": Native(_identity_decorator), "property": Native(_identity_decorator),
        "None": None, "True": True, "False": False, "Ellipsis": Ellipsis,
        "NotImplemented": Unknown("NotImplemented"),
    }
    for name in ("ValueError", "TypeError", "RuntimeError", "NotImplementedError",
                 "AssertionError", "KeyError", "IndexError", "Exception", "AttributeError"):
        table[name] = Native(exception, name)
    # `any`/`all` above return one-item lists from `iterated`; unwrap them.
    for name in ("any", "all"):
        wrapped = table[name]
        assert isinstance(wrapped, Native)
        table[name] = Native(_first_of(wrapped), name)
    return table


def _first_of(native: Native) -> Callable[..., object]:
    def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        result = native.fn(interp, args, kwargs)
        return result[0] if isinstance(result, list) and result else result
    return run


_install_models()

# ---- entry planning ------------------------------------------------------------------------


@dataclass
class Entry:
    label: str
    node: ast.FunctionDef
    owner: str | None  # class name for methods
    root: bool


def op_names(tree: ast.Module) -> list[str]:
    """Names the file gives its ops: registered names (string decorator arguments) first,
    then its public top-level functions."""
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            for deco in stmt.decorator_list:
                if isinstance(deco, ast.Call):
                    names.extend(a.value for a in deco.args if isinstance(a, ast.Constant)
                                 and isinstance(a.value, str))
    names.extend(s.name for s in tree.body if isinstance(s, ast.FunctionDef)
                 and not s.name.startswith("_") and not _is_kernel_def(s))
    return names


def plan_entries(tree: ast.Module) -> list[Entry]:
    """Every host function and autograd/module method; roots (unreferenced) first."""
    referenced = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    entries: list[Entry] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and not _is_kernel_def(stmt):
            entries.append(Entry(stmt.name, stmt, None, stmt.name not in referenced))
        elif isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef) and item.name in ("forward", "backward"):
                    entries.append(Entry(f"{stmt.name}.{item.name}", item, stmt.name, False))
    return sorted(entries, key=lambda e: not e.root)


def entry_arguments(interp: Interpreter, module: ModuleEnv, entry: Entry,
                    function: object, variant: dict[str, object]) -> list[object]:
    args = entry.node.args
    positional = [*args.posonlyargs, *args.args]
    values: list[object] = []
    first_default = len(positional) - len(args.defaults)
    for index, param in enumerate(positional):
        if param.arg in variant:
            values.append(variant[param.arg])
        elif entry.owner is not None and index == 0:
            values.append(Instance(None, needs_input_grad=(True,) * 8)
                          if param.arg == "ctx" else Unknown("self"))
        elif index >= first_default:
            assert isinstance(function, FunctionValue)
            values.append(interp.default(function, args.defaults[index - first_default]))
        else:
            values.append(interp.typical_argument(module, param))
    return values


def option_variants(entry: Entry) -> list[dict[str, object]]:
    """Argument overrides that take an entry's other paths: each option flipped in turn.

    Options are parameters whose default is True, False or None, and string keys read
    with such a default from the `**kwargs` dict (`kwargs.get("use_x", False)`).
    """
    args = entry.node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(args.defaults):]],
                        args.defaults, strict=True))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                     if d is not None})
    variants: list[dict[str, object]] = [{}]
    for name, node in defaults.items():
        if isinstance(node, ast.Constant) and node.value in (True, False, None):
            variants.append({name: _flipped(node.value)})
    if args.kwarg is not None:
        for key, default in _kwargs_options(entry.node, args.kwarg.arg):
            variants.append({key: _flipped(default)})
    names = {p.arg for p in (*positional, *args.kwonlyargs)}
    module_wide = [(n, lit) for n, lit in _compared_literals(_module_root(entry.node), names)
                   if isinstance(lit, str)]
    for name, literal in [*_compared_literals(entry.node, names), *module_wide]:
        default = defaults.get(name)
        if isinstance(literal, int) and isinstance(default, ast.Constant) \
                and default.value == literal:
            literal *= 2  # the default takes the `== literal` path; this one the other
        if {name: literal} not in variants:
            variants.append({name: literal})
    return variants[:MAX_VARIANTS]


def _module_root(fn: ast.FunctionDef) -> ast.AST:
    return _MODULE_TREES.get(id(fn), fn)


def _compared_literals(fn: ast.AST, names: set[str]) -> list[tuple[str, object]]:
    """(parameter, literal) for each `param == "text"` or `param == 64` test in the function
    and each string of a literal table tested with `param in TABLE`."""
    found: list[tuple[str, object]] = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name)
                and node.left.id in names and len(node.ops) == 1):
            continue
        right = node.comparators[0]
        if isinstance(node.ops[0], ast.Eq | ast.NotEq) and isinstance(right, ast.Constant) \
                and isinstance(right.value, str | int) and not isinstance(right.value, bool):
            literals: list[object] = [right.value]
        elif isinstance(node.ops[0], ast.In | ast.NotIn):
            literals = list(_table_strings(fn, right))
        else:
            continue
        for literal in literals:
            if (node.left.id, literal) not in found:
                found.append((node.left.id, literal))
    return found


def _table_strings(fn: ast.AST, node: ast.expr) -> list[str]:
    """The string keys/items of a literal dict, set, list or tuple (or a module-level name
    bound to one), in source order."""
    if isinstance(node, ast.Name):
        module = _module_of(fn)
        bound = module.get(node.id) if module is not None else None
        node = bound if bound is not None else node
    elements: list[ast.expr | None] = []
    if isinstance(node, ast.Dict):
        elements = list(node.keys)
    elif isinstance(node, ast.Set | ast.List | ast.Tuple):
        elements = list(node.elts)
    return [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(
        e.value, str)]


_MODULE_TABLES: dict[int, dict[str, ast.expr]] = {}
_MODULE_TREES: dict[int, ast.Module] = {}


def _module_of(fn: ast.AST) -> dict[str, ast.expr] | None:
    return _MODULE_TABLES.get(id(fn))


def _index_tables(tree: ast.Module) -> None:
    """Remember each function's module-level literal assignments (for `_table_strings`)."""
    tables = {t.id: stmt.value for stmt in tree.body if isinstance(stmt, ast.Assign)
              for t in stmt.targets if isinstance(t, ast.Name)}
    _MODULE_TABLES[id(tree)] = tables
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            _MODULE_TABLES[id(node)] = tables
            _MODULE_TREES[id(node)] = tree


def _flipped(value: object) -> bool:
    return value is not True


def _kwargs_options(fn: ast.FunctionDef, kwargs_name: str) -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and isinstance(node.func.value, ast.Name)
                and node.func.value.id == kwargs_name and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[1],
                                                                           ast.Constant)
                and node.args[1].value in (True, False, None)):
            found.append((str(node.args[0].value), node.args[1].value))
    return found


def collect_launches(path: Path, package_root: Path, dtype: str,
                     kind: OpKind | None = None) -> tuple[list[Record], list[str]]:
    """Every kernel launch the file's host code makes for inputs of one element type.

    The file's own functions are the entries first; when a kernel's `ct.Constant` arguments
    stay unknown in all of its launches, the callers of the functions that launched it are
    looked for in the rest of the package and run too (`follow_callers`).
    """
    package = Package(package_root)
    module = package.module_at(path)
    kind = kind or kind_for(op_names(module.tree))
    interp = Interpreter(package, kind, dtype)
    problems: list[str] = []
    _index_tables(module.tree)
    for entry in plan_entries(module.tree):
        run_variants(interp, module, entry, problems)
    follow_callers(interp, module, problems)
    return interp.records, problems


def run_variants(interp: Interpreter, module: ModuleEnv, entry: Entry, problems: list[str]
                 ) -> None:
    """Run one entry with each of its option variants; note why a run stopped early."""
    for variant in option_variants(entry):
        function = _entry_function(interp, module, entry)
        if function is None:
            return
        interp.module, interp.frames = module, [module.values]
        args = entry_arguments(interp, module, entry, function, variant)
        label = entry.label + "".join(f" {k}={v}" for k, v in variant.items())
        interp.origin = entry.node.name if entry.owner is None else ""
        stopped = interp.run_entry(module, label, function, args,
                                   {k: v for k, v in variant.items()
                                    if k not in _positional_names(entry)})
        if stopped is not None:
            problems.append(f"{label}: {stopped}")


def _positional_names(entry: Entry) -> set[str]:
    args = entry.node.args
    return {p.arg for p in (*args.posonlyargs, *args.args)}


def _entry_function(interp: Interpreter, module: ModuleEnv, entry: Entry) -> object | None:
    interp.module, interp.frames = module, [module.values]
    try:
        if entry.owner is None:
            return module.lookup(interp, entry.node.name)
        owner = module.lookup(interp, entry.owner)
    except KeyError:
        return None
    if isinstance(owner, ClassValue):
        return owner.attrs.get(entry.node.name)
    return None


# ---- callers across the package -----------------------------------------------------------

MAX_CALLER_DEPTH = 4  # levels of callers followed outward from a launching function
MAX_CALLERS = 8  # caller functions run per file and dtype


@dataclass(frozen=True)
class Caller:
    """A top-level function of another module of the package that calls, by one of its
    names, a function of interest (depth 1: a launching function of the op file; depth
    k: a caller of depth k - 1)."""

    path: Path
    name: str
    depth: int


@dataclass(frozen=True)
class _FunctionSummary:
    """What the caller search needs of one top-level function: the names it calls and the
    names it is known by (its own and the strings its decorators register it under)."""

    name: str
    calls: frozenset[str]
    names: frozenset[str]


def follow_callers(interp: Interpreter, module: ModuleEnv, problems: list[str]) -> None:
    """Run the package's callers of the functions whose launches left a kernel's constants
    unknown (a parameter only a caller gives, such as a config dict), outermost first.

    A call by a name found on the way runs the function that name was found for (the
    caller's name may be bound to a dispatch stub); entries get typical arguments as the
    op file's own entries do.
    """
    summaries = _summaries(module.path)
    names = {alias: (module.path, origin)
             for origin in unresolved_origins(interp.records, module.tree)
             if origin in summaries for alias in summaries[origin].names}
    callers = find_callers(interp.package.root, module.path, names) if names else []
    if not callers:
        return
    interp.redirects = _redirects(interp, names, callers)
    try:
        for caller in callers:
            _run_caller(interp, caller, problems)
    finally:
        interp.redirects = {}


def unresolved_origins(records: list[Record], tree: ast.Module) -> list[str]:
    """The top-level functions whose runs launched a kernel none of whose launches has every
    `ct.Constant` argument known, in the order of their records."""
    params, constants = kernel_params(tree), constant_params(tree)
    complete: set[str] = set()
    for record in records:
        names = params.get(record.kernel, [])
        if len(names) == len(record.args) and all(
                _constant_value(value, "any") is not None
                for name, value in zip(names, record.args, strict=True)
                if name in constants.get(record.kernel, set())):
            complete.add(record.kernel)
    origins: list[str] = []
    for record in records:
        if record.kernel not in complete and record.origin and record.origin not in origins:
            origins.append(record.origin)
    return origins


def find_callers(root: Path, skip: Path, names: dict[str, tuple[Path, str]]) -> list[Caller]:
    """Top-level functions of the package's modules (`skip` aside) that call one of `names`,
    then their callers, up to `MAX_CALLER_DEPTH` levels; outermost first."""
    found: list[Caller] = []
    seen: set[tuple[Path, str]] = set()
    wanted = set(names)
    for depth in range(1, MAX_CALLER_DEPTH + 1):
        following: set[str] = set()
        for path in _package_sources(root):
            if path == skip.resolve():
                continue
            for summary in _summaries(path).values():
                if (path, summary.name) in seen or not summary.calls & wanted:
                    continue
                seen.add((path, summary.name))
                found.append(Caller(path, summary.name, depth))
                following |= summary.names
        wanted = following
        if not wanted:
            break
    found.sort(key=lambda c: (-c.depth, str(c.path), c.name))
    return found[:MAX_CALLERS]


def _redirects(interp: Interpreter, names: dict[str, tuple[Path, str]],
               callers: list[Caller]) -> dict[str, FunctionValue]:
    """Called name -> the function found for it: the op file's launching functions, then
    each caller under every name it is known by."""
    located = dict(names)
    for caller in callers:
        for alias in _summaries(caller.path)[caller.name].names:
            located.setdefault(alias, (caller.path, caller.name))
    out: dict[str, FunctionValue] = {}
    for alias, (path, name) in located.items():
        try:
            function = interp.package.module_at(path).lookup(interp, name)
        except KeyError:
            continue
        if isinstance(function, FunctionValue):
            out[alias] = function
    return out


def _run_caller(interp: Interpreter, caller: Caller, problems: list[str]) -> None:
    module = interp.package.module_at(caller.path)
    node = next((s for s in module.tree.body if isinstance(s, ast.FunctionDef)
                 and s.name == caller.name), None)
    if node is None:
        return
    _index_tables(module.tree)
    rel = caller.path.relative_to(interp.package.root.resolve()).with_suffix("")
    label = ".".join([*rel.parts, caller.name])
    run_variants(interp, module, Entry(label, node, None, True), problems)


def _package_sources(root: Path) -> list[Path]:
    """The package's Python files (resolved, sorted)."""
    return _sources_under(str(root.resolve()))


@functools.lru_cache(maxsize=8)
def _sources_under(root: str) -> list[Path]:
    return sorted(p.resolve() for p in Path(root).rglob("*.py"))


@functools.lru_cache(maxsize=512)
def _summaries(path: Path) -> dict[str, _FunctionSummary]:
    """The top-level host functions of one file, by name (none if it does not parse)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return {}
    return {s.name: _FunctionSummary(s.name, _called_names(s), _known_names(s))
            for s in tree.body if isinstance(s, ast.FunctionDef) and not _is_kernel_def(s)}


def _called_names(fn: ast.FunctionDef) -> frozenset[str]:
    """The names a function calls: `f(..)` and `x.f(..)` give `f`."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                out.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                out.add(node.func.attr)
    return frozenset(out)


def _known_names(fn: ast.FunctionDef) -> frozenset[str]:
    """A function's name and each identifier its decorators register it under
    (`@register("op_name", ...)`)."""
    registered = {a.value for d in fn.decorator_list if isinstance(d, ast.Call)
                  for a in d.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                  and a.value.isidentifier()}
    return frozenset({fn.name, *registered})


# ---- specializations -----------------------------------------------------------------------


@dataclass
class KernelLaunch:
    """Every launch of one kernel that the evaluation saw, per element type of the run."""

    kernel: str
    params: list[str]
    by_dtype: dict[str, list[Record]] = field(default_factory=dict)


@dataclass
class SpecResult:
    specs: list[KernelSpec]
    errors: list[str]
    sources: list[str]  # how each spec was found (entry and launch kind)
    dtypes: list[str] = field(default_factory=list)  # the run's dtype of each spec


MAX_RECORDS = 32  # launches kept per kernel and dtype


def kernel_params(tree: ast.Module) -> dict[str, list[str]]:
    """Parameter names of every kernel of a parsed file, in order."""
    out: dict[str, list[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and _is_kernel_def(stmt):
            out[stmt.name] = [a.arg for a in (*stmt.args.posonlyargs, *stmt.args.args)]
    return out


def discover(path: Path, package_root: Path) -> tuple[dict[str, KernelLaunch], list[str], str]:
    """Launch records of every kernel of a file for each dtype of its op kind."""
    package = Package(package_root)
    tree = package.module_at(path).tree
    kind = kind_for(op_names(tree))
    launches = {name: KernelLaunch(name, params) for name, params in kernel_params(tree).items()}
    problems: list[str] = []
    for dtype in kind.dtypes:
        records, stopped = collect_launches(path, package_root, dtype, kind)
        problems.extend(f"[{dtype}] {p}" for p in stopped)
        for record in records:
            launch = launches.get(record.kernel)
            if launch is None:
                continue
            if len(record.args) != len(launch.params):
                problems.append(f"[{dtype}] {record.entry}: a launch of {record.kernel} passes "
                                f"{len(record.args)} arguments for {len(launch.params)}")
                continue
            kept = launch.by_dtype.setdefault(dtype, [])
            if len(kept) < MAX_RECORDS:
                kept.append(record)
    return launches, problems, kind.name


def specs_for(launch: KernelLaunch, manifests: list[dict[str, Any]],
              constants: set[str]) -> SpecResult:
    """KernelSpecs for a translated kernel: per dtype, from the first launch seen whose
    every argument gives a value of the kind the kernel's manifests ask for.

    `manifests` are those of the kernel's Rust entries (one, or one per dtype variant);
    `constants` names its `ct.Constant` parameters (for parameters no manifest lists).
    """
    if not launch.by_dtype:
        return SpecResult([], ["no launch of this kernel was reached by evaluating the host "
                               "code"], [])
    shapes = _param_shapes(manifests)
    result = SpecResult([], [], [])
    for dtype, records in launch.by_dtype.items():
        first_missing: list[str] | None = None
        for record in records:
            spec, missing = _spec_from(launch, record, shapes, constants, dtype)
            if spec is None:
                first_missing = first_missing or missing
                continue
            if spec not in result.specs:
                result.specs.append(spec)
                result.sources.append(f"{dtype}: {record.entry} ({record.via})")
                result.dtypes.append(dtype)
            break
        else:
            result.errors.append(f"[{dtype}] constants not derived from the host code: "
                                 f"{', '.join(first_missing or [])}")
    return result


def _param_shapes(manifests: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per parameter, what every manifest agrees on: kind, rank, const kind, and the element
    type when no dtype variant fixes it differently."""
    merged: dict[str, dict[str, Any]] = {}
    for manifest in manifests:
        for param in manifest.get("params", []):
            name = param["name"]
            entry = merged.setdefault(name, dict(param))
            if entry.get("element") != param.get("element"):
                entry["element"] = None
    return merged


def _spec_from(launch: KernelLaunch, record: Record, shapes: dict[str, dict[str, Any]],
               constants: set[str], dtype: str) -> tuple[KernelSpec | None, list[str]]:
    params: list[tuple[str, ParamSpec]] = []
    missing: list[str] = []
    for name, value in zip(launch.params, record.args, strict=True):
        shape = shapes.get(name) or _shape_of_value(name, value, constants)
        param = _param_spec(shape, value, dtype)
        if param is None:
            missing.append(f"{name}={_show(value)}")
        else:
            params.append((name, param))
    if missing:
        return None, missing
    return KernelSpec(launch.kernel, tuple(params)), []


def _shape_of_value(name: str, value: object, constants: set[str]) -> dict[str, Any] | None:
    """A manifest-like description of a parameter no manifest lists (unused by the kernel)."""
    if isinstance(value, FakeTensor) and not value.poly:
        return {"kind": "array", "ndim": len(value.dims()), "element": None}
    if name in constants:
        kind = "float" if isinstance(value, float) else "bool" if isinstance(
            value, bool) else "int"
        return {"kind": "const", "const_kind": kind}
    return {"kind": "scalar", "element": "f32" if isinstance(value, float) else "i32"}


def _param_spec(manifest_param: dict[str, Any] | None, value: object, dtype: str
                ) -> ParamSpec | None:
    if manifest_param is None:
        return None
    kind = manifest_param.get("kind")
    if kind == "array":
        fixed = dtype_of_rust(str(manifest_param.get("element")))
        found = value.dtype.name if isinstance(value, FakeTensor) and isinstance(
            value.dtype, DType) and value.dtype.name in RUST_ELEMENT_TYPES else None
        if isinstance(value, FakeTensor) and value.dtype_guessed:
            # An input whose type only the run guessed: the type the kernel fixes for it.
            return ArraySpec(fixed or found or dtype, int(manifest_param["ndim"]))
        return ArraySpec(found or fixed or dtype, int(manifest_param["ndim"]))
    if kind == "scalar":
        return ScalarSpec(dtype_of_rust(str(manifest_param.get("element"))) or "int32")
    constant = _constant_value(value, str(manifest_param.get("const_kind", "int")))
    return None if constant is None else ConstSpec(constant)


def _constant_value(value: object, kind: str) -> int | bool | float | None:
    if isinstance(value, FakeTensor) and value.poly:
        value = Dim(value.size)
    if isinstance(value, Cond):
        value = value.value
    if isinstance(value, bool):
        return value if kind == "bool" else int(value)
    if isinstance(value, int):
        if kind == "float":
            return float(value)
        return bool(value) if kind == "bool" else int(value)
    if isinstance(value, float):
        return value if kind in ("float", "any") else None
    return None


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def constant_params(tree: ast.Module) -> dict[str, set[str]]:
    """Per kernel, the parameters annotated `ct.Constant[...]` (directly or via an alias)."""
    aliases = {n for stmt in tree.body if isinstance(stmt, ast.Assign)
               and "Constant" in ast.unparse(stmt.value) for n in _bound_names(stmt)}
    out: dict[str, set[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and _is_kernel_def(stmt):
            out[stmt.name] = {a.arg for a in (*stmt.args.posonlyargs, *stmt.args.args)
                              if a.annotation is not None and _is_constant_annotation(
                                  a.annotation, aliases)}
    return out


def _is_constant_annotation(node: ast.expr, aliases: set[str]) -> bool:
    text = ast.unparse(node)
    return "Constant" in text or text in aliases


def launch_summary(launch: KernelLaunch, constants: set[str]) -> dict[str, object]:
    """JSON form of what the evaluator found for one kernel (for the benchmark report): per
    dtype, the first launch whose `ct.Constant` arguments are all known, else the first."""
    out: dict[str, object] = {}
    for dtype, records in launch.by_dtype.items():
        shown = [_record_constants(launch, r, constants) for r in records]
        pick = next((i for i, c in enumerate(shown) if all(
            isinstance(v, int | float | bool) for v in c.values())), 0)
        out[dtype] = {"entry": records[pick].entry, "via": records[pick].via,
                      "constants": shown[pick]}
    return out


def _record_constants(launch: KernelLaunch, record: Record, constants: set[str]
                      ) -> dict[str, object]:
    return {name: _plain(_constant_value(value, "any") if not isinstance(value, Unknown)
                         else value)
            for name, value in zip(launch.params, record.args, strict=True)
            if name in constants}


def _plain(value: object) -> object:
    if isinstance(value, bool | int | float | str) or value is None:
        return int(value) if isinstance(value, Dim) else value
    return _show(value)
