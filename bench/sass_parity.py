"""SASS parity: the machine code tileiras makes for sm_90 from both sides, compared on a CPU.

The IR check says whether a translation computes what the original computes; it accepts
differences that change no result (token threading, assumptions, dead code). Some of those
still change what tileiras schedules, and so the speed. This benchmark compiles each
specialization's Tile IR bytecode from both sides (cuTile Python's `export_kernel`, cuTile
Rust through the harness) with `tileiras --gpu-name sm_90 -O3` (the H200's target, the
optimization level both runtimes use), disassembles the cubins with `cuobjdump -sass` and
compares instruction counts, the opcode histogram, registers and shared memory. Equal SASS
means equal kernel time up to launch details; a difference points at what to look at before
spending device time.

    .venv/bin/python -m bench.sass_parity --golden [--only STEM ...]
    .venv/bin/python -m bench.sass_parity --corpus [--only FILE ...]   # after bench.corpus

Writes `bench/results/sass.{md,json}` (or `--out DIR`). The toolchain (ptxas and libnvvm for
tileiras, cuobjdump and nvdisasm; CUDA 13.4.92 wheels from PyPI) is fetched once into
`.cache/sass-toolchain/`.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from specialization.manifest import parse_manifests

REPO = Path(__file__).resolve().parents[1]
TOOLCHAIN = REPO / ".cache" / "sass-toolchain"
RESULTS = REPO / "bench" / "results"
CUDA_VERSION = "13.4.92"
# wheel -> (member inside the wheel, where it goes in the toolchain folder)
WHEEL_FILES = {
    "nvidia-cuda-nvcc": ("nvidia/cu13/bin/ptxas", "bin/ptxas"),
    "nvidia-nvvm": ("nvidia/cu13/lib/libnvvm.so.4", "nvvm/lib64/libnvvm.so"),
    "nvidia-cuda-cuobjdump": ("nvidia/cu13/bin/cuobjdump", "bin/cuobjdump"),
    "nvidia-cuda-nvdisasm": ("nvidia/cu13/bin/nvdisasm", "bin/nvdisasm"),
}
TARGET = "sm_90"
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


# ---- toolchain -----------------------------------------------------------------------------


def ensure_toolchain(folder: Path = TOOLCHAIN) -> Path:
    """`folder` with bin/tileiras, bin/ptxas, bin/cuobjdump and nvvm/lib64/libnvvm.so
    (tileiras finds its helpers relative to its own path)."""
    wanted = [folder / dest for _, dest in WHEEL_FILES.values()] + [folder / "bin/tileiras"]
    if all(p.is_file() for p in wanted):
        return folder
    import nvidia  # the tileiras wheel the IR check already installs

    tileiras = Path(list(nvidia.__path__)[0]) / "cu13" / "bin" / "tileiras"
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copy2(tileiras, folder / "bin" / "tileiras")
    with tempfile.TemporaryDirectory(prefix="sass-wheels-") as tmp:
        pins = [f"{name}=={CUDA_VERSION}" for name in WHEEL_FILES]
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp,
                        *pins], check=True)
        for name, (member, dest) in WHEEL_FILES.items():
            wheel = next(Path(tmp).glob(name.replace("-", "_") + "-*.whl"))
            target = folder / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(wheel) as archive:
                target.write_bytes(archive.read(member))
            target.chmod(0o755)
    return folder


# ---- one cubin -----------------------------------------------------------------------------


@dataclass
class SassStats:
    instructions: int
    registers: int
    shared_bytes: int
    opcodes: dict[str, int] = field(default_factory=dict)
    #: per-thread stack frame: register spills and local arrays (0 when none)
    stack_bytes: int = 0


def sass_stats(bytecode: bytes, toolchain: Path) -> SassStats:
    """Compile Tile IR bytecode for sm_90 and read its SASS."""
    with tempfile.TemporaryDirectory(prefix="sass-") as tmp:
        bc, cubin = Path(tmp) / "k.bc", Path(tmp) / "k.cubin"
        bc.write_bytes(bytecode)
        subprocess.run([str(toolchain / "bin/tileiras"), "--gpu-name", TARGET, "--opt-level",
                        "3", "-o", str(cubin), str(bc)], check=True, capture_output=True,
                       preexec_fn=_limit_memory)
        sass = _run([toolchain / "bin/cuobjdump", "-sass", cubin], toolchain)
        usage = _run([toolchain / "bin/cuobjdump", "-res-usage", cubin], toolchain)
    opcodes: collections.Counter[str] = collections.Counter()
    for line in sass.splitlines():
        found = _INSTRUCTION.match(line)
        if found and found.group(1) != "NOP":
            opcodes[found.group(1)] += 1
    return SassStats(sum(opcodes.values()), _usage(usage, "REG"), _usage(usage, "SHARED"),
                     dict(sorted(opcodes.items())), _usage(usage, "STACK"))


def _limit_memory() -> None:
    """Caps a compile's address space (ptxas took 15 GB on one large attention kernel)."""
    limit = int(os.environ.get("SASS_PARITY_MEMORY_GB", "8")) << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _run(argv: list[Path | str], toolchain: Path) -> str:
    # cuobjdump runs the nvdisasm it finds through NVDISASM_PATH.
    env = {**os.environ, "NVDISASM_PATH": str(toolchain / "bin")}
    return subprocess.run([str(a) for a in argv], check=True, capture_output=True, text=True,
                          env=env).stdout


