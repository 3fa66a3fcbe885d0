"""`python -m bench.nvidia_rs`: NVIDIA's own cuTile Rust translations, verified.

Takes the tilegym 1.5.1 wheel's operator sources (`--tilegym DIR`, a folder holding
`cutile/<op>.py` and `cutile_rs/<op>_kernel/{kernel.rs,ffi.rs}`: the wheel's `tilegym/ops`
or a copy of its two folders; default `.cache/tilegym`); gives `bench/results/nvidia_rs.md`
(and `.json`): per operator, the structural and numeric verdict of `verify` on each
specialization of `bench/nvidia_specs/<op>.json`, every difference the structural check
reports with the written explanation it matches (`FINDINGS`; a difference that matches none
is listed as unexplained, so a new one cannot hide), and, for the sigmoid forms that differ,
both Tile IRs interpreted on inputs of large magnitude (`sigmoid_probe`).

NVIDIA's crate pins cutile 0.2.0; `verify` compiles the kernels against 0.5.0. Each
`kernel.rs` is first checked by rustc against 0.5.0 (`verify` does that before anything
else); the report records whether any needed a change.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from transpiler.frontend.cutile_py import parse_source
from transpiler.ircheck.generated import cargo_check_files
from transpiler.ircheck.parse import parse_tileir
from transpiler.ircheck.pointer_binding import BindingError, parse_binds
from transpiler.ircheck.pointer_check import plan_slots
from transpiler.ircheck.spec import SpecFileError, load_spec_file
from transpiler.numeric_check.binding import BindingPlan, LogicalArrays, Slot, reference_plan
from transpiler.numeric_check.inputs import DTYPES
from transpiler.numeric_check.sides import TileIrSide
from transpiler.tileir_interp.errors import InterpError
from transpiler.verify_cmd import PointerOptions, VerifyError, pointer_bindings, run_verify

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "bench" / "nvidia_specs"
RESULTS = REPO / "bench" / "results"


@dataclass(frozen=True)
class Op:
    """One operator: its Python file, the Rust entry of each kernel, the binds names
    cannot infer (each with its reason)."""

    name: str
    kernel_map: dict[str, str]
    binds: dict[str, str] = field(default_factory=dict)
    bind_reasons: tuple[str, ...] = ()


OPS: tuple[Op, ...] = (
    Op("silu_and_mul", {"_silu_and_mul_kernel_row_wise": "silu_and_mul_kernel"},
       {"BLOCK_SIZE": "TILE_SIZE"},
       ("`BLOCK_SIZE=TILE_SIZE`: two constants are left (`TILE_SIZE`, `TOTAL_HIDDEN_SIZE`) and "
        "the host glue passes `block_size` through from its caller",)),
    Op("swiglu", {"_swiglu_forward_kernel": "swiglu_forward_kernel"}),
    Op("matmul", {"_matmul_kernel": "non_persistent_matmul_kernel",
                  "_static_persistent_matmul_kernel": "static_persistent_matmul_kernel"},
       {"CAST_TF32": "A.dtype==float32"},
       ("`CAST_TF32=A.dtype==float32`: the host glue computes it from the dtype code "
        "(`cast_tf32`), the Python kernel tests `A.dtype` in its body",)),
    Op("bmm", {"_bmm_kernel": "non_persistent_bmm_kernel",
               "_static_persistent_bmm_kernel": "static_persistent_bmm_kernel"},
       {"rt_q": "Batch"},
       ("`rt_q=Batch`: the batch count has no common name on the two sides",)),
    Op("attention_sink", {"_attention_sink_kernel": "attention_sink_kernel"}),
)


@dataclass(frozen=True)
class Finding:
    """A written explanation of one kind of difference: `divergence` (the translation
    computes something else, on some inputs), `equivalent` (the same values on every input
    the launch can give, which the structural check cannot prove), `hint` (performance
    settings only), `unsupported` (a specialization the translation does not take, refused
    by its host code), `unanalysed` (left to the numeric check)."""

    verdict: str
    text: str


#: (operator, difference kind, regex over the message, regex over the specialization) ->
#: finding id. Checked in order.
MATCHERS: tuple[tuple[str, str, str, str, str], ...] = (
    ("silu_and_mul", "constant", r"operand 0 of `divf`", ".", "sigmoid-form"),
    ("silu_and_mul", "operation", r"`negf` where generated has", ".", "sigmoid-form"),
    ("silu_and_mul", "flush-to-zero", r"`(addf|mulf)` flush_to_zero: generated only", ".",
     "ftz"),
    ("*", "operand-count", r"`load_ptr_tko` has 3 operands in reference, 2", ".",
     "no-padding"),
    ("silu_and_mul", "operation", r"`andi` where generated has `cmpi`", ".", "silu-mask"),
    ("silu_and_mul", "operation", r"`addi` where generated has `iota`", ".",
     "pointer-reassoc"),
    ("silu_and_mul", "operand", r"operand 0 of `reshape`", ".", "pointer-reassoc"),
    ("swiglu", "operand-count", r"`store_ptr_tko` has 2 operands", "check_bounds=False",
     "swiglu-mask"),
    ("swiglu", "operation-form", r"`store_ptr_tko` is written", "check_bounds=False",
     "swiglu-mask"),
    ("swiglu", "attribute", r"`cmpi` keywords: reference \{unsigned\}, generated \{signed\}",
     ".", "unsigned-bounds"),
    ("swiglu", "operation", r"`muli` where generated has `exti`", ".", "unit-stride"),
    ("matmul", "tile-shape", r"`make_partition_view` partition view tile", "TRANSPOSE_[AB]=True",
     "no-transpose"),
    ("matmul", "operand", r"of `load_view_tko`", "TRANSPOSE_[AB]=True", "no-transpose"),
    ("*", "optimization-hints", r"entry optimization_hints", ".", "entry-hints"),
    ("*", "memory-hints", r"optimization_hints", ".", "latency-hints"),
    ("*", "rounding", r"`divi` rounding", ".", "trunc-div"),
    ("*", "loop-bounds", r"`divi`", ".", "trunc-div"),
    ("*", "operation", r"`select` where generated has `remi`", ".", "trunc-div"),
    ("*", "operation", r"`mini` where generated has `if`", ".", "group-min"),
    ("*", "operand", r"operand 0 of `divi`", ".", "trunc-div"),
    ("*", "loop-bounds", r"`muli`", "static_persistent", "persistent-bound"),
    ("*", "memory-ordering", r"`store_view_tko` before `store_view_tko`", ".", "store-order"),
    ("attention_sink", "operation", r"`addf` where generated has `broadcast`", ".",
     "attention-sink-form"),
)

FINDINGS: dict[str, Finding] = {
    "sigmoid-form": Finding(
        "divergence", "NVIDIA writes sigmoid(a) as `e / (1 + e)` with `e = exp2(a * log2e)`; "
        "the Python source writes `1 / (1 + exp2(-a * log2e))`. Where `exp2` overflows (a > "
        "~88.7 in f32, and at a = +inf) NVIDIA's form is `inf / inf` = NaN, so silu(a) * b is "
        "NaN where cuTile Python gives a * b (the probe below)."),
    "ftz": Finding(
        "divergence", "NVIDIA sets flush_to_zero on the `addf` of 1 + e and on both `mulf`s "
        "(silu = a * sig, result = silu * b); the Python source flushes only in `exp2`, the "
        "scaling `mulf` and `divf`. Subnormal f32 products become 0 on NVIDIA's side: f32 "
        "inputs only (a 16-bit input converted to f32 is never subnormal there, but a "
        "product can be)."),
    "no-padding": Finding(
        "equivalent", "NVIDIA's masked loads give no padding value (undefined lanes), the "
        "Python gathers pad with 0. Every masked-off lane reaches only lanes that the store's "
        "mask also drops (the math is per lane), so no stored value depends on the padding."),
    "silu-mask": Finding(
        "equivalent", "cuTile Python's gather masks `0 <= row < input.shape[0]` and "
        "`0 <= col < input.shape[1]` (2 * hidden); NVIDIA masks `col < hidden_size` only. "
        "Lanes hidden <= col < TILE load b's half on the Python side and nothing on NVIDIA's, "
        "but the store masks col < output.shape[1] = hidden on both sides, and a row id is "
        "always < shape[0] for the host's grid (one block per row): the stored values agree."),
    "pointer-reassoc": Finding(
        "equivalent", "NVIDIA offsets the row's base pointer first and the column tile "
        "after (`offset(offset(p, row * stride), col)`); cuTile Python adds the two i64 "
        "offsets and offsets once. Same addresses (i64 offsets, no overflow at these sizes); "
        "the structural check does not reassociate pointer offsets."),
    "swiglu-mask": Finding(
        "equivalent", "With `check_bounds=False` (the host passes it when the power-of-two "
        "tile equals the row length) the Python scatter stores unmasked; NVIDIA's single "
        "entry always masks (row < shape[0], col < shape[1]). With TILE == row length every "
        "lane is in bounds, so the mask is all true: NVIDIA's entry serves both of the "
        "host's specializations with one masked form."),
    "entry-hints": Finding(
        "hint", "Kernel-level occupancy / warps / CGA hints: the Python decorator's are "
        "target-independent (`default`), NVIDIA keys theirs by `sm_100` or leaves them to "
        "the launch's compile options (its FFI takes `occupancy`, `num_cta_in_cga`); they "
        "change scheduling, not values."),
    "latency-hints": Finding(
        "hint", "Load/store latency hints: NVIDIA writes a fixed `Latency::<3>` (or 0) "
        "where the Python passes the `latency=` of its launch config or none; a scheduling "
        "hint, not a value."),
    "trunc-div": Finding(
        "equivalent", "Python's `//`, `%` and `ct.cdiv` are floor/ceiling operations "
        "(`divi` rounding<negative_inf>/<positive_inf>, `remi` + `select`); NVIDIA writes "
        "Rust's truncating `/`, `%` and `(x + T - 1) / T`. They agree for x >= 0, T > 0, "
        "which block ids, tile counts and sizes always are; the structural check does not "
        "use value ranges."),
    "group-min": Finding(
        "equivalent", "The grouped (swizzled) schedule's `min(num_bid_m - first_bid_m, "
        "GROUP_SIZE_M)` is an `if` on NVIDIA's side: the same value."),
    "persistent-bound": Finding(
        "equivalent", "The persistent loop's trip count: Python multiplies by the batch "
        "argument, NVIDIA by `rt_q` after its own tile arithmetic (truncating division, "
        "see trunc-div)."),
    "store-order": Finding(
        "equivalent", "cuTile Python threads one token through the persistent loop's "
        "stores; NVIDIA's stores are unordered. Each iteration stores a different output "
        "tile (distinct addresses), so the order between them cannot change the result."),
    "attention-sink-form": Finding(
        "unanalysed", "Where the online-softmax update starts (`addf` on cuTile Python's "
        "side, a `broadcast` on NVIDIA's): not traced by hand here; the numeric check on the "
        "interpreter is the arbiter for this operator."),
    "unsigned-bounds": Finding(
        "equivalent", "cuTile Python checks `0 <= i < n` as one unsigned `<` on i64; NVIDIA "
        "checks the signed `i < n` only. The indices are a block id and an `iota`, never "
        "negative, so both masks are equal."),
    "unit-stride": Finding(
        "equivalent", "cuTile Python multiplies the column index by the last stride (1 in "
        "the specialization's layout, contiguous last dim); NVIDIA never reads "
        "`stride1` and widens the column index directly: equal under that layout, which "
        "both sides are compiled for; a non-contiguous last dim would differ (NVIDIA's "
        "host glue passes the stride but the kernel ignores it)."),
    "no-transpose": Finding(
        "unsupported", "NVIDIA's static persistent matmul has no TRANSPOSE_A/B generics: for "
        "the Python kernel's TRANSPOSE=True specializations it reads A (or B) untransposed "
        "(tile 128x64 where the Python reads 64x128). Their host wrapper rejects trans_a / "
        "trans_b, so the crate never launches it for those: a specialization NVIDIA does "
        "not translate, rather than a wrong one."),
}


def find_tilegym(given: str | None) -> Path:
    candidates = [Path(given)] if given else [
        REPO / ".cache" / "tilegym", REPO / ".cache" / "tilegym" / "unpacked" / "tilegym" / "ops"]
    for folder in candidates:
        if (folder / "cutile").is_dir() and (folder / "cutile_rs").is_dir():
            return folder
    raise SystemExit("error: no tilegym sources (a folder with cutile/ and cutile_rs/); pass "
                     "--tilegym DIR (the tilegym 1.5.1 wheel's tilegym/ops)")


def explain(op: str, difference: dict[str, Any], specialization: str = "") -> str:
    """The finding id a difference matches, or `unexplained`."""
    for name, kind, pattern, where, finding in MATCHERS:
        if name in (op, "*") and kind == difference["kind"] and re.search(
                pattern, difference["message"]) and re.search(where, specialization or "."):
            return finding
    return "unexplained"


def verify_op(op: Op, tilegym: Path, numeric: bool, keep: Path) -> dict[str, Any]:
    """Both checks of one operator: its outcomes, numeric outcomes and what could not run."""
    source = tilegym / "cutile" / f"{op.name}.py"
    rust = tilegym / "cutile_rs" / f"{op.name}_kernel" / "kernel.rs"
    ffi = tilegym / "cutile_rs" / f"{op.name}_kernel" / "ffi.rs"
    spec = SPECS / f"{op.name}.json"
    rustc = [d.rendered for d in cargo_check_files([rust]) if d.is_error]
    pointer = PointerOptions(parse_binds([f"{k}={v}" for k, v in op.binds.items()]),
                             ffi.read_text(encoding="utf-8"))
    found: list[Any] = []
    result: dict[str, Any] = {"op": op.name, "rustc_errors": rustc, "outcomes": [],
                              "numeric": [], "error": None}
    try:
        outcomes = run_verify(source, rust, [str(spec)], op.kernel_map, str(keep), pointer,
                              numeric=found if numeric else None)
    except (VerifyError, SpecFileError, BindingError) as err:
        result["error"] = str(err)
        return result
    result["unpaired"] = pointer.unpaired
    result["outcomes"] = [o.to_json() for o in outcomes if o.verdict != "NOT_CHECKED"]
    result["numeric"] = [n.to_json() for n in found]
    for outcome in result["outcomes"]:
        for difference in outcome.get("differences") or []:
            difference["finding"] = explain(op.name, difference, outcome["specialization"])
    return result


#: Values of `a` the sigmoid probe feeds (b = 1): around exp2's f32 overflow, and beyond.
PROBE_VALUES = (-1000.0, -100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 80.0, 88.0, 88.8, 89.0, 100.0,
                1000.0, 60000.0, float("inf"), float("-inf"))


def sigmoid_probe(tilegym: Path, keep: Path, dtype: str) -> list[dict[str, Any]]:
    """silu_and_mul's two Tile IRs (kept by `verify_op`) run on rows of `PROBE_VALUES`:
    per value, what each side stores."""
    op = OPS[0]
    spec = next(s for s in load_spec_file(SPECS / f"{op.name}.json")[
        "_silu_and_mul_kernel_row_wise"] if s.param("input").dtype == dtype  # type: ignore[union-attr]
        and s.param("TOTAL_HIDDEN_SIZE").value == 512)  # type: ignore[union-attr]
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.label())[:150]
    reference = parse_tileir((keep / f"{stem}.python.tileir").read_text()).entry()
    generated = parse_tileir((keep / f"{stem}.rust.tileir").read_text()).entry()
    source = tilegym / "cutile" / f"{op.name}.py"
    rust = tilegym / "cutile_rs" / f"{op.name}_kernel" / "kernel.rs"
    pointer = PointerOptions(parse_binds([f"{k}={v}" for k, v in op.binds.items()]),
                             (rust.parent / "ffi.rs").read_text(encoding="utf-8"))
    parsed = parse_source(source.read_text(encoding="utf-8"), str(source))
    binding = pointer_bindings(parsed, rust, op.kernel_map, pointer)[0]
    plan = BindingPlan("cuTile Rust", tuple(Slot(*s) for s in plan_slots(binding, spec)),
                       keep_rank=True)
    hidden, rows = 512, 16
    np_dtype = DTYPES[dtype]
    a = np.resize(np.array(PROBE_VALUES, dtype=np.float64), (rows, hidden)).astype(np_dtype)
    inputs = np.concatenate([a, np.ones((rows, hidden), dtype=np_dtype)], axis=1)
    outputs: dict[str, np.ndarray] = {}
    for name, entry, side_plan in (("python", reference, reference_plan(spec)),
                                   ("nvidia", generated, plan)):
        arrays = {"input": inputs.copy(), "output": np.zeros((rows, hidden), np_dtype)}
        try:
            TileIrSide(name, entry, side_plan).run(LogicalArrays(arrays, {}), (rows, 1, 1))
        except InterpError as err:
            return [{"error": f"{name}: {err}"}]
        outputs[name] = arrays["output"].astype(np.float64)
    return [{"a": value, "python": float(outputs["python"][0, i]),
             "nvidia": float(outputs["nvidia"][0, i])}
            for i, value in enumerate(PROBE_VALUES)
            if float(a[0, i]) == value or not np.isfinite(value)]


def _verdict(result: dict[str, Any]) -> str:
    if result["error"]:
        return "ERROR"
    verdicts = {o["verdict"] for o in result["outcomes"]}
    for verdict in ("FAIL", "ERROR", "PASS_WITH_NOTES", "PASS", "SKIPPED"):
        if verdict in verdicts:
            return verdict
    return "NONE"


def _real(result: dict[str, Any]) -> list[str]:
    ids = {d["finding"] for o in result["outcomes"] for d in o.get("differences") or []}
    return sorted(i for i in ids if i == "unexplained" or FINDINGS[i].verdict in (
        "divergence", "unsupported", "unanalysed"))


def markdown(results: list[dict[str, Any]], probes: dict[str, list[dict[str, Any]]],
             command: str) -> str:
    lines = ["# NVIDIA's cuTile Rust translations (tilegym 1.5.1), verified", "",
             f"Generated by `{command}`; do not edit by hand. Each operator's `kernel.rs` "
             "is checked by rustc against cutile 0.5.0 first, then `verify` compares its "
             "Tile IR with cuTile Python's for the specializations of "
             "`bench/nvidia_specs/<op>.json` (structural), and interprets both "
             "(`--numeric`, seeded inputs incl. NaN/inf/subnormals).", "",
             "| operator | rustc vs 0.5.0 | structural | numeric | divergences, unsupported, "
             "unanalysed |",
             "| --- | --- | --- | --- | --- |"]
    for r in results:
        numeric = sorted({n["verdict"] for n in r["numeric"]}) or ["-"]
        lines.append(f"| {r['op']} | {'clean' if not r['rustc_errors'] else 'errors'} | "
                     f"{_verdict(r)} | {'/'.join(numeric)} | "
                     f"{', '.join(_real(r)) or 'none'} |")
    lines += ["", "Nothing in the five `kernel.rs` had to change for cutile 0.5.0: rustc "
              "accepts each as shipped and the 0.5.0 compiler lowers each to Tile IR, so no "
              "source rewrite is applied." if all(not r["rustc_errors"] for r in results)
              else "Some kernels did not compile against 0.5.0 (see below).", ""]
    for r in results:
        lines += _op_section(r, probes.get(r["op"], {}))
    lines += ["## Findings", ""]
    for key, finding in FINDINGS.items():
        lines.append(f"* **{key}** ({finding.verdict}): {finding.text}")
    return "\n".join(lines) + "\n"


def _op_section(r: dict[str, Any], probe: Any) -> list[str]:
    op = next(o for o in OPS if o.name == r["op"])
    lines = [f"## {r['op']}", "", "Kernels: " + ", ".join(
        f"`{py}` = `{rs}`" for py, rs in op.kernel_map.items()) + "."]
    lines += [f"Bound by hand: {reason}." for reason in op.bind_reasons]
    for side, names in (r.get("unpaired") or {}).items():
        lines.append(f"Only in the {side} file (not checked): "
                     + ", ".join(f"`{n}`" for n in names) + ".")
    if r["rustc_errors"]:
        lines += ["", "rustc against 0.5.0:", "```", *r["rustc_errors"][:3], "```"]
    if r["error"]:
        lines += ["", f"verify could not run: {r['error']}"]
    lines.append("")
    numeric = {n["specialization"]: n for n in r["numeric"]}
    for outcome in r["outcomes"]:
        label = outcome["specialization"]
        n = numeric.get(label)
        lines.append(f"* `{label}`: **{outcome['verdict']}**"
                     + (f", numeric **{n['verdict']}**" + (f" ({n['reason']})" if n["reason"]
                                                           else "") if n else "")
                     + (f" ({outcome['error']})" if outcome.get("error") else ""))
        for d in outcome.get("differences") or []:
            lines.append(f"  * [{d['kind']}] {d['message']} -> **{d['finding']}**")
            if d["finding"] in ("unexplained", "sigmoid-form"):
                lines += ["    ```", f"    reference: {d.get('reference')}",
                          f"    generated: {d.get('generated')}", "    ```"]
    for dtype, rows in probe.items():
        lines += ["", f"Sigmoid probe ({dtype}, b = 1, both Tile IRs interpreted): "
                  "silu(a) * b stored by each side", "", "| a | cuTile Python | NVIDIA |",
                  "| ---: | ---: | ---: |"]
        lines += [f"| {row['a']:g} | {row['python']:g} | {row['nvidia']:g} |" if "a" in row
                  else f"| error: {row['error']} | | |" for row in rows]
    lines.append("")
    return lines


def portable(text: str, tilegym: Path) -> str:
    """The report without this machine's folders: the sources as `tilegym/ops/...`, the
    repository's files relative to it."""
    return text.replace(f"{tilegym.resolve()}/", "tilegym/ops/").replace(
        f"{tilegym}/", "tilegym/ops/").replace(f"{REPO}/", "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.nvidia_rs", description=__doc__)
    parser.add_argument("--tilegym", help="folder with cutile/ and cutile_rs/ (tilegym/ops)")
    parser.add_argument("--ops", nargs="*", default=[o.name for o in OPS])
    parser.add_argument("--no-numeric", action="store_true")
    parser.add_argument("--out", default=str(RESULTS / "nvidia_rs.md"))
    args = parser.parse_args(argv)
    tilegym = find_tilegym(args.tilegym)
    results: list[dict[str, Any]] = []
    probes: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory(prefix="nvidia-rs-") as tmp:
        for op in OPS:
            if op.name not in args.ops:
                continue
            keep = Path(tmp) / op.name
            print(f"verify {op.name} ...", file=sys.stderr, flush=True)
            results.append(verify_op(op, tilegym, not args.no_numeric, keep))
            if op.name == "silu_and_mul" and not results[-1]["error"]:
                probes[op.name] = {d: sigmoid_probe(tilegym, keep, d)
                                   for d in ("float32", "float16")}
    command = "python -m bench.nvidia_rs" + (" --no-numeric" if args.no_numeric else "")
    out = Path(args.out)
    out.write_text(portable(markdown(results, probes, command), tilegym), encoding="utf-8")
    out.with_suffix(".json").write_text(portable(json.dumps(
        {"results": results, "probes": probes}, indent=1, default=str) + "\n", tilegym),
        encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
