"""Specialization pass: typed `KernelModel` -> `SpecializedKernel` (explicit generics).

Takes a kernel whose element types are dtype classes and whose constants are symbols; gives
the Rust signature decisions that cuTile Python leaves to its JIT: one `E: ElementType`
generic per dtype class that no operation fixes (a concrete type where the body forces one),
one `const NAME: i32`/`const NAME: bool` per `ct.Constant` parameter, the Rust type of every
parameter, and the manifest (JSON-ready) that records, for each generic, which Python argument
or dtype it comes from. The IR check and the launcher generator read the manifest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from specialization.generic_names import DSL_TYPE_PARAMETERS
from specialization.manifest import (
    CONST_GENERIC_TYPES as CONST_GENERIC_TYPES,  # re-exported
)
from specialization.manifest import (
    FLOAT_BITS_KIND,
    JitSpecialization,
    Manifest,
    ManifestCondition,
    ManifestGeneric,
    ManifestParam,
    bound_condition,
    condition_text,
)
from specialization.manifest import (
    MANIFEST_VERSION as MANIFEST_VERSION,  # re-exported
)
from transpiler.model import (
    ArrayType,
    DType,
    DTypeVar,
    ElemType,
    KernelModel,
    KernelParam,
    PointerType,
    ScalarType,
)
from transpiler.model.elements import RUST_ELEMENT_TYPES


@dataclass(frozen=True)
class Generic:
    """One generic parameter of the Rust entry, in declaration order."""

    name: str
    kind: str  # "type" | "i32" | "bool" | FLOAT_BITS_KIND
    source: str  # what decides it at launch: "dtype(x)", "const(TILE)" or "derived(...)"
    params: tuple[str, ...] = ()
    # A derived const generic (`BLOCK // 8` in a tile type, which stable Rust cannot write):
    # its value as a condition tree over the constants, computed at launch.
    tree: object = None


@dataclass
class SpecializedKernel:
    model: KernelModel
    generics: list[Generic]
    dtype_names: dict[int, str]
    param_types: dict[str, str]
    runtime_params: list[str]
    output_strategy: str
    notes: list[str] = field(default_factory=list)

    def rust_elem(self, dtype: ElemType) -> str:
        if isinstance(dtype, DTypeVar):
            return self.dtype_names[dtype.key]
        return RUST_ELEMENT_TYPES[dtype.name]

    @property
    def entry_name(self) -> str:
        """The Rust entry's name: the kernel's, plus the element types of a dtype variant
        (one type: that type; several: each array's, in the order of the arrays' names, so
        that two launches mixing the same types differently get two names)."""
        types = {RUST_ELEMENT_TYPES[d] for d in self.model.dtype_variant.values()}
        parts = sorted(types) if len(types) <= 1 else [
            RUST_ELEMENT_TYPES[d] for _p, d in sorted(self.model.dtype_variant.items())]
        for name, value in sorted(self.model.const_variant.items()):
            parts.append(f"{name.lower()}_{_value_text(value)}")
        for key, outcome in sorted(self.model.cond_variant.items()):
            tree = outcome["tree"]
            pinned = (outcome["value"] and isinstance(tree, list) and tree[0] == "=="
                      and isinstance(tree[1], list) and tree[1][:1] == ["param"]
                      and tree[1][1] in self.model.const_variant)
            if not pinned:
                parts.append(("when_" if outcome["value"] else "unless_") + _slug(key))
        return "_".join([self.model.name, *parts]) + self.model.jit_suffix

    def manifest(self) -> dict[str, object]:
        """The manifest as JSON-ready data (`manifest_record().to_json()`)."""
        return self.manifest_record().to_json()

    def manifest_record(self) -> Manifest:
        params = []
        for p in self.model.params:
            if isinstance(p.type, ArrayType):
                params.append(ManifestParam(p.name, p.kind, ndim=p.type.ndim,
                                            element=self.rust_elem(p.type.dtype),
                                            written=p.written))
            elif isinstance(p.type, PointerType):
                params.append(ManifestParam(p.name, p.kind,
                                            element=self.rust_elem(p.type.dtype),
                                            written=p.written, jit=_jit(p), block=p.block))
            elif isinstance(p.type, ScalarType):
                params.append(ManifestParam(p.name, p.kind, element=self.rust_elem(p.type.dtype),
                                            jit=_jit(p)))
            else:
                params.append(ManifestParam(p.name, p.kind, const_kind=p.const_kind,
                                            fixed=p.fixed))
        for name, tree in self.model.derived_params:
            params.append(ManifestParam(name, "derived", element="f32", expr=tree))
        for name, array, dim in self.model.stride_params:
            params.append(ManifestParam(name, "stride", element="i32", array=array, dim=dim))
        for name, tensor, dim in self.model.extent_params:
            params.append(ManifestParam(name, "extent", element="i32", array=tensor, dim=dim))
        return Manifest(
            kernel=self.model.name,
            entry=self.entry_name,
            dtype_variant=dict(self.model.dtype_variant),
            const_variant=dict(self.model.const_variant),
            conditions=tuple(ManifestCondition(k, v["tree"], v["value"])  # type: ignore[arg-type]
                             for k, v in sorted(self.model.cond_variant.items())),
            generics=tuple(ManifestGeneric(g.name, g.kind, g.source, tuple(g.params), g.tree)
                           for g in self.generics),
            params=tuple(params),
            output_strategy=self.output_strategy,
            notes=tuple(self.notes),
            jit_facts=_jit_facts(self.model),
        )


def specialize(model: KernelModel) -> SpecializedKernel:
    dtype_names, type_generics = _dtype_generics(model)
    const_generics: list[Generic] = []
    runtime: list[str] = []
    notes = list(model.notes)
    for p in model.params:
        if p.kind == "const" and p.name in model.const_variant:
            notes.append(f"this entry is the kernel for `{p.name}` = {p.fixed!r}")
        elif p.kind == "const" and p.const_kind in ("int", "bool"):
            kind = "i32" if p.const_kind == "int" else "bool"
            const_generics.append(Generic(p.name, kind, f"const({p.name})", (p.name,)))
        elif p.kind == "const" and p.fixed is not None:
            notes.append(f"`{p.name}` is a float compile-time constant that every launch site "
                         f"passes as {p.fixed!r}: folded into the kernel, as the source "
                         "language's JIT does")
        elif p.kind == "const":
            bits = _bits_generic_name(p.name, model)
            const_generics.append(Generic(bits, FLOAT_BITS_KIND, f"f32_bits({p.name})",
                                          (p.name,)))
            notes.append(f"`{p.name}` is a float compile-time constant: cuTile Rust has no "
                         f"float const generics, so the entry takes its f32 bits as `{bits}` "
                         "and reinterprets them, a constant the JIT folds as the source "
                         "language's JIT folds the value")
        else:
            runtime.append(p.name)
    for name, array, dim in model.stride_params:
        runtime.append(name)
        notes.append(f"`{name}` is the stride of `{array}` along dim {dim}, which a cuTile "
                     "Rust kernel cannot read from the tensor: the launcher passes it")
    for name, tensor, dim in model.extent_params:
        runtime.append(name)
        notes.append(f"`{name}` is the extent of `{tensor}` along dim {dim}: the launcher "
                     "passes it")
    for name, _tree in model.derived_params:
        runtime.append(name)
        notes.append(f"`{name}` is a float expression over compile-time constants that "
                     "the source language's JIT folds; the launcher computes it")
    spec = SpecializedKernel(model, type_generics + const_generics, dtype_names, {}, runtime,
                             "shared-reference outputs with absolute-index stores", notes)
    for p in model.params:
        spec.param_types[p.name] = _param_type(spec, p.type, p.kind)
    for name, _tree in model.derived_params:
        spec.param_types[name] = "f32"
    for name, _array, _dim in model.stride_params + model.extent_params:
        spec.param_types[name] = "i32"
    return spec


def _dtype_generics(model: KernelModel) -> tuple[dict[int, str], list[Generic]]:
    classes: dict[int, list[str]] = {}
    for p in model.params:
        if isinstance(p.type, ArrayType | PointerType) and isinstance(p.type.dtype, DTypeVar):
            classes.setdefault(p.type.dtype.key, []).append(p.name)
    names: dict[int, str] = {}
    generics: list[Generic] = []
    taken = {p.name for p in model.params}
    for index, (key, members) in enumerate(classes.items()):
        name = "E" if index == 0 else "E" + _camel(members[0])
        while name in taken or name in DSL_TYPE_PARAMETERS:
            name += "T"
        taken.add(name)
        names[key] = name
        source = ", ".join(f"dtype({m})" for m in members)
        generics.append(Generic(name, "type", source, tuple(members)))
    return names, generics


_OPERATOR_WORDS = {"==": "eq", "!=": "ne", "<=": "le", ">=": "ge", "<": "lt", ">": "gt",
                   "&": "and", "|": "or", "^": "xor", "+": "plus", "-": "minus", "*": "times",
                   "/": "div", "%": "mod"}


def _jit(param: KernelParam) -> tuple[JitSpecialization, ...]:
    return tuple(JitSpecialization(key, when, fact) for key, when, fact in param.jit)


def _jit_facts(model: KernelModel) -> tuple[ManifestCondition, ...]:
    """The manifest conditions of the JIT facts the entry is translated under: each
    parameter's key condition with the argument named."""
    by_name = {p.name: p for p in model.params}
    out = []
    for name, key in model.jit_facts:
        tree = next(when for k, when, _fact in by_name[name].jit if k == key)
        bound = bound_condition(tree, name)
        out.append(ManifestCondition(condition_text(bound), bound, True))
    return tuple(out)


