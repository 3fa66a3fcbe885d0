"""Argument binding: logical kernel arguments -> the parameters of one side's Tile IR entry.

Takes a specialization (and, for a Rust entry, its manifest); gives a `BindingPlan`, the list
of entry parameters each as a `Slot` that says which logical argument it carries: an array's
base address, one of its dimensions or strides (in elements), a runtime scalar, or a constant
the entry takes at run time. cuTile Python's reference entries and cuTile Rust's `&Tensor`
entries expand each array into base + shape + strides; an entry in the pointer calling
convention (raw pointers plus shape and stride scalars, as a Triton translation has) is a plan
of the same slots in another order, so every side binds through `bind`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from transpiler.analysis import evaluate_expression
from transpiler.ircheck.check import entry_arg_positions, float_bits_params
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec


@dataclass(frozen=True)
class Slot:
    kind: str  # base | shape | stride | scalar | const
    name: str  # the logical argument (array, scalar or constant)
    dim: int = 0
    value: float | int | None = None  # for const slots: the bound value


@dataclass(frozen=True)
class BindingPlan:
    side: str
    slots: tuple[Slot, ...]
    #: the arrays keep the launch's axes (an entry in the pointer calling convention may
    #: take one axis' shape or stride of a 2-d array: that does not make it 1-d)
    keep_rank: bool = False


@dataclass
class LogicalArrays:
    """The arrays and scalars of one launch, by logical name."""

    arrays: dict[str, np.ndarray]
    scalars: dict[str, Any]


class BindingError(ValueError):
    """A plan that does not fit the entry or the arguments."""


def _array_slots(name: str, ndim: int) -> list[Slot]:
    return ([Slot("base", name)] + [Slot("shape", name, d) for d in range(ndim)]
            + [Slot("stride", name, d) for d in range(ndim)])


def reference_plan(spec: KernelSpec) -> BindingPlan:
    """cuTile Python: per parameter in order, an array's base, shape and strides, a scalar's
    value; constants are folded into the code."""
    slots: list[Slot] = []
    for name, param in spec.params:
        if isinstance(param, ArraySpec):
            slots += _array_slots(name, param.ndim)
        elif isinstance(param, ScalarSpec):
            slots.append(Slot("scalar", name))
    return BindingPlan("cuTile Python", tuple(slots))


def manifest_plan(manifest: dict[str, Any], spec: KernelSpec) -> BindingPlan:
    """cuTile Rust through our manifest: `&Tensor` parameters expand like the reference's;
    stride parameters carry a tensor's stride, derived and float constants the value the
    specialization gives them (the launcher passes the same)."""
    positions = entry_arg_positions(manifest)
    as_bits = float_bits_params(manifest)  # const generics: no entry argument
    consts = {n: p.value for n, p in spec.params if isinstance(p, ConstSpec)}
    slots: list[Slot] = []
    for p in manifest.get("params", []):
        name, kind = p["name"], p["kind"]
        if len(slots) != positions.get(name, len(slots)):
            raise BindingError(f"parameter `{name}` is not where the manifest puts it")
        if kind == "array":
            slots += _array_slots(name, max(int(p["ndim"]), 1))
        elif kind == "scalar":
            slots.append(Slot("scalar", name))
        elif kind == "stride":
            slots.append(Slot("stride", str(p["array"]), int(p["dim"])))
        elif kind == "derived":
            slots.append(Slot("const", name, value=float(evaluate_expression(p["expr"],
                                                                             consts))))
        elif p.get("fixed") is None and p.get("const_kind") == "float" and \
                name not in as_bits:
            value = spec.param(name)
            if not isinstance(value, ConstSpec):
                raise BindingError(f"constant `{name}` has no value in the specialization")
            slots.append(Slot("const", name, value=float(value.value)))
    return BindingPlan("cuTile Rust", tuple(slots))


def bind(plan: BindingPlan, launch: LogicalArrays, addresses: dict[str, int],
         arity: int) -> list[Any]:
    """The raw entry parameter values: addresses from the side's memory, shapes and strides
    (in elements) from the arrays, scalars and constants by name."""
    if len(plan.slots) != arity:
        raise BindingError(f"{plan.side}: the plan has {len(plan.slots)} parameters, the "
                           f"entry takes {arity}")
    values: list[Any] = []
    for slot in plan.slots:
        if slot.kind == "const":
            values.append(slot.value)
        elif slot.kind == "scalar":
            if slot.name not in launch.scalars:
                raise BindingError(f"no value for scalar `{slot.name}`")
            values.append(launch.scalars[slot.name])
        else:
            array = _array(launch, slot.name)
            if slot.kind == "base":
                values.append(addresses[slot.name])
            elif slot.kind == "shape":
                values.append(_dims(array, plan, slot)[0])
            else:
                values.append(_dims(array, plan, slot)[1])
    return values


def _array(launch: LogicalArrays, name: str) -> np.ndarray:
    if name not in launch.arrays:
        raise BindingError(f"no array `{name}`")
    return launch.arrays[name]


def _dims(array: np.ndarray, plan: BindingPlan, slot: Slot) -> tuple[int, int]:
    """(size, stride in elements) of axis `slot.dim`; an array the entry takes as 1-d while
    the launch gives more axes is seen flat."""
    rank = sum(1 for s in plan.slots if s.kind == "shape" and s.name == slot.name)
    flat = rank == 1 and array.ndim != 1 and not plan.keep_rank
    view = array.reshape(-1) if flat else array
    if slot.dim >= view.ndim:
        raise BindingError(f"`{slot.name}` has {view.ndim} axes; the entry reads axis "
                           f"{slot.dim}")
    return int(view.shape[slot.dim]), int(view.strides[slot.dim] // view.itemsize)
