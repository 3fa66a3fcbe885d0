"""Launch plans: per `ct.launch` site, what the launcher computes and passes.

Takes a `SourceModule` and the Rust text generated for it; gives a `LaunchPlan`: per site
and kernel, the grid (Rust over the launcher's inputs, or taken from the caller), the
generics and how each is chosen (from a constant, fixed, or dispatched over element types),
and the Rust entries it can reach.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from transpiler.frontend.cutile_py import (
    LaunchSite,
    SourceModule,
)
from transpiler.hostglue.abi import DEFAULT_ELEMENT_TYPES, DTYPE_CODES
from transpiler.hostglue.host_values import (
    Bin,
    Binding,
    DeviceSMs,
    Dim,
    Expr,
    Fn,
    HostEvaluator,
    IntVal,
    KernelVal,
    Lit,
    NDim,
    Numel,
    ParamRef,
    TensorInfo,
    TupleVal,
    Value,
    Var,
    as_int,
    as_tensor,
    code_excerpt,
    why_unknown,
)
from transpiler.hostglue.signatures import KernelSig, ParamSig, kernel_signatures

# ---- launch plans --------------------------------------------------------------------------


@dataclass(frozen=True)
class GenericPlan:
    """How a launcher obtains one element-type generic."""

    name: str
    mode: str  # "dispatch" | "same" | "fixed"
    other: str = ""  # "same": the generic it equals; "fixed": the element type
    why: str = ""


@dataclass
class KernelLaunch:
    """One kernel launched at one site: everything the Rust and Python emitters need."""

    site_index: int
    site: LaunchSite
    entries: list[KernelSig]  # the Rust entries of the kernel (variants: several)
    symbol: str
    grid: tuple[str, str, str] | None
    grid_note: str
    generics: dict[str, dict[str, GenericPlan]] = field(default_factory=dict)  # by entry
    unreachable: list[tuple[KernelSig, str]] = field(default_factory=list)  # entry, why

    @property
    def kernel(self) -> KernelSig:
        """The first entry; every entry of a kernel has the same Python parameters."""
        return self.entries[0]


@dataclass
class LaunchPlan:
    """Every launch site of a file, or the reason a site has no launcher."""

    path: str
    module: str
    launches: list[KernelLaunch]
    skipped: list[tuple[LaunchSite, str]]
    sites: list[LaunchSite]
    element_types: tuple[str, ...]


def plan_launches(source: SourceModule, rust: str,
                  element_types: tuple[str, ...] = DEFAULT_ELEMENT_TYPES) -> LaunchPlan:
    """Resolves every launch site of `source` against the kernels translated in `rust`."""
    module, sigs = kernel_signatures(rust)
    evaluator = HostEvaluator(source)
    plan = LaunchPlan(source.path, module, [], [], list(source.launches), element_types)
    used: set[str] = set()
    for index, site in enumerate(source.launches):
        env = evaluator.env_at(site)
        kernels = _site_kernels(evaluator, site, env)
        if isinstance(kernels, str):
            plan.skipped.append((site, kernels))
            continue
        for name in kernels:
            if name not in sigs:
                plan.skipped.append((site, f"kernel `{name}` has no translation"))
                continue
            launch = _plan_kernel(evaluator, env, site, index, sigs[name], module, used)
            if isinstance(launch, str):
                plan.skipped.append((site, launch))
            else:
                plan.launches.append(launch)
    return plan


def _site_kernels(evaluator: HostEvaluator, site: LaunchSite,
                  env: dict[str, Binding]) -> list[str] | str:
    if site.kernel in evaluator.kernel_names:
        return [site.kernel]  # type: ignore[list-item]
    if site.kernel is None:
        return "the launched kernel is not a name"
    value = evaluator.eval(cst.parse_expression(site.kernel), env)
    if isinstance(value, KernelVal):
        return list(value.names)
    return f"`{site.kernel}` is not a kernel the launcher can name ({why_unknown(value)})"


def _plan_kernel(evaluator: HostEvaluator, env: dict[str, Binding], site: LaunchSite,
                 index: int, entries: list[KernelSig], module: str,
                 used: set[str]) -> KernelLaunch | str:
    unreachable = [(e, _unreachable(e)) for e in entries if _unreachable(e)]
    entries = [e for e in entries if not _unreachable(e)]
    if not entries:
        return "; ".join(f"entry `{e.rust_fn}` {why}" for e, why in unreachable)
    sig = entries[0]
    if len(site.args) != len(sig.params):
        return (f"`{sig.name}` takes {len(sig.params)} arguments, the launch passes "
                f"{len(site.args)}")
    values = [evaluator.eval(arg, env) for arg in site.args]
    infos: dict[str, TensorInfo | None] = {}
    ints: dict[int, ParamSig] = {}
    for param, arg, value in zip(sig.params, site.args, values, strict=True):
        if param.kind == "array":
            infos[param.name] = as_tensor(value)
        elif isinstance(arg, cst.Name):
            binding = env.get(arg.value) or evaluator.module_binding(arg.value)
            if binding is not None:
                ints[id(binding)] = param
    resolver = Resolver(sig, infos, ints)
    grid, note = _plan_grid(evaluator, env, site, resolver)
    launch = KernelLaunch(index, site, entries, _symbol(module, site, sig, used), grid, note,
                          unreachable=unreachable)
    launch.generics = {e.rust_fn: plan_generics(e, infos) for e in entries}
    return launch


def _unreachable(entry: KernelSig) -> str:
    """Why no launch through the C ABI can select this variant entry ("" if one can)."""
    missing = sorted({e for _, e in entry.variant if e not in DTYPE_CODES})
    if missing:
        return (f"is the translation for element type {', '.join(missing)}, which the C ABI "
                "has no dtype code for")
    return ""


def _symbol(module: str, site: LaunchSite, sig: KernelSig, used: set[str]) -> str:
    base = f"tl_{module}__{site.host_function or 'module'}__{sig.name}"
    symbol, n = base, 1
    while symbol in used:
        n += 1
        symbol = f"{base}__{n}"
    used.add(symbol)
    return symbol


def _plan_grid(evaluator: HostEvaluator, env: dict[str, Binding], site: LaunchSite,
               resolver: Resolver) -> tuple[tuple[str, str, str] | None, str]:
    value = evaluator.eval(site.grid, env)
    items: tuple[Value, ...]
    if as_int(value) is not None:
        items = (value,)
    elif isinstance(value, TupleVal) and 1 <= len(value.items) <= 3:
        items = value.items
    else:
        return None, f"the grid `{code_excerpt(site.grid)}` is {why_unknown(value)}"
    out: list[str] = []
    for item in items:
        expr = as_int(item)
        if expr is None:
            return None, f"a grid entry is {why_unknown(item)}"
        rust = resolver.rust(expr)
        if isinstance(rust, Failure):
            return None, rust.reason
        out.append(rust)
    out.extend(["1i64"] * (3 - len(out)))
    return (out[0], out[1], out[2]), f"translated from `{_grid_text(site, env)}`"


def _grid_text(site: LaunchSite, env: dict[str, Binding]) -> str:
    text = code_excerpt(site.grid)
    if isinstance(site.grid, cst.Name) and site.grid.value in env:
        node = env[site.grid.value].node
        if node is not None:
            return f"{text} = {code_excerpt(node)}"
    return text


@dataclass(frozen=True)
class Failure:
    reason: str


class Resolver:
    """Turns symbolic host integers into Rust over one launcher's parameters: descriptor
    shapes of the array arguments, the integer arguments, literals and the device."""

    def __init__(self, sig: KernelSig, infos: dict[str, TensorInfo | None],
                 ints: dict[int, ParamSig]) -> None:
        self.params = {id(i): sig.param(n) for n, i in infos.items() if i is not None}
        self.args = [i for i in infos.values() if i is not None]
        self.ints = ints
        self.depth = 0

    def rust(self, expr: Expr) -> str | Failure:
        self.depth += 1
        try:
            if self.depth > 64:
                return Failure("the grid expression is too deep")
            return self._rust(expr)
        finally:
            self.depth -= 1

    def _rust(self, expr: Expr) -> str | Failure:
        if isinstance(expr, Lit):
            return f"{expr.value}i64"
        if isinstance(expr, Var):
            return self._var(expr.binding)
        if isinstance(expr, Dim):
            return self._dim(expr.tensor, expr.axis, frozenset())
        if isinstance(expr, Numel):
            return self._numel(expr.tensor, frozenset())
        if isinstance(expr, NDim):
            ndim = self.ndim(expr.tensor, frozenset())
            return f"{ndim}i64" if ndim is not None else Failure("a tensor rank is unknown")
        if isinstance(expr, DeviceSMs):
            return "multiprocessor_count(device)?"
        operands = (expr.left, expr.right) if isinstance(expr, Bin) else expr.args
        parts = [self.rust(a) for a in operands]
        failed = next((p for p in parts if isinstance(p, Failure)), None)
        return failed if failed is not None else _rust_op(expr, parts)  # type: ignore[arg-type]

    def _var(self, binding: Binding) -> str | Failure:
        param = self.ints.get(id(binding))
        if param is not None:
            if param.c_type in ("f32", "f64"):
                return Failure(f"`{binding.name}` is a float")
            return f"i64::from({param.ident})"
        if isinstance(binding.value, IntVal):
            return self.rust(binding.value.expr)
        if isinstance(binding.value, ParamRef):
            return Failure(f"host parameter `{binding.name}` is not passed to the kernel")
        return Failure(why_unknown(binding.value))

    def _related(self, tensor: TensorInfo, numel: bool) -> list[TensorInfo]:
        """Tensors with the same shape (or, with `numel`, the same element count)."""
        out = [t for t in (tensor.same_shape, tensor.same_numel if numel else None) if t]
        for arg in self.args:
            if arg.same_shape is tensor or (numel and arg.same_numel is tensor):
                out.append(arg)
        return out

    def ndim(self, tensor: TensorInfo, seen: frozenset[int]) -> int | None:
        if id(tensor) in self.params:
            return self.params[id(tensor)].ndim
        if tensor.shape is not None:
            return len(tensor.shape)
        for other in self._related(tensor, numel=False):
            if id(other) not in seen:
                found = self.ndim(other, seen | {id(tensor)})
                if found is not None:
                    return found
        return None

    def _dim(self, tensor: TensorInfo, axis: int, seen: frozenset[int]) -> str | Failure:
        ndim = self.ndim(tensor, frozenset())
        if ndim is not None and axis < 0:
            axis += ndim
        if ndim is not None and not 0 <= axis < ndim:
            return Failure(f"axis {axis} is out of range for {tensor.origin}")
        if id(tensor) in self.params:
            return f"{self.params[id(tensor)].ident}.dim({axis})"
        if tensor.shape is not None:
            return self.rust(tensor.shape[axis])
        for other in self._related(tensor, numel=False):
            if id(other) not in seen:
                found = self._dim(other, axis, seen | {id(tensor)})
                if not isinstance(found, Failure):
                    return found
        return Failure(f"the shape of {tensor.origin} is not known from the kernel's arguments")

    def _numel(self, tensor: TensorInfo, seen: frozenset[int]) -> str | Failure:
        if id(tensor) in self.params:
            return f"{self.params[id(tensor)].ident}.numel()"
        if tensor.shape is not None:
            dims = [self.rust(d) for d in tensor.shape]
            failed = next((d for d in dims if isinstance(d, Failure)), None)
            return failed or "(" + " * ".join(["1i64", *dims]) + ")"  # type: ignore[list-item]
        for other in self._related(tensor, numel=True):
            if id(other) not in seen:
                found = self._numel(other, seen | {id(tensor)})
                if not isinstance(found, Failure):
                    return found
        return Failure(f"the size of {tensor.origin} is not known from the kernel's arguments")


def _rust_op(expr: Bin | Fn, parts: list[str]) -> str:
    if isinstance(expr, Bin):
        left, right = parts
        checked = {"//": "floordiv", "%": "pymod", "<<": "shl", ">>": "shr", "**": "ipow"}
        if expr.op in checked:
            return f"{checked[expr.op]}({_bare(left)}, {_bare(right)})?"
        return f"({left} {expr.op} {right})"
    if expr.name == "cdiv":
        return f"cdiv({_bare(parts[0])}, {_bare(parts[1])})?"
    if expr.name in ("min", "max"):
        out = parts[0]
        for part in parts[1:]:
            out = f"{out}.{expr.name}({_bare(part)})"
        return out
    if expr.name == "abs":
        return f"{parts[0]}.abs()"
    if expr.name == "neg":
        return f"(-{parts[0]})"
    return f"bit_length({_bare(parts[0])})"


def _bare(text: str) -> str:
    """`text` without the parentheses that wrap all of it (rustc warns about them around a
    call's argument)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return text  # the first parenthesis closes early: `(a) + (b)`
    return text[1:-1]


# ---- element-type generics -----------------------------------------------------------------


def plan_generics(sig: KernelSig, infos: dict[str, TensorInfo | None]) -> dict[str, GenericPlan]:
    """Element-type generics: dispatched at run time over the built element types, or tied
    by the host code to another generic or a fixed dtype (`torch.empty_like(x)`,
    `dtype=x.dtype`, `dtype=torch.float32`), which saves dispatch arms."""
    type_generics = [g for g in sig.generics if g.kind == "type"]
    owner = {p: g.name for g in type_generics for p in g.params}
    roots = {name: _dtype_root(info) for name, info in infos.items()}
    ties: dict[str, tuple[str, str]] = {}
    for generic in type_generics:
        for param in generic.params:
            tie = _tie_for(param, roots, owner, sig)
            if tie is not None and tie != ("same", generic.name):
                ties[generic.name] = tie
                break
    return _resolve_ties([g.name for g in type_generics], ties)


def _dtype_root(info: TensorInfo | None) -> tuple[str, object] | None:
    """The fixed dtype of a host tensor, or the tensor its dtype comes from."""
    seen: set[int] = set()
    while info is not None and id(info) not in seen:
        seen.add(id(info))
        if info.dtype is not None:
            return ("fixed", info.dtype)
        if info.dtype_of is None:
            return ("root", id(info))
        info = info.dtype_of
    return None


def _tie_for(param: str, roots: dict[str, tuple[str, object] | None], owner: dict[str, str],
             sig: KernelSig) -> tuple[str, str] | None:
    root = roots.get(param)
    if root is None:
        return None
    if root[0] == "fixed":
        return ("fixed", str(root[1]))
    for other, other_root in roots.items():
        if other == param or other_root != root:
            continue
        if other in owner:
            if owner[other] != owner.get(param):
                return ("same", owner[other])
        else:
            return ("fixed", sig.param(other).element)
    return None


def _resolve_ties(names: list[str], ties: dict[str, tuple[str, str]]) -> dict[str, GenericPlan]:
    plans: dict[str, GenericPlan] = {}
    pending = list(names)
    while pending:
        progress = False
        for name in list(pending):
            plan = _generic_plan(name, ties.get(name, ("dispatch", "")), plans)
            if plan is not None:
                plans[name] = plan
                pending.remove(name)
                progress = True
        if not progress:
            plans[pending[0]] = GenericPlan(pending[0], "dispatch")
            pending.pop(0)
    return plans


def _generic_plan(name: str, tie: tuple[str, str],
                  plans: dict[str, GenericPlan]) -> GenericPlan | None:
    mode, other = tie
    if mode == "fixed":
        return GenericPlan(name, "fixed", other, "the host code fixes this dtype")
    if mode == "dispatch":
        return GenericPlan(name, "dispatch")
    root = plans.get(other)
    if root is None:
        return None
    if root.mode == "fixed":
        return GenericPlan(name, "fixed", root.other, root.why)
    target = root.other if root.mode == "same" else other
    return GenericPlan(name, "same", target, f"the host code gives it the dtype of `{target}`")
