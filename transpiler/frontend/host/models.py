"""Models of the libraries host code calls: `torch`, `cuda.tile`, `math`, `types`,
`dataclasses`, `functools`, `operator`, `typing`, `enum`, `collections`, and Python's builtins.

Takes nothing; gives `LIBRARY`, the table the interpreter is built with: module models by
dotted name (each member a `Native` that computes on abstract values, a constant, or a
marker class), the builtins, and the attributes and methods of fake tensors (`shape`,
`size()`, `view`, `transpose`, `to`, ...), kernel references and autograd contexts.
`ct.launch(stream, grid, kernel, args)` and `exhaustive_search(configs, stream, grid_fn,
kernel, args_fn, ...)` (first config) record a launch.
"""

from __future__ import annotations

import ast
import collections
import collections.abc
import math
import types
from collections.abc import Callable

from transpiler.frontend.host.interpreter import (
    PLAIN_TYPES,
    Interpreter,
    hashable,
    plain_tree,
)
from transpiler.frontend.host.typical import SM_COUNT, TARGET_CAPABILITY, Dim
from transpiler.frontend.host.values import (
    MARKERS,
    TORCH_DTYPES,
    ClassValue,
    DType,
    FakeTensor,
    FunctionValue,
    Instance,
    KernelRef,
    LazyShape,
    Library,
    ModelModule,
    Native,
    Unknown,
    subscript_value,
)
from transpiler.model import ALL_DTYPES

# ---- models of libraries -------------------------------------------------------------------



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
    dtypes = {name: DType(canon) for name, canon in TORCH_DTYPES.items()}
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
        interp.record(kernel.name, listed if listed is not None else [], "ct.launch",
                      interp.iterate(values.get("grid")))
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
    from_tile = {name: DType(name) for name in ALL_DTYPES}
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


_OPERATOR_NAMES: dict[str, type] = {
    "mul": ast.Mult, "add": ast.Add, "sub": ast.Sub, "floordiv": ast.FloorDiv,
    "truediv": ast.Div, "mod": ast.Mod, "and_": ast.BitAnd, "or_": ast.BitOr,
}


def _binop_native(op: type) -> Callable[..., object]:
    def run(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        return interp.binop(op, args[0], args[1]) if len(args) == 2 else Unknown("operator")
    return run


def _module_models() -> dict[str, object]:
    torch = _torch_model()
    ct = _ct_model()
    return {
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
    }


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
        return LazyShape(t).item(args[0]) if t.shape is None else subscript_value(
            t.shape, args[0])
    return t.dims()


def _t_stride(interp: Interpreter, t: FakeTensor, args: list[object], kw: dict[str, object]
              ) -> object:
    dims = t.dims()
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
    if args and isinstance(args[0], int):
        return subscript_value(strides, args[0])
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


def builtin_functions() -> dict[str, object]:
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
            if kind in (set, frozenset) and not all(map(hashable, items)):
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
        if real and isinstance(value, PLAIN_TYPES + (list, tuple, dict)):
            return isinstance(value, real)
        return Unknown("isinstance")

    def next_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        items = interp.iterate(args[0]) if args else None
        if items:
            return items[0]
        return args[1] if len(args) > 1 else Unknown("next")

    def sorted_(interp: Interpreter, args: list[object], kwargs: dict[str, object]) -> object:
        items = interp.iterate(args[0]) if args else None
        if items is None or "key" in kwargs or not all(plain_tree(i) for i in items):
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



#: What the interpreter calls back into. The module models hold no state the interpreter
#: changes (fake values are made fresh per call), so one table serves every run.
LIBRARY = Library(_module_models(), builtin_functions, tensor_attr, kernel_attr, ctx_attr)

