"""Triton host side: what each `kernel[grid](...)` launch of a file asks Triton's JIT to compile.

Takes the text of a Python file (stdlib `ast`; nothing is imported or run); gives, per
`@triton.jit` kernel, the concrete specializations its host code launches
(`TritonSpecialization`): the constexpr values per autotune config and launch site (values the
host computes at run time, such as `triton.next_power_of_2(N)`, stay expressions over the
kernel's arguments), `@triton.heuristics` values as expressions, the dtype of every pointer
argument as the host code passes it, Triton's specialization key of each int argument the host
makes a compile-time fact (`1`, divisible by 16, neither), the compile options (`num_warps`,
`num_stages`, `num_ctas`, config-only knobs), and the grid as three expressions over the
kernel's arguments. Expressions are Python text over the kernel parameter names and the
functions of `EXPRESSION_FUNCTIONS`; `evaluate_expression` computes them for concrete
arguments, and `specialization_key` gives Triton's key of a concrete int.

Host code is read by a small abstract interpreter: literals, module constants and functions,
locals, `if` (a condition it cannot decide runs both arms; a name the arms bind differently
becomes a run-time value), loops (once, their variable a run-time value), lambdas and nested
functions (grids, `prune_configs_by`, `filter` predicates), list comprehensions,
`triton.Config`, tensors made by torch (`torch.empty(..., dtype=)`, `empty_like`, views), and
the facts of the machine the check targets (`HOST_FACTS`: a CUDA sm_90 device). Host function
parameters are run-time values; a parameter that reaches a pointer argument is a tensor whose
dtype each pass of `launch_specializations` fixes to one of the float dtypes the file names.
A host parameter's literal default is used as its value (the call that omits it).
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Facts of the host the launch runs on, as host code asks for them (a CUDA sm_90 GPU).
HOST_FACTS: dict[str, object] = {
    "triton.runtime.driver.active.get_current_target().backend": "cuda",
    "triton.runtime.driver.active.get_current_target().arch": 90,
    "torch.cuda.get_device_capability()": (9, 0),
    "torch.cuda.is_available()": True,
    "torch.version.hip": None,
}
#: torch / triton names of element types -> the dtype names of this project (cuda.tile's).
TORCH_DTYPES: dict[str, str] = {
    "float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "float64": "float64", "double": "float64", "int8": "int8",
    "int16": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
    "uint8": "uint8", "bool": "bool_", "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
}
#: Bytes per element, for `element_size()`.
ELEMENT_BYTES: dict[str, int] = {
    "float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "int16": 2,
    "int32": 4, "int64": 8, "uint8": 1, "bool_": 1, "float8_e4m3fn": 1, "float8_e5m2": 1,
}
#: Float dtypes a host-parameter tensor is tried with (those the file names, else float32).
CANDIDATE_DTYPES: tuple[str, ...] = ("float32", "float16", "bfloat16")
#: Torch calls that make a new tensor: name -> where its dtype comes from.
_TENSOR_MAKERS: dict[str, str] = {
    "empty": "dtype", "zeros": "dtype", "ones": "dtype", "full": "dtype", "rand": "dtype",
    "randn": "dtype", "randint": "dtype", "arange": "dtype", "tensor": "dtype",
    "empty_like": "like", "zeros_like": "like", "ones_like": "like", "full_like": "like",
    "rand_like": "like", "randn_like": "like", "empty_strided": "dtype",
}
#: Tensor methods whose result is a tensor of the same dtype.
_TENSOR_VIEWS = frozenset({
    "contiguous", "reshape", "view", "flatten", "transpose", "permute", "t", "expand",
    "clone", "squeeze", "unsqueeze", "narrow", "detach", "as_strided", "expand_as",
    "view_as", "__getitem__", "mul_", "add_", "zero_", "fill_", "copy_",
})
#: Tensor attributes / methods read as run-time values (shapes, strides, counts).
_TENSOR_SCALARS = frozenset({"shape", "stride", "size", "numel", "dim", "ndim", "data_ptr",
                             "device", "is_contiguous", "is_cuda", "requires_grad"})
#: Functions an expression may call (`evaluate_expression`); Triton's host helpers included.
EXPRESSION_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "cdiv": lambda a, b: -(-a // b),
    "next_power_of_2": lambda n: 1 if n <= 1 else 1 << (int(n) - 1).bit_length(),
    "min": min, "max": max, "int": int, "float": float, "bool": bool, "abs": abs,
    "len": len, "sqrt": math.sqrt, "ceil": math.ceil, "floor": math.floor,
}
#: Host calls with a known meaning, by the dotted name after alias resolution.
_HOST_FUNCTIONS: dict[str, str] = {
    "triton.cdiv": "cdiv", "triton.next_power_of_2": "next_power_of_2",
    "triton.language.cdiv": "cdiv", "math.ceil": "ceil", "math.floor": "floor",
    "math.sqrt": "sqrt", "min": "min", "max": "max", "int": "int", "float": "float",
    "bool": "bool", "abs": "abs", "len": "len",
}
_COMPILE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
_MAX_CALL_DEPTH = 8


# ---- values of the abstract interpreter ------------------------------------------------------


@dataclass(frozen=True)
class RunTime:
    """A value known only at run time, as the expression that computes it."""

    node: ast.expr

    def text(self) -> str:
        return ast.unparse(self.node)


@dataclass(frozen=True)
class TensorValue:
    """A torch tensor: the expression naming it, its dtype (None: not known), and whether
    torch made it here (else it is a host parameter, which may be a scalar as well)."""

    node: ast.expr
    dtype: str | None
    made: bool = False


@dataclass(frozen=True)
class TensorMethod:
    """A tensor's method, before it is called (`x.stride`)."""

    tensor: TensorValue
    name: str


@dataclass
class ObjectValue:
    """An object whose attributes host code sets (`ctx` of an autograd Function, shared by
    its `forward` and `backward`)."""

    attrs: dict[str, object]


@dataclass(frozen=True)
class DescriptorValue:
    """A host `TensorDescriptor` over a tensor."""

    tensor: TensorValue


@dataclass(frozen=True)
class ConfigValue:
    """A `triton.Config`: its constexpr kwargs and compile options."""

    kwargs: tuple[tuple[str, object], ...]
    options: tuple[tuple[str, object], ...]


