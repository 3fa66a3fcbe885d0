"""Specializations from host code: the launches the host-code reader saw -> `KernelSpec`s.

Takes a kernel's launches (`frontend.host.reader.KernelLaunch`: per element type of the run,
the abstract argument values of each launch) and the manifests of its Rust entries; gives,
per element type, a specialization from the first launch whose every argument is of the kind
the manifests ask for (an array's element type and rank, a scalar's type, a constant's
value), or why none could be made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transpiler.frontend.host.kernels import constant_value
from transpiler.frontend.host.reader import KernelLaunch, show_value
from transpiler.frontend.host.values import DType, FakeTensor, Record
from transpiler.ircheck.spec import (
    RUST_ELEMENT_TYPES,
    ArraySpec,
    ConstSpec,
    KernelSpec,
    ParamSpec,
    ScalarSpec,
    dtype_of_rust,
)


@dataclass
class SpecResult:
    specs: list[KernelSpec]
    errors: list[str]
    sources: list[str]  # how each spec was found (entry and launch kind)
    dtypes: list[str] = field(default_factory=list)  # the run's dtype of each spec


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


def every_launch_spec(launch: KernelLaunch, manifests: list[dict[str, Any]],
                      constants: set[str]) -> list[KernelSpec]:
    """Every distinct specialization the launches give: `specs_for`'s (the first complete
    launch per element type) first, then the other launches' in the order they were seen."""
    out = list(specs_for(launch, manifests, constants).specs)
    shapes = _param_shapes(manifests)
    for dtype, records in launch.by_dtype.items():
        for record in records:
            spec, _ = _spec_from(launch, record, shapes, constants, dtype)
            if spec is not None and spec not in out:
                out.append(spec)
    return out


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
        param = param_spec(shape, value, dtype)
        if param is None:
            missing.append(f"{name}={show_value(value)}")
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


def param_spec(manifest_param: dict[str, Any] | None, value: object, dtype: str
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
    constant = constant_value(value, str(manifest_param.get("const_kind", "int")))
    return None if constant is None else ConstSpec(constant)
