"""Launcher generator: `ct.launch` sites -> Rust C-ABI launchers and a Python drop-in wrapper.

Takes a cuTile Python file's `SourceModule` and the Rust text the transpiler generated for it
(each kernel's `// transpiler-manifest:` comment gives its generics and parameters). Gives:

- `emit_rust_launchers(source, rust)`: Rust host code (`launcher.rs` of the crate that
  `launcher/build.sh` builds). Per launch site and kernel, an `extern "C"` function that takes
  the caller's `CUstream`, the device ordinal, one `TensorDesc` per array parameter and the
  scalars and constants (in the kernel's parameter order); computes the grid the way the
  Python host code does (the grid expression is evaluated symbolically over a small subset
  of host Python; when it depends on anything else the function takes `grid_x, grid_y,
  grid_z` instead, and its doc comment says why); sets the generics from the constants and
  the dtypes; launches on the caller's stream; returns a `TL_*` code. A `..__grid` twin
  returns the translated grid without launching.
- `emit_pywrapper(source, rust)`: a Python module with the file's host functions, copied,
  whose `ct.launch(...)` calls go to the built library instead of cuTile Python: a
  torch-callable drop-in for each host function (same arguments, same result).
- `emit_result`: the `--emit` glue for `transpiler.cli` (`EMIT_KINDS` and `emit_path`, which
  the command line needs before it knows whether to emit anything else, live in
  `transpiler.emit_kinds` and are re-exported here).

The C ABI's tables (`hostglue/abi.py`) and the entries' signatures read from the manifests
(`hostglue/signatures.py`) live in `transpiler.hostglue`, and are re-exported here.

Nothing is imported or run: host code is read with libcst. The C ABI (`TensorDesc`, dtype
codes, error codes) is defined by `launcher/template/src/runtime.rs`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import libcst as cst

from rust_emit.rustfmt import format_rust
from transpiler.emit_kinds import EMIT_KINDS as EMIT_KINDS  # re-exported
from transpiler.emit_kinds import emit_path as emit_path  # re-exported
from transpiler.frontend.cutile_py import (
    LaunchSite,
    SourceModule,
    dotted_name,
    parse_source,
    tile_attr,
)
from transpiler.hostglue import pyruntime_text
from transpiler.hostglue.abi import DEFAULT_ELEMENT_TYPES as DEFAULT_ELEMENT_TYPES
from transpiler.hostglue.abi import DTYPE_CODES as DTYPE_CODES
from transpiler.hostglue.abi import TORCH_DTYPES as TORCH_DTYPES
from transpiler.hostglue.signatures import GenericSig as GenericSig
from transpiler.hostglue.signatures import KernelSig as KernelSig
from transpiler.hostglue.signatures import ParamSig as ParamSig
from transpiler.hostglue.signatures import kernel_signatures as kernel_signatures

if TYPE_CHECKING:
    from transpiler.driver import TranslationResult

_MAX_INLINE_DEPTH = 6


# ---- host values ---------------------------------------------------------------------------
# Host code is evaluated symbolically: each name is bound to a value; integers are kept as
# expressions over tensor shapes, literals and other bindings, and are turned into Rust over
# the launcher's own inputs only at the launch site.


@dataclass(frozen=True)
class Lit:
    value: int


@dataclass(frozen=True)
class Var:
    binding: Binding


@dataclass(frozen=True)
class Dim:
    tensor: TensorInfo
    axis: int


@dataclass(frozen=True)
class Numel:
    tensor: TensorInfo


@dataclass(frozen=True)
class NDim:
    tensor: TensorInfo


@dataclass(frozen=True)
class Bin:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Fn:
    name: str  # cdiv | min | max | abs | neg | bit_length
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class DeviceSMs:
    """`torch.cuda.get_device_properties(d).multi_processor_count`."""


Expr = Lit | Var | Dim | Numel | NDim | Bin | Fn | DeviceSMs


@dataclass(eq=False)
class TensorInfo:
    """One tensor object of the host code and what is known of it."""

    origin: str
    shape: tuple[Expr, ...] | None = None
    same_shape: TensorInfo | None = None
    same_numel: TensorInfo | None = None
    dtype_of: TensorInfo | None = None
    dtype: str | None = None  # cutile element name when the host code fixes it


@dataclass(frozen=True)
class IntVal:
    expr: Expr


@dataclass(frozen=True)
class ShapeVal:
    tensor: TensorInfo


@dataclass(frozen=True)
class TupleVal:
    items: tuple[Value, ...]


@dataclass(frozen=True)
class KernelVal:
    names: tuple[str, ...]


@dataclass(frozen=True)
class DTypeVal:
    tensor: TensorInfo | None = None
    fixed: str | None = None


@dataclass(frozen=True)
class DevicePropsVal:
    pass


@dataclass(frozen=True)
class ParamRef:
    """A host-function parameter: a tensor or a number, as its use decides."""

    binding: Binding


@dataclass(frozen=True)
class Opaque:
    reason: str


Value = (IntVal | TensorInfo | ShapeVal | TupleVal | KernelVal | DTypeVal | DevicePropsVal
         | ParamRef | Opaque)


@dataclass(eq=False)
class Binding:
    name: str
    value: Value
    tensor: TensorInfo | None = None  # for host parameters used as tensors
    node: cst.BaseExpression | None = None  # the assigned expression, for messages


def _as_int(value: Value) -> Expr | None:
    if isinstance(value, IntVal):
        return value.expr
    if isinstance(value, ParamRef):
        return Var(value.binding)
    return None


def _as_tensor(value: Value) -> TensorInfo | None:
    if isinstance(value, TensorInfo):
        return value
    if isinstance(value, ParamRef):
        binding = value.binding
        if binding.tensor is None:
            binding.tensor = TensorInfo(f"host parameter `{binding.name}`")
        return binding.tensor
    return None


def _why(value: Value) -> str:
    return value.reason if isinstance(value, Opaque) else f"a {type(value).__name__}"


# ---- host evaluation -----------------------------------------------------------------------

_LIKE_FACTORIES = {"empty_like", "zeros_like", "ones_like", "full_like", "rand_like",
                   "randn_like"}
_SHAPE_FACTORIES = {"empty", "zeros", "ones", "full", "rand", "randn"}
_SAME_TENSOR_METHODS = {"contiguous", "clone", "detach"}
_NUMEL_METHODS = {"reshape", "view", "flatten"}
_NEW_METHODS = {"new_empty", "new_zeros", "new_ones", "new_full"}
_INT_BINOPS: dict[type, str] = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.LeftShift: "<<", cst.RightShift: ">>", cst.Power: "**",
    cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
}


class HostEvaluator:
    """Evaluates the straight-line host code before a launch into symbolic values."""

    def __init__(self, source: SourceModule) -> None:
        self.source = source
        self.kernel_names = {k.name for k in source.kernels}
        self.module_env: dict[str, Binding] = {}
        self.depth = 0

    # -- environments --

    def module_binding(self, name: str) -> Binding | None:
        if name in self.module_env:
            return self.module_env[name]
        node = self.source.constants.get(name)
        if node is None:
            return None
        binding = Binding(name, Opaque(f"module constant `{name}` is being evaluated"))
        self.module_env[name] = binding
        binding.value = self.eval(node, {})
        return binding

    def env_at(self, site: LaunchSite) -> dict[str, Binding]:
        """Bindings of the host function's names at the launch (module scope outside one)."""
        env: dict[str, Binding] = {}
        host = self.source.functions.get(site.host_function or "")
        if host is None:
            return env
        for param in (*host.params.posonly_params, *host.params.params,
                      *host.params.kwonly_params):
            binding = Binding(param.name.value, Opaque(""))
            binding.value = ParamRef(binding)
            env[param.name.value] = binding
        self._walk(host.body.body, env, site)
        return env

    def _walk(self, stmts: object, env: dict[str, Binding], site: LaunchSite) -> bool:
        """Applies statements up to the one holding the launch; True once it is reached."""
        for stmt in stmts:  # type: ignore[attr-defined]
            if self._contains(stmt, site):
                self._enter(stmt, env, site)
                return True
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._apply(small, env)
            else:
                for name in _assigned_names(stmt):
                    env[name] = Binding(name, Opaque(f"`{name}` is assigned in a block"))
        return False

    def _enter(self, stmt: cst.CSTNode, env: dict[str, Binding], site: LaunchSite) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            return
        if isinstance(stmt, cst.For | cst.While):
            for name in _assigned_names(stmt):
                env[name] = Binding(name, Opaque(f"`{name}` changes in a loop"))
        for block in _blocks(stmt):
            if self._walk(block, env, site):
                return

    def _contains(self, node: cst.CSTNode, site: LaunchSite) -> bool:
        span = self.source.span(node)
        if span is None or span.end_line is None:
            return False
        start = (span.line, span.col)
        end = (span.end_line, span.end_col or 0)
        point = (site.span.line, site.span.col)
        return start <= point < end

    def _apply(self, small: cst.BaseSmallStatement, env: dict[str, Binding]) -> None:
        if isinstance(small, cst.Assign):
            value = self.eval(small.value, env)
            for target in small.targets:
                self._bind(target.target, value, env, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, self.eval(small.value, env), env, small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            op = _aug_op(small.operator)
            left = _as_int(self.eval(small.target, env))
            right = _as_int(self.eval(small.value, env))
            name = small.target.value
            value: Value = (IntVal(Bin(op, left, right)) if op and left and right
                            else Opaque(f"`{name} {op or '?'}=` is not an integer update"))
            env[name] = Binding(name, value)

    def _bind(self, target: cst.BaseAssignTargetExpression, value: Value,
              env: dict[str, Binding], node: cst.BaseExpression | None = None) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = Binding(target.value, value, node=node)
            return
        if not isinstance(target, cst.Tuple | cst.List):
            return
        items = self._unpack(value, len(target.elements))
        for element, item in zip(target.elements, items, strict=True):
            if isinstance(element, cst.StarredElement):
                self._bind(element.value, Opaque("starred unpacking"), env)
            else:
                self._bind(element.value, item, env)

    def _unpack(self, value: Value, count: int) -> list[Value]:
        if isinstance(value, TupleVal) and len(value.items) == count:
            return list(value.items)
        if isinstance(value, ShapeVal):
            return [IntVal(Dim(value.tensor, i)) for i in range(count)]
        return [Opaque(f"cannot unpack {_why(value)}") for _ in range(count)]

    # -- expressions --

    def eval(self, node: cst.BaseExpression, env: dict[str, Binding]) -> Value:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            return Opaque(f"`{_code(node)}` is outside the translated host subset")
        return method(node, env)

    def _eval_Integer(self, node: cst.Integer, env: dict[str, Binding]) -> Value:
        return IntVal(Lit(int(node.evaluated_value)))

    def _eval_Name(self, node: cst.Name, env: dict[str, Binding]) -> Value:
        name = node.value
        if name in ("True", "False"):
            return IntVal(Lit(int(name == "True")))
        binding = env.get(name) or self.module_binding(name)
        if binding is not None:
            if isinstance(binding.value, IntVal):
                return IntVal(Var(binding))
            return binding.value
        if name in self.kernel_names:
            return KernelVal((name,))
        return Opaque(f"`{name}` is not a host value the launcher can compute")

    def _eval_Tuple(self, node: cst.Tuple, env: dict[str, Binding]) -> Value:
        return self._sequence(node.elements, env)

    def _eval_List(self, node: cst.List, env: dict[str, Binding]) -> Value:
        return self._sequence(node.elements, env)

    def _sequence(self, elements: object, env: dict[str, Binding]) -> Value:
        items: list[Value] = []
        for element in elements:  # type: ignore[attr-defined]
            if isinstance(element, cst.StarredElement):
                return Opaque("a starred element")
            items.append(self.eval(element.value, env))
        return TupleVal(tuple(items))

    def _eval_BinaryOperation(self, node: cst.BinaryOperation,
                              env: dict[str, Binding]) -> Value:
        op = _INT_BINOPS.get(type(node.operator))
        left = _as_int(self.eval(node.left, env))
        right = _as_int(self.eval(node.right, env))
        if op is None or left is None or right is None:
            return Opaque(f"`{_code(node)}` is not integer arithmetic on known values")
        return IntVal(Bin(op, left, right))

    def _eval_UnaryOperation(self, node: cst.UnaryOperation,
                             env: dict[str, Binding]) -> Value:
        operand = _as_int(self.eval(node.expression, env))
        if operand is None:
            return Opaque(f"`{_code(node)}` has an unknown operand")
        if isinstance(node.operator, cst.Minus):
            return IntVal(Fn("neg", (operand,)))
        if isinstance(node.operator, cst.Plus):
            return IntVal(operand)
        return Opaque(f"`{_code(node)}`: unsupported unary operator")

    def _eval_IfExp(self, node: cst.IfExp, env: dict[str, Binding]) -> Value:
        body, orelse = self.eval(node.body, env), self.eval(node.orelse, env)
        if isinstance(body, KernelVal) and isinstance(orelse, KernelVal):
            return KernelVal(body.names + tuple(n for n in orelse.names if n not in body.names))
        if _as_tensor(body) is not None or _as_tensor(orelse) is not None:
            return TensorInfo(f"`{_code(node)}`")
        return Opaque(f"`{_code(node)}` depends on a host condition")

    def _eval_Subscript(self, node: cst.Subscript, env: dict[str, Binding]) -> Value:
        base = self.eval(node.value, env)
        index = _literal_index(node)
        if index is None:
            return Opaque(f"`{_code(node)}`: only constant integer indices are translated")
        if isinstance(base, ShapeVal):
            return IntVal(Dim(base.tensor, index))
        if isinstance(base, TupleVal) and -len(base.items) <= index < len(base.items):
            return base.items[index]
        return Opaque(f"`{_code(node)}` indexes {_why(base)}")

    def _eval_Attribute(self, node: cst.Attribute, env: dict[str, Binding]) -> Value:
        attr = node.attr.value
        name = dotted_name(node)
        if name is not None and self._is_torch(name.split(".")[0]) and attr in TORCH_DTYPES:
            return DTypeVal(fixed=TORCH_DTYPES[attr])
        base = self.eval(node.value, env)
        if isinstance(base, DevicePropsVal) and attr == "multi_processor_count":
            return IntVal(DeviceSMs())
        tensor = _as_tensor(base)
        if tensor is not None and attr == "shape":
            return ShapeVal(tensor)
        if tensor is not None and attr == "dtype":
            return DTypeVal(tensor=tensor)
        if tensor is not None and attr == "ndim":
            return IntVal(NDim(tensor))
        return Opaque(f"`{_code(node)}` is outside the translated host subset")

    def _is_torch(self, head: str) -> bool:
        return self.source.module_aliases.get(head, "").split(".")[0] == "torch"

    def _eval_Call(self, node: cst.Call, env: dict[str, Binding]) -> Value:
        if tile_attr(self.source, node.func) == "cdiv":
            return self._int_fn("cdiv", node, env, 2)
        if isinstance(node.func, cst.Name):
            return self._call_name(node, node.func.value, env)
        if isinstance(node.func, cst.Attribute):
            return self._call_attribute(node, node.func, env)
        return Opaque(f"`{_code(node)}` is outside the translated host subset")

    def _call_name(self, node: cst.Call, name: str, env: dict[str, Binding]) -> Value:
        if name in ("min", "max", "abs") and name not in env:
            return self._int_fn(name, node, env, None if name != "abs" else 1)
        if name == "int" and len(node.args) == 1 and name not in env:
            value = self.eval(node.args[0].value, env)
            return value if isinstance(value, IntVal) else Opaque(f"`{_code(node)}`")
        if name == "len" and len(node.args) == 1 and name not in env:
            value = self.eval(node.args[0].value, env)
            if isinstance(value, ShapeVal):
                return IntVal(NDim(value.tensor))
            tensor = _as_tensor(value)
            return IntVal(Dim(tensor, 0)) if tensor else Opaque(f"`{_code(node)}`")
        if name in self.source.functions and name not in self.kernel_names:
            return self._inline(node, name, env)
        return self._torch_call(node, self.source.module_aliases.get(name, ""), env)

    def _call_attribute(self, node: cst.Call, func: cst.Attribute,
                        env: dict[str, Binding]) -> Value:
        name = dotted_name(func)
        head = name.split(".")[0] if name else ""
        if name and self._is_torch(head) and head not in env:
            full = self.source.module_aliases[head] + name[len(head):]
            return self._torch_call(node, full, env)
        base = self.eval(func.value, env)
        method = func.attr.value
        if method == "bit_length" and not node.args and _as_int(base) is not None:
            return IntVal(Fn("bit_length", (_as_int(base),)))  # type: ignore[arg-type]
        tensor = _as_tensor(base)
        if tensor is None:
            return Opaque(f"`{_code(node)}` is outside the translated host subset")
        return self._tensor_method(node, tensor, method, env)

    def _tensor_method(self, node: cst.Call, tensor: TensorInfo, method: str,
                       env: dict[str, Binding]) -> Value:
        args = [a.value for a in node.args if a.keyword is None]
        if method == "size" and not args:
            return ShapeVal(tensor)
        if method == "size" and len(args) == 1:
            axis = _int_literal(args[0])
            return IntVal(Dim(tensor, axis)) if axis is not None else Opaque("size(axis)")
        if method == "numel" and not args:
            return IntVal(Numel(tensor))
        if method == "dim" and not args:
            return IntVal(NDim(tensor))
        origin = f"`{_code(node)}`"
        if method in _SAME_TENSOR_METHODS:
            return TensorInfo(origin, same_shape=tensor, dtype_of=tensor)
        if method in _NUMEL_METHODS:
            return TensorInfo(origin, shape=self._reshape(args, tensor, env),
                              same_numel=tensor, dtype_of=tensor)
        if method in _NEW_METHODS:
            shape = self._shape_arg(args, env)
            return self._with_dtype(TensorInfo(origin, shape=shape, dtype_of=tensor), node, env)
        return TensorInfo(origin)

    def _reshape(self, args: list[cst.BaseExpression], tensor: TensorInfo,
                 env: dict[str, Binding]) -> tuple[Expr, ...] | None:
        if len(args) == 1 and _int_literal(args[0]) == -1:
            return (Numel(tensor),)
        shape = self._shape_arg(args, env)
        if shape is None or any(d == Lit(-1) for d in shape):
            return None
        return shape

    def _shape_arg(self, args: list[cst.BaseExpression],
                   env: dict[str, Binding]) -> tuple[Expr, ...] | None:
        if len(args) == 1:
            value = self.eval(args[0], env)
            if isinstance(value, ShapeVal):
                return None
            if isinstance(value, TupleVal):
                return _int_tuple(value.items)
            single = _as_int(value)
            return (single,) if single is not None else None
        return _int_tuple(tuple(self.eval(a, env) for a in args))

    def _torch_call(self, node: cst.Call, full: str, env: dict[str, Binding]) -> Value:
        parts = full.split(".")
        if parts[:1] != ["torch"]:
            return Opaque(f"`{_code(node)}` is not a host function the launcher can run")
        func = parts[-1]
        args = [a.value for a in node.args if a.keyword is None]
        origin = f"`{_code(node)}`"
        if full == "torch.cuda.get_device_properties":
            return DevicePropsVal()
        if func in _LIKE_FACTORIES and args:
            like = _as_tensor(self.eval(args[0], env))
            if like is None:
                return TensorInfo(origin)
            return self._with_dtype(TensorInfo(origin, same_shape=like, dtype_of=like),
                                    node, env)
        if func in _SHAPE_FACTORIES:
            shape_args = args[:1] if func == "full" else args
            return self._with_dtype(TensorInfo(origin, shape=self._shape_arg(shape_args, env),
                                               dtype="f32"), node, env)
        return TensorInfo(origin) if func != "cdiv" else Opaque(origin)

    def _with_dtype(self, tensor: TensorInfo, node: cst.Call,
                    env: dict[str, Binding]) -> TensorInfo:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                value = self.eval(arg.value, env)
                known = isinstance(value, DTypeVal)
                tensor.dtype = value.fixed if known else None  # type: ignore[union-attr]
                tensor.dtype_of = value.tensor if known else None  # type: ignore[union-attr]
        return tensor

    def _int_fn(self, name: str, node: cst.Call, env: dict[str, Binding],
                arity: int | None) -> Value:
        args = [_as_int(self.eval(a.value, env)) for a in node.args if a.keyword is None]
        if any(a is None for a in args) or not args or (arity and len(args) != arity):
            return Opaque(f"`{_code(node)}` has arguments the launcher cannot compute")
        if len(args) == 1 and name in ("min", "max"):
            return Opaque(f"`{_code(node)}`: min/max over an iterable")
        return IntVal(Fn(name, tuple(args)))  # type: ignore[arg-type]

    def _inline(self, node: cst.Call, name: str, env: dict[str, Binding]) -> Value:
        fn = self.source.functions[name]
        body = _single_return(fn)
        params = [p.name.value for p in fn.params.params]
        if body is None or self.depth >= _MAX_INLINE_DEPTH or len(node.args) > len(params):
            return Opaque(f"`{name}(..)` is not a one-line helper the launcher can inline")
        if any(a.keyword is not None for a in node.args):
            return Opaque(f"`{_code(node)}`: keyword arguments to a helper")
        inner: dict[str, Binding] = {}
        for pname, arg in zip(params, node.args, strict=False):
            inner[pname] = Binding(pname, self.eval(arg.value, env))
        self.depth += 1
        try:
            return self.eval(body, inner)
        finally:
            self.depth -= 1


def _aug_op(operator: cst.BaseAugOp) -> str | None:
    names = {"AddAssign": "+", "SubtractAssign": "-", "MultiplyAssign": "*",
             "FloorDivideAssign": "//", "ModuloAssign": "%", "LeftShiftAssign": "<<",
             "RightShiftAssign": ">>", "PowerAssign": "**"}
    return names.get(type(operator).__name__)


def _int_tuple(items: tuple[Value, ...]) -> tuple[Expr, ...] | None:
    exprs = tuple(_as_int(v) for v in items)
    return None if any(e is None for e in exprs) else exprs  # type: ignore[return-value]


def _int_literal(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
            and isinstance(node.expression, cst.Integer)):
        return -int(node.expression.evaluated_value)
    return None


def _literal_index(node: cst.Subscript) -> int | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return _int_literal(node.slice[0].slice.value)


def _single_return(fn: cst.FunctionDef) -> cst.BaseExpression | None:
    stmts = list(fn.body.body)
    if stmts and _is_docstring(stmts[0]):
        stmts = stmts[1:]
    if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
        return None
    small = stmts[0].body[0]
    return small.value if isinstance(small, cst.Return) and small.value is not None else None


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString))


