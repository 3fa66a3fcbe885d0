"""Triton launch plans: per `@triton.jit` kernel, the Rust entries a `kernel[grid](...)` reaches.

Takes the text of a Triton file and the Rust generated for it; gives a `TritonPlan`: per
kernel its Python parameters (order, constexprs, defaults: what a launch binds its arguments
to) and, per Rust entry, what selects it (the pointer dtypes of a dtype variant, constexpr
values of a value variant, outcomes of conditions over constexprs), the C arguments of its
launcher (a pointer as address and dtype code, scalars as their C type, the int and bool
generics in the entry's order, then the grid), the constexpr values it folded, and the JIT
facts it assumes of its runtime arguments (a fact entry, `lowering/jit_facts`: conditions
over `["arg", NAME]`, an int's value or a pointer's address). A kernel's entries are in
selection order: the ones with the most facts first, so that the first entry that fits a
call is the most specific, and the general entry (no facts) after its fact entries.

Unlike a `ct.launch` site, a Triton launch computes its grid, heuristics and autotuned
config in Python from the values of the call (`grid(META)`), so the plan is per kernel, not
per launch site: the wrapper runs that host logic and passes the results to the launcher.
"""

from __future__ import annotations

from dataclasses import dataclass

from specialization.manifest import Manifest, read_manifests
from transpiler.frontend.triton_host import KernelSignature, read_host
from transpiler.hostglue.abi import DTYPE_CODES, RUST_SCALAR_C_TYPES
from transpiler.hostglue.signatures import kernel_signatures
from transpiler.model.elements import RUST_ELEMENT_TYPES

#: C ABI kinds of a launcher argument (the wrapper's ctypes and struct codes agree).
SCALAR_KINDS: frozenset[str] = frozenset(RUST_SCALAR_C_TYPES)


@dataclass(frozen=True)
class TritonArg:
    """One runtime argument of a Rust entry: a pointer (`kind` "ptr", `element` a concrete
    element type or the name of a type generic) or a scalar (`kind` its C type)."""

    name: str
    kind: str
    element: str = ""


@dataclass(frozen=True)
class TritonGeneric:
    """One generic of a Rust entry: an element type over pointers (`kind` "type", `params`
    the pointers), or an int / bool value (`kind` "i32" / "bool") of a constexpr (`params`
    its one constexpr) or derived from constexprs (`tree`, the manifest's expression)."""

    name: str
    kind: str
    params: tuple[str, ...]
    tree: object = None
    #: a type generic's element types beyond the dispatched defaults that the file's own
    #: launches pass to its pointers (an int32 output); the launcher builds them too
    launched: tuple[str, ...] = ()


@dataclass(frozen=True)
class TritonEntry:
    """One Rust entry of a kernel and the C-ABI launcher `symbol` that launches it."""

    rust_fn: str
    symbol: str
    args: tuple[TritonArg, ...]
    generics: tuple[TritonGeneric, ...]
    variant: tuple[tuple[str, str], ...] = ()  # (pointer, element) a dtype variant fixes
    consts: tuple[tuple[str, object], ...] = ()  # (constexpr, value) a value variant fixes
    conds: tuple[tuple[object, bool, str], ...] = ()  # (tree, outcome, text)
    folded: tuple[tuple[str, object], ...] = ()  # (constexpr, value) the entry was built for
    facts: tuple[tuple[object, str], ...] = ()  # (condition over arguments, text): JIT facts

    @property
    def value_generics(self) -> tuple[TritonGeneric, ...]:
        """The int and bool generics, in order: the launcher takes their values."""
        return tuple(g for g in self.generics if g.kind != "type")


@dataclass(frozen=True)
class TritonKernelPlan:
    """A kernel as a launch sees it: its Python parameters and its Rust entries."""

    name: str
    params: tuple[str, ...]
    constexprs: tuple[str, ...]
    defaults: tuple[tuple[str, object], ...]
    entries: tuple[TritonEntry, ...]
    why_none: str = ""  # no entry: why (the wrapper raises this at launch)


@dataclass(frozen=True)
class TritonPlan:
    path: str
    module: str
    kernels: tuple[TritonKernelPlan, ...]

    def kernel(self, name: str) -> TritonKernelPlan:
        return next(k for k in self.kernels if k.name == name)


def plan_triton(text: str, path: str, rust: str) -> TritonPlan:
    """The plan of every `@triton.jit` kernel of `text` against the Rust in `rust`."""
    module, _ = kernel_signatures(rust)
    manifests: dict[str, list[Manifest]] = {}
    for data in read_manifests(rust).values():
        manifest = Manifest.from_json(data)
        manifests.setdefault(manifest.kernel, []).append(manifest)
    host = read_host(text, path)
    kernels = tuple(_kernel_plan(sig, manifests.get(name, []), module,
                                 _launched_elements(host.specializations.get(name, [])))
                    for name, sig in host.kernels.items())
    return TritonPlan(path, module, kernels)


