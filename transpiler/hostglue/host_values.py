"""Host values: the host code before a launch, evaluated symbolically.

Takes a `SourceModule` and a host function; gives, per name, a value (an integer expression
over tensor shapes, literals and host parameters, a tensor, a dtype, a kernel, or an
`Opaque` value with the reason it is not known) so that the launcher can compute a grid
from its own inputs the way the host code does. Nothing is run.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from transpiler.frontend.cutile_py import (
    LaunchSite,
    SourceModule,
    dotted_name,
    tile_attr,
)
from transpiler.hostglue.abi import TORCH_DTYPES

MAX_INLINE_DEPTH = 6


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


def as_int(value: Value) -> Expr | None:
    if isinstance(value, IntVal):
        return value.expr
    if isinstance(value, ParamRef):
        return Var(value.binding)
    return None


def as_tensor(value: Value) -> TensorInfo | None:
    if isinstance(value, TensorInfo):
        return value
    if isinstance(value, ParamRef):
        binding = value.binding
        if binding.tensor is None:
            binding.tensor = TensorInfo(f"host parameter `{binding.name}`")
        return binding.tensor
    return None


def why_unknown(value: Value) -> str:
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
            left = as_int(self.eval(small.target, env))
            right = as_int(self.eval(small.value, env))
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
        return [Opaque(f"cannot unpack {why_unknown(value)}") for _ in range(count)]

    # -- expressions --

    def eval(self, node: cst.BaseExpression, env: dict[str, Binding]) -> Value:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            return Opaque(f"`{code_excerpt(node)}` is outside the translated host subset")
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
        left = as_int(self.eval(node.left, env))
        right = as_int(self.eval(node.right, env))
        if op is None or left is None or right is None:
            return Opaque(f"`{code_excerpt(node)}` is not integer arithmetic on known values")
        return IntVal(Bin(op, left, right))

    def _eval_UnaryOperation(self, node: cst.UnaryOperation,
                             env: dict[str, Binding]) -> Value:
        operand = as_int(self.eval(node.expression, env))
        if operand is None:
            return Opaque(f"`{code_excerpt(node)}` has an unknown operand")
        if isinstance(node.operator, cst.Minus):
            return IntVal(Fn("neg", (operand,)))
        if isinstance(node.operator, cst.Plus):
            return IntVal(operand)
        return Opaque(f"`{code_excerpt(node)}`: unsupported unary operator")

    def _eval_IfExp(self, node: cst.IfExp, env: dict[str, Binding]) -> Value:
        body, orelse = self.eval(node.body, env), self.eval(node.orelse, env)
        if isinstance(body, KernelVal) and isinstance(orelse, KernelVal):
            return KernelVal(body.names + tuple(n for n in orelse.names if n not in body.names))
        if as_tensor(body) is not None or as_tensor(orelse) is not None:
            return TensorInfo(f"`{code_excerpt(node)}`")
        return Opaque(f"`{code_excerpt(node)}` depends on a host condition")

    def _eval_Subscript(self, node: cst.Subscript, env: dict[str, Binding]) -> Value:
        base = self.eval(node.value, env)
        index = _literal_index(node)
        if index is None:
            return Opaque(f"`{code_excerpt(node)}`: only constant integer indices are translated")
        if isinstance(base, ShapeVal):
            return IntVal(Dim(base.tensor, index))
        if isinstance(base, TupleVal) and -len(base.items) <= index < len(base.items):
            return base.items[index]
        return Opaque(f"`{code_excerpt(node)}` indexes {why_unknown(base)}")

    def _eval_Attribute(self, node: cst.Attribute, env: dict[str, Binding]) -> Value:
        attr = node.attr.value
        name = dotted_name(node)
        if name is not None and self._is_torch(name.split(".")[0]) and attr in TORCH_DTYPES:
            return DTypeVal(fixed=TORCH_DTYPES[attr])
        base = self.eval(node.value, env)
        if isinstance(base, DevicePropsVal) and attr == "multi_processor_count":
            return IntVal(DeviceSMs())
        tensor = as_tensor(base)
        if tensor is not None and attr == "shape":
            return ShapeVal(tensor)
        if tensor is not None and attr == "dtype":
            return DTypeVal(tensor=tensor)
        if tensor is not None and attr == "ndim":
            return IntVal(NDim(tensor))
        return Opaque(f"`{code_excerpt(node)}` is outside the translated host subset")

    def _is_torch(self, head: str) -> bool:
        return self.source.module_aliases.get(head, "").split(".")[0] == "torch"

    def _eval_Call(self, node: cst.Call, env: dict[str, Binding]) -> Value:
        if tile_attr(self.source, node.func) == "cdiv":
            return self._int_fn("cdiv", node, env, 2)
        if isinstance(node.func, cst.Name):
            return self._call_name(node, node.func.value, env)
        if isinstance(node.func, cst.Attribute):
            return self._call_attribute(node, node.func, env)
        return Opaque(f"`{code_excerpt(node)}` is outside the translated host subset")

    def _call_name(self, node: cst.Call, name: str, env: dict[str, Binding]) -> Value:
        if name in ("min", "max", "abs") and name not in env:
            return self._int_fn(name, node, env, None if name != "abs" else 1)
        if name == "int" and len(node.args) == 1 and name not in env:
            value = self.eval(node.args[0].value, env)
            return value if isinstance(value, IntVal) else Opaque(f"`{code_excerpt(node)}`")
        if name == "len" and len(node.args) == 1 and name not in env:
            value = self.eval(node.args[0].value, env)
            if isinstance(value, ShapeVal):
                return IntVal(NDim(value.tensor))
            tensor = as_tensor(value)
            return IntVal(Dim(tensor, 0)) if tensor else Opaque(f"`{code_excerpt(node)}`")
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
        if method == "bit_length" and not node.args and as_int(base) is not None:
            return IntVal(Fn("bit_length", (as_int(base),)))  # type: ignore[arg-type]
        tensor = as_tensor(base)
        if tensor is None:
            return Opaque(f"`{code_excerpt(node)}` is outside the translated host subset")
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
        origin = f"`{code_excerpt(node)}`"
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
            single = as_int(value)
            return (single,) if single is not None else None
        return _int_tuple(tuple(self.eval(a, env) for a in args))

    def _torch_call(self, node: cst.Call, full: str, env: dict[str, Binding]) -> Value:
        parts = full.split(".")
        if parts[:1] != ["torch"]:
            return Opaque(f"`{code_excerpt(node)}` is not a host function the launcher can run")
        func = parts[-1]
        args = [a.value for a in node.args if a.keyword is None]
        origin = f"`{code_excerpt(node)}`"
        if full == "torch.cuda.get_device_properties":
            return DevicePropsVal()
        if func in _LIKE_FACTORIES and args:
            like = as_tensor(self.eval(args[0], env))
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
        args = [as_int(self.eval(a.value, env)) for a in node.args if a.keyword is None]
        if any(a is None for a in args) or not args or (arity and len(args) != arity):
            return Opaque(f"`{code_excerpt(node)}` has arguments the launcher cannot compute")
        if len(args) == 1 and name in ("min", "max"):
            return Opaque(f"`{code_excerpt(node)}`: min/max over an iterable")
        return IntVal(Fn(name, tuple(args)))  # type: ignore[arg-type]

    def _inline(self, node: cst.Call, name: str, env: dict[str, Binding]) -> Value:
        fn = self.source.functions[name]
        body = _single_return(fn)
        params = [p.name.value for p in fn.params.params]
        if body is None or self.depth >= MAX_INLINE_DEPTH or len(node.args) > len(params):
            return Opaque(f"`{name}(..)` is not a one-line helper the launcher can inline")
        if any(a.keyword is not None for a in node.args):
            return Opaque(f"`{code_excerpt(node)}`: keyword arguments to a helper")
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
    exprs = tuple(as_int(v) for v in items)
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
    if stmts and is_docstring(stmts[0]):
        stmts = stmts[1:]
    if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
        return None
    small = stmts[0].body[0]
    return small.value if isinstance(small, cst.Return) and small.value is not None else None


def is_docstring(stmt: cst.CSTNode) -> bool:
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


def code_excerpt(node: cst.CSTNode) -> str:
    text = cst.Module(body=[]).code_for_node(node)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
