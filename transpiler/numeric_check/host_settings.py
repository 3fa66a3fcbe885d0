"""Numeric settings from host code: the shapes, grids and scalars a file's own launches use.

Takes a cuTile Python source file and the specializations the numeric check runs; gives, per
kernel, (specialization, `numeric` settings) pairs in the form `inputs.cases_for` reads, for
the specializations no spec file gives settings for.

The host-code reader (`frontend.host`) evaluates the file's host functions on made-up inputs
without running them; it is run here once per size family of `SIZE_FAMILIES` (the op kind's
typical sizes scaled down: a multiple of the tile, a ragged size, a tiny one, then the
typical sizes themselves), and every `ct.launch` it sees gives one launch case: each array's
shape, the grid and the scalars exactly as the host code computes them from those inputs. A
case is kept for a specialization when the launch's own specialization
(`ircheck.host_specs`) is that one, so that the constants the kernel was compiled with and
the shapes it runs on come from the same call. A specialization no launch gives (a variation
the IR check adds to reach another entry) borrows the shapes and grid of the launches of the
same kernel whose arrays have its element types and ranks (else its ranks); the constants
are then the specialization's own, and the case says so in its label. A kernel no host
function launches gets `DEFAULT_SIZES`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from transpiler.frontend.host.kernels import constant_params, kernel_params
from transpiler.frontend.host.planning import op_names
from transpiler.frontend.host.reader import KernelLaunch, collect_launches, package_root
from transpiler.frontend.host.typical import INDEX_TENSOR_NAME, OpKind, kind_for
from transpiler.frontend.host.values import FakeTensor, Package, Record
from transpiler.ircheck.check import kernel_manifests
from transpiler.ircheck.host_specs import every_launch_spec
from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, ScalarSpec


@dataclass(frozen=True)
class SizeFamily:
    """Made-up input sizes for one run of the host-code reader (see `typical.OpKind`)."""

    label: str
    lead: int  # 0: the kind's own sizes
    mid: int
    last_of: str  # "typical": the kind's innermost size; "ragged": just below it; "tiny"
    fallback: bool = False  # used only where the other families give no case

    def kind(self, typical: OpKind) -> OpKind:
        last = {"typical": typical.last, "ragged": typical.last - typical.last // 40 - 1,
                "tiny": 5}[self.last_of]
        return replace(typical, lead=self.lead, mid=self.mid, last=last)


#: In the order tried; at most `MAX_CASES` launches are kept per specialization. Small
#: batch and middle sizes keep the interpreter's work per case small; the innermost size
#: stays the typical one (a power of two: a multiple of the tile) or just below it (ragged),
#: so that the constants the host code derives from it stay those of the specialization.
SIZE_FAMILIES: tuple[SizeFamily, ...] = (
    SizeFamily("host shapes, tile multiple", 2, 4, "typical"),
    SizeFamily("host shapes, ragged", 2, 3, "ragged"),
    SizeFamily("host shapes, tiny", 1, 2, "tiny"),
    SizeFamily("host shapes, typical", 0, 0, "typical", fallback=True),
)
MAX_CASES = 3


@dataclass
class HostCase:
    label: str
    shapes: dict[str, tuple[int, ...]]
    grid: tuple[int, int, int]
    scalars: dict[str, int | float]
    fallback: bool = False


def host_settings(source_path: Path, specs: dict[str, list[KernelSpec]],
                  manifests: dict[str, dict[str, Any]]) -> dict[str, list[tuple[KernelSpec,
                                                                             dict]]]:
    """kernel -> (specialization, numeric settings) for each given specialization the host
    code's launches give shapes and a grid for."""
    try:
        wanted = [p.dtype for s in (x for v in specs.values() for x in v) for _, p in s.params
                  if isinstance(p, ArraySpec)]
        records = _records(source_path, list(dict.fromkeys(wanted)))
        tree = ast.parse(source_path.read_text(encoding="utf-8"))
        constants, params = constant_params(tree), kernel_params(tree)
    except Exception:  # noqa: BLE001 - a reader fault leaves the kernel without settings
        return {}
    out: dict[str, list[tuple[KernelSpec, dict]]] = {}
    for kernel, kernel_specs in specs.items():
        mine = kernel_manifests(manifests, kernel)
        found = _cases(kernel, params.get(kernel, []), records, mine,
                       constants.get(kernel, set()))
        for spec in kernel_specs:
            cases = _pick(spec, found) if found else default_cases(spec)
            if cases:
                out.setdefault(kernel, []).append((spec, settings_of(spec, cases)))
    return out