def _launched_elements(launches: list) -> dict[str, tuple[str, ...]]:
    """Per pointer parameter, the element types (cutile names) the file's launches pass it
    that the C ABI has a dtype code for, in launch order."""
    found: dict[str, list[str]] = {}
    for launch in launches:
        for name, dtype in launch.pointer_dtypes:
            element = RUST_ELEMENT_TYPES.get(dtype or "")
            if element in DTYPE_CODES and element not in found.setdefault(name, []):
                found[name].append(element)
    return {name: tuple(elements) for name, elements in found.items()}


def _kernel_plan(sig: KernelSignature, manifests: list[Manifest], module: str,
                 launched: dict[str, tuple[str, ...]]) -> TritonKernelPlan:
    constexprs = tuple(p for p in sig.params if p in sig.constexprs)
    base = TritonKernelPlan(sig.name, sig.params, constexprs, sig.defaults, ())
    if not manifests:
        return _without(base, f"`{sig.name}` has no Rust translation (a helper, or a kernel "
                              "the translation left out)")
    entries: list[TritonEntry] = []
    for manifest in manifests:
        names = tuple(p.name for p in manifest.kernel_params)
        if names != sig.params:
            return _without(base, f"the Rust entry `{manifest.entry}` takes "
                                  f"({', '.join(names)}), the kernel ({', '.join(sig.params)})")
        entry = _entry(manifest, module, launched)
        if isinstance(entry, str):
            return _without(base, entry)
        entries.append(entry)
    entries.sort(key=lambda e: -len(e.facts))  # stable: most specific first
    return TritonKernelPlan(sig.name, sig.params, constexprs, sig.defaults, tuple(entries))


def _without(plan: TritonKernelPlan, why: str) -> TritonKernelPlan:
    return TritonKernelPlan(plan.name, plan.params, plan.constexprs, plan.defaults, (), why)


def _entry(manifest: Manifest, module: str,
           launched: dict[str, tuple[str, ...]]) -> TritonEntry | str:
    args: list[TritonArg] = []
    folded: list[tuple[str, object]] = []
    described = [p.name for p in manifest.kernel_params if p.block is not None]
    if described:
        # The entry takes the descriptor's base, extents and strides as separate arguments;
        # the launcher ABI has no form for a descriptor argument yet.
        return (f"the Rust entry `{manifest.entry}` takes the host-made tensor descriptor "
                f"`{described[0]}`, which the launcher does not pass")
    for param in manifest.kernel_params:
        if param.kind == "pointer":
            element = str(param.element or "")
            if element in RUST_ELEMENT_TYPES.values() and element not in DTYPE_CODES:
                return (f"the Rust entry `{manifest.entry}` takes `{param.name}` as a pointer "
                        f"to {element}, which the C ABI has no dtype code for")
            args.append(TritonArg(param.name, "ptr", element))
        elif param.kind == "scalar":
            element = str(param.element or "")
            if element not in SCALAR_KINDS:
                return (f"the Rust entry `{manifest.entry}` takes the scalar `{param.name}` "
                        f"as {element}, which the C ABI does not pass")
            args.append(TritonArg(param.name, element))
        elif param.kind == "const" and param.fixed is not None:
            folded.append((param.name, param.fixed))
        elif param.kind != "const":
            return (f"the Rust entry `{manifest.entry}` takes `{param.name}` as a "
                    f"{param.kind}, which a Triton launch does not pass")
    generics = []
    for generic in manifest.generics:
        if generic.kind not in ("type", "i32", "bool"):
            return (f"the Rust entry `{manifest.entry}` has the generic `{generic.name}` of "
                    f"kind {generic.kind}, which a Triton launch does not compute")
        passed = tuple(dict.fromkeys(
            e for p in generic.params for e in launched.get(p, ()))) if generic.kind == "type" \
            else ()
        generics.append(TritonGeneric(generic.name, generic.kind, tuple(generic.params),
                                      generic.tree, passed))
    variant = tuple((p, RUST_ELEMENT_TYPES.get(e, e)) for p, e in manifest.dtype_variant.items())
    conds = tuple((c.tree, c.value, c.text) for c in manifest.conditions)
    facts = tuple((c.tree, c.text) for c in manifest.jit_facts)
    return TritonEntry(manifest.entry, f"tl_{module}__{manifest.entry}", tuple(args),
                       tuple(generics), variant, tuple(manifest.const_variant.items()), conds,
                       tuple(folded), facts)