def _usage(text: str, key: str) -> int:
    found = re.search(rf"\b{key}:(\d+)", text)
    return int(found.group(1)) if found else 0


# ---- pairs ---------------------------------------------------------------------------------


@dataclass
class PairRow:
    source: str
    kernel: str
    specialization: str
    python: SassStats | None = None
    rust: SassStats | None = None
    error: str | None = None

    @property
    def same(self) -> bool:
        return (self.python is not None and self.rust is not None
                and self.python.opcodes == self.rust.opcodes
                and self.python.shared_bytes == self.rust.shared_bytes)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["same"] = self.same
        return data


def compare_file(source: Path, rust: Path, specs: dict[str, list[Any]], toolchain: Path,
                 label: str) -> list[PairRow]:
    """One row per (kernel, specialization): both sides' SASS statistics."""
    from transpiler.ircheck.check import generics_for, select_manifest, unused_arrays_as_1d
    from transpiler.ircheck.generated import compile_rust_kernels
    from transpiler.ircheck.reference import reference_bytecode

    manifests = parse_manifests(rust.read_text(encoding="utf-8"))
    rows: list[PairRow] = []
    jobs: list[tuple[PairRow, Any]] = []
    requests: list[dict[str, Any]] = []
    for kernel, kernel_specs in specs.items():
        for spec in kernel_specs:
            row = PairRow(label, kernel, spec.label())
            rows.append(row)
            manifest = select_manifest(manifests, kernel, spec)
            if manifest is None:
                row.error = "no Rust entry fits"
                continue
            compiled = unused_arrays_as_1d(spec, manifest)
            requests.append({"entry": manifest["entry"], "id": spec.label(),
                             "generics": generics_for(manifest, compiled)})
            jobs.append((row, compiled))
    with tempfile.TemporaryDirectory(prefix="sass-rust-") as tmp:
        results = compile_rust_kernels(rust, requests, out_dir=tmp) if requests else []
        for (row, compiled), result in zip(jobs, results, strict=True):
            try:
                row.python = sass_stats(reference_bytecode(source, compiled), toolchain)
                result.raise_for_error()
                assert result.bytecode is not None
                row.rust = sass_stats(result.bytecode.read_bytes(), toolchain)
            except Exception as err:  # noqa: BLE001 - recorded per row
                row.error = f"{type(err).__name__}: {str(err)[:200]}"
    return rows


def golden_pairs(only: list[str]) -> list[tuple[Path, Path, dict[str, list[Any]], str]]:
    sys.path.insert(0, str(REPO / "tests"))
    from golden_specs import GOLDEN_SPECS  # type: ignore[import-not-found]

    out = []
    for stem, specs in sorted(GOLDEN_SPECS.items()):
        if only and stem not in only:
            continue
        by_kernel: dict[str, list[Any]] = {}
        for spec in specs:
            by_kernel.setdefault(spec.kernel, []).append(spec)
        out.append((REPO / "golden" / f"{stem}.py", REPO / "golden" / f"{stem}.rs", by_kernel,
                    f"golden/{stem}.py"))
    return out


