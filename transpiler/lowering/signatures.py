"""Python-side signatures of the cuda.tile functions, and argument binding against them.

Takes a call's positional and keyword arguments; gives them bound to parameter names with
the defaults filled in, or an error message naming what is wrong (unknown keyword, missing
argument, too many arguments). The signatures are those of cuda-tile 1.7.0's public API,
written here as data.
"""

from __future__ import annotations

from dataclasses import dataclass

# A default marker: the parameter is required.
REQUIRED = object()

# name -> (positional-or-keyword params with defaults, keyword-only params with defaults)
# A default string "enum:Class.MEMBER" stands for that enum member.
_SIGNATURES: dict[str, tuple[tuple[tuple[str, object], ...], tuple[tuple[str, object], ...]]] = {}


def _sig(name: str, params: str, kwonly: str = "") -> None:
    _SIGNATURES[name] = (_parse(params), _parse(kwonly))


def _parse(text: str) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        if "=" in part:
            key, _, value = part.partition("=")
            out.append((key.strip(), _default(value.strip())))
        else:
            out.append((part, REQUIRED))
    return tuple(out)


def _default(text: str) -> object:
    literals = {"None": None, "True": True, "False": False}
    if text in literals:
        return literals[text]
    if text.lstrip("-").isdigit():
        return int(text)
    return text


_MEM = "memory_order=enum:MemoryOrder.ACQ_REL; memory_scope=enum:MemoryScope.DEVICE"
_sig("bid", "axis")
_sig("num_blocks", "axis")
_sig("num_tiles", "array; axis; shape; order=C")
_sig("assume_divisible_by", "x; divisor")
_sig(
    "load",
    "array; index; shape",
    "order=C; padding_mode=enum:PaddingMode.UNDETERMINED; check_bounds=True; latency=None; "
    "allow_tma=None; memory_order=enum:MemoryOrder.WEAK; memory_scope=enum:MemoryScope.NONE",
)
_sig(
    "store",
    "array; index; tile",
    "order=C; check_bounds=True; latency=None; allow_tma=None; "
    "memory_order=enum:MemoryOrder.WEAK; memory_scope=enum:MemoryScope.NONE",
)
_sig("load_advanced_indexing", "array; indices", "padding_mode=enum:PaddingMode.UNDETERMINED; "
     "latency=None; allow_tma=None")
_sig("store_advanced_indexing", "array; indices; tile", "latency=None; allow_tma=None")
_sig("gather", "array; indices", "mask=None; padding_value=0; check_bounds=True; latency=None")
_sig("scatter", "array; indices; value", "mask=None; check_bounds=True; latency=None")
_sig("atomic_cas", "array; indices; expected; desired", "check_bounds=True; " + _MEM)
for _op in ("xchg", "add", "max", "min", "and", "or", "xor"):
    _sig(f"atomic_{_op}", "array; indices; update", "check_bounds=True; " + _MEM)
_sig("arange", "size", "dtype; start=0; step=1")
_sig("full", "shape; fill_value; dtype")
_sig("ones", "shape; dtype")
_sig("zeros", "shape; dtype")
_sig("astile", "value", "dtype")
_sig("mma", "x; y; acc", "use_fast_acc=False")
_sig("mma_scaled", "x; x_scale; y; y_scale; acc")
_sig("matmul", "x; y")
_sig("expand_dims", "x; axis")
_sig("cat", "tiles; axis")
_sig("broadcast_to", "x; shape")
_sig("reshape", "x; shape")
_sig("permute", "x; axes")
_sig("transpose", "x; axis0=None; axis1=None")
_sig("astype", "x; dtype", "rounding_mode=None")
_sig("bitcast", "x; dtype")
_sig("pack_to_bytes", "x")
_sig("unpack_from_bytes", "x; dtype")
_sig("sum", "x; axis=None", "keepdims=False; rounding_mode=None; flush_to_zero=False")
_sig("prod", "x; axis=None", "keepdims=False; rounding_mode=None; flush_to_zero=False")
_sig("max", "x; axis=None", "keepdims=False; flush_to_zero=False; propagate_nan=False")
_sig("min", "x; axis=None", "keepdims=False; flush_to_zero=False; propagate_nan=False")
_sig("argmax", "x; axis=None", "keepdims=False; propagate_nan=False")
_sig("argmin", "x; axis=None", "keepdims=False; propagate_nan=False")
_sig("reduce", "x; axis; func; identity", "keepdims=False")
_sig("cumsum", "x; axis=0", "reverse=False; rounding_mode=None; flush_to_zero=False")
_sig("cumprod", "x; axis=0", "reverse=False; rounding_mode=None; flush_to_zero=False")
_sig("scan", "x; axis; func; identity", "reverse=False")
for _op in ("add", "sub", "mul", "truediv"):
    _sig(_op, "x; y", "rounding_mode=None; flush_to_zero=False")
