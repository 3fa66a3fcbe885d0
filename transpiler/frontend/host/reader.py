"""The host-code reader's front door: every launch of every kernel of one file.

Takes an op file and the root of the package it belongs to (for `from .utils import f` and
`from <package>.x import f`); gives, per kernel and per element type of the file's op kind,
the launches its host code makes (`KernelLaunch`), and why an entry run stopped early.
Nothing is imported or run: the file's entries are called by the abstract interpreter, then
the package's callers of functions whose launches left a `ct.Constant` unknown.
`package_root` finds the root of a file that sits in a package (its outermost folder with an
`__init__.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from transpiler.frontend.host.callers import follow_callers
from transpiler.frontend.host.interpreter import Interpreter
from transpiler.frontend.host.kernels import constant_value, kernel_params
from transpiler.frontend.host.models import LIBRARY
from transpiler.frontend.host.planning import op_names, plan_entries, run_variants
from transpiler.frontend.host.typical import Dim, OpKind, kind_for
from transpiler.frontend.host.values import Package, Record, Unknown


@dataclass
class KernelLaunch:
    """Every launch of one kernel that the evaluation saw, per element type of the run."""

    kernel: str
    params: list[str]
    by_dtype: dict[str, list[Record]] = field(default_factory=dict)


MAX_RECORDS = 32  # launches kept per kernel and dtype


def collect_launches(path: Path, package_root: Path, dtype: str,
                     kind: OpKind | None = None, callers: bool = True
                     ) -> tuple[list[Record], list[str]]:
    """Every kernel launch the file's host code makes for inputs of one element type.

    The file's own functions are the entries first; when a kernel's `ct.Constant` arguments
    stay unknown in all of its launches, the callers of the functions that launched it are
    looked for in the rest of the package and run too (`follow_callers`; not with
    `callers` False: a file in no package has no callers to look for).
    """
    package = Package(package_root)
    module = package.module_at(path)
    kind = kind or kind_for(op_names(module.tree))
    interp = Interpreter(package, kind, dtype, LIBRARY)
    problems: list[str] = []
    for entry in plan_entries(module.tree):
        run_variants(interp, module, entry, problems)
    if callers:
        follow_callers(interp, module, problems)
    return interp.records, problems


def discover(path: Path, package_root: Path, callers: bool = True
             ) -> tuple[dict[str, KernelLaunch], list[str], str]:
    """Launch records of every kernel of a file for each dtype of its op kind."""
    package = Package(package_root)
    tree = package.module_at(path).tree
    kind = kind_for(op_names(tree))
    launches = {name: KernelLaunch(name, params) for name, params in kernel_params(tree).items()}
    problems: list[str] = []
    for dtype in kind.dtypes:
        records, stopped = collect_launches(path, package_root, dtype, kind, callers)
        problems.extend(f"[{dtype}] {p}" for p in stopped)
        for record in records:
            launch = launches.get(record.kernel)
            if launch is None:
                continue
            if len(record.args) != len(launch.params):
                problems.append(f"[{dtype}] {record.entry}: a launch of {record.kernel} passes "
                                f"{len(record.args)} arguments for {len(launch.params)}")
                continue
            kept = launch.by_dtype.setdefault(dtype, [])
            if len(kept) < MAX_RECORDS:
                kept.append(record)
    return launches, problems, kind.name


def launch_summary(launch: KernelLaunch, constants: set[str]) -> dict[str, object]:
    """JSON form of what the evaluator found for one kernel (for the benchmark report): per
    dtype, the first launch whose `ct.Constant` arguments are all known, else the first."""
    out: dict[str, object] = {}
    for dtype, records in launch.by_dtype.items():
        shown = [_record_constants(launch, r, constants) for r in records]
        pick = next((i for i, c in enumerate(shown) if all(
            isinstance(v, int | float | bool) for v in c.values())), 0)
        out[dtype] = {"entry": records[pick].entry, "via": records[pick].via,
                      "constants": shown[pick]}
    return out


def _record_constants(launch: KernelLaunch, record: Record, constants: set[str]
                      ) -> dict[str, object]:
    return {name: _plain(constant_value(value, "any") if not isinstance(value, Unknown)
                         else value)
            for name, value in zip(launch.params, record.args, strict=True)
            if name in constants}


def _plain(value: object) -> object:
    if isinstance(value, bool | int | float | str) or value is None:
        return int(value) if isinstance(value, Dim) else value
    return show_value(value)


def show_value(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def package_root(path: Path) -> Path:
    """The folder that holds the outermost package `path` belongs to (the folder of `path`
    itself when it sits in no package): what `from <package>.x import f` resolves against."""
    folder = path.resolve().parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder
