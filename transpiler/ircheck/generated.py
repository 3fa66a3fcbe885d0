"""Generated side of the IR check: cuTile Rust source -> Tile IR, through the Rust harness.

Takes a `.rs` file holding `#[cutile::module] mod NAME { ... }` and, per kernel, the
specialization to compile (generics, strides, layout facts); gives Tile IR bytecode files and
their `tileirdisasm` text. One harness process compiles a whole batch. Also type-checks `.rs`
files against the real `cutile` crate (`cargo_check_files`) and returns rustc's diagnostics.

Request fields (JSON, as the harness reads them; all but `entry` optional):
`module`, `entry`, `generics` (flat list of strings in declaration order, e.g.
`["bf16", "128", "128", "64"]`), `strides` (`{param: [-1, 1]}`, -1 = dynamic), `spec`
(`{param: {shape_div, stride_div, stride_one, base_ptr_div, elements_disjoint}}`), `layout`
(defaults for tensors not in `strides`/`spec`: `{shape_div, stride_div, base_ptr_div,
last_stride_one}`, default 16/16/16/true), `scalar_hints` (`{param: divisor}`), `grid`
(`[x, y, z]`), `target` (default `sm_90`), `bytecode_version` (default `13.3`), `out` (bytecode
path), `ir_text` (also return cuTile's own IR text), `options` (`{occupancy, num_cta_in_cga,
max_divisibility}`), `id` (echoed back).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transpiler.ircheck import toolchain
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.spec import Layout


class HarnessError(RuntimeError):
    """A kernel did not compile; carries the cuTile compiler's message and source location."""

    def __init__(
        self,
        kind: str,
        message: str,
        location: Mapping[str, Any] | None = None,
        request: Mapping[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.message = message
        self.location = dict(location) if location else None
        self.request = dict(request) if request else None
        where = ""
        if self.location:
            loc = self.location
            where = f"\n  --> {loc['file']}:{loc['line']}:{loc['column']}"
        what = ""
        if self.request and "entry" in self.request:
            what = f" [{self.request.get('module') or '?'}::{self.request['entry']}]"
        super().__init__(f"{kind} error{what}: {message}{where}")


@dataclass(frozen=True)
class CompileResult:
    """The harness's answer for one request."""

    ok: bool
    request: dict[str, Any]
    bytecode: Path | None = None
    error: HarnessError | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    ir_text: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def raise_for_error(self) -> CompileResult:
        """Returns self, or raises the request's `HarnessError`."""
        if not self.ok:
            assert self.error is not None
            raise self.error
        return self

    def disassemble(self, *, debug_info: bool = False) -> str:
        """`tileirdisasm` text of the bytecode (raises `HarnessError` if the compile failed)."""
        self.raise_for_error()
        assert self.bytecode is not None
        return disassemble(self.bytecode, debug_info=debug_info)


@dataclass(frozen=True)
class Diagnostic:
    """One rustc diagnostic from `cargo check` (primary span only)."""

    level: str
    message: str
    code: str | None
    file: str | None
    line: int | None
    column: int | None
    rendered: str

    @property
    def is_error(self) -> bool:
        return self.level in ("error", "error: internal compiler error")


def layout_json(layout: Layout) -> dict[str, Any]:
    """The harness `layout` object for a `spec.Layout`."""
    return {
        "shape_div": layout.shape_divisible_by,
        "stride_div": layout.stride_divisible_by,
        "base_ptr_div": layout.base_addr_divisible_by,
        "last_stride_one": layout.last_stride_one,
    }


def _run_harness(args: list[str], stdin: str | None, timeout: float) -> dict[str, Any]:
    binary = toolchain.ensure_harness()
    with tempfile.TemporaryDirectory(prefix="harness-out-") as tmp:
        out = Path(tmp) / "result.json"
        proc = subprocess.run(
            [str(binary), *args, "-o", str(out)],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if not out.is_file():
            raise HarnessError(
                "harness",
                f"{binary} exited with {proc.returncode} and no result\n{proc.stderr[-4000:]}",
            )
        doc: dict[str, Any] = json.loads(out.read_text())
    if "fatal" in doc:
        raise HarnessError("harness", str(doc["fatal"]))
    return doc


def compile_rust_kernels(
    rs_path: str | os.PathLike[str],
    requests: Sequence[Mapping[str, Any]],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    timeout: float = 600.0,
) -> list[CompileResult]:
    """Compiles many kernels of one `.rs` file in one harness run; one result per request.

    A request that fails gives `ok=False` and a `HarnessError` in `error`; it never stops the
    others. Bytecode goes to each request's `out`, else to `out_dir` (default: a fresh temp dir).
    """
    rs = Path(rs_path).resolve()
    if out_dir is None:
        out_dir = tempfile.mkdtemp(prefix="transpiler-ir-")
    batch = {
        "file": str(rs),
        "out_dir": str(Path(out_dir).resolve()),
        "requests": [dict(r) for r in requests],
    }
    doc = _run_harness(["compile", "-"], json.dumps(batch), timeout)
    results: list[CompileResult] = []
    for request, raw in zip(batch["requests"], doc["results"], strict=True):
        if raw.get("ok"):
            results.append(
                CompileResult(
                    ok=True,
                    request=request,
                    bytecode=Path(raw["bytecode"]),
                    checks=raw.get("checks", {}),
                    ir_text=raw.get("ir_text"),
                    raw=raw,
                )
            )
        else:
            err = raw.get("error", {})
            results.append(
                CompileResult(
                    ok=False,
                    request=request,
                    error=HarnessError(
                        err.get("kind", "unknown"),
                        err.get("message", "no message"),
                        err.get("location"),
                        request,
                    ),
                    raw=raw,
                )
            )
    return results


def disassemble(
    bytecode: str | os.PathLike[str], *, debug_info: bool = False, timeout: float = 120.0
) -> str:
    """`tileirdisasm` text of a Tile IR bytecode file.

    `debug_info=True` adds `loc(...)` annotations: for harness output they point at the `.rs`
    file's lines and columns (the harness keeps the real spans).
    """
    flags = ["-g"] if debug_info else []
    proc = subprocess.run(
        [str(toolchain.tileirdisasm()), *flags, str(bytecode)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise HarnessError("disassemble", f"tileirdisasm failed on {bytecode}: {proc.stderr}")
    return proc.stdout


def generated_ir(
    rs_path: str | os.PathLike[str],
    module_name: str | None,
    entry: str,
    generics: list[str],
    strides: dict[str, list[int]] | None = None,
    *,
    layout: Layout | None = None,
    spec: dict[str, dict[str, Any]] | None = None,
    scalar_hints: dict[str, int] | None = None,
    target: str = "sm_90",
    bytecode_version: str = "13.3",
    extra: Mapping[str, Any] | None = None,
    debug_info: bool = False,
) -> str:
    """Compiles one kernel specialization and returns its `tileirdisasm` text.

    `strides` may name only some tensor parameters: the rest get `layout` (default
    `spec.Layout()`: shape/stride divisible by 16, 16-byte-aligned base, unit last stride).
    Raises `HarnessError` with the Rust compiler's message and span on failure.
    """
    request: dict[str, Any] = {
        "entry": entry,
        "generics": [str(g) for g in generics],
        "target": target,
        "bytecode_version": bytecode_version,
        "layout": layout_json(layout or Layout()),
    }
    if module_name:
        request["module"] = module_name
    if strides:
        request["strides"] = strides
    if spec:
        request["spec"] = spec
    if scalar_hints:
        request["scalar_hints"] = scalar_hints
    if extra:
        request.update(extra)
    with tempfile.TemporaryDirectory(prefix="transpiler-ir-") as tmp:
        (result,) = compile_rust_kernels(rs_path, [request], out_dir=tmp)
        return result.disassemble(debug_info=debug_info)


def list_kernels(rs_path: str | os.PathLike[str], timeout: float = 120.0) -> dict[str, Any]:
    """The `#[cutile::module]`s of a file: entries, generic parameters, parameter kinds/ranks."""
    doc = _run_harness(["list", str(Path(rs_path).resolve())], None, timeout)
    if not doc.get("ok"):
        err = doc.get("error", {})
        raise HarnessError(err.get("kind", "unknown"), err.get("message", ""), err.get("location"))
    return doc


def ir_ops(ir_text: str) -> list[str]:
    """Operation names of a `tileirdisasm` listing (every entry, nested regions included), in
    order (e.g. `load_view_tko`, `mmaf`), read with the Tile IR grammar."""
    return [op.name for op in walk_ops(parse_tileir(ir_text))]


def walk_ops(module: Any) -> list[Any]:
    """Every operation of a parsed module, depth first."""
    out: list[Any] = []

    def visit(ops: list[Any]) -> None:
        for op in ops:
            out.append(op)
            for region in op.regions:
                visit(region.ops)

    for entry in module.entries:
        visit(entry.ops)
    return out


def cargo_check_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    timeout: float = 1800.0,
    release: bool = True,
) -> list[Diagnostic]:
    """Type-checks `.rs` files against the real `cutile` crate; returns rustc's diagnostics.

    Each file becomes one module of the `golden-check` crate (harness workspace), so
    `#[cutile::module]` expands as in a real build. Zero `is_error` diagnostics means the files
    compile. `release=True` reuses the proc-macros and build scripts of the harness's release
    build (first check about 15 s, then well under a second per run).
    """
    files = [str(Path(p).resolve()) for p in paths]
    env = toolchain.build_env()
    env["GOLDEN_CHECK_FILES"] = "\n".join(files)
    cmd = [
        "cargo",
        "check",
        "--manifest-path",
        str(toolchain.HARNESS_MANIFEST),
        "-p",
        "golden-check",
        "--message-format=json",
    ]
    if release:
        cmd.append("--release")
    proc = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    diagnostics: list[Diagnostic] = []
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        if msg.get("reason") != "compiler-message":
            continue
        if msg.get("target", {}).get("name") not in ("golden-check", "golden_check"):
            continue
        diag = msg["message"]
        if diag.get("level") in ("failure-note",) or (
            diag.get("level") == "error" and diag.get("message", "").startswith("aborting due to")
        ):
            continue
        spans = diag.get("spans", [])
        primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else None)
        diagnostics.append(
            Diagnostic(
                level=diag.get("level", ""),
                message=diag.get("message", ""),
                code=(diag.get("code") or {}).get("code"),
                file=primary.get("file_name") if primary else None,
                line=primary.get("line_start") if primary else None,
                column=primary.get("column_start") if primary else None,
                rendered=diag.get("rendered") or "",
            )
        )
    if proc.returncode != 0 and not any(d.is_error for d in diagnostics):
        raise HarnessError(
            "cargo", f"cargo check failed without diagnostics:\n{proc.stderr[-8000:]}"
        )
    return diagnostics