@dataclass
class Closure:
    """A lambda or function with the environment it was defined in."""

    node: ast.Lambda | ast.FunctionDef
    env: dict[str, object]


@dataclass(frozen=True)
class DTypeValue:
    name: str | None


class _Unknown:
    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


@dataclass
class _Return(Exception):
    value: object


# ---- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelSignature:
    """A `@triton.jit` kernel's parameters and what the host-side decorators add."""

    name: str
    params: tuple[str, ...]
    constexprs: frozenset[str]
    pointers: frozenset[str]  # used as a pointer in the body
    descriptors: frozenset[str]  # used as a tensor descriptor (`.load([...])`)
    defaults: tuple[tuple[str, object], ...]
    line: int


@dataclass(frozen=True)
class TritonSpecialization:
    """One compilation Triton's JIT makes for one launch site and config.

    `constexprs`: values known on the host; `derived`: constexprs (and heuristics) the host
    computes at launch, as expressions over the runtime arguments; `pointer_dtypes`: dtype
    per pointer argument (None: not known); `int_keys`: Triton's key (`"1"`, `"D"` for
    divisible by 16, `""`) of the int arguments the host fixes; `scalars`: the other runtime
    scalar arguments and their Triton type (`i32`, `fp32`; `None` where the host does not
    say); `grid`: three expressions; `free`: host run-time values the expressions need that
    are no kernel argument.
    """

    kernel: str
    host_function: str | None
    line: int
    config_index: int | None
    constexprs: tuple[tuple[str, object], ...]
    derived: tuple[tuple[str, str], ...]
    pointer_dtypes: tuple[tuple[str, str | None], ...]
    int_keys: tuple[tuple[str, str], ...]
    scalars: tuple[tuple[str, str | None], ...]
    options: tuple[tuple[str, object], ...]
    grid: tuple[str, str, str]
    free: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "host_function": self.host_function,
                "line": self.line, "config": self.config_index,
                "constexprs": dict(self.constexprs), "derived": dict(self.derived),
                "pointer_dtypes": dict(self.pointer_dtypes), "int_keys": dict(self.int_keys),
                "scalars": dict(self.scalars), "options": dict(self.options),
                "grid": list(self.grid), "free": list(self.free), "notes": list(self.notes)}


