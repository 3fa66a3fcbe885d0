"""Triton's machine code against the Rust translations', compiled for sm_90 on a CPU.

Per golden Triton kernel, one launch of the GPU benchmark (`bench/gpu_bench_triton.py`: its
large, aligned shape, f16) is compiled four ways and disassembled (`cuobjdump -sass`):

- **triton**: `triton.compile` for cuda sm_90 with the specialization Triton's JIT makes for
  these arguments (ints equal to 1 become constants, ints divisible by 16 and 16-byte aligned
  pointers carry `tt.divisibility = 16`), 4 warps and 3 stages (Triton's defaults);
- **raised**: the translation as `python -m transpiler` writes it, through tileiras -O3;
- **no-raise**: the `--no-raise` translation (every access a pointer tile);
- **raised+jit**: the raised translation given the same JIT facts as Triton
  (`raise_pointers.ParamFacts`): what an entry selected by those facts would run;
- **selected**: the entry of the default translation that the launcher selects for these
  arguments (`lowering/jit_facts`: the JIT fact entry whose facts hold, fresh tensors being
  aligned, else the general entry), named in the cell.

Each cell: SASS instructions / registers / stack bytes / shared bytes, then the memory
instructions that decide speed: vector width of global loads and stores (`LDG.E.128` moves
16 bytes, `LDG.E.U16` two), tensor-memory-accelerator loads and stores (`UTMALDG`,
`UTMASTG`), descriptors built in the kernel (`ATOMG` + `UTMACCTL.IV`: a descriptor written to
global memory per block) and warpgroup MMAs (`HGMMA`). A regression shows here before device
time is spent.

    .venv/bin/python -m bench.triton_sass [--only STEM ...] [--out FILE.md]

Needs the offline toolchain of `bench.sass_parity` (`.cache/sass-toolchain`) and Triton's
wheel with its bundled ptxas (`triton/backends/nvidia/bin`).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import sass_parity
from specialization.manifest import evaluate_fact
from transpiler.driver import read_manifests, translate_bytes
from transpiler.ircheck import generated
from transpiler.ircheck.ttir_facts import TtirRequest, request_for
from transpiler.lowering.raise_pointers import JIT_DIVISOR, ParamFacts

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "golden" / "triton"
RESULTS = REPO / "bench" / "results"
F16 = "float16"
# rms_norm and layer_norm in f16 stop tileiras 13.4.92 on this CPU (exit 3, "input does not
# correspond to Tile IR bytecode", also for the translation before raising changed); f32 runs.
F32 = "float32"


@dataclass(frozen=True)
class Launch:
    """One launch of a golden kernel: pointer dtypes (torch names; `element` unless listed),
    scalar values and constexpr values, in the kernel's parameter order."""

    kernel: str
    args: dict[str, object]
    pointers: tuple[str, ...]
    dtypes: dict[str, str] = field(default_factory=dict)
    num_warps: int = 4
    element: str = F16

    def dtype(self, pointer: str) -> str:
        return self.dtypes.get(pointer, self.element)