def corpus_pairs(only: list[str]) -> list[tuple[Path, Path, dict[str, list[Any]], str]]:
    """The corpus files `bench.corpus` translated, with the specializations their host code
    launches (one per element type)."""
    from bench import corpus, corpus_specs

    root = corpus.unpack(corpus.fetch_wheel())
    out = []
    for source in corpus.op_files(root):
        rel = source.relative_to(root / corpus.OPS_DIR).as_posix()
        rust = corpus.CACHE / "out" / Path(rel).with_suffix(".rs")
        if only and rel not in only and source.name not in only or not rust.is_file():
            continue
        launches, _, _ = corpus_specs.discover(source, root)
        constants = corpus_specs.constant_params(ast.parse(source.read_text(encoding="utf-8")))
        manifests = parse_manifests(rust.read_text(encoding="utf-8"))
        specs: dict[str, list[Any]] = {}
        for kernel, launch in launches.items():
            mine = [m.to_json() for m in manifests.values() if m.kernel == kernel]
            if mine:
                found = corpus_specs.specs_for(launch, mine, constants.get(kernel, set()))
                if found.specs:
                    specs[kernel] = found.specs
        out.append((source, rust, specs, rel))
    return out


# ---- report --------------------------------------------------------------------------------


def markdown(rows: list[PairRow], command: str, seconds: float) -> str:
    done = [r for r in rows if r.python and r.rust]
    same = sum(r.same for r in done)
    lines = [
        "# SASS parity: cuTile Python vs the Rust translation, compiled for sm_90",
        "",
        f"Generated by `{command}` (do not edit); tileiras {CUDA_VERSION} `-O3`, "
        f"`cuobjdump -sass`. {len(rows)} specializations, {len(done)} compiled on both sides, "
        f"**{same} with the same SASS** (same opcode histogram and shared memory); "
        f"{seconds:.0f} s.",
        "",
        "| source | kernel | specialization | instr py | instr rs | regs py/rs | shared py/rs "
        "| same | largest opcode differences (py, rs) |",
        "|---|---|---|---:|---:|---|---|---|---|",
    ]
    for r in rows:
        if not (r.python and r.rust):
            lines.append(f"| {r.source} | `{r.kernel}` | {_short(r.specialization)} | | | | | "
                         f"error | {r.error} |")
            continue
        lines.append(
            f"| {r.source} | `{r.kernel}` | {_short(r.specialization)} | "
            f"{r.python.instructions} | {r.rust.instructions} | "
            f"{r.python.registers}/{r.rust.registers} | "
            f"{r.python.shared_bytes}/{r.rust.shared_bytes} | {'yes' if r.same else 'no'} | "
            f"{_opcode_diff(r.python, r.rust)} |")
    return "\n".join(lines) + "\n"


def _short(label: str) -> str:
    inner = label.split("[", 1)[-1].rstrip("]")
    return inner if len(inner) < 90 else inner[:87] + "..."


def _opcode_diff(a: SassStats, b: SassStats, top: int = 4) -> str:
    names = set(a.opcodes) | set(b.opcodes)
    diffs = sorted(((abs(a.opcodes.get(n, 0) - b.opcodes.get(n, 0)), n) for n in names),
                   reverse=True)
    return ", ".join(f"{n} ({a.opcodes.get(n, 0)}, {b.opcodes.get(n, 0)})"
                     for d, n in diffs[:top] if d)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sass_parity", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--golden", action="store_true", help="the golden kernels")
    parser.add_argument("--corpus", action="store_true", help="the TileGym corpus outputs")
    parser.add_argument("--only", nargs="*", default=[], help="golden stems or op file names")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not (args.golden or args.corpus):
        parser.error("choose --golden and/or --corpus")
    toolchain = ensure_toolchain()
    started = time.monotonic()
    pairs = (golden_pairs(args.only) if args.golden else []) + (
        corpus_pairs(args.only) if args.corpus else [])
    rows: list[PairRow] = []
    for source, rust, specs, label in pairs:
        found = compare_file(source, rust, specs, toolchain, label)
        for row in found:
            state = "same" if row.same else (row.error or "differs")
            print(f"{label}: {row.kernel}: {state}", flush=True)
        rows.extend(found)
    seconds = time.monotonic() - started
    command = "python -m bench.sass_parity " + " ".join(argv if argv is not None
                                                        else sys.argv[1:])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sass.json").write_text(json.dumps(
        {"command": command, "seconds": round(seconds, 1), "target": TARGET,
         "cuda": CUDA_VERSION, "rows": [r.to_json() for r in rows]}, indent=1) + "\n")
    (args.out / "sass.md").write_text(markdown(rows, command, seconds))
    done = [r for r in rows if r.python and r.rust]
    print(f"{len(rows)} specializations, {len(done)} compiled, "
          f"{sum(r.same for r in done)} same SASS; {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