def _records(source_path: Path, dtypes: list[str]) -> list[tuple[SizeFamily, str, Record]]:
    """Every launch the reader sees per size family, for the op kind's element types and
    `dtypes` (those of the specializations: host code that accepts one type only)."""
    root = package_root(source_path)
    tree = Package(root).module_at(source_path).tree
    typical = kind_for(op_names(tree))
    in_package = (source_path.parent / "__init__.py").is_file()
    out: list[tuple[SizeFamily, str, Record]] = []
    for family in SIZE_FAMILIES:
        kind = family.kind(typical) if family.mid else typical
        for dtype in dict.fromkeys([*typical.dtypes, *dtypes]):
            records, _ = collect_launches(source_path, root, dtype, kind, in_package)
            out.extend((family, dtype, r) for r in records)
    return out


def _cases(kernel: str, params: list[str], records: list[tuple[SizeFamily, str, Record]],
           manifests: list[dict[str, Any]], constants: set[str]
           ) -> list[tuple[KernelSpec, HostCase]]:
    """Every launch of `kernel` whose shapes, grid and scalars are all known, with the
    specialization it gives."""
    out: list[tuple[KernelSpec, HostCase]] = []
    for family, dtype, record in records:
        if record.kernel != kernel or len(record.args) != len(params):
            continue
        launch = KernelLaunch(kernel, params, {dtype: [record]})
        specs = every_launch_spec(launch, manifests, constants)
        case = _host_case(family, params, record)
        if specs and case is not None:
            out.append((specs[0], case))
    return out


def _host_case(family: SizeFamily, params: list[str], record: Record) -> HostCase | None:
    grid = [int(g) for g in record.grid or [] if isinstance(g, int) and not isinstance(
        g, bool)]
    if not record.grid or len(grid) != len(record.grid) or not 1 <= len(grid) <= 3 or min(
            grid) < 1:
        return None  # an unknown grid, or an empty launch (no block runs)
    shapes: dict[str, tuple[int, ...]] = {}
    scalars: dict[str, int | float] = {}
    for name, value in zip(params, record.args, strict=True):
        if isinstance(value, FakeTensor):
            shapes[name] = tuple(int(d) for d in value.dims())
        elif isinstance(value, int | float) and not isinstance(value, bool):
            scalars[name] = int(value) if isinstance(value, int) else float(value)
    grid3 = (grid + [1, 1])[:3]
    shown = ", ".join(f"{n} {'x'.join(map(str, s))}" for n, s in shapes.items())
    return HostCase(f"{family.label} ({shown}; grid {'x'.join(map(str, grid3))})", shapes,
                    tuple(grid3), scalars, family.fallback)  # type: ignore[arg-type]


