"""Launch cases of a numeric check: shapes, grid and scalars from the spec file, seeded data.

Takes the `numeric` object of a spec entry:

    {"sizes": [{"N": 2048}, {"N": 1000}, {"N": 16}],       # one launch case per object
     "shapes": {"a": ["N"], "b": ["N"], "c": ["N"]},       # array -> dims (expressions)
     "grid": ["cdiv(N, TILE)", 1, 1],                      # expressions
     "scalars": {"n": "N"},                                # runtime scalars (expressions)
     "ranges": {"idx": [0, "N"]},                          # integer arrays: [low, high)
     "labels": ["tile multiple", "ragged", "tiny"]}        # optional: one per `sizes` entry

(`host_settings` writes such objects from the launches of the host code.) A `sizes` value
may be a float: the value of a float scalar. Expressions are integers, names (the case's
sizes and the specialization's constants), `+ - * // %`, and `cdiv`, `min`, `max`. Gives
`LaunchCase`s with seeded arrays: floats normal with a spread of magnitudes (and, in the
`special` variant, NaN, infinities, signed zeros and subnormals at seeded positions),
integers uniform in their range (negatives included unless the range says otherwise), so
that the same seed gives the same inputs.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from transpiler.ircheck.spec import (
    NUMERIC_KEY,
    ArraySpec,
    ConstSpec,
    KernelSpec,
    Layout,
    ScalarSpec,
    SpecFileError,
    load_spec_file,
)

DTYPES: dict[str, Any] = {
    "bool_": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
    "uint64": np.uint64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32, "float64": np.float64, "tfloat32": np.float32,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
}

_FUNCTIONS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Mod: lambda a, b: a % b}
DEFAULT_INT_RANGE = (-40, 40)
_SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-42], dtype=np.float64)


class CaseError(ValueError):
    """The `numeric` settings cannot give a launch (missing or malformed)."""


def evaluate(text: object, names: dict[str, Any]) -> int:
    """An integer expression of the `numeric` settings."""
    if isinstance(text, bool):
        return int(text)
    if isinstance(text, int):
        return text
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError as err:
        raise CaseError(f"cannot read expression `{text}`: {err.msg}") from None
    return int(_eval(tree.body, names, str(text)))


def _eval(node: ast.AST, names: dict[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise CaseError(f"`{text}`: unknown name `{node.id}`")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, names, text),
                                      _eval(node.right, names, text))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names, text)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS and not node.keywords):
        return _FUNCTIONS[node.func.id](*[_eval(a, names, text) for a in node.args])
    raise CaseError(f"`{text}`: only integers, names, + - * // %, cdiv, min and max")


@dataclass
class LaunchCase:
    label: str
    arrays: dict[str, np.ndarray]
    scalars: dict[str, Any]
    grid: tuple[int, int, int]
    layout: Layout
    sizes: dict[str, int] = field(default_factory=dict)


def cases_for(spec: KernelSpec, numeric: dict[str, Any] | None, seed: int) -> list[LaunchCase]:
    """Every launch case of `spec`: each size set, plain and (for float inputs) special."""
    if not numeric:
        raise CaseError("the spec gives no `numeric` shapes and grid for this kernel "
                        "(see README, `verify --numeric`)")
    for key in ("sizes", "shapes", "grid"):
        if key not in numeric:
            raise CaseError(f"the `numeric` settings lack `{key}`")
    consts = {n: p.value for n, p in spec.params if isinstance(p, ConstSpec)}
    out: list[LaunchCase] = []
    for number, given in enumerate(numeric["sizes"]):
        sizes = {k: v if isinstance(v, float) else evaluate(v, consts)
                 for k, v in given.items()}
        names = {**consts, **sizes}
        for special in (False, True):
            rng = np.random.default_rng([seed, number, int(special)])
            arrays = _arrays(spec, numeric, names, rng, special)
            if special and not any(_is_float(a) for a in arrays.values()):
                continue
            grid = tuple(evaluate(g, names) for g in numeric["grid"])
            if len(grid) != 3 or min(grid) < 1:
                raise CaseError(f"grid {numeric['grid']} gives {grid}")
            scalars = {name: _scalar(spec, name, _scalar_value(expr, names))
                       for name, expr in numeric.get("scalars", {}).items()}
            labels = numeric.get("labels") or []
            label = (labels[number] if number < len(labels) else ",".join(
                f"{k}={v}" for k, v in sizes.items())) + (" special" if special else "")
            out.append(LaunchCase(label, arrays, scalars, grid, layout_of(arrays), sizes))
    return out


def _scalar_value(expr: object, names: dict[str, Any]) -> Any:
    """A scalar's value: a float literal, a name bound to a float, or an integer expression."""
    if isinstance(expr, float):
        return expr
    if isinstance(expr, str) and isinstance(names.get(expr), float):
        return names[expr]
    return evaluate(expr, names)


