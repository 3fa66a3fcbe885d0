"""The specialization manifest: what each generated Rust entry was specialized for.

Takes a `SpecializedKernel`'s facts (or the text of a generated Rust file); gives `Manifest`,
the typed record of one Rust entry: its Python kernel, the dtype and constant values the
entry is translated for, the conditions it holds under, where each generic comes from, and
every parameter the entry takes. It travels as one JSON comment line per entry
(`// transpiler-manifest: {...}`, keys sorted, no spaces) so that `verify` can check
hand-edited Rust; `to_json`/`from_json` keep that text exactly. The IR check, `verify`, the
launcher generator, the LLM fallback and the benchmarks read it through `parse_manifests`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

MANIFEST_PREFIX = "transpiler-manifest: "
MANIFEST_VERSION = 1

#: Parameter kinds: the kernel's own (`array`, `scalar`, `const`), and the runtime
#: parameters the translation adds (`derived`: an f32 folded from float constants;
#: `stride`: an i32 carrying an array's stride; `extent`: an i32 carrying a tensor's extent,
#: as a host-made Triton tensor descriptor holds it).
PARAM_KINDS = ("array", "scalar", "const", "derived", "stride", "extent")
ADDED_KINDS = ("derived", "stride", "extent")

#: The generic kind of a `ct.Constant[float]`: an `i32` const generic holding the constant's
#: f32 bit pattern (stable Rust has no float const generics). Python folds such a constant
#: into its kernel per value; the bits make cuTile Rust's JIT specialize per value too.
FLOAT_BITS_KIND = "f32_bits"
#: Rust's spelling of each kind of const generic.
CONST_GENERIC_TYPES = {"i32": "i32", "bool": "bool", FLOAT_BITS_KIND: "i32"}


@dataclass(frozen=True)
class JitSpecialization:
    """A specialization the source language's JIT makes on a runtime argument (Triton: an
    int equal to 1, an int divisible by 16, a pointer aligned to 16 bytes): `key` (Triton's
    "1" / "D"), `when` the condition tree over the argument (`["arg"]` is its value, a
    pointer's address in bytes), `fact` what the compiler assumes when it holds. The entry
    assumes none of them; the host glue may dispatch on `when`."""

    key: str
    when: object
    fact: str

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "when": self.when, "fact": self.fact}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> JitSpecialization:
        return cls(str(data.get("key", "")), data.get("when"), str(data.get("fact", "")))


@dataclass(frozen=True)
class ManifestParam:
    """One parameter of the Rust entry. Which fields are set depends on `kind`: arrays have
    `ndim`, `element`, `written`; pointers `element`, `written`; scalars `element`;
    constants `const_kind` and, when every launch passes one value, `fixed`; derived params
    `element` and `expr` (an expression tree); strides and extents `element`, `array` and
    `dim`. A pointer that a host-made tensor descriptor carries has `block`, the
    descriptor's block shape (one condition tree over the constants per dimension)."""

    name: str
    kind: str
    ndim: int | None = None
    element: str | None = None
    written: bool = False
    const_kind: str | None = None
    fixed: object = None
    expr: object = None
    array: str | None = None
    dim: int | None = None
    jit: tuple[JitSpecialization, ...] = ()
    block: tuple[object, ...] | None = None

    @property
    def is_added(self) -> bool:
        """A runtime parameter the translation adds (not one of the Python kernel's)."""
        return self.kind in ADDED_KINDS

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "kind": self.kind}
        if self.kind == "array":
            out.update(ndim=self.ndim, element=self.element, written=self.written)
        elif self.kind == "pointer":
            out.update(element=self.element, written=self.written)
            if self.block is not None:
                out["block"] = list(self.block)
        elif self.kind == "scalar":
            out["element"] = self.element
        elif self.kind == "derived":
            out.update(element=self.element, expr=self.expr)
        elif self.kind in ("stride", "extent"):
            out.update(element=self.element, array=self.array, dim=self.dim)
        else:
            out["const_kind"] = self.const_kind
            if self.fixed is not None:
                out["fixed"] = self.fixed
        if self.jit:
            out["jit"] = [j.to_json() for j in self.jit]
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> ManifestParam:
        ndim, dim, block = data.get("ndim"), data.get("dim"), data.get("block")
        return cls(str(data["name"]), str(data["kind"]),
                   ndim=int(ndim) if isinstance(ndim, int) else None,
                   element=_text(data.get("element")), written=bool(data.get("written")),
                   const_kind=_text(data.get("const_kind")), fixed=data.get("fixed"),
                   expr=data.get("expr"), array=_text(data.get("array")),
                   dim=int(dim) if isinstance(dim, int) else None,
                   jit=tuple(JitSpecialization.from_json(j) for j in _list(data.get("jit"))
                             if isinstance(j, dict)),
                   block=tuple(block) if isinstance(block, list) else None)


@dataclass(frozen=True)
class ManifestGeneric:
    """One generic parameter of the Rust entry: `kind` "type", "i32", "bool" or
    `FLOAT_BITS_KIND`; `source`
    says where its value comes from (`dtype(x)`, a constant's name, a derived tree);
    `params` are the Python parameters it reads; `tree` the expression computing it."""

    name: str
    kind: str
    source: str
    params: tuple[str, ...] = ()
    tree: object = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "kind": self.kind, "source": self.source,
                                  "params": list(self.params)}
        if self.tree is not None:
            out["tree"] = self.tree
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> ManifestGeneric:
        return cls(str(data["name"]), str(data["kind"]), str(data.get("source", "")),
                   tuple(str(p) for p in _list(data.get("params"))), data.get("tree"))