def _blocks(stmt: cst.CSTNode) -> list[object]:
    """The statement lists of a compound statement, in source order."""
    out: list[object] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        out.append(body.body)
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        out.extend(_blocks(orelse))
    elif isinstance(orelse, cst.Else):
        out.append(orelse.body.body)
    for handler in getattr(stmt, "handlers", ()) or ():
        out.append(handler.body.body)
    final = getattr(stmt, "finalbody", None)
    if isinstance(final, cst.Finally):
        out.append(final.body.body)
    return out


def _assigned_names(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Finder(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            names.update(_target_names(target.target))

        def visit_AnnAssign(self, assign: cst.AnnAssign) -> None:
            names.update(_target_names(assign.target))

        def visit_AugAssign(self, assign: cst.AugAssign) -> None:
            names.update(_target_names(assign.target))

        def visit_For(self, loop: cst.For) -> None:
            names.update(_target_names(loop.target))

        def visit_AsName(self, alias: cst.AsName) -> None:
            names.update(_target_names(alias.name))

        def visit_FunctionDef(self, fn: cst.FunctionDef) -> bool:
            names.add(fn.name.value)
            return False

    node.visit(Finder())
    return names


def _target_names(node: cst.CSTNode) -> set[str]:
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Tuple | cst.List):
        out: set[str] = set()
        for element in node.elements:
            out |= _target_names(element.value)
        return out
    if isinstance(node, cst.StarredElement):
        return _target_names(node.value)
    return set()


def _code(node: cst.CSTNode) -> str:
    text = cst.Module(body=[]).code_for_node(node)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


# ---- launch plans --------------------------------------------------------------------------


@dataclass(frozen=True)
class GenericPlan:
    """How a launcher obtains one element-type generic."""

    name: str
    mode: str  # "dispatch" | "same" | "fixed"
    other: str = ""  # "same": the generic it equals; "fixed": the element type
    why: str = ""


@dataclass
class KernelLaunch:
    """One kernel launched at one site: everything the Rust and Python emitters need."""

    site_index: int
    site: LaunchSite
    entries: list[KernelSig]  # the Rust entries of the kernel (variants: several)
    symbol: str
    grid: tuple[str, str, str] | None
    grid_note: str
    generics: dict[str, dict[str, GenericPlan]] = field(default_factory=dict)  # by entry
    unreachable: list[tuple[KernelSig, str]] = field(default_factory=list)  # entry, why

    @property
    def kernel(self) -> KernelSig:
        """The first entry; every entry of a kernel has the same Python parameters."""
        return self.entries[0]


@dataclass
class LaunchPlan:
    """Every launch site of a file, or the reason a site has no launcher."""

    path: str
    module: str
    launches: list[KernelLaunch]
    skipped: list[tuple[LaunchSite, str]]
    sites: list[LaunchSite]
    element_types: tuple[str, ...]


def plan_launches(source: SourceModule, rust: str,
                  element_types: tuple[str, ...] = DEFAULT_ELEMENT_TYPES) -> LaunchPlan:
    """Resolves every launch site of `source` against the kernels translated in `rust`."""
    module, sigs = kernel_signatures(rust)
    evaluator = HostEvaluator(source)
    plan = LaunchPlan(source.path, module, [], [], list(source.launches), element_types)
    used: set[str] = set()
    for index, site in enumerate(source.launches):
        env = evaluator.env_at(site)
        kernels = _site_kernels(evaluator, site, env)
        if isinstance(kernels, str):
            plan.skipped.append((site, kernels))
            continue
        for name in kernels:
            if name not in sigs:
                plan.skipped.append((site, f"kernel `{name}` has no translation"))
                continue
            launch = _plan_kernel(evaluator, env, site, index, sigs[name], module, used)
            if isinstance(launch, str):
                plan.skipped.append((site, launch))
            else:
                plan.launches.append(launch)
    return plan


def _site_kernels(evaluator: HostEvaluator, site: LaunchSite,
                  env: dict[str, Binding]) -> list[str] | str:
    if site.kernel in evaluator.kernel_names:
        return [site.kernel]  # type: ignore[list-item]
    if site.kernel is None:
        return "the launched kernel is not a name"
    value = evaluator.eval(cst.parse_expression(site.kernel), env)
    if isinstance(value, KernelVal):
        return list(value.names)
    return f"`{site.kernel}` is not a kernel the launcher can name ({_why(value)})"


def _plan_kernel(evaluator: HostEvaluator, env: dict[str, Binding], site: LaunchSite,
                 index: int, entries: list[KernelSig], module: str,
                 used: set[str]) -> KernelLaunch | str:
    unreachable = [(e, _unreachable(e)) for e in entries if _unreachable(e)]
    entries = [e for e in entries if not _unreachable(e)]
    if not entries:
        return "; ".join(f"entry `{e.rust_fn}` {why}" for e, why in unreachable)
    sig = entries[0]
    if len(site.args) != len(sig.params):
        return (f"`{sig.name}` takes {len(sig.params)} arguments, the launch passes "
                f"{len(site.args)}")
    values = [evaluator.eval(arg, env) for arg in site.args]
    infos: dict[str, TensorInfo | None] = {}
    ints: dict[int, ParamSig] = {}
    for param, arg, value in zip(sig.params, site.args, values, strict=True):
        if param.kind == "array":
            infos[param.name] = _as_tensor(value)
        elif isinstance(arg, cst.Name):
            binding = env.get(arg.value) or evaluator.module_binding(arg.value)
            if binding is not None:
                ints[id(binding)] = param
    resolver = Resolver(sig, infos, ints)
    grid, note = _plan_grid(evaluator, env, site, resolver)
    launch = KernelLaunch(index, site, entries, _symbol(module, site, sig, used), grid, note,
                          unreachable=unreachable)
    launch.generics = {e.rust_fn: plan_generics(e, infos) for e in entries}
    return launch


def _unreachable(entry: KernelSig) -> str:
    """Why no launch through the C ABI can select this variant entry ("" if one can)."""
    missing = sorted({e for _, e in entry.variant if e not in DTYPE_CODES})
    if missing:
        return (f"is the translation for element type {', '.join(missing)}, which the C ABI "
                "has no dtype code for")
    return ""


def _symbol(module: str, site: LaunchSite, sig: KernelSig, used: set[str]) -> str:
    base = f"tl_{module}__{site.host_function or 'module'}__{sig.name}"
    symbol, n = base, 1
    while symbol in used:
        n += 1
        symbol = f"{base}__{n}"
    used.add(symbol)
    return symbol


def _plan_grid(evaluator: HostEvaluator, env: dict[str, Binding], site: LaunchSite,
               resolver: Resolver) -> tuple[tuple[str, str, str] | None, str]:
    value = evaluator.eval(site.grid, env)
    items: tuple[Value, ...]
    if _as_int(value) is not None:
        items = (value,)
    elif isinstance(value, TupleVal) and 1 <= len(value.items) <= 3:
        items = value.items
    else:
        return None, f"the grid `{_code(site.grid)}` is {_why(value)}"
    out: list[str] = []
    for item in items:
        expr = _as_int(item)
        if expr is None:
            return None, f"a grid entry is {_why(item)}"
        rust = resolver.rust(expr)
        if isinstance(rust, Failure):
            return None, rust.reason
        out.append(rust)
    out.extend(["1i64"] * (3 - len(out)))
    return (out[0], out[1], out[2]), f"translated from `{_grid_text(site, env)}`"


def _grid_text(site: LaunchSite, env: dict[str, Binding]) -> str:
    text = _code(site.grid)
    if isinstance(site.grid, cst.Name) and site.grid.value in env:
        node = env[site.grid.value].node
        if node is not None:
            return f"{text} = {_code(node)}"
    return text


@dataclass(frozen=True)
class Failure:
    reason: str


class Resolver:
    """Turns symbolic host integers into Rust over one launcher's parameters: descriptor
    shapes of the array arguments, the integer arguments, literals and the device."""

    def __init__(self, sig: KernelSig, infos: dict[str, TensorInfo | None],
                 ints: dict[int, ParamSig]) -> None:
        self.params = {id(i): sig.param(n) for n, i in infos.items() if i is not None}
        self.args = [i for i in infos.values() if i is not None]
        self.ints = ints
        self.depth = 0

    def rust(self, expr: Expr) -> str | Failure:
        self.depth += 1
        try:
            if self.depth > 64:
                return Failure("the grid expression is too deep")
            return self._rust(expr)
        finally:
            self.depth -= 1

    def _rust(self, expr: Expr) -> str | Failure:
        if isinstance(expr, Lit):
            return f"{expr.value}i64"
        if isinstance(expr, Var):
            return self._var(expr.binding)
        if isinstance(expr, Dim):
            return self._dim(expr.tensor, expr.axis, frozenset())
        if isinstance(expr, Numel):
            return self._numel(expr.tensor, frozenset())
        if isinstance(expr, NDim):
            ndim = self.ndim(expr.tensor, frozenset())
            return f"{ndim}i64" if ndim is not None else Failure("a tensor rank is unknown")
        if isinstance(expr, DeviceSMs):
            return "multiprocessor_count(device)?"
        operands = (expr.left, expr.right) if isinstance(expr, Bin) else expr.args
        parts = [self.rust(a) for a in operands]
        failed = next((p for p in parts if isinstance(p, Failure)), None)
        return failed if failed is not None else _rust_op(expr, parts)  # type: ignore[arg-type]

    def _var(self, binding: Binding) -> str | Failure:
        param = self.ints.get(id(binding))
        if param is not None:
            if param.c_type in ("f32", "f64"):
                return Failure(f"`{binding.name}` is a float")
            return f"i64::from({param.ident})"
        if isinstance(binding.value, IntVal):
            return self.rust(binding.value.expr)
        if isinstance(binding.value, ParamRef):
            return Failure(f"host parameter `{binding.name}` is not passed to the kernel")
        return Failure(_why(binding.value))

    def _related(self, tensor: TensorInfo, numel: bool) -> list[TensorInfo]:
        """Tensors with the same shape (or, with `numel`, the same element count)."""
        out = [t for t in (tensor.same_shape, tensor.same_numel if numel else None) if t]
        for arg in self.args:
            if arg.same_shape is tensor or (numel and arg.same_numel is tensor):
                out.append(arg)
        return out

    def ndim(self, tensor: TensorInfo, seen: frozenset[int]) -> int | None:
        if id(tensor) in self.params:
            return self.params[id(tensor)].ndim
        if tensor.shape is not None:
            return len(tensor.shape)
        for other in self._related(tensor, numel=False):
            if id(other) not in seen:
                found = self.ndim(other, seen | {id(tensor)})
                if found is not None:
                    return found
        return None

    def _dim(self, tensor: TensorInfo, axis: int, seen: frozenset[int]) -> str | Failure:
        ndim = self.ndim(tensor, frozenset())
        if ndim is not None and axis < 0:
            axis += ndim
        if ndim is not None and not 0 <= axis < ndim:
            return Failure(f"axis {axis} is out of range for {tensor.origin}")
        if id(tensor) in self.params:
            return f"{self.params[id(tensor)].ident}.dim({axis})"
        if tensor.shape is not None:
            return self.rust(tensor.shape[axis])
        for other in self._related(tensor, numel=False):
            if id(other) not in seen:
                found = self._dim(other, axis, seen | {id(tensor)})
                if not isinstance(found, Failure):
                    return found
        return Failure(f"the shape of {tensor.origin} is not known from the kernel's arguments")

    def _numel(self, tensor: TensorInfo, seen: frozenset[int]) -> str | Failure:
        if id(tensor) in self.params:
            return f"{self.params[id(tensor)].ident}.numel()"
        if tensor.shape is not None:
            dims = [self.rust(d) for d in tensor.shape]
            failed = next((d for d in dims if isinstance(d, Failure)), None)
            return failed or "(" + " * ".join(["1i64", *dims]) + ")"  # type: ignore[list-item]
        for other in self._related(tensor, numel=True):
            if id(other) not in seen:
                found = self._numel(other, seen | {id(tensor)})
                if not isinstance(found, Failure):
                    return found
        return Failure(f"the size of {tensor.origin} is not known from the kernel's arguments")


def _rust_op(expr: Bin | Fn, parts: list[str]) -> str:
    if isinstance(expr, Bin):
        left, right = parts
        checked = {"//": "floordiv", "%": "pymod", "<<": "shl", ">>": "shr", "**": "ipow"}
        if expr.op in checked:
            return f"{checked[expr.op]}({_bare(left)}, {_bare(right)})?"
        return f"({left} {expr.op} {right})"
    if expr.name == "cdiv":
        return f"cdiv({_bare(parts[0])}, {_bare(parts[1])})?"
    if expr.name in ("min", "max"):
        out = parts[0]
        for part in parts[1:]:
            out = f"{out}.{expr.name}({_bare(part)})"
        return out
    if expr.name == "abs":
        return f"{parts[0]}.abs()"
    if expr.name == "neg":
        return f"(-{parts[0]})"
    return f"bit_length({_bare(parts[0])})"


def _bare(text: str) -> str:
    """`text` without the parentheses that wrap all of it (rustc warns about them around a
    call's argument)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return text  # the first parenthesis closes early: `(a) + (b)`
    return text[1:-1]


# ---- element-type generics -----------------------------------------------------------------


def plan_generics(sig: KernelSig, infos: dict[str, TensorInfo | None]) -> dict[str, GenericPlan]:
    """Element-type generics: dispatched at run time over the built element types, or tied
    by the host code to another generic or a fixed dtype (`torch.empty_like(x)`,
    `dtype=x.dtype`, `dtype=torch.float32`), which saves dispatch arms."""
    type_generics = [g for g in sig.generics if g.kind == "type"]
    owner = {p: g.name for g in type_generics for p in g.params}
    roots = {name: _dtype_root(info) for name, info in infos.items()}
    ties: dict[str, tuple[str, str]] = {}
    for generic in type_generics:
        for param in generic.params:
            tie = _tie_for(param, roots, owner, sig)
            if tie is not None and tie != ("same", generic.name):
                ties[generic.name] = tie
                break
    return _resolve_ties([g.name for g in type_generics], ties)


def _dtype_root(info: TensorInfo | None) -> tuple[str, object] | None:
    """The fixed dtype of a host tensor, or the tensor its dtype comes from."""
    seen: set[int] = set()
    while info is not None and id(info) not in seen:
        seen.add(id(info))
        if info.dtype is not None:
            return ("fixed", info.dtype)
        if info.dtype_of is None:
            return ("root", id(info))
        info = info.dtype_of
    return None


def _tie_for(param: str, roots: dict[str, tuple[str, object] | None], owner: dict[str, str],
             sig: KernelSig) -> tuple[str, str] | None:
    root = roots.get(param)
    if root is None:
        return None
    if root[0] == "fixed":
        return ("fixed", str(root[1]))
    for other, other_root in roots.items():
        if other == param or other_root != root:
            continue
        if other in owner:
            if owner[other] != owner.get(param):
                return ("same", owner[other])
        else:
            return ("fixed", sig.param(other).element)
    return None


def _resolve_ties(names: list[str], ties: dict[str, tuple[str, str]]) -> dict[str, GenericPlan]:
    plans: dict[str, GenericPlan] = {}
    pending = list(names)
    while pending:
        progress = False
        for name in list(pending):
            plan = _generic_plan(name, ties.get(name, ("dispatch", "")), plans)
            if plan is not None:
                plans[name] = plan
                pending.remove(name)
                progress = True
        if not progress:
            plans[pending[0]] = GenericPlan(pending[0], "dispatch")
            pending.pop(0)
    return plans


def _generic_plan(name: str, tie: tuple[str, str],
                  plans: dict[str, GenericPlan]) -> GenericPlan | None:
    mode, other = tie
    if mode == "fixed":
        return GenericPlan(name, "fixed", other, "the host code fixes this dtype")
    if mode == "dispatch":
        return GenericPlan(name, "dispatch")
    root = plans.get(other)
    if root is None:
        return None
    if root.mode == "fixed":
        return GenericPlan(name, "fixed", root.other, root.why)
    target = root.other if root.mode == "same" else other
    return GenericPlan(name, "same", target, f"the host code gives it the dtype of `{target}`")


# ---- Rust emission -------------------------------------------------------------------------

_HALF_TYPES = {"f16", "bf16"}
_PRIMITIVES = {"bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"}
_INT_SCALARS = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}


def emit_rust_launchers(source: SourceModule, rust: str,
                        element_types: tuple[str, ...] = DEFAULT_ELEMENT_TYPES) -> str:
    """The Rust launchers of every launch site of `source` (see the module docstring)."""
    plan = plan_launches(source, rust, element_types)
    parts = [_rust_header(plan)]
    for launch in plan.launches:
        parts.extend(_rust_launch(launch, plan))
    for site, why in plan.skipped:
        parts.append(f"// No launcher for the `ct.launch` at line {site.span.line}: {why}.\n")
    return format_rust("\n".join(parts))


def _rust_header(plan: LaunchPlan) -> str:
    name = plan.path.replace("\\", "/").rsplit("/", 1)[-1]
    return "\n".join([
        f"//! C-ABI launchers for the kernels of `{name}` (generated by `python -m transpiler "
        f"{name} --emit launcher`; do not edit).",
        "//!",
        "//! One `extern \"C\"` function per `ct.launch` site and kernel: the caller's CUstream,",
        "//! the device ordinal, a `TensorDesc` per array and the scalars and constants in the",
        "//! kernel's parameter order; it returns a `TL_*` code (`tl_last_error()` says why).",
        "//! Array dtypes are dispatched over: " + ", ".join(plan.element_types) + ".",
        "#![allow(non_snake_case, unused_variables, unused_imports, clippy::all)]",
        "",
        "use std::ffi::c_void;",
        "",
        "use cutile::cuda_core::{Context, DType, Stream};",
        "use cutile::half::{bf16, f16};",
        "use cutile::prelude::{Arc, DeviceOp, TileKernel};",
        "",
        "use crate::fast::*;",
        "use crate::runtime::*;",
        f"use crate::kernels::{plan.module} as kmod;",
        "",
    ])


def _rust_launch(launch: KernelLaunch, plan: LaunchPlan) -> list[str]:
    parts: list[str] = []
    tag = f"s{launch.site_index}_{launch.kernel.name}"
    if launch.grid is not None:
        parts.append(_rust_grid_fn(launch, tag))
    for entry in launch.entries:
        parts.append(_rust_run_fn(launch, entry, tag, plan))
    parts.append(_rust_extern(launch, tag, plan))
    if packable(launch.kernel):
        parts.append(_rust_packed_extern(launch))
    if launch.grid is not None:
        parts.append(_rust_grid_extern(launch, tag))
    return parts


def _c_params(sig: KernelSig, as_refs: bool) -> list[str]:
    out = []
    for p in sig.params:
        ctype = "&TensorDesc" if as_refs and p.kind == "array" else p.c_type
        out.append(f"{p.ident}: {ctype}")
    return out


def _c_args(sig: KernelSig) -> list[str]:
    return [p.ident for p in sig.params]


def _rust_grid_fn(launch: KernelLaunch, tag: str) -> str:
    params = ", ".join(["device: i32", *_c_params(launch.kernel, True)])
    gx, gy, gz = launch.grid  # type: ignore[misc]
    return (f"/// Grid of `{launch.symbol}`: {launch.grid_note}.\n"
            f"fn grid_{tag}({params}) -> TlResult<[i64; 3]> {{\n"
            f"    Ok([{gx}, {gy}, {gz}])\n}}\n")


def _rust_type(element: str) -> str:
    if element in _HALF_TYPES or element in _PRIMITIVES:
        return element
    return f"cutile::cuda_core::{element}"


def _element_types(entry: KernelSig, plans: dict[str, GenericPlan]) -> dict[str, str]:
    """Rust type of each element-type generic inside the run function."""
    out: dict[str, str] = {}
    for name, plan in plans.items():
        if plan.mode == "dispatch":
            out[name] = name
        elif plan.mode == "same":
            out[name] = plan.other
        else:
            out[name] = _rust_type(plan.other)
    return out


def _rust_run_fn(launch: KernelLaunch, entry: KernelSig, tag: str, plan: LaunchPlan) -> str:
    plans = launch.generics[entry.rust_fn]
    types = _element_types(entry, plans)
    dispatched = [g for g in entry.generics if plans.get(g.name, GenericPlan("", "")).mode
                  == "dispatch"]
    bounds = ", ".join(f"{g.name}: DType" for g in dispatched)
    fast = _fast_supported(entry)
    params = ", ".join(["device: i32", "context: &Arc<Context>", "stream: &Arc<Stream>",
                        "grid: (u32, u32, u32)", *_c_params(entry, True),
                        *(["fast: &FastCache", "fast_key: &FastKey", "packet: &Packet"]
                          if fast else [])])
    name = f"run_{tag}_{entry.rust_fn}"
    warm = f"WARM_{tag}_{entry.rust_fn}".upper()
    body = [f"    let {name_}: i32 = {entry.param(array).ident}.strides[{dim}] as i32;"
            for name_, array, dim in entry.strides]
    body += [f"    let {p.ident} = unsafe {{ {p.ident}.borrow::<"
            f"{types.get(p.element, _rust_type(p.element))}>(context, {json.dumps(p.name)})? }};"
            for p in entry.params if p.kind == "array"]
    body += [f"    let {name_}: f32 = ({_rust_float(expr, entry)}) as f32;"
             for name_, expr in entry.derived]
    values = ", ".join(_generic_values(entry, types))
    body.append(f"    let generics: Vec<String> = vec![{values}];")
    key = "SpecKey::new(device, &generics)"
    key += "".join(f".tensor(&{p.ident})" for p in entry.params if p.kind == "array")
    key += "".join(f".scalar(i64::from({p.ident}))" for p in entry.params
                   if p.kind == "scalar" and p.element in _INT_SCALARS and p.element != "u64")
    body.append(f"    let key = {key};")
    if fast:
        body.append("    let spec = key.clone();")
        body.append("    let resolve_generics = generics.clone();")
    body.append(f"    run_launch(&{warm}, key, || {{")
    body.append("        context.bind_to_thread().map_err(LaunchError::launch)?;")
    body.append(f"        let op = kmod::{entry.rust_fn}({', '.join(_rust_call_args(entry))})"
                ".generics(generics).grid(grid);")
    body.append("        unsafe { op.async_on(stream) }.map(|_| ()).map_err(LaunchError::launch)")
    body.append("    })" + ("?;" if fast else ""))
    if fast:
        # The key went through cutile's checked launch: remember it for the fast path.
        body.append("    fast.remember(fast_key, packet, context, &spec, |probe| {")
        body.append(f"        kmod::{entry.rust_fn}({', '.join(_rust_call_args(entry))})"
                    ".generics(resolve_generics).grid(grid).l1_cache_key_on(probe)")
        body.append("    });")
        body.append("    Ok(())")
    generics = f"<{bounds}>" if bounds else ""
    fast_static = (f"static {_fast_static(tag, entry)}: FastCache = FastCache::new();\n"
                   if fast else "")
    return (f"static {warm}: WarmSet = WarmSet::new();\n{fast_static}\n"
            f"/// Launches the Rust entry `{entry.rust_fn}` with every element type fixed.\n"
            f"#[allow(clippy::too_many_arguments)]\n"
            f"unsafe fn {name}{generics}({params}) -> TlResult<()> {{\n"
            + "\n".join(body) + "\n}\n")


#: Scalar types a fast-path `Packet` and a packed record carry (Rust type -> method, and the
#: Python `struct` code of the packed record).
_PACKET_TYPES: dict[str, str] = {"i32": "i", "i64": "q", "u32": "I", "u64": "Q", "i16": "h",
                                 "u16": "H", "i8": "b", "u8": "B", "bool": "?", "f32": "f",
                                 "f64": "d"}


def _fast_static(tag: str, entry: KernelSig) -> str:
    return f"FAST_{tag}_{entry.rust_fn}".upper()


def _fast_supported(entry: KernelSig) -> bool:
    """Whether the fast path can build this entry's argument packet (every scalar argument
    has a primitive type)."""
    return all(not isinstance(arg, ParamSig) or arg.kind != "scalar"
               or arg.element in _PACKET_TYPES for arg in entry.rust_args)


def _fast_lines(entry: KernelSig, static: str) -> list[str]:
    """The fast path of one entry (runtime `fast.rs`): the launch's key and argument packet,
    and the launch itself when the key was remembered."""
    lines = ["let mut fast_key = FastKey::new(device);"]
    for p in entry.params:
        if p.kind == "array":
            lines.append(f"fast_key.tensor({p.ident});")
        elif p.kind == "scalar" and p.element in _INT_SCALARS:
            lines.append(f"fast_key.hint({p.ident} as i64);")
        elif p.kind == "const" and p.const_kind in ("int", "bool"):
            lines.append(f"fast_key.int({p.ident} as i64);")
        elif p.kind == "const":
            lines.append(f"fast_key.float({p.ident});")
    lines.append("fast_key.grid(grid);")
    lines.append("let mut packet = Packet::new();")
    for arg in entry.rust_args:
        if isinstance(arg, str):
            derived = dict(entry.derived)
            if arg in derived:
                lines.append(f"packet.f32(({_rust_float(derived[arg], entry)}) as f32);")
            else:
                _, array, dim = next(s for s in entry.strides if s[0] == arg)
                lines.append(f"packet.i32({entry.param(array).ident}.strides[{dim}] as i32);")
        elif arg.kind == "array":
            lines.append(f"packet.tensor({arg.ident});")
        elif arg.kind == "const":
            lines.append(f"packet.f32({arg.ident} as f32);")
        else:
            lines.append(f"packet.{arg.element}({arg.ident});")
    lines.append(f"if unsafe {{ {static}.launch(&fast_key, &packet, stream, grid)? }} "
                 "{ return Ok(()); }")
    return lines


def _rust_packed_extern(launch: KernelLaunch) -> str:
    """`<symbol>__packed`: the launcher with its arguments in one record (what the Python
    wrapper passes: a single pointer instead of a descriptor per array)."""
    sig = launch.kernel
    lines = ["    let mut tl_reader = unsafe { PacketReader::new(tl_packet) };",
             "    let stream = unsafe { tl_reader.u64() } as usize as *mut c_void;",
             "    let device = unsafe { tl_reader.i32() };"]
    args = ["stream", "device"]
    for p in sig.params:
        if p.kind == "array":
            lines.append(f"    let {p.ident} = unsafe {{ tl_reader.desc({p.ndim}) }};")
            args.append(f"&{p.ident}")
        else:
            lines.append(f"    let {p.ident} = unsafe {{ tl_reader.{p.c_type}() }};")
            args.append(p.ident)
    if launch.grid is None:
        for axis in ("grid_x", "grid_y", "grid_z"):
            lines.append(f"    let {axis} = unsafe {{ tl_reader.i64() }};")
            args.append(axis)
    return (f"/// `{launch.symbol}` with its arguments in one little-endian record without "
            "padding: `u64` stream,\n/// `i32` device, then per parameter in kernel order "
            "an array as `u64` data, `i32` dtype,\n/// `i64` shape and `i64` strides (its "
            "rank each), a scalar or constant as its C type"
            + (", then the\n/// grid as 3 `i64`" if launch.grid is None else "") + ".\n"
            "///\n/// # Safety\n/// `tl_packet` points to such a record; the rest as for "
            f"`{launch.symbol}`.\n#[no_mangle]\n"
            f"pub unsafe extern \"C\" fn {launch.symbol}__packed(tl_packet: *const u8) -> i32 {{\n"
            "    if tl_packet.is_null() {\n"
            "        return ffi_call(|| Err(LaunchError::invalid(\"null argument record\")));\n"
            "    }\n" + "\n".join(lines) + "\n"
            f"    unsafe {{ {launch.symbol}({', '.join(args)}) }}\n}}\n")


def packable(sig: KernelSig) -> bool:
    """Whether a launch of `sig` gets a `__packed` twin: every scalar and constant has a
    primitive C type and every array a rank the descriptor holds."""
    return all(p.ndim <= 8 if p.kind == "array" else p.c_type in _PACKET_TYPES
               for p in sig.params)


def packed_format(sig: KernelSig, grid_param: bool) -> str:
    """The `struct` format of `<symbol>__packed`'s record for `sig` (see
    `_rust_packed_extern`)."""
    parts = ["<Qi"]
    for p in sig.params:
        if p.kind == "array":
            parts.append("Qi" + "q" * (2 * p.ndim))
        else:
            parts.append(_PACKET_TYPES[p.c_type])
    if grid_param:
        parts.append("qqq")
    return "".join(parts)


def native_layout(sig: KernelSig, grid_param: bool) -> str:
    """The record layout `tl_py_fast` (launcher/template/src/pyfast.rs) packs for `sig`: per
    parameter `A<rank>` or the `struct` character of `packed_format`, then `G` for a grid
    parameter."""
    parts = [f"A{p.ndim}" if p.kind == "array" else _PACKET_TYPES[p.c_type]
             for p in sig.params]
    return ",".join(parts + (["G"] if grid_param else []))


def _generic_values(entry: KernelSig, types: dict[str, str]) -> list[str]:
    out = []
    for generic in entry.generics:
        if generic.kind == "type":
            out.append(f"<{types[generic.name]} as DType>::DTYPE.as_str().to_string()")
        elif generic.tree is not None:
            out.append(f"{_cond_rust(entry, generic.tree)}.to_string()")
        else:
            out.append(f"{entry.param(generic.params[0]).ident}.to_string()")
    return out


def _rust_call_args(entry: KernelSig) -> list[str]:
    out = []
    for arg in entry.rust_args:
        if isinstance(arg, str):
            out.append(arg)
        elif arg.kind == "array":
            out.append(f"&{arg.ident}")
        elif arg.kind == "const":
            out.append(f"{arg.ident} as f32")
        else:
            out.append(arg.ident)
    return out


def _rust_float(tree: object, entry: KernelSig) -> str:
    """A derived float expression in f64, as cuTile Python folds it."""
    if isinstance(tree, list) and tree and tree[0] == "param":
        param = entry.param(str(tree[1]))
        return param.ident if param.c_type == "f64" else f"f64::from({param.ident})"
    if isinstance(tree, list) and len(tree) == 3 and tree[0] in ("+", "-", "*", "/"):
        return f"({_rust_float(tree[1], entry)} {tree[0]} {_rust_float(tree[2], entry)})"
    if isinstance(tree, int | float) and not isinstance(tree, bool):
        value = float(tree)
        if value != value:
            return "f64::NAN"
        if value in (float("inf"), float("-inf")):
            return "f64::INFINITY" if value > 0 else "f64::NEG_INFINITY"
        return f"{value!r}f64"
    raise ValueError(f"cannot compute the derived value {tree!r}")


def _rust_extern(launch: KernelLaunch, tag: str, plan: LaunchPlan) -> str:
    sig = launch.kernel
    params = ["stream: *mut c_void", "device: i32", *_c_params(sig, False)]
    if launch.grid is None:
        params += ["grid_x: i64", "grid_y: i64", "grid_z: i64"]
    body = _desc_lines(sig)
    grid_call = (f"grid_{tag}({', '.join(['device', *_c_args(sig)])})?" if launch.grid
                 else "[grid_x, grid_y, grid_z]")
    body.append(f"        let Some(grid) = grid3({grid_call})? else {{ return Ok(()) }};")
    body.append("        " + _entry_selection(launch, tag, plan))
    return (_extern_doc(launch, plan) + "#[no_mangle]\n"
            f"pub unsafe extern \"C\" fn {launch.symbol}({', '.join(params)}) -> i32 {{\n"
            "    ffi_call(|| {\n" + "\n".join(body) + "\n    })\n}\n")


def _desc_lines(sig: KernelSig) -> list[str]:
    return [f"        let {p.ident} = unsafe {{ desc({p.ident}, {json.dumps(p.name)}, "
            f"{p.ndim})? }};" for p in sig.params if p.kind == "array"]


def _extern_doc(launch: KernelLaunch, plan: LaunchPlan) -> str:
    name = plan.path.replace("\\", "/").rsplit("/", 1)[-1]
    host = launch.site.host_function or "module scope"
    lines = [f"`ct.launch` of `{launch.kernel.name}` in `{host}` ({name}:{launch.site.span.line})."]
    if launch.grid is not None:
        lines.append(f"Grid: {launch.grid_note}.")
    else:
        lines.append(f"Grid: not translated ({launch.grid_note}); the caller passes "
                     "`grid_x, grid_y, grid_z` as the Python host code computes them.")
    for entry in launch.entries:
        lines.append(f"Entry `{entry.rust_fn}`{_variant_doc(entry)}: "
                     + _generics_doc(entry, launch) + ".")
    for entry, why in launch.unreachable:
        lines.append(f"Entry `{entry.rust_fn}` is not launched from here: it {why}.")
    lines += ["", "# Safety",
              "`stream` is null or a live CUstream of `device`; every descriptor points to "
              "device memory of its dtype that stays valid, and is not written by anyone "
              "else, until the launched work completes."]
    return "".join(f"/// {line}\n".replace("///  ", "/// ") if line else "///\n"
                   for line in lines)


def _variant_doc(entry: KernelSig) -> str:
    if not entry.is_variant:
        return ""
    fixed = [*(f"{p} = {e}" for p, e in entry.variant),
             *(f"{p} = {_value_text(v)}" for p, v in entry.consts),
             *(_cond_text(text, value) for _, value, text in entry.conds)]
    return f" (launched for {', '.join(fixed)})"


def _cond_text(text: str, value: bool) -> str:
    return text if value else f"!{text}"


def _generics_doc(entry: KernelSig, launch: KernelLaunch) -> str:
    if not entry.generics:
        return "no generics"
    plans = launch.generics[entry.rust_fn]
    words = []
    for generic in entry.generics:
        if generic.tree is not None:
            words.append(f"{generic.name} computed from {', '.join(generic.params)}")
            continue
        if generic.kind != "type":
            words.append(f"{generic.name} = `{generic.params[0]}`")
            continue
        plan = plans[generic.name]
        members = ", ".join(generic.params)
        if plan.mode == "dispatch":
            words.append(f"{generic.name} = dtype of {members} (dispatched)")
        else:
            words.append(f"{generic.name} = {plan.other} ({plan.why})")
    return "; ".join(words)


def _entry_selection(launch: KernelLaunch, tag: str, plan: LaunchPlan) -> str:
    """Launch the entry that translates the kernel for the run-time dtypes of the arrays
    (`dtype_variant`) and the values of the constants (`const_variant`) of this call; an
    error code when no entry does."""
    if len(launch.entries) == 1 and not launch.kernel.is_variant:
        return _generic_dispatch(launch, launch.kernel, tag, plan)
    branches = []
    for entry in sorted(launch.entries, key=lambda e: not e.is_variant):
        tests = [f"{entry.param(p).ident}.dtype == {_dt(e)}" for p, e in entry.variant]
        tests += [_const_test(entry.param(p), v) for p, v in entry.consts]
        tests += [_cond_test(entry, tree, v) for tree, v, _ in entry.conds]
        body = _generic_dispatch(launch, entry, tag, plan)
        if not tests:  # the generic entry, after the variants: it takes every other case
            branches.append(f"{{ {body} }}")
            break
        branches.append(f"if {' && '.join(tests)} {{ {body} }}")
    else:
        branches.append(f"{{ {_no_entry_error(launch)} }}")
    return " else ".join(branches)


def _const_test(param: ParamSig, value: object) -> str:
    if isinstance(value, bool):
        return param.ident if value else f"!{param.ident}"
    if isinstance(value, int):
        return f"{param.ident} == {value}"
    if isinstance(value, float):
        return f"{param.ident} == {_rust_float(value, KernelSig('', '', (), ()))}"
    raise ValueError(f"cannot test the constant `{param.name}` for the value {value!r}")


def _cond_test(entry: KernelSig, tree: object, value: bool) -> str:
    rust = _cond_rust(entry, tree)
    if not (isinstance(tree, list) and tree and tree[0] in _COMPARISONS):
        rust = f"({rust} != 0i64)"
    return rust if value else f"!{rust}"


_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}


# Python's integer operators on the launcher's i64 values (floor division and modulo
# round toward negative infinity, as Python's do).
_COND_OPS = {"+": "({a} + {b})", "-": "({a} - {b})", "*": "({a} * {b})",
             "//": "floor_div_i64({a}, {b})", "%": "floor_mod_i64({a}, {b})",
             "<": "({a} < {b})", "<=": "({a} <= {b})", ">": "({a} > {b})",
             ">=": "({a} >= {b})", "==": "({a} == {b})", "!=": "({a} != {b})"}


def _cond_is_float(entry: KernelSig, tree: object) -> bool:
    """Whether a condition (sub)tree involves a float: a `ct.Constant[float]` or a literal."""
    if isinstance(tree, list) and tree and tree[0] == "param":
        return entry.param(str(tree[1])).const_kind == "float"
    if isinstance(tree, float):
        return True
    if isinstance(tree, list) and len(tree) == 3 and tree[0] in _COND_OPS:
        return _cond_is_float(entry, tree[1]) or _cond_is_float(entry, tree[2])
    return False


def _cond_rust(entry: KernelSig, tree: object, as_float: bool = False) -> str:
    """A condition tree over the constants as a Rust expression: i64 arithmetic, or f64 where
    a comparison's operands involve a float constant or literal (`P >= 1.0`)."""
    kind = "f64" if as_float else "i64"
    if isinstance(tree, list) and tree and tree[0] == "param":
        param = entry.param(str(tree[1]))
        if param.const_kind == "bool":
            return f"({param.ident} as i64)" if not as_float else f"(({param.ident} as i64) as f64)"
        if param.const_kind not in ("int", "float") or (param.const_kind == "float"
                                                        and not as_float):
            raise ValueError(f"cannot test a condition on the constant `{param.name}`")
        return f"({param.ident} as {kind})"
    if isinstance(tree, bool):
        return f"1{kind}" if tree else f"0{kind}"
    if isinstance(tree, int):
        return f"{tree}{kind}"
    if isinstance(tree, float) and as_float and math.isfinite(tree):
        return f"{tree!r}f64"
    if isinstance(tree, list) and len(tree) == 3 and tree[0] in _COND_OPS:
        op = str(tree[0])
        if op in _COMPARISONS:  # operands in f64 if either involves a float
            as_float = _cond_is_float(entry, tree[1]) or _cond_is_float(entry, tree[2])
        elif as_float and op in ("//", "%"):
            raise ValueError(f"cannot write the condition {tree!r} in the launcher")
        a, b = _cond_rust(entry, tree[1], as_float), _cond_rust(entry, tree[2], as_float)
        return _COND_OPS[op].format(a=a, b=b)
    raise ValueError(f"cannot write the condition {tree!r} in the launcher")