@dataclass
class HostReport:
    """Everything read from one file: kernels, and the specializations per kernel."""

    kernels: dict[str, KernelSignature]
    specializations: dict[str, list[TritonSpecialization]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def specialization_key(value: int) -> str:
    """Triton 3.9's key for an int argument: `"1"` (made a constexpr), `"D"` (divisible by
    16: `tt.divisibility = 16`), or `""`."""
    if value == 1:
        return "1"
    return "D" if value % 16 == 0 else ""


def scalar_type(value: object) -> str | None:
    """Triton's type of a runtime scalar argument (ints by range, as its JIT picks)."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return "i32"
        return "i64" if -2**63 <= value < 2**63 else "u64"
    if isinstance(value, float):
        return "fp32"
    return None


def evaluate_expression(text: str, values: dict[str, object]) -> object:
    """The value of an expression of this module for concrete arguments."""
    tree = ast.parse(text, mode="eval")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    missing = names - set(values) - set(EXPRESSION_FUNCTIONS)
    if missing:
        raise KeyError(", ".join(sorted(missing)))
    code = compile(tree, "<expression>", "eval")
    return eval(code, {"__builtins__": {}}, {**EXPRESSION_FUNCTIONS, **values})  # noqa: S307


# ---- entry point -----------------------------------------------------------------------------


def read_host(text: str, filename: str = "<host>") -> HostReport:
    """Kernels and launch specializations of a Triton file (see the module docstring)."""
    tree = ast.parse(text, filename=filename)
    aliases = _module_aliases(tree)
    kernels = {fn.name: _signature(fn, aliases) for fn in tree.body
               if isinstance(fn, ast.FunctionDef) and _is_jit(fn, aliases)}
    report = HostReport(kernels)
    dtypes = _named_dtypes(tree, aliases) or ["float32"]
    siblings = _sibling_modules(tree, filename)
    for dtype in dtypes:
        interp = _Interpreter(tree, aliases, kernels, dtype)
        interp.import_siblings(siblings)
        interp.run_module()
        for launch in interp.launches:
            for spec in _specialize(interp, launch):
                found = report.specializations.setdefault(spec.kernel, [])
                if spec not in found:
                    found.append(spec)
        report.notes.extend(n for n in interp.notes if n not in report.notes)
    return report


# ---- module reading --------------------------------------------------------------------------


#: How many levels of sibling-module imports the host reader follows.
_SIBLING_DEPTH = 2


def _sibling_modules(tree: ast.Module, filename: str, depth: int = _SIBLING_DEPTH
                     ) -> list[tuple[list[tuple[str, str]], ast.Module, list]]:
    """The modules of the file's own package or folder that its imports name (`from .utils
    import f`, `from pkg.ops.utils import f` with `pkg/` above the file): per module, the
    (imported name, local name) pairs, its syntax tree and its own siblings. Modules
    outside the file's folders (torch, triton) are not read."""
    here = Path(filename).resolve().parent if filename and filename != "<host>" else None
    if here is None or depth <= 0:
        return []
    found = []
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.ImportFrom) or stmt.module is None and not stmt.level:
            continue
        path = _module_file(here, stmt.module or "", stmt.level)
        if path is None:
            continue
        try:
            sibling = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError, RecursionError):
            continue
        names = [(a.name, a.asname or a.name) for a in stmt.names if a.name != "*"]
        found.append((names, sibling, _sibling_modules(sibling, str(path), depth - 1)))
    return found


def _module_file(here: Path, module: str, level: int) -> Path | None:
    """The file of `module` imported from a file in `here` (relative `level` dots, or an
    absolute name whose first part is a folder above `here`)."""
    parts = module.split(".") if module else []
    if level:
        base = here
        for _ in range(level - 1):
            base = base.parent
        candidates = [base]
    else:
        candidates = [here, *here.parents]
    for base in candidates:
        path = base.joinpath(*parts).with_suffix(".py") if parts else None
        if path is not None and path.is_file():
            return path
    return None


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted module or object it is bound to by an import."""
    out: dict[str, str] = {}
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(
                    ".")[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for a in stmt.names:
                out[a.asname or a.name] = f"{stmt.module}.{a.name}"
    return out


def dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """`a.b.c` with its head resolved through the imports, else None."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        base = dotted(node.func, aliases)
        return f"{base}()" if base else None
    return None


def _is_jit(fn: ast.FunctionDef, aliases: dict[str, str]) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if dotted(target, aliases) in ("triton.jit", "triton.runtime.jit.jit"):
            return True
    return False


def _signature(fn: ast.FunctionDef, aliases: dict[str, str]) -> KernelSignature:
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    constexprs = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args)
                  if a.annotation is not None and (dotted(a.annotation, aliases) or "")
                  .endswith("constexpr")}
    defaults = []
    for arg, default in zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults,
                            strict=True):
        if isinstance(default, ast.Constant):
            defaults.append((arg, default.value))
    pointers, descriptors = _pointer_uses(fn, set(params) - constexprs, aliases)
    return KernelSignature(fn.name, tuple(params), frozenset(constexprs), frozenset(pointers),
                           frozenset(descriptors), tuple(defaults), fn.lineno)


#: `tl` calls whose first argument (or `pointer=`/`base=`) is a pointer.
_POINTER_CALLS = ("load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_and",
                  "atomic_or", "atomic_xor", "atomic_xchg", "atomic_cas",
                  "make_tensor_descriptor", "make_block_ptr")


def _pointer_uses(fn: ast.FunctionDef, candidates: set[str],
                  aliases: dict[str, str]) -> tuple[set[str], set[str]]:
    """Parameters the body uses as pointers and as tensor descriptors.

    A pointer is a parameter that is the additive base of a load / store / atomic address
    (`X + offs`, through locals, `+=`, `[:, None]` and broadcasts: a product, quotient or
    remainder is an integer, so its operands are not followed), or whose `.dtype` is read.
    A descriptor is a parameter whose `.load([...])` / `.store([...])` is called.
    """
    definitions: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    definitions.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None \
                and isinstance(node.target, ast.Name):
            definitions.setdefault(node.target.id, []).append(node.value)
    roots: set[str] = set()
    descriptors: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(
                node.value, ast.Name):
            roots.add(node.value.id)
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func, aliases) or ""
        if name.startswith("triton.language.") and name.split(".")[-1] in _POINTER_CALLS:
            address = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg in ("pointer", "base", "ptr")), None)
            if address is not None:
                roots |= _additive_bases(address, definitions, aliases, set())
        if (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                and node.func.attr in ("load", "store", "atomic_add")
                and node.func.value.id in candidates):
            descriptors.add(node.func.value.id)
    return (roots & candidates) - descriptors, descriptors


#: `tl` calls through which a pointer passes unchanged in shape of its value.
_POINTER_PRESERVING = ("broadcast_to", "expand_dims", "reshape", "view", "where",
                       "multiple_of", "max_contiguous", "max_constancy", "advance")


def _additive_bases(node: ast.expr, definitions: dict[str, list[ast.expr]],
                    aliases: dict[str, str], seen: set[str]) -> set[str]:
    if isinstance(node, ast.Name):
        if node.id in seen:
            return set()
        seen.add(node.id)
        found = {node.id}
        for value in definitions.get(node.id, []):
            found |= _additive_bases(value, definitions, aliases, seen)
        return found
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        return (_additive_bases(node.left, definitions, aliases, seen)
                | _additive_bases(node.right, definitions, aliases, seen))
    if isinstance(node, ast.Subscript):
        return _additive_bases(node.value, definitions, aliases, seen)
    if isinstance(node, ast.Call):
        name = (dotted(node.func, aliases) or "").split(".")[-1]
        if name in _POINTER_PRESERVING:
            found: set[str] = set()
            for arg in node.args[1:] if name == "where" else node.args[:1]:
                found |= _additive_bases(arg, definitions, aliases, seen)
            return found
    return set()


def _named_dtypes(tree: ast.Module, aliases: dict[str, str]) -> list[str]:
    """Float dtypes the host code names (`torch.float16`), in order of first mention."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = dotted(node, aliases) or ""
            head, _, attr = name.rpartition(".")
            if head in ("torch", "numpy") and attr in CANDIDATE_DTYPES and attr not in found:
                found.append(attr)
    return found


# ---- the interpreter -------------------------------------------------------------------------


@dataclass
class _Launch:
    kernel: str
    grid: object
    args: list[object]
    kwargs: dict[str, object]
    host_function: str | None
    line: int


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b,
    ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
}
_COMPARES: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_PLAIN = (int, float, bool, str, type(None))


def _is_plain(value: object) -> bool:
    if isinstance(value, tuple | list):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_is_plain(v) for v in value.values())
    return isinstance(value, _PLAIN)


def _as_node(value: object) -> ast.expr | None:
    """The expression of a value for a symbolic result, or None when it has none."""
    if isinstance(value, RunTime):
        return value.node
    if isinstance(value, TensorValue):
        return value.node
    if isinstance(value, _PLAIN) and not isinstance(value, str):
        return ast.Constant(value)
    if isinstance(value, str):
        return ast.Constant(value)
    if isinstance(value, tuple) and all(_as_node(v) is not None for v in value):
        return ast.Tuple([_as_node(v) for v in value], ast.Load())  # type: ignore[misc]
    return None


def _symbolic(node: ast.expr) -> RunTime:
    return RunTime(ast.fix_missing_locations(node))


def _host_name(name: str) -> RunTime:
    """A host local whose value is chosen at run time (`host.NAME`, never a kernel argument)."""
    return _symbolic(ast.Attribute(ast.Name(HOST, ast.Load()), name, ast.Load()))


#: The prefix of host values in expressions (`host.GROUP_SIZE_M`).
HOST = "host"


class _Interpreter:
    """Runs a module's host code abstractly and records its kernel launches."""

    def __init__(self, tree: ast.Module, aliases: dict[str, str],
                 kernels: dict[str, KernelSignature], dtype: str) -> None:
        self.tree = tree
        self.aliases = aliases
        self.kernels = kernels
        self.dtype = dtype
        self.globals: dict[str, object] = {}
        self.launches: list[_Launch] = []
        self.notes: list[str] = []
        self.decorators: dict[str, list[tuple[str, object]]] = {}
        self.depth = 0
        self.host_function: str | None = None
        # Names imported from sibling modules, with their values there.
        self.preset: dict[str, object] = {}

    # -- module and functions
    def import_siblings(self, siblings: list[tuple[list[tuple[str, str]], ast.Module, list]]
                        ) -> None:
        """Binds the names the file imports from sibling modules to what those modules'
        top levels make of them (functions, constants), read by the same interpreter."""
        for names, tree, nested in siblings:
            module = _Interpreter(tree, _module_aliases(tree), {}, self.dtype)
            module.import_siblings(nested)
            for name in module.aliases:
                module.globals.setdefault(name, UNKNOWN)
            try:
                module._block(tree.body, module.globals, toplevel=True)
            except (_Return, RecursionError):
                continue
            for name, local in names:
                value = module.globals.get(name, UNKNOWN)
                if value is not UNKNOWN:
                    self.preset[local] = value

    def run_module(self) -> None:
        for name in self.aliases:
            self.globals.setdefault(name, UNKNOWN)
        self._block(self.tree.body, self.globals, toplevel=True)
        self.globals.update(self.preset)
        for kernel in self.kernels:
            self.decorators.setdefault(kernel, [])
        hosts = [s for s in self.tree.body if isinstance(s, ast.FunctionDef | ast.ClassDef)]
        for stmt in hosts:
            shared = ObjectValue({})
            for fn, owner in _host_functions(stmt):
                if fn.name in self.kernels:
                    continue
                self.host_function = f"{owner}.{fn.name}" if owner else fn.name
                env = dict(self.globals)
                self._bind_params(fn, env, None, {})
                params = [*fn.args.posonlyargs, *fn.args.args]
                if owner and params:
                    env[params[0].arg] = shared
                try:
                    self._block(fn.body, env)
                except _Return:
                    pass
                except RecursionError:
                    self.notes.append(f"{fn.name}: host code too deep to read")
        self.host_function = None

    def _bind_params(self, fn: ast.FunctionDef | ast.Lambda, env: dict[str, object],
                     args: list[object] | None, kwargs: dict[str, object]) -> None:
        params = [*fn.args.posonlyargs, *fn.args.args]
        defaults = dict(zip([p.arg for p in params[len(params) - len(fn.args.defaults):]],
                            fn.args.defaults, strict=True))
        for kw, kd in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True):
            if kd is not None:
                defaults[kw.arg] = kd
        for i, param in enumerate([*params, *fn.args.kwonlyargs]):
            if args is not None and i < len(args) and param in params:
                env[param.arg] = args[i]
            elif param.arg in kwargs:
                env[param.arg] = kwargs[param.arg]
            elif param.arg in defaults and isinstance(defaults[param.arg], ast.Constant):
                env[param.arg] = defaults[param.arg].value  # type: ignore[union-attr]
            else:
                env[param.arg] = TensorValue(_host_name(param.arg).node, self.dtype)
        if fn.args.vararg:
            env[fn.args.vararg.arg] = UNKNOWN
        if fn.args.kwarg:
            env[fn.args.kwarg.arg] = dict(kwargs) if args is not None else UNKNOWN

    def call(self, target: object, args: list[object], kwargs: dict[str, object]) -> object:
        if not isinstance(target, Closure) or self.depth >= _MAX_CALL_DEPTH:
            return UNKNOWN
        env = dict(target.env)
        self._bind_params(target.node, env, args, kwargs)
        self.depth += 1
        try:
            if isinstance(target.node, ast.Lambda):
                return self.expr(target.node.body, env)
            self._block(target.node.body, env)
            return None
        except _Return as ret:
            return ret.value
        finally:
            self.depth -= 1

    # -- statements
    def _block(self, body: list[ast.stmt], env: dict[str, object],
               toplevel: bool = False) -> None:
        for stmt in body:
            self._stmt(stmt, env, toplevel)

    def _stmt(self, stmt: ast.stmt, env: dict[str, object], toplevel: bool) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self._assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._assign(stmt.target, self.expr(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, env)
            value = self._binop(stmt.op, current, self.expr(stmt.value, env), stmt)
            self._assign(stmt.target, value, env)
        elif isinstance(stmt, ast.Expr):
            self.expr(stmt.value, env)
        elif isinstance(stmt, ast.Return):
            raise _Return(self.expr(stmt.value, env) if stmt.value else None)
        elif isinstance(stmt, ast.If):
            self._if(stmt, env, toplevel)
        elif isinstance(stmt, ast.For | ast.While):
            self._loop(stmt, env, toplevel)
        elif isinstance(stmt, ast.With):
            self._block(stmt.body, env, toplevel)
        elif isinstance(stmt, ast.Try):
            self._block([*stmt.body, *stmt.orelse, *stmt.finalbody], env, toplevel)
        elif isinstance(stmt, ast.FunctionDef):
            if not (toplevel and stmt.name in self.kernels):
                env[stmt.name] = Closure(stmt, env)
            if toplevel and stmt.name in self.kernels:
                self._decorators(stmt, env)
        elif isinstance(stmt, ast.ClassDef):
            env[stmt.name] = UNKNOWN

    def _decorators(self, fn: ast.FunctionDef, env: dict[str, object]) -> None:
        found: list[tuple[str, object]] = []
        for dec in fn.decorator_list:
            name = dotted(dec.func if isinstance(dec, ast.Call) else dec, self.aliases)
            if name in ("triton.jit", "triton.runtime.jit.jit"):
                continue
            if isinstance(dec, ast.Call) and name in ("triton.autotune", "triton.heuristics"):
                found.append((name, self._decorator_args(dec, env)))
            else:
                value = self.expr(dec, env)
                found.append(("triton.autotune", value) if isinstance(value, dict)
                             else ("unknown", ast.unparse(dec)))
        self.decorators[fn.name] = found

    def _decorator_args(self, dec: ast.Call, env: dict[str, object]) -> dict[str, object]:
        out: dict[str, object] = {"__line__": dec.lineno}
        names = ("configs", "key") if dotted(dec.func, self.aliases) == "triton.autotune" \
            else ("values",)
        for i, arg in enumerate(dec.args[:len(names)]):
            out[names[i]] = self.expr(arg, env)
        for kw in dec.keywords:
            if kw.arg:
                out[kw.arg] = self.expr(kw.value, env)
        return out

    def _assign(self, target: ast.expr, value: object, env: dict[str, object]) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, TensorValue):
                value = TensorValue(ast.Name(target.id, ast.Load()), value.dtype, value.made)
            env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            items = self._unpack(value, len(target.elts))
            for t, v in zip(target.elts, items, strict=True):
                self._assign(t, v, env)
        elif isinstance(target, ast.Attribute):
            base = self.expr(target.value, env)
            if isinstance(base, ObjectValue):
                base.attrs[target.attr] = value
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value, env)
            key = self.expr(target.slice, env)
            if isinstance(base, dict) and _is_plain(key):
                base[key] = value  # type: ignore[index]

    def _unpack(self, value: object, count: int) -> list[object]:
        if isinstance(value, tuple | list) and len(value) == count:
            return list(value)
        node = _as_node(value)
        if node is not None:
            return [_symbolic(ast.Subscript(node, ast.Constant(i), ast.Load()))
                    for i in range(count)]
        return [UNKNOWN] * count

    def _if(self, stmt: ast.If, env: dict[str, object], toplevel: bool) -> None:
        test = self.expr(stmt.test, env)
        if _is_plain(test):
            self._block(stmt.body if test else stmt.orelse, env, toplevel)
            return
        arms = []
        returned: list[object] = []
        for body in (stmt.body, stmt.orelse):
            arm = dict(env)
            try:
                self._block(body, arm, toplevel)
                arms.append(arm)
            except _Return as ret:
                returned.append(ret.value)
        if not arms:
            raise _Return(_either(returned))
        self._merge(env, arms)

    def _merge(self, env: dict[str, object], arms: list[dict[str, object]]) -> None:
        for name in set().union(*arms):
            values = [a.get(name, UNKNOWN) for a in arms]
            first = values[0]
            if all(_same(first, v) for v in values[1:]):
                env[name] = first
            elif all(isinstance(v, TensorValue) for v in values):
                dtypes = {v.dtype for v in values}  # type: ignore[union-attr]
                env[name] = TensorValue(ast.Name(name, ast.Load()),
                                        dtypes.pop() if len(dtypes) == 1 else None)
            else:
                env[name] = _host_name(name)

    def _loop(self, stmt: ast.For | ast.While, env: dict[str, object], toplevel: bool) -> None:
        arm = dict(env)
        if isinstance(stmt, ast.For):
            iterable = self.expr(stmt.iter, env)
            if isinstance(iterable, list | tuple) and _is_plain(iterable) and len(iterable) <= 8:
                for item in iterable:
                    self._assign(stmt.target, item, env)
                    self._block(stmt.body, env, toplevel)
                return
            for name in ast.walk(stmt.target):
                if isinstance(name, ast.Name):
                    arm[name.id] = _host_name(name.id)
        try:
            self._block(stmt.body, arm, toplevel)
        except _Return:
            return
        self._merge(env, [env.copy(), arm])

    # -- expressions
    def expr(self, node: ast.expr, env: dict[str, object]) -> object:  # noqa: C901
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node.id, env)
        if isinstance(node, ast.Tuple | ast.List):
            items: list[object] = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    inner = self.expr(elt.value, env)
                    items.extend(inner if isinstance(inner, list | tuple) else [UNKNOWN])
                else:
                    items.append(self.expr(elt, env))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            out: dict[object, object] = {}
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    inner = self.expr(v, env)
                    if isinstance(inner, dict):
                        out.update(inner)
                    continue
                out[self.expr(k, env)] = self.expr(v, env)  # type: ignore[index]
            return out
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, self.expr(node.left, env), self.expr(node.right, env),
                               node)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, self.expr(node.operand, env))
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, env)
        if isinstance(node, ast.Compare):
            return self._compare(node, env)
        if isinstance(node, ast.IfExp):
            test = self.expr(node.test, env)
            if _is_plain(test):
                return self.expr(node.body if test else node.orelse, env)
            body, orelse = self.expr(node.body, env), self.expr(node.orelse, env)
            return body if _same(body, orelse) else UNKNOWN
        if isinstance(node, ast.Lambda):
            return Closure(node, env)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, env)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, env)
        if isinstance(node, ast.Call):
            return self._call(node, env)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return self._comprehension(node, env)
        if isinstance(node, ast.JoinedStr):
            return UNKNOWN
        return UNKNOWN

    def _name(self, name: str, env: dict[str, object]) -> object:
        if name in env:
            return env[name]
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        return UNKNOWN

    def _binop(self, op: ast.operator, left: object, right: object, node: ast.AST) -> object:
        fn = _BINOPS.get(type(op))
        if fn is None:
            return UNKNOWN
        if _is_plain(left) and _is_plain(right):
            try:
                return fn(left, right)
            except (ArithmeticError, TypeError, ValueError):
                return UNKNOWN
        if isinstance(left, dict) and isinstance(right, dict) and isinstance(op, ast.BitOr):
            return {**left, **right}
        tensors = [v for v in (left, right) if isinstance(v, TensorValue)]
        if tensors:
            # Arithmetic on a tensor is a tensor (a host scalar parameter is read as a
            # tensor too: it stays one, with the dtype of the pass).
            return TensorValue(ast.BinOp(tensors[0].node, op, tensors[-1].node),
                               tensors[0].dtype, tensors[0].made)
        ln, rn = _as_node(left), _as_node(right)
        if ln is None or rn is None:
            return UNKNOWN
        return _symbolic(ast.BinOp(ln, op, rn))

    def _unary(self, node: ast.UnaryOp, value: object) -> object:
        if _is_plain(value):
            try:
                return {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                        ast.Not: lambda v: not v, ast.Invert: lambda v: ~v}[type(node.op)](
                    value)
            except TypeError:
                return UNKNOWN
        inner = _as_node(value)
        return UNKNOWN if inner is None else _symbolic(ast.UnaryOp(node.op, inner))

    def _boolop(self, node: ast.BoolOp, env: dict[str, object]) -> object:
        values = []
        for operand in node.values:
            value = self.expr(operand, env)
            if _is_plain(value):
                if isinstance(node.op, ast.And) and not value:
                    return value
                if isinstance(node.op, ast.Or) and value:
                    return value
                continue
            values.append(value)
        if not values:
            return self.expr(node.values[-1], env)
        nodes = [_as_node(v) for v in values]
        if any(n is None for n in nodes):
            return UNKNOWN
        if len(nodes) == 1:
            return values[0]
        return _symbolic(ast.BoolOp(node.op, nodes))  # type: ignore[arg-type]

    def _compare(self, node: ast.Compare, env: dict[str, object]) -> object:
        left = self.expr(node.left, env)
        result: object = True
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.expr(comparator, env)
            if isinstance(op, ast.Is | ast.IsNot) and right is None and left is not None:
                known = isinstance(left, TensorValue | DescriptorValue | ConfigValue | Closure)
                step: object = (isinstance(op, ast.IsNot) if known else UNKNOWN) if not \
                    _is_plain(left) else _COMPARES[type(op)](left, right)
            elif isinstance(left, TensorValue) or isinstance(right, TensorValue):
                step = TensorValue(node, "bool_", made=True)
            elif _is_plain(left) and _is_plain(right):
                try:
                    step = _COMPARES[type(op)](left, right)
                except TypeError:
                    step = UNKNOWN
            elif isinstance(left, DTypeValue) and isinstance(right, DTypeValue) \
                    and left.name and right.name and isinstance(op, ast.Eq | ast.NotEq):
                step = (left.name == right.name) == isinstance(op, ast.Eq)
            else:
                ln, rn = _as_node(left), _as_node(right)
                step = UNKNOWN if ln is None or rn is None else _symbolic(
                    ast.Compare(ln, [op], [rn]))
            if step is False:
                return False
            result = step if result is True else (UNKNOWN if step is not True else result)
            left = right
        return result

    def _attribute(self, node: ast.Attribute, env: dict[str, object]) -> object:
        name = dotted(node, self.aliases)
        if name in HOST_FACTS:
            return HOST_FACTS[name]
        if name is not None:
            head, _, attr = name.rpartition(".")
            if head in ("torch", "triton.language", "tl") and attr in TORCH_DTYPES:
                return DTypeValue(TORCH_DTYPES[attr])
        if isinstance(node.value, ast.Name) and node.value.id in self.kernels:
            return ("kernel-attr", node.value.id, node.attr)
        base = self.expr(node.value, env)
        if isinstance(base, TensorValue) and node.attr == "shape":
            return _symbolic(ast.Attribute(base.node, "shape", ast.Load()))
        if isinstance(base, ConfigValue):
            if node.attr == "kwargs":
                return dict(base.kwargs)
            return dict(base.options).get(node.attr)
        if isinstance(base, ObjectValue):
            return base.attrs.get(node.attr, UNKNOWN)
        if isinstance(base, TensorValue):
            if node.attr == "dtype":
                return DTypeValue(base.dtype)
            if node.attr in _TENSOR_VIEWS or node.attr in _TENSOR_SCALARS or node.attr in (
                    "element_size", "to", "save_for_backward"):
                return TensorMethod(base, node.attr)
            return _symbolic(ast.Attribute(base.node, node.attr, ast.Load()))
        if isinstance(base, DTypeValue) and node.attr == "itemsize" and base.name:
            return ELEMENT_BYTES[base.name]
        if isinstance(base, RunTime):
            return _symbolic(ast.Attribute(base.node, node.attr, ast.Load()))
        return UNKNOWN

    def _subscript(self, node: ast.Subscript, env: dict[str, object]) -> object:
        base = self.expr(node.value, env)
        key = self.expr(node.slice, env)
        if isinstance(base, dict) and _is_plain(key):
            return base.get(key, UNKNOWN)  # type: ignore[call-overload]
        if isinstance(base, list | tuple) and isinstance(key, int | slice):
            try:
                return base[key]
            except IndexError:
                return UNKNOWN
        if isinstance(base, TensorValue):
            return TensorValue(node, base.dtype, base.made)
        if isinstance(node.value, ast.Name) and node.value.id in self.kernels:
            return ("launcher", node.value.id, key)
        if isinstance(base, tuple) and base and base[0] == "compiled":
            return ("launcher", base[1], key)
        if isinstance(base, RunTime) and _as_node(key) is not None:
            return _symbolic(ast.Subscript(base.node, _as_node(key), ast.Load()))  # type: ignore[arg-type]
        return UNKNOWN

    def _call(self, node: ast.Call, env: dict[str, object]) -> object:  # noqa: C901
        name = dotted(node.func, self.aliases)
        if name in HOST_FACTS:
            return HOST_FACTS[name]
        func = self.expr(node.func, env)
        args: list[object] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                inner = self.expr(a.value, env)
                args.extend(inner if isinstance(inner, list | tuple) else [UNKNOWN])
            else:
                args.append(self.expr(a, env))
        kwargs: dict[str, object] = {}
        for kw in node.keywords:
            value = self.expr(kw.value, env)
            if kw.arg is None:
                if isinstance(value, dict):
                    kwargs.update({str(k): v for k, v in value.items()})
            else:
                kwargs[kw.arg] = value
        if isinstance(func, tuple) and func and func[0] == "launcher":
            self.launches.append(_Launch(func[1], func[2], args, kwargs, self.host_function,
                                         node.lineno))
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "save_for_backward":
            owner = self.expr(node.func.value, env)
            if isinstance(owner, ObjectValue):
                owner.attrs["saved_tensors"] = tuple(args)
            return None
        if isinstance(func, TensorMethod):
            return self._tensor_method(func.tensor, func.name, args)
        if isinstance(func, tuple) and func and func[0] == "kernel-attr":
            # `kernel.warmup(...)` compiles; the result is launched like the kernel itself.
            return ("compiled", func[1]) if func[2] == "warmup" else UNKNOWN
        if name in ("triton.Config", "triton.runtime.Config"):
            return _config(args, kwargs)
        if name in ("triton.autotune", "triton.heuristics"):
            return {"__decorator__": name, **kwargs}
        if name in _HOST_FUNCTIONS:
            return self._pure(_HOST_FUNCTIONS[name], args)
        if name and name.startswith("torch.") and name.split(".")[-1] in _TENSOR_MAKERS:
            return self._tensor_maker(node, name.split(".")[-1], args, kwargs)
        if name and name.endswith("TensorDescriptor") and args and isinstance(
                args[0], TensorValue):
            return DescriptorValue(args[0])
        if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], list | tuple):
            return list(args[0]) if name == "list" else tuple(args[0])
        if name == "dict":
            return dict(kwargs)
        if name == "range" and all(isinstance(a, int) for a in args):
            return list(range(*args))  # type: ignore[arg-type]
        if name == "filter" and len(args) == 2 and isinstance(args[1], list | tuple):
            kept = [item for item in args[1] if self.call(args[0], [item], {}) is True]
            undecided = [item for item in args[1] if self.call(args[0], [item], {})
                         not in (True, False)]
            return UNKNOWN if undecided else kept
        if name == "isinstance":
            return UNKNOWN
        return self.call(func, args, kwargs)

    def _pure(self, fn: str, args: list[object]) -> object:
        if all(_is_plain(a) for a in args) and not (fn in ("min", "max") and len(args) == 1
                                                      and not isinstance(args[0], list | tuple)):
            try:
                return EXPRESSION_FUNCTIONS[fn](*args)
            except (TypeError, ValueError, ArithmeticError):
                return UNKNOWN
        nodes = [_as_node(a) for a in args]
        if any(n is None for n in nodes) or any(isinstance(a, TensorValue) for a in args):
            return UNKNOWN
        return _symbolic(ast.Call(ast.Name(fn, ast.Load()), nodes, []))  # type: ignore[arg-type]

    def _tensor_method(self, tensor: TensorValue, method: str, args: list[object]) -> object:
        if method in _TENSOR_VIEWS:
            return TensorValue(ast.Call(ast.Attribute(tensor.node, method, ast.Load()), [], []),
                               tensor.dtype, tensor.made)
        if method == "save_for_backward":
            return None
        if method == "element_size":
            return ELEMENT_BYTES.get(tensor.dtype or "", UNKNOWN)
        if method == "to" and args and isinstance(args[0], DTypeValue):
            return TensorValue(tensor.node, args[0].name)
        if method in _TENSOR_SCALARS:
            nodes = [_as_node(a) for a in args]
            if any(n is None for n in nodes):
                return UNKNOWN
            if method in ("stride", "size", "shape") and len(nodes) == 1:
                # `x.stride(0)` is `x.stride[0]` in expressions (numpy-like arrays).
                attr = "strides" if method == "stride" else "shape"
                return _symbolic(ast.Subscript(ast.Attribute(tensor.node, attr, ast.Load()),
                                               nodes[0], ast.Load()))  # type: ignore[arg-type]
            return _symbolic(ast.Call(ast.Attribute(tensor.node, method, ast.Load()),
                                      nodes, []))  # type: ignore[arg-type]
        return UNKNOWN

    def _tensor_maker(self, node: ast.Call, maker: str, args: list[object],
                      kwargs: dict[str, object]) -> TensorValue:
        dtype: str | None = None
        given = kwargs.get("dtype")
        if isinstance(given, DTypeValue):
            dtype = given.name
        elif _TENSOR_MAKERS[maker] == "like" and args and isinstance(args[0], TensorValue):
            dtype = args[0].dtype
        elif given is None and _TENSOR_MAKERS[maker] == "dtype":
            dtype = "int64" if maker in ("arange", "randint") else "float32"
        return TensorValue(node, dtype, made=True)

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp,
                       env: dict[str, object]) -> object:
        results: list[object] = []

        def walk(index: int, scope: dict[str, object]) -> bool:
            if index == len(node.generators):
                results.append(self.expr(node.elt, scope))
                return True
            gen = node.generators[index]
            iterable = self.expr(gen.iter, scope)
            if not isinstance(iterable, list | tuple):
                return False
            for item in iterable:
                inner = dict(scope)
                self._assign(gen.target, item, inner)
                conds = [self.expr(c, inner) for c in gen.ifs]
                if any(not _is_plain(c) for c in conds):
                    return False
                if all(conds) and not walk(index + 1, inner):
                    return False
            return True

        return results if walk(0, dict(env)) else UNKNOWN


def _host_functions(stmt: ast.FunctionDef | ast.ClassDef
                    ) -> Iterable[tuple[ast.FunctionDef, str | None]]:
    """Top-level functions, and the methods of top-level classes (autograd `forward` /
    `backward` included)."""
    if isinstance(stmt, ast.FunctionDef):
        yield stmt, None
        return
    for item in stmt.body:
        if isinstance(item, ast.FunctionDef):
            yield item, stmt.name


def _same(a: object, b: object) -> bool:
    if isinstance(a, RunTime) and isinstance(b, RunTime):
        return ast.dump(a.node) == ast.dump(b.node)
    if isinstance(a, TensorValue) and isinstance(b, TensorValue):
        return ast.dump(a.node) == ast.dump(b.node) and a.dtype == b.dtype
    if isinstance(a, Closure) or isinstance(b, Closure):
        return a is b
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


def _either(values: list[object]) -> object:
    """What a function returns from arms the interpreter cannot choose between: the value
    when they agree; the union when each is a list of configs (each is a compilation the
    kernel may get); else unknown."""
    if all(_same(values[0], v) for v in values[1:]):
        return values[0]
    if all(isinstance(v, list) and all(isinstance(c, ConfigValue) for c in v) for v in values):
        return [c for v in values for c in v]  # type: ignore[union-attr]
    return UNKNOWN


def _config(args: list[object], kwargs: dict[str, object]) -> object:
    meta = args[0] if args else kwargs.get("kwargs", {})
    if not isinstance(meta, dict):
        return UNKNOWN
    options = tuple((k, kwargs[k]) for k in _COMPILE_OPTIONS if k in kwargs)
    return ConfigValue(tuple(sorted((str(k), v) for k, v in meta.items())), options)


# ---- from launches to specializations --------------------------------------------------------


def _specialize(interp: _Interpreter, launch: _Launch) -> list[TritonSpecialization]:
    sig = interp.kernels[launch.kernel]
    bound: dict[str, object] = dict(sig.defaults)
    for name, value in zip(sig.params, launch.args, strict=False):
        bound[name] = value
    options: dict[str, object] = {}
    for name, value in launch.kwargs.items():
        if name in sig.params:
            bound[name] = value
        elif name in _COMPILE_OPTIONS:
            options[name] = value
    notes: list[str] = []
    autotune = next((a for k, a in interp.decorators[launch.kernel]
                     if k == "triton.autotune"), None)
    heuristics = [a for k, a in interp.decorators[launch.kernel] if k == "triton.heuristics"]
    for kind, what in interp.decorators[launch.kernel]:
        if kind == "unknown":
            notes.append(f"decorator `{what}` is not read: its configs are not known")
    configs: list[ConfigValue | None] = [None]
    if isinstance(autotune, dict):
        found = autotune.get("configs")
        if isinstance(found, list | tuple) and all(isinstance(c, ConfigValue) for c in found):
            configs = list(_pruned(interp, autotune, list(found), bound, sig, notes))
        else:
            notes.append("the autotune configs are not known on the host")
    out = []
    for index, config in enumerate(configs):
        spec = _one_spec(interp, launch, sig, bound, options, config, heuristics, notes)
        out.append(spec if config is None else _with_index(spec, index))
    return out


def _with_index(spec: TritonSpecialization, index: int) -> TritonSpecialization:
    return TritonSpecialization(**{**spec.__dict__, "config_index": index})


def _pruned(interp: _Interpreter, autotune: dict[str, object], configs: list[ConfigValue],
            bound: dict[str, object], sig: KernelSignature,
            notes: list[str]) -> list[ConfigValue]:
    prune = autotune.get("prune_configs_by")
    hook = prune.get("early_config_prune") if isinstance(prune, dict) else None
    if hook is None:
        return configs
    named = {p: bound.get(p, _symbolic(ast.Name(p, ast.Load()))) for p in sig.params}
    result = interp.call(hook, [configs, named], named)
    if isinstance(result, list | tuple) and all(isinstance(c, ConfigValue) for c in result):
        return list(result)
    notes.append("early_config_prune depends on run-time values: every config is kept")
    return configs


def _one_spec(interp: _Interpreter, launch: _Launch, sig: KernelSignature,
              bound: dict[str, object], options: dict[str, object],
              config: ConfigValue | None, heuristics: list[object],
              notes: list[str]) -> TritonSpecialization:
    passed = {ast.dump(_as_node(v)): p for p, v in bound.items()  # type: ignore[arg-type]
              if isinstance(v, RunTime | TensorValue) and p not in sig.constexprs}
    values = dict(bound)
    opts = dict(options)
    if config is not None:
        values.update(config.kwargs)
        opts.update(config.options)
    meta = {p: _symbolic(ast.Name(p, ast.Load())) if isinstance(v, RunTime) else v
            for p, v in values.items()}
    free: list[str] = []
    derived: dict[str, str] = {}
    for h in heuristics:
        table = h.get("values") if isinstance(h, dict) else None
        for name, fn in (table.items() if isinstance(table, dict) else ()):
            result = interp.call(fn, [meta], {})
            if _is_plain(result):
                values[str(name)] = result
            else:
                derived[str(name)] = _expression(result, passed, free, sig.params)
            meta[str(name)] = values.get(str(name), _symbolic(ast.Name(str(name), ast.Load())))
    constexprs: dict[str, object] = {}
    for p in sig.params:
        if p in sig.constexprs and p not in derived:
            v = values.get(p, UNKNOWN)
            if _is_plain(v) or isinstance(v, DTypeValue):
                constexprs[p] = v.name if isinstance(v, DTypeValue) else v
            else:
                derived[p] = _expression(v, passed, free, sig.params)
    pointer_dtypes: dict[str, str | None] = {}
    int_keys: dict[str, str] = {}
    scalars: dict[str, str | None] = {}
    for p in sig.params:
        if p in sig.constexprs or p in derived:
            continue
        v = values.get(p, UNKNOWN)
        if isinstance(v, DescriptorValue):
            pointer_dtypes[p] = v.tensor.dtype
            notes.append(f"`{p}` is a host tensor descriptor")
        elif p in sig.pointers and not (_is_plain(v) or isinstance(v, RunTime)) or (
                isinstance(v, TensorValue) and v.made and p not in sig.descriptors):
            pointer_dtypes[p] = v.dtype if isinstance(v, TensorValue) else None
        elif isinstance(v, int) and not isinstance(v, bool):
            int_keys[p] = specialization_key(v)
            if v == 1:
                constexprs[p] = 1
        else:
            scalars[p] = scalar_type(v)
    grid = _grid(interp, launch.grid, meta, passed, free, sig.params)
    for name, value in opts.items():
        if not _is_plain(value):
            opts[name] = _expression(value, passed, free, sig.params)
    if config is not None:
        extra = [k for k, _ in config.kwargs if k not in sig.params]
        for k in extra:
            opts[k] = dict(config.kwargs)[k]
            constexprs.pop(k, None)
    return TritonSpecialization(
        kernel=launch.kernel, host_function=launch.host_function, line=launch.line,
        config_index=None, constexprs=tuple(constexprs.items()),
        derived=tuple(derived.items()), pointer_dtypes=tuple(pointer_dtypes.items()),
        int_keys=tuple(int_keys.items()), scalars=tuple(scalars.items()),
        options=tuple(sorted(opts.items())), grid=grid, free=tuple(dict.fromkeys(free)),
        notes=tuple(dict.fromkeys(notes)))


def _grid(interp: _Interpreter, grid: object, meta: dict[str, object],
          passed: dict[str, str], free: list[str],
          params: tuple[str, ...]) -> tuple[str, str, str]:
    if isinstance(grid, Closure):
        grid = interp.call(grid, [dict(meta)], {})
    if not isinstance(grid, tuple | list):
        grid = (grid,)
    dims = [_expression(d, passed, free, params) for d in grid][:3]
    while len(dims) < 3:
        dims.append("1")
    return (dims[0], dims[1], dims[2])


class _ToParams(ast.NodeTransformer):
    """Replaces host expressions that a kernel argument receives by that argument's name."""

    def __init__(self, passed: dict[str, str]) -> None:
        self.passed = passed

    def visit(self, node: ast.AST) -> ast.AST:
        name = self.passed.get(ast.dump(node)) if isinstance(node, ast.expr) else None
        if name is not None:
            return ast.Name(name, ast.Load())
        return super().visit(node)


def _expression(value: object, passed: dict[str, str], free: list[str],
                params: Iterable[str] = ()) -> str:
    """A value as an expression over kernel arguments; the host names left are `free`."""
    node = _as_node(value)
    if node is None:
        free.append("<unknown>")
        return "<unknown>"
    rewritten = _ToParams(passed).visit(copy.deepcopy(node))
    known = {*passed.values(), *params}
    for sub in ast.walk(rewritten):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and \
                sub.value.id == HOST:
            free.append(ast.unparse(sub))
        elif isinstance(sub, ast.Name) and sub.id not in known and sub.id != HOST and \
                sub.id not in EXPRESSION_FUNCTIONS:
            free.append(sub.id)
    return ast.unparse(rewritten)
