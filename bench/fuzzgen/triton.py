"""Random Triton kernels (`@triton.jit`, launched as `kernel[grid](...)`), and their proof.

Takes a seed, an index and a size; gives a `GeneratedKernel` whose kernel `fuzz_kernel` runs
one program per BLOCK elements of 1-D buffers: masked loads with `other` (ragged `n`), a
typed random expression DAG over blocks and scalars (arithmetic with C division, comparisons,
`tl.where`, math functions, casts with `.to`, reductions to a scalar broadcast back, scans,
helpers, constexpr `if`s, loops with carried values, `tl.static_range`), a masked store, and
optionally an atomic add. With `beyond`, constructs the translator does not take are mixed in
(`tl.rand`, a `while` loop, a libdevice call) so that its diagnostics are exercised.

`rejected` compiles the kernel to TTIR on the CPU (Triton's own front end) and says why it
does not compile; `prove` is `verify SOURCE RUST --spec`'s Triton proof of the Rust entry
the launch reaches: Triton's interpreter against the Tile IR interpreter on seeded inputs
(multiples of the block, ragged, tiny; NaN, infinities, signed zeros, subnormals; blocks
shuffled), and the entry's Tile IR against Triton's TTIR facts (loads, stores, atomics,
reductions and scans, the signature).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.fuzzgen.common import Chooser, GeneratedKernel, KernelParts
from transpiler.ircheck.ttir_facts import TtirError, TtirRequest, compile_ttir, request_for
from transpiler.numeric_check.triton_proof import prove_triton

KERNEL = "fuzz_kernel"
POINTER_DTYPES: dict[str, float] = {"float32": 4, "float16": 2, "int32": 2}
FLOAT_UNARY = ("tl.exp", "tl.log", "tl.sqrt", "tl.abs", "tl.sin", "tl.cos", "tl.exp2",
               "tl.log2", "tl.floor", "tl.ceil", "tl.sigmoid")
FLOAT_BINARY = ("+", "-", "*", "/")
INT_BINARY = ("+", "-", "*", "//", "%", "&", "|", "^")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
BEYOND = ("tl.rand(7, offs)", "tl.extra.cuda.libdevice.erf({a})", "tl.math.erf({a})")
TRITON_TYPES = {"float32": "tl.float32", "float16": "tl.float16", "int32": "tl.int32"}
TRITON_TYPE_NAMES = {"float32": "fp32", "float16": "fp16", "int32": "i32"}
#: The float -> int32 conversion generated kernels use: NaN to 0, the rest clamped into a
#: range every float type's integral values convert exactly from (then Triton's `.to`).
TO_INT = ("@triton.jit\ndef to_int_saturated(x):\n"
          "    x = tl.where(x == x, x, 0.0)\n"
          "    return tl.minimum(tl.maximum(x, -60000.0), 60000.0).to(tl.int32)\n")


class TritonGenerator:
    def __init__(self, chooser: Chooser, beyond: float) -> None:
        self.c = chooser
        self.beyond = beyond
        self.k = KernelParts()
        self.depth = 1 + min(chooser.size, 6) // 2
        self.scope: list[tuple[str, str]] = []  # (name, dtype) of blocks in scope

    def expr(self, dtype: str, depth: int) -> str:
        if depth <= 0 or self.c.chance(0.25):
            return self.leaf(dtype)
        kind = self.c.weighted({
            "binary": 5, "unary": 3 if dtype != "int32" else 0, "scalar": 2, "minmax": 1,
            "where": 1, "reduce": 1, "scan": 0.7, "cast": 1, "helper": 0.6,
            "beyond": self.beyond if dtype != "int32" else 0})
        sub = depth - 1
        if kind == "binary":
            op = self.c.pick(FLOAT_BINARY if dtype != "int32" else INT_BINARY)
            self.k.features.add("int-divmod" if op in ("//", "%") else "arith")
            right = self.expr(dtype, sub)
            if op in ("//", "%"):
                right = self.c.pick(("3", "-5", "7"))
            return f"({self.expr(dtype, sub)} {op} {right})"
        if kind == "unary":
            self.k.features.add("math")
            return f"{self.c.pick(FLOAT_UNARY)}({self.expr(dtype, sub)})"
        if kind == "scalar":
            self.k.features.add("scalar")
            value = self.c.pick(("0.5", "2.0", "-3.0") if dtype != "int32" else ("1", "3", "-2"))
            return f"({self.expr(dtype, sub)} {self.c.pick(('+', '-', '*'))} {value})"
        if kind == "minmax":
            self.k.features.add("minmax")
            return f"{self.c.pick(('tl.maximum', 'tl.minimum'))}({self.expr(dtype, sub)}, " \
                   f"{self.expr(dtype, sub)})"
        if kind == "where":
            self.k.features.add("where")
            return f"tl.where({self.compare(sub)}, {self.expr(dtype, sub)}, " \
                   f"{self.expr(dtype, sub)})"
        if kind == "reduce":
            self.k.features.add("reduce")
            fn = self.c.pick(("tl.sum", "tl.max", "tl.min"))
            masked = f"tl.where(mask, {self.expr(dtype, sub)}, 0)"
            return f"({self.expr(dtype, sub)} + {fn}({masked}, axis=0))"
        if kind == "scan":
            self.k.features.add("scan")
            return f"tl.cumsum({self.expr(dtype, sub)}, axis=0)"
        if kind == "cast":
            self.k.features.add("cast")
            source = self.c.pick([d for d in TRITON_TYPES if d != dtype])
            return self.cast(self.expr(source, sub), source, dtype)
        if kind == "helper":
            return self.helper_call(dtype, sub)
        self.k.features.add("beyond")
        return self.c.pick(BEYOND).format(a=self.expr(dtype, sub))

    def leaf(self, dtype: str) -> str:
        same = [n for n, d in self.scope if d == dtype]
        if same and self.c.chance(0.7):
            return self.c.pick(same)
        others = [n for n, d in self.scope if d != dtype]
        if others and self.c.chance(0.6):
            self.k.features.add("cast")
            name = self.c.pick(others)
            return self.cast(name, dict(self.scope)[name], dtype)
        if dtype == "int32" and self.c.chance(0.5):
            return "offs"
        self.k.features.add("full")
        value = "1.5" if dtype != "int32" else "2"
        return f"tl.full((BLOCK,), {value}, {TRITON_TYPES[dtype]})"

    def cast(self, text: str, source: str, dtype: str) -> str:
        """`text` (of element type `source`) converted to `dtype`. A float becomes an
        integer through `TO_INT`: Triton leaves the conversion of NaN and of values out of
        the integer's range undefined (LLVM's `fptosi`), and a generated kernel must have
        one defined result for every input, NaN and infinities included."""
        if source == dtype:
            return text
        if dtype == "int32" and source != "int32":
            if TO_INT not in self.k.helpers:
                self.k.helpers.insert(0, TO_INT)
            return f"to_int_saturated({text})"
        return f"{text}.to({TRITON_TYPES[dtype]})"

    def compare(self, depth: int) -> str:
        self.k.features.add("compare")
        dtype = self.c.pick(("float32", "int32"))
        return f"({self.expr(dtype, depth)} {self.c.pick(COMPARISONS)} {self.expr(dtype, depth)})"

    def helper_call(self, dtype: str, depth: int) -> str:
        name = self.k.fresh("helper_")
        body = "a * 2 + b" if dtype == "int32" else f"{self.c.pick(FLOAT_UNARY)}(a) - b"
        self.k.helpers.append(f"@triton.jit\ndef {name}(a, b):\n    return {body}\n")
        self.k.features.add("helper")
        return f"{name}({self.expr(dtype, depth)}, {self.expr(dtype, depth)})"

    def random_dtype(self) -> str:
        return self.c.weighted({"float32": 5, "float16": 1, "int32": 2})

    def statement(self) -> None:
        kind = self.c.weighted({"assign": 6, "if": 1, "loop": 1, "static": 0.5,
                                "while": self.beyond})
        name = self.k.fresh("v")
        dtype = self.random_dtype()
        if kind == "assign":
            self.k.body.append(f"    {name} = {self.expr(dtype, self.depth)}")
        elif kind == "if":
            self.k.features.add("const-if")
            self.k.body += [f"    if {self.c.pick(('FLAG', 'BLOCK >= 128', 'not FLAG'))}:",
                            f"        {name} = {self.expr(dtype, self.depth)}",
                            "    else:",
                            f"        {name} = {self.expr(dtype, self.depth)}"]
        elif kind in ("loop", "static"):
            self.k.features.add("loop" if kind == "loop" else "static-range")
            trips = "range(0, 3)" if kind == "loop" else "tl.static_range(2)"
            self.k.body += [f"    {name} = {self.expr(dtype, 1)}",
                            f"    for i in {trips}:",
                            f"        {name} = {name} + {self.expr(dtype, self.depth - 1)}"]
        else:
            self.k.features.add("beyond")
            self.k.body += [f"    {name} = {self.expr(dtype, 1)}", "    j = 0",
                            "    while j < 2:",
                            f"        {name} = {name} * 2", "        j += 1"]
        self.scope.append((name, dtype))

    def build(self, ident: str) -> GeneratedKernel:
        c = self.c
        for i in range(c.between(1, 3)):
            self.k.arrays[f"x{i}_ptr"] = c.weighted(POINTER_DTYPES)
        self.k.arrays["y_ptr"] = c.weighted(POINTER_DTYPES)
        atomic = c.chance(0.2)
        if atomic:
            self.k.arrays["z_ptr"] = c.pick(("float32", "int32"))
        self.k.body += ["    pid = tl.program_id(0)",
                        "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
                        "    mask = offs < n"]
        for i, (name, dtype) in enumerate(list(self.k.arrays.items())):
            if not name.startswith("x"):
                continue
            other = c.pick(("0", "1", "None")) if dtype == "int32" else c.pick(
                ("0.0", "-1.0", "float('-inf')", "None"))
            other_text = "" if other == "None" else f", other={other}"
            self.k.body.append(f"    v_x{i} = tl.load({name} + offs, mask=mask{other_text})")
            self.k.features.add("load-other" if other_text else "load-mask")
            self.scope.append((f"v_x{i}", dtype))
        for _ in range(c.between(1, 1 + c.size)):
            self.statement()
        out = self.k.arrays["y_ptr"]
        # Every value flows into the store: Triton's compiler drops dead code before TTIR,
        # and the facts compared are those of live operations.
        last = self.random_dtype()
        terms = [self.cast(f"({self.expr(last, self.depth)})", last, out),
                 *(self.cast(name, dtype, out) for name, dtype in self.scope)]
        self.k.body.append(f"    tl.store(y_ptr + offs, {' + '.join(terms)}, mask=mask)")
        if atomic:
            zdt = self.k.arrays["z_ptr"]
            value = self.expr(zdt, self.depth - 1)
            self.k.body.append(f"    tl.atomic_add(z_ptr + offs, {value}, mask=mask)")
            self.k.features.add("atomic")
        return self.file(ident)

    def file(self, ident: str) -> GeneratedKernel:
        block = self.c.pick((32, 64, 128))
        flag = self.c.pick((True, False))
        pointers = list(self.k.arrays)
        sig = ", ".join([*pointers, "n", "BLOCK: tl.constexpr", "FLAG: tl.constexpr"])
        helpers = "".join(h + "\n\n" for h in self.k.helpers)
        args = ", ".join([*(p.removesuffix("_ptr") for p in pointers), "n"])
        source = (
            "import torch\nimport triton\nimport triton.language as tl\n\n\n" + helpers
            + f"@triton.jit\ndef {KERNEL}({sig}):\n" + "\n".join(self.k.body) + "\n\n\n"
            + "def fuzz_launch(n):\n"
            + "".join(f"    {p.removesuffix('_ptr')} = torch.empty(n, dtype=torch.{d}, "
                      "device=\"cuda\")\n" for p, d in self.k.arrays.items())
            + f"    grid = (triton.cdiv(n, {block}),)\n"
            + f"    {KERNEL}[grid]({args}, BLOCK={block}, FLAG={flag})\n")
        return GeneratedKernel(ident, "triton", source, {KERNEL: [launch_spec(
            self.k.arrays, block, flag)]}, set(self.k.features))


def generate(seed: int, index: int, size: int = 3, beyond: float = 0.03) -> GeneratedKernel:
    """The `index`-th Triton kernel of campaign `seed`."""
    return TritonGenerator(Chooser(seed, index, size), beyond).build(f"triton-{seed}-{index}")


def launch_spec(pointers: dict[str, str], block: int, flag: bool) -> dict[str, Any]:
    """The `--spec` entry of the launch (`numeric_check.triton_proof`'s format): 1-D
    buffers of N elements, N a multiple of the block, a ragged and a tiny size."""
    entry: dict[str, Any] = {p: {"dtype": d, "ndim": 1} for p, d in pointers.items()}
    entry.update({"n": {"scalar": "int32"}, "BLOCK": block, "FLAG": flag})
    entry["numeric"] = {"sizes": [{"N": 4 * block}, {"N": 3 * block + 5}, {"N": 3}],
                        "shapes": {p: ["N"] for p in pointers}, "scalars": {"n": "N"},
                        "grid": ["cdiv(N, BLOCK)", 1, 1]}
    return entry


# --- acceptance and proof ---------------------------------------------------------------

#: The value of each runtime scalar Triton's TTIR is compiled for (its JIT key: not 1, not
#: a multiple of 16).
TTIR_SCALAR = 1000


def _request(spec_path: Path) -> tuple[str, TtirRequest]:
    """The kernel and Triton's compile request of the spec file's (one) launch."""
    ((kernel, (entry,)),) = json.loads(spec_path.read_text(encoding="utf-8")).items()
    params = tuple(k for k in entry if k != "numeric")
    pointers = {k: v["dtype"] for k, v in entry.items() if isinstance(v, dict) and "dtype" in v}
    scalars = {k: TTIR_SCALAR for k, v in entry.items() if isinstance(v, dict) and "scalar" in v}
    consts = {k: v for k, v in entry.items() if k in params and not isinstance(v, dict)}
    return kernel, request_for(params, consts, pointers, scalars)


def rejected(path: Path, spec_path: Path) -> str | None:
    """None when Triton compiles the kernel to TTIR, else Triton's last error line."""
    kernel, request = _request(spec_path)
    try:
        compile_ttir(path, kernel, request)
    except TtirError as err:
        return str(err).strip().splitlines()[-1][:200] if str(err).strip() else "TtirError"
    return None


#: A proof's result: the campaign's class, a detail and the full text.
Proof = tuple[str, str, str]
#: Verdicts of `prove_triton` -> the campaign's class, worst first (NOT_CHECKED: entries the
#: spec's launch does not reach, which other launches would).
VERDICT_CLASSES: tuple[tuple[str, str], ...] = (("FAIL", "fail"), ("ERROR", "error"),
                                                ("CANNOT_RUN", "error"))


def prove(path: Path, spec_path: Path, rust: str) -> Proof:
    """The Triton proof of one translation, as `verify SOURCE RUST --spec` runs it: the
    entry the launch reaches, run by the Tile IR interpreter against Triton's interpreter
    on seeded inputs (`numeric_check.triton_proof`), and checked against Triton's TTIR
    facts (`ircheck.ttir_check`)."""
    rs_path = path.with_suffix(".rs")
    rs_path.write_text(rust, encoding="utf-8")
    outcomes = prove_triton(path, rs_path, [str(spec_path)])
    lines = "\n".join(o.line() for o in outcomes)
    for verdict, klass in VERDICT_CLASSES:
        hit = next((o for o in outcomes if o.verdict == verdict), None)
        if hit is not None:
            reason = getattr(hit, "reason", None) or hit.line()
            why = rejected(path, spec_path) if klass == "error" else None
            if why is not None:  # Triton itself does not compile it: not counted
                return "rejected", why, lines
            return klass, str(reason)[:160], lines + "\n" + hit.text
    if not any(o.verdict in ("PASS", "PASS_WITH_NOTES") for o in outcomes):
        return "error", "no specialization checked", lines
    return "proven", "", lines