def _no_entry_error(launch: KernelLaunch) -> str:
    """`Err(..)`: which dtypes / values this call has, and which ones entries exist for."""
    sig = launch.kernel
    arrays = sorted({p for e in launch.entries for p, _ in e.variant})
    consts = sorted({p for e in launch.entries for p, _ in e.consts})
    shown = [f"{p} = {{}}" for p in [*arrays, *consts]]
    args = [f"dtype_name({sig.param(p).ident}.dtype)" for p in arrays]
    args += [sig.param(p).ident for p in consts]
    built = "; ".join(
        ", ".join([*(f"{p} = {e}" for p, e in entry.variant),
                   *(f"{p} = {_value_text(v)}" for p, v in entry.consts),
                   *(_cond_text(text, v) for _, v, text in entry.conds)])
        for entry in launch.entries)
    code = "TL_UNSUPPORTED_DTYPE" if arrays else "TL_INVALID_ARGUMENT"
    message = (f"no translation of `{sig.name}` for {', '.join(shown)} (translated for: "
               f"{built})")
    return f"Err(LaunchError::new({code}, format!({json.dumps(message)}, {', '.join(args)})))"


def _value_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _dt(element: str) -> str:
    if element not in DTYPE_CODES:
        raise ValueError(f"element type {element} has no C ABI code")
    return f"DT_{element.upper()}"