@dataclass(frozen=True)
class ManifestCondition:
    """A condition over constants the entry is translated under: its Rust text, its JSON
    tree (`model.consts.condition_tree`) and the outcome the entry holds for."""

    text: str
    tree: object
    value: bool

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "tree": self.tree, "value": self.value}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> ManifestCondition:
        return cls(str(data.get("text", "")), data.get("tree"), bool(data.get("value")))


@dataclass(frozen=True)
class Manifest:
    """The manifest of one Rust entry."""

    kernel: str
    entry: str
    params: tuple[ManifestParam, ...] = ()
    generics: tuple[ManifestGeneric, ...] = ()
    dtype_variant: dict[str, str] = field(default_factory=dict)
    const_variant: dict[str, object] = field(default_factory=dict)
    conditions: tuple[ManifestCondition, ...] = ()
    output_strategy: str = ""
    #: conditions over the runtime arguments the entry assumes (empty: every argument)
    jit_facts: tuple[ManifestCondition, ...] = ()
    notes: tuple[str, ...] = ()
    version: int = MANIFEST_VERSION

    def param(self, name: str) -> ManifestParam | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def kernel_params(self) -> tuple[ManifestParam, ...]:
        """The Python kernel's own parameters, in its order."""
        return tuple(p for p in self.params if not p.is_added)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "version": self.version,
            "kernel": self.kernel,
            "entry": self.entry,
            "dtype_variant": dict(self.dtype_variant),
            "const_variant": dict(self.const_variant),
            "conditions": [c.to_json() for c in self.conditions],
            "generics": [g.to_json() for g in self.generics],
            "params": [p.to_json() for p in self.params],
            "output_strategy": self.output_strategy,
            "notes": list(self.notes),
        }
        if self.jit_facts:
            out["jit_facts"] = [c.to_json() for c in self.jit_facts]
        return out

    def to_text(self) -> str:
        """The comment text the generated Rust carries (without the `// `)."""
        return MANIFEST_PREFIX + json.dumps(self.to_json(), sort_keys=True,
                                            separators=(",", ":"))

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Manifest:
        kernel = str(data["kernel"])
        return cls(
            kernel=kernel,
            entry=str(data.get("entry", kernel)),
            params=tuple(ManifestParam.from_json(p) for p in _list(data.get("params"))),
            generics=tuple(ManifestGeneric.from_json(g) for g in _list(data.get("generics"))),
            dtype_variant={str(k): str(v) for k, v in _dict(data.get("dtype_variant")).items()},
            const_variant={str(k): v for k, v in _dict(data.get("const_variant")).items()},
            conditions=tuple(ManifestCondition.from_json(c)
                             for c in _list(data.get("conditions"))),
            output_strategy=str(data.get("output_strategy", "")),
            notes=tuple(str(n) for n in _list(data.get("notes"))),
            jit_facts=tuple(ManifestCondition.from_json(c)
                            for c in _list(data.get("jit_facts"))),
            version=int(data.get("version", MANIFEST_VERSION)),  # type: ignore[call-overload]
        )


def bound_condition(tree: object, name: str) -> object:
    """A key's condition with its argument named: `["arg"]` -> `["arg", name]`."""
    if tree == ["arg"]:
        return ["arg", name]
    if isinstance(tree, list):
        return [bound_condition(x, name) for x in tree]
    return tree


def condition_text(tree: object) -> str:
    """A condition tree over named arguments as text (`x_ptr % 16 == 0`)."""
    if isinstance(tree, list) and len(tree) == 2 and tree[0] == "arg":
        return str(tree[1])
    if isinstance(tree, list) and len(tree) == 3:
        left, right = (condition_text(x) if not (isinstance(x, list) and len(x) == 3)
                       or x[0] == "%" else f"({condition_text(x)})" for x in tree[1:])
        return f"{left} {tree[0]} {right}"
    return repr(tree)


def evaluate_fact(tree: object, values: dict[str, int]) -> bool:
    """A condition over named arguments (`["arg", NAME]`, `==`, `%`, ints) for these values."""
    def value(t: object) -> int:
        if isinstance(t, list) and len(t) == 2 and t[0] == "arg":
            return values[str(t[1])]
        if isinstance(t, list) and len(t) == 3 and t[0] == "%":
            return value(t[1]) % value(t[2])
        if isinstance(t, int) and not isinstance(t, bool):
            return t
        raise ValueError(f"cannot evaluate the JIT condition {t!r}")
    if isinstance(tree, list) and len(tree) == 3 and tree[0] == "==":
        return value(tree[1]) == value(tree[2])
    raise ValueError(f"cannot evaluate the JIT condition {tree!r}")


def read_manifests(rust_text: str) -> dict[str, dict[str, object]]:
    """The manifests embedded in a generated Rust file as JSON objects, by Rust entry name
    (each names its Python kernel under "kernel")."""
    out: dict[str, dict[str, object]] = {}
    for line in rust_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("// " + MANIFEST_PREFIX):
            data = json.loads(stripped[len("// " + MANIFEST_PREFIX):])
            out[str(data.get("entry", data["kernel"]))] = data
    return out


def parse_manifests(rust_text: str) -> dict[str, Manifest]:
    """The manifests embedded in a generated Rust file, by Rust entry name."""
    return {entry: Manifest.from_json(data) for entry, data in read_manifests(rust_text).items()}


def as_manifest(value: Manifest | dict[str, object]) -> Manifest:
    """A manifest, from its typed form or its JSON object."""
    return value if isinstance(value, Manifest) else Manifest.from_json(value)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _list(value: object) -> list:
    return list(value) if isinstance(value, list | tuple) else []


def _dict(value: object) -> dict:
    return dict(value) if isinstance(value, dict) else {}
