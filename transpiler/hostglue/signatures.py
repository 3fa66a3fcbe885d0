"""Kernel signatures for the launcher: the Rust entries of a generated file, from its manifests.

Takes the Rust text the transpiler generated; gives, per Python kernel, a `KernelSig` for
each of its Rust entries (parameters in order, generics and where they come from, the
dtype, constant and condition variant the entry is for, the runtime parameters the
translation adds), read from the typed manifest (`specialization/manifest.py`).
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass

from specialization.manifest import FLOAT_BITS_KIND, Manifest, ManifestParam, read_manifests
from transpiler.hostglue.abi import RESERVED_NAMES, RUST_SCALAR_C_TYPES
from transpiler.lowering.reserved_names import RUST_KEYWORDS
from transpiler.model.elements import RUST_ELEMENT_TYPES

# ---- kernel signatures ---------------------------------------------------------------------


@dataclass(frozen=True)
class ParamSig:
    """One kernel parameter as the manifest records it."""

    name: str
    kind: str  # "array" | "scalar" | "const"
    ndim: int = 0
    element: str = ""  # Rust element type or generic name (arrays, scalars)
    const_kind: str = ""  # "int" | "bool" | "float" (constants)
    fixed: bool = False  # a float constant folded into the kernel
    bits_generic: bool = False  # a float constant the entry takes as an f32-bits generic

    @property
    def ident(self) -> str:
        """The Rust/C identifier of this parameter in generated code."""
        name = self.name
        if keyword.iskeyword(name) or name in RESERVED_NAMES or name in RUST_KEYWORDS:
            return name + "_arg"
        return name

    @property
    def is_generic_const(self) -> bool:
        return self.kind == "const" and (self.const_kind in ("int", "bool")
                                         or self.bits_generic)

    @property
    def c_type(self) -> str:
        """The Rust type of the C parameter (arrays: a descriptor pointer)."""
        if self.kind == "array":
            return "*const TensorDesc"
        if self.kind == "scalar":
            return RUST_SCALAR_C_TYPES.get(self.element, self.element)
        return {"int": "i32", "bool": "bool"}.get(self.const_kind, "f64")




@dataclass(frozen=True)
class GenericSig:
    name: str
    kind: str  # "type" | "i32" | "bool"
    params: tuple[str, ...]
    tree: object = None  # a derived const generic: its value over the constants


@dataclass(frozen=True)
class KernelSig:
    """What the launcher needs of one Rust entry translating a Python kernel."""

    name: str  # the Python kernel
    rust_fn: str  # the Rust entry
    params: tuple[ParamSig, ...]
    generics: tuple[GenericSig, ...]
    variant: tuple[tuple[str, str], ...] = ()  # (array param, element) a dtype variant fixes
    derived: tuple[tuple[str, object], ...] = ()  # f32 params computed from float constants
    consts: tuple[tuple[str, object], ...] = ()  # (constant, value) a value variant fixes
    # i32 params carrying a tensor's stride (name, array, dim): a kernel cannot read them
    strides: tuple[tuple[str, str, int], ...] = ()
    # (condition tree over constants, outcome, text) a condition variant fixes
    conds: tuple[tuple[object, bool, str], ...] = ()

    @property
    def is_variant(self) -> bool:
        """One of several entries of a kernel, for given dtypes, constant values and/or
        outcomes of conditions over constants."""
        return bool(self.variant or self.consts or self.conds)

    def param(self, name: str) -> ParamSig:
        return next(p for p in self.params if p.name == name)

    @property
    def rust_args(self) -> tuple[ParamSig | str, ...]:
        """Arguments of the Rust entry, in order: parameters (int/bool constants are
        generics, fixed float constants are folded), then derived values (by name)."""
        kept: list[ParamSig | str] = [p for p in self.params
                                      if not p.is_generic_const and not p.fixed]
        return (*kept, *(name for name, _ in self.derived),
                *(name for name, _, _ in self.strides))


def kernel_signatures(rust: str) -> tuple[str, dict[str, list[KernelSig]]]:
    """The `#[cutile::module]` name of a generated file and, per Python kernel, the
    signatures of its Rust entries (several when dtype variants split it)."""
    module = re.search(r"#\[cutile::module\]\s*pub mod (\w+)", rust)
    if module is None:
        raise ValueError("the Rust text has no `#[cutile::module] pub mod`")
    sigs: dict[str, list[KernelSig]] = {}
    for entry, data in read_manifests(rust).items():
        sig = _signature(Manifest.from_json(data),
                         str(data.get("entry") or _rust_fn_after(rust, entry)))
        sigs.setdefault(sig.name, []).append(sig)
    return module.group(1), sigs


def _rust_fn_after(rust: str, kernel: str) -> str:
    start = rust.find(f'"kernel":{json.dumps(kernel)}')
    found = re.compile(r"\bfn (\w+)").search(rust, max(start, 0))
    return found.group(1) if found else kernel


def _launch_rank(param: ManifestParam) -> int:
    """The rank the launcher passes an array at: the manifest's `ndim`, where -1 (an array the
    entry never reads) is the 1-d tensor the Rust entry takes (`{ [-1] }`)."""
    ndim = param.ndim or 0
    return 1 if ndim < 0 else ndim


def _signature(manifest: Manifest, rust_fn: str) -> KernelSig:
    as_bits = {g.params[0] for g in manifest.generics if g.kind == FLOAT_BITS_KIND}
    params = tuple(
        ParamSig(p.name, p.kind, _launch_rank(p), p.element or "", p.const_kind or "",
                 p.fixed is not None, p.name in as_bits)
        for p in manifest.kernel_params
    )
    derived = tuple((p.name, p.expr) for p in manifest.params if p.kind == "derived")
    strides = tuple((p.name, str(p.array), int(p.dim or 0))
                    for p in manifest.params if p.kind == "stride")
    generics = tuple(GenericSig(g.name, g.kind, g.params, g.tree) for g in manifest.generics)
    variant = tuple((k, RUST_ELEMENT_TYPES.get(v, v)) for k, v in manifest.dtype_variant.items())
    consts = tuple(manifest.const_variant.items())
    conds = tuple((c.tree, c.value, c.text) for c in manifest.conditions)
    return KernelSig(manifest.kernel, rust_fn, params, generics, variant, derived, consts,
                     strides, conds)