def _generic_dispatch(launch: KernelLaunch, entry: KernelSig, tag: str,
                      plan: LaunchPlan) -> str:
    plans = launch.generics[entry.rust_fn]
    lines = ["{"]
    for generic in (g for g in entry.generics if g.kind == "type"):
        members = ", ".join(f"({json.dumps(p)}, {entry.param(p).ident})" for p in generic.params)
        lines.append(f"let g_{generic.name} = same_dtype({json.dumps(generic.name)}, "
                     f"&[{members}])?;")
        mode = plans[generic.name]
        if mode.mode != "dispatch":
            target = f"g_{mode.other}" if mode.mode == "same" else _dt(mode.other)
            first = generic.params[0]
            lines.append(f"expect_dtype({json.dumps(first)}, {entry.param(first).ident}, "
                         f"{target}, {json.dumps(mode.why)})?;")
    for p in entry.params:
        if p.kind == "array" and p.element not in plans:
            lines.append(f"expect_dtype({json.dumps(p.name)}, {p.ident}, {_dt(p.element)}, "
                         "\"the kernel's element type\")?;")
    dispatched = [g for g in entry.generics if g.kind == "type"
                  and plans[g.name].mode == "dispatch"]
    fast = _fast_supported(entry)
    if fast:
        lines += _fast_lines(entry, _fast_static(tag, entry))
    lines.append("let (context, stream) = unsafe { borrowed_stream(device, stream)? };")
    extra = f", &{_fast_static(tag, entry)}, &fast_key, &packet" if fast else ""
    call = (f"run_{tag}_{entry.rust_fn}::<{{types}}>(device, &context, &stream, grid, "
            f"{', '.join(_c_args(entry))}{extra})")
    lines.append(_match_tree(dispatched, [], call, plan.element_types, entry))
    lines.append("}")
    return "\n".join(lines)


