"""Raised and pointer-tile translations of one Triton file, run side by side on a CPU.

Takes a Triton source file; translates it twice (affine accesses raised to tensor views, and
with `--no-raise`), compiles every entry of both with the harness (each `tl.constexpr` int at
`CONST_INT`, each bool both ways, launch-time element types f32), runs both Tile IRs in the
interpreter over the same seeded buffers and scalars, and gives per entry whether every
buffer came out byte for byte the same.

Inputs are generic, not per kernel: every runtime integer is `SIZE` (a size that is not a
multiple of the tile, so the last tile of every axis is ragged; as a stride it makes rows
`SIZE` long), every runtime float `FLOAT_SCALAR`, every buffer `BUFFER` elements (enough for
`SIZE` x `SIZE` plus a tile), floats normal, integers in [0, SIZE). The grid covers `SIZE`
along each axis with tiles of `CONST_INT` plus one block past it (a block whose every lane
is masked). A kernel these inputs make the pointer path itself fault on (an unmasked tail,
a loop the sizes do not fit) is reported as not run, never as agreeing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

from transpiler.analysis import evaluate_condition
from transpiler.driver import read_manifests, translate_bytes
from transpiler.ircheck import generated
from transpiler.ircheck.parse import parse_tileir
from transpiler.lowering.raise_pointers import RAISE_ALL
from transpiler.tileir_interp.errors import InterpError
from transpiler.tileir_interp.grid import run_grid
from transpiler.tileir_interp.memory import Memory

CONST_INT = 16
SIZE = 37
FLOAT_SCALAR = 0.5
BUFFER = 3 * SIZE * SIZE + 4 * CONST_INT * CONST_INT
GRID_BLOCKS = -(-SIZE // CONST_INT) + 1
TYPE_GENERIC = "f32"
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f64": np.float64,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
         "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "bool": np.bool_}


@dataclass
class EntryOutcome:
    entry: str
    generics: list[str]
    verdict: str  # "same" | "different" | "not run"
    detail: str = ""


def generic_values(manifest: dict[str, object], flag: bool) -> list[str]:
    values: dict[str, object] = {}
    out: list[str] = []
    for generic in manifest["generics"]:  # type: ignore[union-attr]
        kind = generic["kind"]
        if kind == "type":
            out.append(TYPE_GENERIC)
            continue
        if "tree" in generic:
            value = evaluate_condition(generic["tree"], values)
        elif kind == "bool":
            value = flag
        else:
            value = CONST_INT
        values[generic["name"]] = value
        out.append(str(value).lower() if isinstance(value, bool) else str(value))
    return out


def _element(manifest: dict[str, object], name: str) -> str:
    for generic in manifest["generics"]:  # type: ignore[union-attr]
        if generic["kind"] == "type" and generic["name"] == name:
            return TYPE_GENERIC
    return name


def _inputs(manifest: dict[str, object], seed: int,
            scalars: Mapping[str, int] | None = None) -> list[tuple[str, object]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[str, object]] = []
    for param in manifest["params"]:  # type: ignore[union-attr]
        kind = param["kind"]
        if kind == "const":
            continue
        element = _element(manifest, str(param["element"]))
        dtype = NUMPY[element]
        if kind == "pointer":
            if np.issubdtype(np.dtype(dtype), np.integer):
                data = rng.integers(0, SIZE, BUFFER).astype(dtype)
            elif dtype is np.bool_:
                data = rng.integers(0, 2, BUFFER).astype(np.bool_)
            else:
                data = rng.standard_normal(BUFFER).astype(np.float32).astype(dtype)
            out.append((str(param["name"]), data))
        else:
            default = FLOAT_SCALAR if element.startswith("f") else SIZE
            out.append((str(param["name"]), (scalars or {}).get(str(param["name"]), default)))
    return out


def _run(ir: str, inputs: list[tuple[str, object]]) -> dict[str, bytes]:
    entry = parse_tileir(ir).entry()
    memory = Memory()
    args = [memory.allocate(name, value) if isinstance(value, np.ndarray) else value
            for name, value in inputs]
    grid = (GRID_BLOCKS, GRID_BLOCKS, 2)
    run_grid(entry, args, memory, grid)
    return {name: memory.read_back(name, value).tobytes() for name, value in inputs
            if isinstance(value, np.ndarray)}


def _compile(rs: Path, requests: list[dict[str, object]]) -> list[str | None]:
    results = generated.compile_rust_kernels(rs, requests)
    return [r.disassemble() if r.ok else None for r in results]


def compare_paths(source: Path, work: Path, seed: int = 0) -> list[EntryOutcome]:
    """Both translations of `source`, entry by entry (module docstring)."""
    data = source.read_bytes()
    # Every access the analysis proves, also those the default keeps as pointer tiles.
    raised = translate_bytes(data, str(source), raise_pointers=RAISE_ALL, jit_facts=False)
    pointer = translate_bytes(data, str(source), raise_pointers=False)
    assert raised.ok and pointer.ok
    return compare_rust(raised.rust or "", pointer.rust or "", work / source.stem, seed)


def compare_rust(raised: str, pointer: str, stem: Path, seed: int = 0,
                 scalars: Mapping[str, int] | None = None) -> list[EntryOutcome]:
    """Two Rust translations of the same kernels (`raised` checked against `pointer`);
    `scalars`: runtime integers other than `SIZE` (values a specialized entry assumes)."""
    paths, requests = [], []
    for name, rust in (("raised", raised), ("pointer", pointer)):
        path = stem.with_name(f"{stem.name}_{name}.rs")
        path.write_text(rust, encoding="utf-8")
        paths.append(path)
        # Each translation's own generics: the pointer path adds derived ones (its rank-1
        # padded loads), so the requests are per translation, in the same entry order.
        requests.append([{"entry": entry, "generics": generic_values(manifest, flag)}
                         for entry, manifest in read_manifests(rust).items()
                         for flag in (True, False)])
    manifests = read_manifests(raised)
    irs = [_compile(path, reqs) for path, reqs in zip(paths, requests, strict=True)]
    outcomes = []
    for request, raised_ir, pointer_ir in zip(requests[0], *irs, strict=True):
        entry, generics = str(request["entry"]), list(request["generics"])  # type: ignore
        if raised_ir is None or pointer_ir is None:
            outcomes.append(EntryOutcome(entry, generics, "different", "does not compile"))
            continue
        inputs = _inputs(manifests[entry], seed, scalars)
        try:
            expected = _run(pointer_ir, inputs)
        except InterpError as err:
            outcomes.append(EntryOutcome(entry, generics, "not run", str(err)))
            continue
        try:
            got = _run(raised_ir, inputs)
        except InterpError as err:
            outcomes.append(EntryOutcome(entry, generics, "different", str(err)))
            continue
        differing = [name for name in expected if expected[name] != got[name]]
        outcomes.append(EntryOutcome(entry, generics, "different" if differing else "same",
                                     ", ".join(differing)))
    return outcomes