#: Without a launch in the host code: the innermost size a multiple of the tile, ragged, tiny
#: (`tile` is the largest integer constant of the specialization, at most `DEFAULT_TILE_CAP`),
#: other axes `DEFAULT_OUTER`, one block per tile of the innermost axis.
DEFAULT_SIZES: tuple[tuple[str, Any], ...] = (
    ("default shapes, tile multiple", lambda tile: 2 * tile),
    ("default shapes, ragged", lambda tile: tile + tile // 3 + 1),
    ("default shapes, tiny", lambda tile: 3),
)
DEFAULT_TILE_CAP = 1024
DEFAULT_TILE = 16
DEFAULT_OUTER = 2


def default_cases(spec: KernelSpec) -> list[HostCase]:
    """Launch cases of a kernel no host code launches: see `DEFAULT_SIZES`; an integer
    scalar is the innermost size, a float scalar 0.5."""
    integers = [p.value for _, p in spec.params if isinstance(p, ConstSpec)
                and isinstance(p.value, int) and not isinstance(p.value, bool)
                and 1 < p.value <= DEFAULT_TILE_CAP]
    tile = max(integers, default=DEFAULT_TILE)
    out = []
    for label, size_of in DEFAULT_SIZES:
        size = size_of(tile)
        shapes = {n: (DEFAULT_OUTER,) * (p.ndim - 1) + (size,) for n, p in spec.params
                  if isinstance(p, ArraySpec)}
        scalars: dict[str, int | float] = {
            n: 0.5 if p.dtype.startswith(("float", "bfloat")) else size
            for n, p in spec.params if isinstance(p, ScalarSpec)}
        out.append(HostCase(f"{label} (innermost {size}; grid {-(-size // tile)}x1x1)",
                            shapes, (-(-size // tile), 1, 1), scalars))
    return out


def _fit_rank(shape: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """A shape of the host code's made-up input (whose rank the code may not fix) with the
    rank the kernel takes: leading unit axes added, or the leading axes merged into one."""
    if len(shape) < ndim:
        return (1,) * (ndim - len(shape)) + shape
    if len(shape) > ndim >= 1:
        cut = len(shape) - ndim + 1
        return (int(np.prod(shape[:cut])),) + shape[cut:]
    return shape


def _fitted(spec: KernelSpec, case: HostCase) -> HostCase:
    """The case with a shape of the kernel's rank for every array parameter: an array the
    launch passes no tensor for (None, for a kernel whose constant says it is unused) takes
    the shape of another array of its rank, else unit sizes."""
    arrays = _arrays_of(spec)
    shapes = {n: _fit_rank(s, arrays[n][1]) for n, s in case.shapes.items() if n in arrays}
    for name, (_, ndim) in arrays.items():
        if name not in shapes:
            shapes[name] = next((s for s in shapes.values() if len(s) == ndim), (1,) * ndim)
    return case if shapes == case.shapes else replace(
        case, shapes=shapes, label=f"{case.label}, ranks fitted")


def _pick(spec: KernelSpec, found: list[tuple[KernelSpec, HostCase]]) -> list[HostCase]:
    """Up to `MAX_CASES` cases, distinct in shapes and grid: the launches that give `spec`
    itself first (the small families', else one of the typical sizes); else those whose arrays
    have `spec`'s element types and ranks; else those whose arrays have its ranks (the
    shapes and grid of a launch with other element types)."""
    exact = _small_first([c for s, c in found if s == spec])
    same_types = [c for s, c in found if s != spec and _arrays_of(s) == _arrays_of(spec)]
    same_ranks = [c for s, c in found if s != spec and _ranks(s) == _ranks(spec)]
    alike = [replace(c, label=f"{c.label}, constants of this specialization")
             for c in same_types or same_ranks]
    chosen = exact or _small_first(alike)
    out: list[HostCase] = []
    for case in (_fitted(spec, c) for c in chosen):
        if all((case.shapes, case.grid) != (o.shapes, o.grid) for o in out) and (
                len(out) < MAX_CASES):
            out.append(case)
    return out


def _small_first(cases: list[HostCase]) -> list[HostCase]:
    """The cases of the small families; else the first of the fallback family."""
    return [c for c in cases if not c.fallback] or cases[:1]


def _ranks(spec: KernelSpec) -> dict[str, int]:
    return {n: p.ndim for n, p in spec.params if isinstance(p, ArraySpec)}


def _arrays_of(spec: KernelSpec) -> dict[str, tuple[str, int]]:
    return {n: (p.dtype, p.ndim) for n, p in spec.params if isinstance(p, ArraySpec)}


def settings_of(spec: KernelSpec, cases: list[HostCase]) -> dict[str, Any]:
    """The `numeric` object of `inputs.cases_for` that gives exactly these launches: every
    dimension, grid size and scalar a name of its own, one `sizes` entry per case."""
    arrays = _arrays_of(spec)
    scalar_names = [n for n, p in spec.params if isinstance(p, ScalarSpec)]
    sizes: list[dict[str, int | float]] = []
    for case in cases:
        entry: dict[str, int | float] = {f"grid_{i}": g for i, g in enumerate(case.grid)}
        for name in arrays:
            for axis, dim in enumerate(case.shapes.get(name, ())):
                entry[f"{name}_dim{axis}"] = dim
        for name in scalar_names:
            if name in case.scalars:
                entry[f"{name}_value"] = case.scalars[name]
        sizes.append(entry)
    first = cases[0]
    dim_names = [f"{name}_dim{axis}" for name in arrays
                 for axis in range(len(first.shapes.get(name, ())))]
    # Index arrays hold indices every axis of every array admits (below the smallest
    # dimension): a gather or scatter through them stays in bounds as the host intends.
    bound = f"max(1, min({', '.join(dim_names)}, {dim_names[0]}))" if dim_names else "1"
    ranges = {name: [0, bound] for name, (dtype, _) in arrays.items()
              if INDEX_TENSOR_NAME.search(name) and dtype.startswith(("int", "uint"))}
    return {"sizes": sizes,
            "labels": [c.label for c in cases],
            "shapes": {name: [f"{name}_dim{axis}" for axis in range(len(
                first.shapes.get(name, ())))] for name in arrays},
            "grid": ["grid_0", "grid_1", "grid_2"],
            "scalars": {n: f"{n}_value" for n in scalar_names if n in first.scalars},
            "ranges": ranges}