def _match_tree(generics: list[GenericSig], chosen: list[str], call: str,
                elements: tuple[str, ...], entry: KernelSig) -> str:
    if not generics:
        types = ", ".join(_rust_type(e) for e in chosen)
        text = call.replace("::<{types}>", f"::<{types}>" if types else "")
        return f"unsafe {{ {text} }}"
    generic, rest = generics[0], generics[1:]
    arms = [f"{_dt(e)} => {_match_tree(rest, [*chosen, e], call, elements, entry)},"
            for e in elements]
    built = ", ".join(json.dumps(e) for e in elements)
    arms.append(f"other => Err(unsupported_dtype({json.dumps(generic.name)}, "
                f"{json.dumps(generic.params[0])}, other, &[{built}])),")
    return f"match g_{generic.name} {{\n" + "\n".join(arms) + "\n}"


def _rust_grid_extern(launch: KernelLaunch, tag: str) -> str:
    sig = launch.kernel
    params = ["device: i32", *_c_params(sig, False), "out: *mut i64"]
    body = _desc_lines(sig)
    args = ", ".join(["device", *_c_args(sig)])
    body.append(f"        unsafe {{ write_grid(out, grid_{tag}({args})?) }}")
    return (f"/// The grid `{launch.symbol}` launches with, written to `out[0..3]`; nothing "
            "is launched.\n///\n/// # Safety\n/// `out` points to 3 writable `int64_t`; "
            "descriptors as for the launcher.\n#[no_mangle]\n"
            f"pub unsafe extern \"C\" fn {launch.symbol}__grid({', '.join(params)}) -> i32 {{\n"
            "    ffi_call(|| {\n" + "\n".join(body) + "\n    })\n}\n")


