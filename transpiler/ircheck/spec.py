"""Specializations: one concrete instance of a kernel's implicit JIT choices.

Takes nothing (or a `--spec` JSON file: `load_spec_file`); gives the value types that both
IR producers (reference: cuTile Python, generated: cuTile Rust) and the launcher generator
agree on. A specialization fixes, per kernel parameter, either an array's element type and
rank, a runtime scalar's type, or a `ct.Constant` value. Layout facts (contiguity, alignment,
divisibility) are shared defaults that match what the cuTile Python JIT infers from a
contiguous, 16-byte aligned tensor whose dimensions are multiples of 16.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.model.elements import RUST_ELEMENT_TYPES as RUST_ELEMENT_TYPES  # re-exported
from transpiler.model.elements import dtype_of_rust as dtype_of_rust  # re-exported


@dataclass(frozen=True)
class ArraySpec:
    """An array argument: element type (cuda.tile dtype name) and rank."""

    dtype: str
    ndim: int


@dataclass(frozen=True)
class ScalarSpec:
    """A runtime scalar argument (not a compile-time constant)."""

    dtype: str


@dataclass(frozen=True)
class ConstSpec:
    """A `ct.Constant[...]` / `tl.constexpr` argument and the value it is specialized to (a
    string for a Triton constexpr the kernel compares with string literals)."""

    value: int | bool | float | str | None


ParamSpec = ArraySpec | ScalarSpec | ConstSpec


@dataclass(frozen=True)
class Layout:
    """Layout facts assumed for every array argument (the JIT's usual inference)."""

    shape_divisible_by: int = 16
    stride_divisible_by: int = 16
    base_addr_divisible_by: int = 16
    last_stride_one: bool = True


@dataclass(frozen=True)
class KernelSpec:
    """One specialization of one kernel: parameter name -> what it is fixed to, in order."""

    kernel: str
    params: tuple[tuple[str, ParamSpec], ...]
    layout: Layout = field(default_factory=Layout)

    def param(self, name: str) -> ParamSpec:
        for param_name, spec in self.params:
            if param_name == name:
                return spec
        raise KeyError(name)

    def label(self) -> str:
        """A short human-readable name, e.g. `softmax[x:bfloat16/2,TILE=1024]`."""
        parts = []
        for name, spec in self.params:
            if isinstance(spec, ArraySpec):
                parts.append(f"{name}:{spec.dtype}/{spec.ndim}")
            elif isinstance(spec, ScalarSpec):
                parts.append(f"{name}:{spec.dtype}")
            else:
                parts.append(f"{name}={spec.value}")
        return f"{self.kernel}[{','.join(parts)}]"


def load_spec_file(path: Path) -> dict[str, list[KernelSpec]]:
    """`--spec FILE`: {"kernel": [{"x": {"dtype": "float32", "ndim": 2}, "TILE": 128,
    "n": {"scalar": "int32"}}, ...]} in parameter order."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SpecFileError(f"--spec {path}: {err}") from None
    shape_ok = isinstance(data, dict) and all(
        isinstance(entries, list) and all(isinstance(e, dict) for e in entries)
        for entries in data.values())
    if not shape_ok:
        raise SpecFileError(f"--spec {path}: expected an object "
                            '{"kernel": [{"param": value, ...}, ...]}')
    out: dict[str, list[KernelSpec]] = {}
    for kernel, entries in data.items():
        for entry in entries:
            params: list[tuple[str, ParamSpec]] = []
            for name, value in entry.items():
                if name == NUMERIC_KEY:
                    continue  # launch shapes for `verify --numeric` (numeric_check.inputs)
                try:
                    params.append((name, _param_from_json(value)))
                except (ValueError, KeyError, TypeError) as err:
                    raise SpecFileError(f"--spec {path}: `{kernel}` parameter `{name}`: "
                                        f"{err}") from None
            out.setdefault(kernel, []).append(KernelSpec(kernel, tuple(params)))
    return out


#: the key of a spec entry that holds the numeric check's shapes and grid, not a parameter
NUMERIC_KEY = "numeric"


class SpecFileError(ValueError):
    """A `--spec` file that is not JSON of the documented shape."""


def _param_from_json(value: Any) -> ParamSpec:
    if isinstance(value, dict) and "dtype" in value:
        return ArraySpec(str(value["dtype"]), int(value["ndim"]))
    if isinstance(value, dict) and "scalar" in value:
        return ScalarSpec(str(value["scalar"]))
    if isinstance(value, bool | int | float | str) or value is None:
        # None: a constexpr's None, or a Triton argument passed as None (compiled as one).
        return ConstSpec(value)
    raise ValueError(f"cannot read specialization value {value!r}")
