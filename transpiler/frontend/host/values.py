"""Abstract values of the host-code reader, its control-flow signals, and the package it reads.

Takes nothing; gives the value classes the interpreter computes with (a fake tensor with an
element type and a shape, unknown values, kernel references, functions, classes and
instances of the read program, modelled library modules), the signals that end a block
(`return`, `raise`, `break`, `continue`), one launch `Record`, and `Package` / `ModuleEnv`:
the source modules of a package, parsed on demand and bound lazily.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from transpiler.frontend.host.typical import MAX_RANK, OpKind

# ---- abstract values -----------------------------------------------------------------------


class Unknown:
    """A value the evaluator cannot know (hashable by identity)."""

    __slots__ = ("why",)

    def __init__(self, why: str = "unknown") -> None:
        self.why = why

    def __repr__(self) -> str:
        return f"<unknown: {self.why}>"


UNKNOWN = Unknown()


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


TORCH_DTYPES = {
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
        return subscript_value(tensor.dims(), index)

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
    grid: list[object] | None = None  # the launch's grid as evaluated (None: not known)


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


class GlobalBinder(Protocol):
    """What binds a module's top-level name on first use (the interpreter)."""

    def define_global(self, module: ModuleEnv, stmt: ast.stmt, name: str) -> None: ...


class ModuleEnv:
    """A source module of the package: top-level bindings, evaluated on first use."""

    def __init__(self, path: Path, package: Package) -> None:
        self.path = path
        self.package = package
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.values: dict[str, object] = {}
        self.bindings: dict[str, ast.stmt] = {}
        self.kernels: set[str] = set()
        for stmt in top_statements(self.tree.body):
            for name in bound_names(stmt):
                self.bindings[name] = stmt
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef) and is_kernel_def(stmt):
                self.kernels.add(stmt.name)
        self.in_progress: set[str] = set()

    def lookup(self, interp: GlobalBinder, name: str) -> object:
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


def top_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, ast.Try):
            yield from top_statements(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from top_statements(stmt.body)
        else:
            yield stmt


def bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"]
    return []


def is_kernel_def(fn: ast.FunctionDef) -> bool:
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


def subscript_value(value: object, key: object) -> object:
    try:
        return value[key]  # type: ignore[index]
    except (IndexError, TypeError, KeyError):
        return Unknown("index")


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


@dataclass(frozen=True)
class Library:
    """The modelled libraries the interpreter calls back into (`models.LIBRARY`): module
    models by dotted name, the builtins (a fresh table per interpreter), and the attribute
    readers of fake tensors, kernel references and autograd contexts."""

    modules: dict[str, object]
    builtins: Callable[[], dict[str, object]]
    tensor_attr: Callable[..., object]
    kernel_attr: Callable[[KernelRef, str], object]
    ctx_attr: Callable[[Instance, str], object]
