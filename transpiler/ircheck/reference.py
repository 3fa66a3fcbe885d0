"""Reference Tile IR: compile one specialization of a cuTile Python kernel without running its file.

Takes a Python source file and a `KernelSpec`; gives the `tileirdisasm` text of the Tile IR
that cuda-tile produces for that specialization (`reference_ir`).

The user's file is never imported. `lift_kernel` keeps only what the kernel needs: the
`@ct.kernel` function, the module-level helper functions, classes and constants it
references (transitively), and the imports of `cuda.tile` (under any alias, or `from
cuda.tile import X`) and `math` that bind names it uses. Every other top-level statement
becomes a blank line, so the lifted module has the kernel on its original lines. The lifted
source is compiled under the original file name, so cuda-tile reads the kernel's source from
the original file and the debug locations (`tileirdisasm -g`) point into it. The module is
then built from that code object alone and handed to
`cuda.tile.compilation.export_kernel(..., output_format="tileir_bytecode",
bytecode_version="13.3")`.

`tileirdisasm` is found through the `TILEIRDISASM` environment variable, else in
`nvidia/cu13/bin/` of the running interpreter's site-packages, else on PATH.
"""

from __future__ import annotations

import ast
import builtins
import io
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transpiler.ircheck.spec import ArraySpec, ConstSpec, KernelSpec, Layout, ScalarSpec

BYTECODE_VERSION = "13.3"
ALLOWED_MODULES: tuple[str, ...] = ("cuda.tile", "math")
DISASM_ENV = "TILEIRDISASM"


class ReferenceIrError(RuntimeError):
    """The reference IR could not be produced; the message says why (cuda-tile's text)."""


# ---------------------------------------------------------------------------------------------
# Lifting


@dataclass(frozen=True)
class _Binding:
    stmt: ast.stmt
    index: int


def lift_kernel(source: str, kernel: str, filename: str = "<kernel>") -> str:
    """The source of a standalone module holding `kernel` and what it references.

    Lines are preserved: statements not needed become blank lines. Raises
    `ReferenceIrError` if the kernel is missing or needs a name imported from a module other
    than cuda.tile / math.
    """
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise ReferenceIrError(f"{filename} is not valid Python: {exc}") from exc
    bindings = _top_level_bindings(tree)
    target = _find_kernel(tree, kernel, bindings, filename)
    keep = _needed_statements(target, bindings, kernel)
    keep.update(i for i, s in enumerate(tree.body) if _is_future_import(s))
    return _render_lifted(source, tree, keep, bindings, filename)


def _top_level_bindings(tree: ast.Module) -> dict[str, list[_Binding]]:
    bindings: dict[str, list[_Binding]] = {}
    for index, stmt in enumerate(tree.body):
        for name in _bound_names(stmt):
            bindings.setdefault(name, []).append(_Binding(stmt, index))
    return bindings


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return [_import_binding(alias) for alias in stmt.names if alias.name != "*"]
    return []