# ---- Python wrapper ------------------------------------------------------------------------

_PY_RUNTIME = pyruntime_text()


def emit_pywrapper(source: SourceModule, rust: str,
                   element_types: tuple[str, ...] = DEFAULT_ELEMENT_TYPES) -> str:
    """A Python module: the host code of `source` with each `ct.launch` replaced by a call of
    the Rust launcher (see the module docstring)."""
    plan = plan_launches(source, rust, element_types)
    body = source.module.visit(_HostRewriter(source))
    future, rest = _split_future(body)  # type: ignore[arg-type]
    name = source.path.replace("\\", "/").rsplit("/", 1)[-1]
    head = cst.Module(body=[]).code_for_node
    parts = [_py_docstring(name, plan), *(head(s) for s in future), _PY_RUNTIME,
             _py_tables(plan), "# ---- host code of " + name + " ----\n",
             cst.Module(body=rest).code]
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def _py_docstring(name: str, plan: LaunchPlan) -> str:
    hosts = sorted({s.host_function for s in plan.sites if s.host_function})
    return (f'"""Drop-in host functions of {name} that launch its Rust translation.\n\n'
            f"Generated by `python -m transpiler {name} --emit pywrapper`; do not edit. "
            "The host code\nis copied from the source; each `ct.launch(...)` calls the "
            f"C-ABI launcher in `{_library(plan)}`\n(built by `launcher/build.sh`; "
            "`load_library(path)` or $TRANSPILER_LAUNCHER_LIB picks another file).\n"
            f"Host functions: {', '.join(hosts) or 'none'}.\n"
            '"""\n')


def _library(plan: LaunchPlan) -> str:
    return f"libtl_{plan.module}.so"


def _py_tables(plan: LaunchPlan) -> str:
    sites: dict[int, dict[str, tuple[str, tuple[str, ...], tuple[str, ...], bool]]] = {}
    for launch in plan.launches:
        sig = launch.kernel
        specs = tuple(f"A{p.ndim}" if p.kind == "array" else p.c_type for p in sig.params)
        names = tuple(p.name for p in sig.params)
        sites.setdefault(launch.site_index, {})[sig.name] = (
            launch.symbol, names, specs, launch.grid is None)
    skipped = {plan.sites.index(site): why for site, why in plan.skipped}
    fast_text, fast = _py_fast(plan)
    by_kernel = ", ".join(
        f"{kernel!r}: {{{', '.join(f'{site}: {fn}' for site, fn in fns.items())}}}"
        for kernel, fns in fast.items())
    return (f"LIBRARY = {_library(plan)!r}\n"
            f"_TL_SITES = {sites!r}\n"
            f"_TL_SKIPPED = {skipped!r}\n"
            + fast_text
            + f"_TL_FAST = {{{by_kernel}}}\n"
            + "_TL_FAST_PYTHON = {kernel: dict(sites) for kernel, sites in _TL_FAST.items()}\n"
            + "".join(f"_tl_site_{site} = _tl_python_site({site})\n"
                      for site in range(len(plan.sites)))
            + "_TL_SITE_PYTHON = {"
            + ", ".join(f"{site}: _tl_site_{site}" for site in range(len(plan.sites))) + "}\n")