def _value_text(value: object) -> str:
    """A constant's value as part of an entry name (a string constant may be empty)."""
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, int | float):
        # -1 -> m1, 0.5 -> 0p5, -1.0 -> m1p0, 1e-06 -> 1em06 (a Rust identifier fragment)
        return repr(value).replace(".", "p").replace("-", "m").replace("+", "")
    return str(value) or "empty"


def _slug(text: str) -> str:
    for op, word in _OPERATOR_WORDS.items():
        text = text.replace(f" {op} ", f"_{word}_")
    # A negative number (`== -1`) keeps its sign: `eq_m1`, not the `eq_1` of `== 1`.
    text = re.sub(r"-(?=\d)", "m", text)
    return "_".join(part for part in "".join(
        c.lower() if c.isalnum() else "_" for c in text).split("_") if part)


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def _param_type(spec: SpecializedKernel, vtype: object, kind: str) -> str:
    if isinstance(vtype, ArrayType):
        dims = ", ".join("-1" for _ in range(max(vtype.ndim, 1)))
        return f"&Tensor<{spec.rust_elem(vtype.dtype)}, {{ [{dims}] }}>"
    if isinstance(vtype, PointerType):
        # A raw pointer keeps the source kernel's ABI (Triton passes pointers and strides).
        return f"*mut {spec.rust_elem(vtype.dtype)}"
    if isinstance(vtype, ScalarType):
        return spec.rust_elem(vtype.dtype)
    if kind == "const":
        return "f32"
    return "i32"


def describe_dtype(dtype: ElemType) -> str:
    return dtype.name if isinstance(dtype, DType) else f"E#{dtype.key}"


def _bits_generic_name(name: str, model: KernelModel) -> str:
    """`EPS_BITS` for the constant `EPS`: a name no parameter of the kernel has."""
    taken = {p.name for p in model.params}
    bits = f"{name.upper()}_BITS"
    while bits in taken:
        bits += "_"
    return bits