for _op in ("floordiv", "pow", "mod", "divmod", "bitwise_and", "bitwise_or", "bitwise_xor",
            "bitwise_lshift", "bitwise_rshift", "cdiv", "greater", "greater_equal", "less",
            "less_equal", "equal", "not_equal"):
    _sig(_op, "x; y")
_sig("atan2", "x1; x2")
_sig("minimum", "x; y", "flush_to_zero=False; propagate_nan=False")
_sig("maximum", "x; y", "flush_to_zero=False; propagate_nan=False")
_sig("exp", "x", "rounding_mode=None")
_sig("exp2", "x", "flush_to_zero=False")
_sig("sqrt", "x", "rounding_mode=None; flush_to_zero=False")
_sig("rsqrt", "x", "flush_to_zero=False")
_sig("tanh", "x", "rounding_mode=None")
for _op in ("log", "log2", "sin", "cos", "tan", "sinh", "cosh", "floor", "ceil", "abs",
            "negative", "isnan", "bitwise_not"):
    _sig(_op, "x")
_sig("where", "cond; x; y")
_sig("extract", "x; index; shape")
_sig("insert", "x; index; value")
_sig("printf", "format")
_sig("print", "", "sep= ; end=\n")
_sig("assert_", "cond; message=None")
_sig("static_eval", "expr")
_sig("static_assert", "condition; message=None")
_sig("static_iter", "iterable")
_sig("static_exception", "exc")
_sig("ensure_constant", "value")
_sig("grid_dependency_control_wait", "")
_sig("grid_dependency_control_launch_dependents", "")

# Tile methods, bound like functions whose first parameter is the tile.
METHODS: dict[str, str] = {
    "astype": "astype",
    "reshape": "reshape",
    "permute": "permute",
    "transpose": "transpose",
    "extract": "extract",
    "item": "item",
    "broadcast_to": "broadcast_to",
    "expand_dims": "expand_dims",
}
_sig("item", "x")
# `Array.slice`, the one array method with an operation behind it (`x.slice(axis, start,
# stop)`, or `ct.Array.slice(x, ...)`).
_sig("Array.slice", "array; axis; start; stop")


def known(name: str) -> bool:
    return name in _SIGNATURES


def all_names() -> list[str]:
    return sorted(_SIGNATURES)


@dataclass
class BoundArgs:
    values: dict[str, object]
    explicit: set[str]


def bind(name: str, positional: list[object], keywords: dict[str, object]) -> BoundArgs | str:
    """Bind arguments to `name`'s signature; a string result is the error message."""
    params, kwonly = _SIGNATURES[name]
    if len(positional) > len(params):
        return f"`{name}` takes at most {len(params)} positional arguments, got {len(positional)}"
    values: dict[str, object] = {}
    explicit: set[str] = set()
    for (pname, _), value in zip(params, positional, strict=False):
        values[pname] = value
        explicit.add(pname)
    allowed = {p for p, _ in params} | {p for p, _ in kwonly}
    for key, value in keywords.items():
        if key not in allowed:
            return f"`{name}` has no parameter `{key}`"
        if key in values:
            return f"`{name}` got multiple values for `{key}`"
        values[key] = value
        explicit.add(key)
    for pname, default in (*params, *kwonly):
        if pname not in values:
            if default is REQUIRED:
                return f"`{name}` is missing its argument `{pname}`"
            values[pname] = default
    return BoundArgs(values, explicit)