def _py_fast(plan: LaunchPlan) -> tuple[str, dict[str, dict[int, str]]]:
    """Per launch site and kernel, a function that packs the call into one record for
    `<symbol>__packed` (`packed_format`) and returns True, or returns False, leaving the
    call to the checked path, when an argument is not what the record expects (a tensor
    not on CUDA or of another rank, an unknown dtype, a value `struct` refuses)."""
    parts: list[str] = []
    table: dict[str, dict[int, str]] = {}
    for number, launch in enumerate(plan.launches):
        sig = launch.kernel
        arrays = [i for i, p in enumerate(sig.params) if p.kind == "array"]
        if not arrays or not packable(sig):
            continue
        fn = f"_tl_fast_{number}"
        names = [f"_a{i}" for i in range(len(sig.params))]
        first = names[arrays[0]]
        tests = [f"_dev < 0 or {first}.dim() != {sig.params[arrays[0]].ndim}"]
        tests += [f"{names[i]}.get_device() != _dev or {names[i]}.dim() != {sig.params[i].ndim}"
                  for i in arrays[1:]]
        values = ['getattr(stream, "cuda_stream", stream) or 0', "_dev"]
        for i, p in enumerate(sig.params):
            a = names[i]
            values.append(f"{a}.data_ptr(), _codes[{a}.dtype], *{a}.shape, *{a}.stride()"
                          if p.kind == "array" else a)
        if launch.grid is None:
            values.append("*_tl_grid3(grid)")
        symbol = launch.symbol
        parts.append(
            f"_tl_pack_{number} = _tl_struct.Struct({packed_format(sig, launch.grid is None)!r})"
            ".pack\n\n\n"
            f"def {fn}(stream, grid, args):\n"
            f'    """Site {launch.site_index}, kernel `{sig.name}`: one packed call, or False '
            '(the checked path decides)."""\n'
            "    try:\n"
            f"        {', '.join(names)}, = args\n"
            f"        _dev = {first}.get_device()\n"
            f"        if {' or '.join(tests)}:\n"
            "            return False\n"
            "        _codes = _TL_DTYPE_CODES\n"
            f"        _packet = _tl_pack_{number}({', '.join(values)})\n"
            f"        _fn = _TL_PACKED.get({symbol!r}) or _tl_packed({symbol!r})\n"
            "    except Exception:  # anything unusual: the checked path reports it\n"
            "        return False\n"
            f"    _tl_check(_fn(_packet), {symbol!r})\n"
            "    return True\n\n\n"
            f"{fn}.native = ({native_layout(sig, launch.grid is None)!r}, {symbol!r})\n\n\n")
        table.setdefault(sig.name, {})[launch.site_index] = fn
    return "".join(parts), table


def _split_future(module: cst.Module) -> tuple[list[cst.CSTNode], list[cst.CSTNode]]:
    future, rest = [], []
    for stmt in module.body:
        is_future = (isinstance(stmt, cst.SimpleStatementLine)
                     and isinstance(stmt.body[0], cst.ImportFrom)
                     and dotted_name(stmt.body[0].module or cst.Name("x")) == "__future__")
        (future if is_future else rest).append(stmt)
    return future, rest


class _HostRewriter(cst.CSTTransformer):
    """Host code for the wrapper: kernels become names, cuda.tile imports a shim, and each
    `ct.launch(...)` a call of its site's stand-in `_tl_site_SITE(...)` (or, with keyword or
    starred arguments, of `_tl_launch_site(SITE, ...)`)."""

    def __init__(self, source: SourceModule) -> None:
        self.source = source
        self.sites = {(s.span.line, s.span.col): i for i, s in enumerate(source.launches)}
        self.kernels = {k.name for k in source.kernels}
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef,
                          updated: cst.FunctionDef) -> cst.CSTNode | cst.RemovalSentinel:
        self.depth -= 1
        if self.depth:
            return updated
        name = original.name.value
        if name in self.kernels:
            return cst.parse_statement(f"{name} = _TlKernel({name!r})")
        if any(tile_attr(self.source, _decorator_func(d)) for d in original.decorators):
            return cst.RemoveFromParent()
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        span = self.source.span(original)
        site = self.sites.get((span.line, span.col)) if span else None
        if site is None:
            return updated
        if len(updated.args) == 4 and all(not a.keyword and not a.star for a in updated.args):
            # The common form: a module-level stand-in the library makes native.
            return updated.with_changes(func=cst.Name(f"_tl_site_{site}"))
        return updated.with_changes(
            func=cst.Name("_tl_launch_site"),
            args=[cst.Arg(cst.Integer(str(site)), comma=cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" "))), *updated.args])

    def leave_SimpleStatementLine(
            self, original: cst.SimpleStatementLine,
            updated: cst.SimpleStatementLine) -> cst.CSTNode | cst.FlattenSentinel:
        if self.depth:
            return updated
        out: list[cst.BaseStatement] = []
        kept: list[cst.BaseSmallStatement] = []
        for small in updated.body:
            shims = self._shim_import(small)
            if shims is None:
                kept.append(small)
            else:
                out.extend(cst.parse_statement(line) for line in shims)
        if len(out) == 0:
            return updated
        if kept:
            out.insert(0, updated.with_changes(body=kept))
        return cst.FlattenSentinel(out)

    def _shim_import(self, small: cst.BaseSmallStatement) -> list[str] | None:
        if isinstance(small, cst.Import):
            lines = []
            for alias in small.names:
                name = dotted_name(alias.name)
                bound = alias.asname.name.value if alias.asname else None  # type: ignore[union-attr]
                if name == "cuda.tile":
                    lines.append(f"{bound} = _TL_HOST_TILE" if bound else
                                 "import types as _tl_types\n"
                                 "cuda = _tl_types.SimpleNamespace(tile=_TL_HOST_TILE)")
            return lines if len(lines) == len(small.names) else None
        if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            module = dotted_name(small.module) if small.module else None
            if module == "cuda" or module == "cuda.tile":
                lines = []
                for alias in small.names:
                    name = dotted_name(alias.name)
                    bound = alias.asname.name.value if alias.asname else name  # type: ignore[union-attr]
                    source = "_TL_HOST_TILE" if module == "cuda" else f"_TL_HOST_TILE.{name}"
                    lines.append(f"{bound} = {source}")
                return lines
        return None

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.CSTNode | cst.RemovalSentinel:
        test = original.test
        if (not self.depth and isinstance(test, cst.Comparison)
                and dotted_name(test.left) == "__name__"):
            return cst.RemoveFromParent()
        return updated

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = list(updated.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        return updated.with_changes(body=body)


def _decorator_func(deco: cst.Decorator) -> cst.BaseExpression:
    expr = deco.decorator
    return expr.func if isinstance(expr, cst.Call) else expr


# ---- command line --------------------------------------------------------------------------

def emit_result(result: TranslationResult, kind: str) -> TranslationResult:
    """`result` with its text replaced by the `--emit` output (kernels: unchanged)."""
    if kind == "kernels" or result.rust is None or result.source is None:
        return result
    source = parse_source(result.source, result.path)
    emit = emit_rust_launchers if kind == "launcher" else emit_pywrapper
    return replace(result, rust=emit(source, result.rust))