def _import_binding(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def _find_kernel(tree: ast.Module, kernel: str, bindings: dict[str, list[_Binding]],
                 filename: str) -> ast.FunctionDef:
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            if any(_is_kernel_decorator(d, bindings) for d in stmt.decorator_list):
                return stmt
            raise ReferenceIrError(f"{filename}: `{kernel}` is not decorated with @ct.kernel")
    raise ReferenceIrError(f"{filename}: no top-level kernel named `{kernel}`")


def _is_kernel_decorator(node: ast.expr, bindings: dict[str, list[_Binding]]) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr == "kernel"
    if isinstance(node, ast.Name):
        return any(_imports_from_cuda_tile(b.stmt) for b in bindings.get(node.id, []))
    return False


def _imports_from_cuda_tile(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("cuda.tile")


def _is_future_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _needed_statements(kernel: ast.FunctionDef, bindings: dict[str, list[_Binding]],
                       kernel_name: str) -> set[int]:
    keep: set[int] = set()
    pending = list(_free_names(kernel))
    seen: set[str] = {kernel_name}
    keep.update(b.index for b in bindings[kernel_name])
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for binding in bindings.get(name, []):
            if isinstance(binding.stmt, ast.Import | ast.ImportFrom):
                _check_import(binding.stmt, name, kernel_name)
            else:
                pending.extend(_free_names(binding.stmt))
            keep.add(binding.index)
    return keep


def _free_names(node: ast.AST) -> set[str]:
    """Names a statement reads that it does not bind itself (over-approximate, no builtins)."""
    loaded: set[str] = set()
    stored: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (loaded if isinstance(sub.ctx, ast.Load) else stored).add(sub.id)
        elif isinstance(sub, ast.arg):
            stored.add(sub.arg)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        outer = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
        outer += [a.annotation for a in _all_args(node.args) if a.annotation is not None]
        for expr in outer:
            if expr is not None:
                loaded |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        stored -= {n.id for expr in outer if expr is not None
                   for n in ast.walk(expr) if isinstance(n, ast.Name)}
        return (loaded - stored) - set(dir(builtins))
    return loaded - set(dir(builtins))


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _check_import(stmt: ast.Import | ast.ImportFrom, name: str, kernel: str) -> None:
    if isinstance(stmt, ast.ImportFrom):
        module = stmt.module or ""
        if module == "cuda" and any(a.name == "tile" for a in stmt.names):
            return
        modules = [module]
    else:
        modules = [a.name for a in stmt.names if _import_binding(a) == name]
    for module in modules:
        if not any(module == m or module.startswith(m + ".") for m in ALLOWED_MODULES):
            raise ReferenceIrError(
                f"kernel `{kernel}` uses `{name}`, imported from `{module}`; the reference "
                f"compiler lifts only code that imports {' / '.join(ALLOWED_MODULES)}")


def _render_lifted(source: str, tree: ast.Module, keep: set[int],
                   bindings: dict[str, list[_Binding]], filename: str) -> str:
    lines = source.splitlines()
    out = [""] * len(lines)
    spans = [_span(stmt) for stmt in tree.body]
    for index in sorted(keep):
        stmt = tree.body[index]
        start, end = spans[index]
        _check_alone(index, spans, keep, filename)
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            out[start - 1] = ast.unparse(stmt)
        else:
            out[start - 1:end] = lines[start - 1:end]
    return "\n".join(out) + "\n"


def _span(stmt: ast.stmt) -> tuple[int, int]:
    start = stmt.lineno
    for decorator in getattr(stmt, "decorator_list", []):
        start = min(start, decorator.lineno)
    return start, stmt.end_lineno or stmt.lineno


def _check_alone(index: int, spans: list[tuple[int, int]], keep: set[int], filename: str) -> None:
    start, end = spans[index]
    for other, (ostart, oend) in enumerate(spans):
        if other != index and other not in keep and ostart <= end and oend >= start:
            raise ReferenceIrError(f"{filename}:{start}: a needed statement shares its line "
                                   f"with another statement; put it on its own line")


def load_lifted_kernel(source_path: Path, kernel: str) -> Any:
    """Build the lifted module from code alone and return its kernel object."""
    source = source_path.read_text()
    lifted = lift_kernel(source, kernel, str(source_path))
    module = types.ModuleType(f"_ircheck_lifted_{kernel}")
    module.__file__ = str(source_path)
    try:
        code = compile(lifted, str(source_path), "exec")
        exec(code, module.__dict__)  # noqa: S102 - the lifted defs/constants only
    except Exception as exc:
        raise ReferenceIrError(f"{source_path}: lifting `{kernel}` failed: "
                               f"{type(exc).__name__}: {exc}") from exc
    return module.__dict__[kernel]


# ---------------------------------------------------------------------------------------------
# Specialization -> KernelSignature


def kernel_signature(spec: KernelSpec, param_names: list[str]) -> Any:
    """The cuda-tile `KernelSignature` for a specialization, checked against the parameters."""
    from cuda.tile.compilation import CallingConvention, KernelSignature

    names = [name for name, _ in spec.params]
    if names != param_names:
        raise ReferenceIrError(f"specialization {spec.label()} lists parameters {names}, the "
                               f"kernel has {param_names}")
    constraints = [_constraint(p, spec.layout) for _, p in spec.params]
    return KernelSignature(constraints, calling_convention=CallingConvention.cutile_python_v2())


def _constraint(param: ArraySpec | ScalarSpec | ConstSpec, layout: Layout) -> Any:
    from cuda.tile.compilation import ConstantConstraint, ScalarConstraint

    if isinstance(param, ArraySpec):
        return array_constraint(param, layout)
    if isinstance(param, ScalarSpec):
        return ScalarConstraint(_dtype(param.dtype))
    return ConstantConstraint(param.value)


def array_constraint(param: ArraySpec, layout: Layout) -> Any:
    """`ArrayConstraint` for an array parameter under the shared layout assumptions.

    int32 indices, non-negative strides, no aliasing; the last stride is the constant 1 when
    `layout.last_stride_one` (its divisibility is then 1), other strides divisible by
    `layout.stride_divisible_by`, shapes by `layout.shape_divisible_by`, the base address by
    `layout.base_addr_divisible_by`.
    """
    import cuda.tile as ct
    from cuda.tile.compilation import ArrayConstraint

    ndim = param.ndim
    if layout.last_stride_one and ndim > 0:
        stride_constant: list[int | None] | None = [None] * (ndim - 1) + [1]
        stride_div: list[int] | int = [layout.stride_divisible_by] * (ndim - 1) + [1]
    else:
        stride_constant = None
        stride_div = layout.stride_divisible_by
    return ArrayConstraint(
        _dtype(param.dtype), ndim, index_dtype=ct.int32, stride_lower_bound_incl=0,
        alias_groups=(), may_alias_internally=False, stride_constant=stride_constant,
        stride_divisible_by=stride_div, shape_divisible_by=layout.shape_divisible_by,
        base_addr_divisible_by=layout.base_addr_divisible_by)


def _dtype(name: str) -> Any:
    import cuda.tile as ct

    dtype = getattr(ct, name, None)
    if dtype is None:
        raise ReferenceIrError(f"unknown cuda.tile dtype `{name}`")
    return dtype


# ---------------------------------------------------------------------------------------------
# Compiling and disassembling


def reference_bytecode(source_path: Path, spec: KernelSpec) -> bytes:
    """Tile IR bytecode (version 13.3) of one specialization of the kernel."""
    from cuda.tile.compilation import export_kernel

    source_path = Path(source_path).resolve()
    kernel = load_lifted_kernel(source_path, spec.kernel)
    params = _param_names(source_path, spec.kernel)
    signature = kernel_signature(spec, params)
    buffer = io.BytesIO()
    try:
        export_kernel(kernel, [signature], buffer, output_format="tileir_bytecode",
                      bytecode_version=BYTECODE_VERSION)
    except Exception as exc:
        raise ReferenceIrError(f"cuda-tile rejected {spec.label()}: "
                               f"{type(exc).__name__}: {exc}") from exc
    return buffer.getvalue()


def _param_names(source_path: Path, kernel: str) -> list[str]:
    tree = ast.parse(source_path.read_text())
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == kernel:
            return [a.arg for a in _all_args(stmt.args)]
    raise ReferenceIrError(f"{source_path}: no top-level kernel named `{kernel}`")


def find_tileirdisasm() -> Path:
    """Path of `tileirdisasm` (env TILEIRDISASM, site-packages nvidia/cu13/bin, PATH)."""
    override = os.environ.get(DISASM_ENV)
    if override:
        return Path(override)
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    dirs.append(str(Path(sys.executable).parent.parent / "lib" /
                    f"python{sys.version_info.major}.{sys.version_info.minor}" /
                    "site-packages"))
    for directory in dirs:
        candidate = Path(directory) / "nvidia" / "cu13" / "bin" / "tileirdisasm"
        if candidate.is_file():
            return candidate
    found = shutil.which("tileirdisasm")
    if found:
        return Path(found)
    raise ReferenceIrError("tileirdisasm not found: set TILEIRDISASM or install the "
                           "nvidia-cuda-tileiras wheel (--no-deps)")


def disassemble(bytecode: bytes, *, debug_info: bool = True) -> str:
    """`tileirdisasm` text of Tile IR bytecode (`-g` adds `loc(...)` source locations)."""
    tool = find_tileirdisasm()
    with tempfile.TemporaryDirectory(prefix="ircheck-") as tmp:
        path = Path(tmp) / "kernel.tileirbc"
        path.write_bytes(bytecode)
        command = [str(tool), *(["-g"] if debug_info else []), str(path)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ReferenceIrError(f"tileirdisasm failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def reference_ir(source_path: Path, spec: KernelSpec, *, debug_info: bool = True) -> str:
    """Disassembled reference Tile IR for one specialization of one kernel in a file."""
    return disassemble(reference_bytecode(Path(source_path), spec), debug_info=debug_info)