def _is_float(array: np.ndarray) -> bool:
    return array.dtype.kind == "f" or array.dtype in (np.dtype(ml_dtypes.bfloat16),
                                                    np.dtype(ml_dtypes.float8_e4m3fn),
                                                    np.dtype(ml_dtypes.float8_e5m2))


def _scalar(spec: KernelSpec, name: str, value: Any) -> Any:
    param = spec.param(name)
    if not isinstance(param, ScalarSpec):
        raise CaseError(f"`{name}` is not a runtime scalar of the kernel")
    return np.asarray(value).astype(DTYPES[param.dtype])


def _arrays(spec: KernelSpec, numeric: dict[str, Any], names: dict[str, Any],
            rng: np.random.Generator, special: bool) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for name, param in spec.params:
        if not isinstance(param, ArraySpec):
            continue
        dims = numeric["shapes"].get(name)
        if dims is None:
            raise CaseError(f"no shape for array `{name}` in `numeric.shapes`")
        shape = tuple(evaluate(d, names) for d in dims)
        dtype = np.dtype(DTYPES[param.dtype])
        low_high = numeric.get("ranges", {}).get(name)
        arrays[name] = _data(shape, dtype, rng, special, low_high, names)
    return arrays


def _data(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator, special: bool,
          low_high: list[Any] | None, names: dict[str, Any]) -> np.ndarray:
    if dtype.kind in "iub":
        low, high = ((evaluate(low_high[0], names), evaluate(low_high[1], names))
                     if low_high else DEFAULT_INT_RANGE)
        if dtype.kind == "u":
            low = max(low, 0)
        if dtype.kind == "b":
            return rng.integers(0, 2, size=shape).astype(np.bool_)
        top = max(high, low + 1) - 1
        values = rng.integers(low, top + 1, size=shape)
        flat = values.reshape(-1)
        # Both ends of the range occur (a bound check off by one shows), and at the front,
        # where even a launch that reads a few elements sees them, -1 and the lowest odd
        # value: a negative with a remainder for every divisor (C and Python `%` differ).
        for position, value in ((0, low), (-1, top), (1, -1), (2, low + 1 - low % 2)):
            if flat.size >= 4 and low <= value <= top:
                flat[position] = value
        if flat.size in (2, 3):
            flat[[0, -1]] = [low, top]
        return values.astype(dtype)
    magnitude = np.exp2(rng.integers(-3, 4, size=shape))
    values = rng.standard_normal(shape) * magnitude
    if low_high:
        low, high = (float(evaluate(x, names)) for x in low_high)
        values = rng.uniform(low, high, size=shape)
    if special and values.size:
        # Every special value at least once (where the array has room), then one in 64
        # elements: a NaN-handling difference must not hide behind an unlucky draw.
        count = max(len(_SPECIALS), values.size // 64)
        where = rng.choice(values.size, size=min(count, values.size), replace=False)
        extra = rng.choice(_SPECIALS, size=max(0, where.size - len(_SPECIALS)))
        picks = np.concatenate([rng.permutation(_SPECIALS), extra])[:where.size]
        values.reshape(-1)[where] = picks
    return values.astype(dtype)


def layout_of(arrays: dict[str, np.ndarray]) -> Layout:
    """The layout facts these arrays satisfy (both sides are compiled for them)."""
    dims = [d for a in arrays.values() for d in a.shape]
    strides = [s // a.itemsize for a in arrays.values() for s in a.strides[:-1]]
    shape_div = 16 if all(d % 16 == 0 for d in dims) else 1
    stride_div = 16 if all(s % 16 == 0 for s in strides) else 1
    return Layout(shape_divisible_by=shape_div, stride_divisible_by=stride_div)


def load_numeric_settings(paths: list[str]) -> dict[str, list[tuple[KernelSpec, dict]]]:
    """kernel -> (specialization, its `numeric` object) for every spec entry that has one."""
    out: dict[str, list[tuple[KernelSpec, dict]]] = {}
    for path in paths:
        specs = load_spec_file(Path(path))
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        for kernel, entries in raw.items():
            for spec, entry in zip(specs.get(kernel, []), entries, strict=True):
                numeric = entry.get(NUMERIC_KEY)
                if numeric is not None:
                    if not isinstance(numeric, dict):
                        raise SpecFileError(f"--spec {path}: `{kernel}`: `{NUMERIC_KEY}` "
                                            "must be an object")
                    out.setdefault(kernel, []).append((spec, numeric))
    return out