_N = 1 << 24
#: The first (largest) configuration `bench/gpu_bench_triton.py` measures per operator, with
#: the arguments its host function (`bench/triton_hosts.py`) passes.
LAUNCHES: dict[str, Launch] = {
    "vector_add": Launch("add_kernel", {"n_elements": _N, "BLOCK_SIZE": 1024},
                         ("x_ptr", "y_ptr", "out_ptr")),
    "saxpy": Launch("saxpy_kernel", {"a": 2.0, "n": _N, "BLOCK": 1024}, ("x_ptr", "y_ptr")),
    "relu_leaky": Launch("leaky_relu_kernel", {"n": _N, "BLOCK": 1024}, ("x_ptr", "y_ptr")),
    "sigmoid_gate": Launch("gate_kernel", {"n": _N, "BLOCK": 1024},
                           ("x_ptr", "g_ptr", "y_ptr")),
    "gelu_helper": Launch("gelu_kernel", {"n": _N, "BLOCK": 1024}, ("x_ptr", "y_ptr")),
    "static_unroll": Launch("sum4_kernel", {"n": _N, "BLOCK": 256}, ("x_ptr", "y_ptr"),
                            {"y_ptr": "float32"}),
    "fused_softmax": Launch("softmax_kernel", {"in_row_stride": 1024, "out_row_stride": 1024,
                                               "n_cols": 1024, "BLOCK_SIZE": 1024},
                            ("out_ptr", "in_ptr")),
    "online_softmax": Launch("online_softmax_kernel", {"n_cols": 4096, "stride": 4096,
                                                       "BLOCK": 1024}, ("x_ptr", "y_ptr")),
    "rms_norm": Launch("rms_norm_fwd", {"stride": 4096, "N": 4096, "eps": 1e-6,
                                        "BLOCK_SIZE": 4096}, ("X", "Y", "W"),
                         element=F32),
    "layer_norm": Launch("layer_norm_fwd", {"stride": 4096, "N": 4096, "eps": 1e-5,
                                            "BLOCK_SIZE": 4096},
                         ("X", "Y", "W", "B", "Mean", "Rstd"), element=F32),
    "matmul": Launch("matmul_kernel", {
        "M": 4096, "N": 4096, "K": 4096, "stride_am": 4096, "stride_ak": 1,
        "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, "stride_cn": 1,
        "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, ("a_ptr", "b_ptr", "c_ptr")),
    "matmul_grouped": Launch("grouped_matmul_kernel", {
        "M": 4096, "N": 4096, "K": 4096, "stride_am": 4096, "stride_ak": 1,
        "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, "stride_cn": 1,
        "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
        ("a_ptr", "b_ptr", "c_ptr")),
}
TRITON_TYPES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int32": "i32",
                "int64": "i64"}
RUST_TYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "int32": "i32",
              "int64": "i64"}
# Opcode prefixes (with modifiers) counted in the memory column, in print order.
MEMORY_OPS = ("LDG.E", "STG.E", "LDGSTS", "UTMALDG", "UTMASTG", "ATOMG", "UTMACCTL.IV",
              "HGMMA")
_OPCODE = re.compile(r"^\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


@dataclass
class Cell:
    """The SASS facts of one compiled kernel."""

    instructions: int
    registers: int
    stack: int
    shared: int
    memory: dict[str, int]
    entry: str = ""  # the Rust entry compiled, where the column chooses one

    def text(self) -> str:
        ops = ", ".join(f"{op} {n}" for op, n in self.memory.items())
        named = f"<br>`{self.entry}`" if self.entry else ""
        return (f"{self.instructions} / {self.registers} / {self.stack} / {self.shared}"
                f"<br>{ops or '-'}{named}")


def sass_cell(cubin: Path, toolchain: Path) -> Cell:
    env = {**os.environ, "NVDISASM_PATH": str(toolchain / "bin")}
    sass = subprocess.run([str(toolchain / "bin/cuobjdump"), "-sass", str(cubin)], check=True,
                          capture_output=True, text=True, env=env).stdout
    usage = subprocess.run([str(toolchain / "bin/cuobjdump"), "-res-usage", str(cubin)],
                           check=True, capture_output=True, text=True, env=env).stdout
    full: collections.Counter[str] = collections.Counter()
    for line in sass.splitlines():
        found = _OPCODE.match(line)
        if found and not found.group(1).startswith("NOP"):
            full[found.group(1)] += 1
    memory: collections.Counter[str] = collections.Counter()
    for opcode, count in full.items():
        if any(opcode.startswith(prefix) for prefix in MEMORY_OPS):
            memory[memory_name(opcode)] += count

    def value(key: str) -> int:
        found = re.search(rf"\b{key}:(\d+)", usage)
        return int(found.group(1)) if found else 0

    return Cell(sum(full.values()), value("REG"), value("STACK"), value("SHARED"),
                dict(sorted(memory.items())))


def memory_name(opcode: str) -> str:
    """`LDG.E.128`, `LDG.E.U16`, `STG.E.64`: the width kept, other modifiers dropped;
    `HGMMA.64x128x16.F32` as `HGMMA`."""
    parts = opcode.split(".")
    if parts[0] in ("LDG", "STG", "LDGSTS"):
        width = next((p for p in parts[1:] if re.fullmatch(r"U?\d+|S\d+", p)), "32")
        return f"{parts[0]}.{width}"
    if parts[0] == "UTMACCTL":
        return opcode
    return parts[0]


# ---- Triton's side -----------------------------------------------------------------------


def triton_kernel(source: Path, launch: Launch) -> object:
    """The `@triton.jit` function of a golden file (the file imported: it defines kernels
    only)."""
    spec = importlib.util.spec_from_file_location(f"golden_{source.stem}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, launch.kernel)


def jit_request(fn: object, launch: Launch) -> TtirRequest:
    """The specialization Triton's JIT makes for the launch (fresh tensors are aligned)."""
    names = tuple(fn.arg_names)  # type: ignore[attr-defined]
    constexprs = {names[i]: launch.args[names[i]]
                  for i in fn.constexprs}  # type: ignore[attr-defined]
    scalars = {n: v for n, v in launch.args.items() if n not in constexprs}
    return request_for(names, constexprs, {p: launch.dtype(p) for p in launch.pointers},
                       scalars)  # type: ignore[arg-type]


def jit_facts(request: TtirRequest, fn: object) -> ParamFacts:
    """The same specialization as facts for the raising pass: the runtime ints it made the
    constant 1 (constexprs the kernel does not declare), and those it marks divisible."""
    names = list(fn.arg_names)  # type: ignore[attr-defined]
    declared = {names[i] for i in fn.constexprs}  # type: ignore[attr-defined]
    ones = {n for n, v in request.constexprs if n not in declared and v == 1}
    return ParamFacts(frozenset(ones), frozenset(request.divisible))


def triton_cubin(fn: object, request: TtirRequest, launch: Launch,
                 out: Path) -> tuple[Path, int]:
    """Triton's cubin for the request, compiled without a GPU, and the dynamic shared memory
    its launch asks for (not in the cubin's resource usage)."""
    import triton
    from triton.backends.compiler import GPUTarget

    names = list(fn.arg_names)  # type: ignore[attr-defined]
    compiled = triton.compile(
        triton.compiler.ASTSource(
            fn=fn, signature=dict(request.signature), constexprs=dict(request.constexprs),
            attrs={(names.index(n),): [["tt.divisibility", JIT_DIVISOR]]
                   for n in request.divisible}),
        target=GPUTarget("cuda", 90, 32), options={"num_warps": launch.num_warps,
                                                   "num_stages": 3})
    out.write_bytes(compiled.asm["cubin"])
    return out, int(compiled.metadata.shared)


# ---- our side ----------------------------------------------------------------------------


def rust_cubin(source: Path, launch: Launch, raise_pointers: bool, facts: ParamFacts | None,
               folder: Path, toolchain: Path, select: bool = False) -> Path:
    """The translation's entry for `launch` (its dtype variant; with `select`, the JIT fact
    entry the launcher selects for its arguments), through tileiras."""
    result = translate_bytes(source.read_bytes(), str(source), raise_pointers=raise_pointers,
                             param_facts={launch.kernel: facts} if facts else None)
    if result.rust is None:
        raise RuntimeError("the translation failed")
    tag = ("raised" if raise_pointers else "pointers") + ("_jit" if facts else "") + (
        "_selected" if select else "")
    rs = folder / f"{source.stem}_{tag}.rs"
    rs.write_text(result.rust, encoding="utf-8")
    entry, generics = _entry(read_manifests(result.rust), launch, select)
    SELECTED[launch.kernel] = entry
    compiled, = generated.compile_rust_kernels(rs, [{"entry": entry, "generics": generics}],
                                               out_dir=folder / tag)
    compiled.raise_for_error()
    assert compiled.bytecode is not None
    cubin = folder / f"{rs.stem}.cubin"
    subprocess.run([str(toolchain / "bin/tileiras"), "--gpu-name", sass_parity.TARGET,
                    "--opt-level", "3", "-o", str(cubin), str(compiled.bytecode)], check=True,
                   capture_output=True)
    return cubin


#: kernel -> the entry `rust_cubin` compiled last (the `selected` cell names it)
SELECTED: dict[str, str] = {}


def _facts_hold(manifest: dict[str, object], launch: Launch) -> bool:
    """Whether a JIT fact entry's facts hold for the launch (its pointers are fresh tensors,
    aligned to 256 bytes: address 0 here), as the wrapper decides."""
    values = {**{p: 0 for p in launch.pointers},
              **{n: v for n, v in launch.args.items() if isinstance(v, int)
                 and not isinstance(v, bool)}}
    try:
        return all(evaluate_fact(f["tree"], values)  # type: ignore[index]
                   for f in manifest.get("jit_facts") or [])  # type: ignore[union-attr]
    except (KeyError, ValueError):
        return False


def _entry(manifests: dict[str, dict[str, object]], launch: Launch,
           select: bool = False) -> tuple[str, list[str]]:
    """The entry whose dtype variant fits the launch, with its generic arguments: the
    general entry, or with `select` the most specific entry whose JIT facts hold."""
    ordered = sorted(manifests.items(),
                     key=lambda item: -len(item[1].get("jit_facts") or []))  # type: ignore
    for entry, manifest in ordered if select else manifests.items():
        if manifest.get("kernel") != launch.kernel:
            continue
        if manifest.get("jit_facts") and not (select and _facts_hold(manifest, launch)):
            continue
        variant = manifest.get("dtype_variant") or {}
        if any(launch.dtype(p) != d for p, d in variant.items()):  # type: ignore
            continue
        generics = []
        for generic in manifest["generics"]:  # type: ignore[union-attr]
            if generic["kind"] == "type":
                generics.append(RUST_TYPES[launch.dtype(generic["params"][0])])
            else:
                value = launch.args[generic["params"][0]]
                generics.append(str(value).lower())
        return entry, generics
    raise RuntimeError(f"no Rust entry of `{launch.kernel}` fits the launch")


# ---- the table ---------------------------------------------------------------------------

COLUMNS = ("triton", "raised", "no-raise", "raised+jit", "selected")


def row(stem: str, launch: Launch, toolchain: Path) -> dict[str, Cell | str]:
    source = GOLDEN / f"{stem}.py"
    cells: dict[str, Cell | str] = {}
    with tempfile.TemporaryDirectory(prefix="triton-sass-") as tmp:
        folder = Path(tmp)
        fn = triton_kernel(source, launch)
        request = jit_request(fn, launch)
        facts = jit_facts(request, fn)
        builds = {
            "triton": lambda: triton_cubin(fn, request, launch, folder / "triton.cubin"),
            "raised": lambda: (rust_cubin(source, launch, True, None, folder, toolchain), 0),
            "no-raise": lambda: (rust_cubin(source, launch, False, None, folder, toolchain),
                                 0),
            "raised+jit": lambda: (rust_cubin(source, launch, True, facts, folder,
                                              toolchain), 0),
            "selected": lambda: (rust_cubin(source, launch, True, None, folder, toolchain,
                                            select=True), 0),
        }
        for column, build in builds.items():
            try:
                cubin, dynamic_shared = build()
                cell = sass_cell(cubin, toolchain)
                cell.shared = max(cell.shared, dynamic_shared)
                if column == "selected":
                    cell.entry = SELECTED.get(launch.kernel, "")
                cells[column] = cell
            except subprocess.CalledProcessError as err:
                said = (err.stderr or b"").decode(errors="replace").strip().splitlines()
                cells[column] = f"error: {Path(str(err.cmd[0])).name}: " + (
                    said[0][:120] if said else f"exit {err.returncode}")
            except Exception as err:  # noqa: BLE001 - recorded per cell
                cells[column] = f"error: {type(err).__name__}: {str(err)[:120]}"
    return cells


def markdown(rows: dict[str, dict[str, Cell | str]], command: str, seconds: float) -> str:
    lines = [
        "# Triton's SASS against the Rust translations' (sm_90, compiled on a CPU)",
        "",
        f"Generated by `{command}` (do not edit); {seconds:.0f} s. Each cell: instructions / "
        "registers / stack bytes / shared bytes, then the memory instructions by kind "
        "(module docstring of `bench/triton_sass.py`). Launch: the largest configuration of "
        "`bench/gpu_bench_triton.py`, f16 (rms_norm, layer_norm: f32).",
        "",
        "| kernel | " + " | ".join(COLUMNS) + " |",
        "| --- | " + " | ".join("---" for _ in COLUMNS) + " |",
    ]
    for stem, cells in rows.items():
        texts = [c.text() if isinstance(c, Cell) else c for c in (cells[k] for k in COLUMNS)]
        lines.append(f"| {stem} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.triton_sass",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], metavar="STEM")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the table there too (markdown)")
    args = parser.parse_args(argv)
    toolchain = sass_parity.ensure_toolchain()
    started = time.monotonic()
    rows = {}
    for stem, launch in LAUNCHES.items():
        if args.only and stem not in args.only:
            continue
        rows[stem] = row(stem, launch, toolchain)
        print(f"{stem}: done", file=sys.stderr, flush=True)
    command = "python -m bench.triton_sass " + " ".join(
        argv if argv is not None else sys.argv[1:])
    text = markdown(rows, command.strip(), time.monotonic() - started)
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
