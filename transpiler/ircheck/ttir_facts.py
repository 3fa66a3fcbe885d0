"""Facts Triton's compiler knows about a kernel: its TTIR, read on a CPU.

Takes a Triton source file, a kernel and one specialization (`TtirRequest`: the signature
Triton's JIT would build from the launch arguments, constexpr values, which arguments are
divisible by 16); gives the TTIR text (`compile_ttir`, Triton 3.9 in a subprocess, target
`cuda:90:32`, no GPU) and the facts read from it (`read_facts`): the entry signature after
specialization, per memory op (load, store, atomic, descriptor load / store) the element type,
shape, mask presence and the constant `other`, per `tt.dot` the operand and accumulator types
and input precision, per reduction and scan the axis, types and combiner ops, and the folded
scalar constants.

TTIR is made through `make_ir` and the pass list of NVIDIA's Triton-to-TileIR backend (inliner,
combine, canonicalize, cse, licm, symbol-dce), not Triton's CUDA `make_ttir`, whose
`reorder_broadcast` and `loop_unroll` move ops a Tile IR translation does not move. The kernel
is lifted as for the interpreter (`reference_triton.lift_triton`): the user's file is never
imported.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from transpiler.ircheck.reference_triton import CHILD_LOAD_KERNEL, dtype_constexprs, lift_triton

#: numpy / project dtype name -> Triton's signature type of a pointer to it.
POINTER_TYPES: dict[str, str] = {
    "float32": "*fp32", "float16": "*fp16", "bfloat16": "*bf16", "float64": "*fp64",
    "int8": "*i8", "int16": "*i16", "int32": "*i32", "int64": "*i64", "uint8": "*u8",
    "bool_": "*i1", "float8_e4m3fn": "*fp8e4nv", "float8_e5m2": "*fp8e5",
}
TARGET = ("cuda", 90, 32)
DEFAULT_TIMEOUT_S = 300.0


class TtirError(RuntimeError):
    """Triton could not compile the kernel to TTIR; the message is Triton's."""


@dataclass(frozen=True)
class TtirRequest:
    """One specialization as Triton's JIT keys it: parameter -> signature type (`*fp16`,
    `i32`, `fp32`, `constexpr`), constexpr values, and the parameters with
    `tt.divisibility = 16` (16-byte-aligned pointers, ints divisible by 16)."""

    signature: tuple[tuple[str, str], ...]
    constexprs: tuple[tuple[str, object], ...]
    divisible: tuple[str, ...] = ()
    num_warps: int = 4


def request_for(params: tuple[str, ...], constexprs: dict[str, object],
                pointer_dtypes: dict[str, str], scalars: dict[str, int | float],
                aligned: bool = True, descriptors: dict[str, list[int]] | None = None
                ) -> TtirRequest:
    """The request Triton's JIT builds for concrete launch arguments: an int equal to 1
    becomes the constexpr 1, an int divisible by 16 and (when `aligned`) every pointer get
    `tt.divisibility = 16`, a float is `fp32`, an int is `i32` or `i64` by its range; a
    buffer in `descriptors` is a host-made tensor descriptor of that block shape."""
    descriptors = descriptors or {}
    signature: list[tuple[str, str]] = []
    consts = dict(constexprs)
    divisible: list[str] = []
    for name in params:
        if name in constexprs:
            signature.append((name, "constexpr"))
        elif name in descriptors:
            block = ",".join(str(b) for b in descriptors[name])
            signature.append((name, f"tensordesc<{POINTER_TYPES[pointer_dtypes[name]][1:]}"
                                    f"[{block}]>"))
        elif name in pointer_dtypes:
            signature.append((name, POINTER_TYPES[pointer_dtypes[name]]))
            if aligned:
                divisible.append(name)
        elif name in scalars:
            value = scalars[name]
            if isinstance(value, bool) or not isinstance(value, int):
                signature.append((name, "fp32" if isinstance(value, float) else "i1"))
            elif value == 1:
                signature.append((name, "constexpr"))
                consts[name] = 1
            else:
                signature.append((name, "i32" if -2**31 <= value < 2**31 else "i64"))
                if value % 16 == 0:
                    divisible.append(name)
        else:
            raise TtirError(f"no value or dtype for parameter `{name}`")
    return TtirRequest(tuple(signature), tuple(consts.items()), tuple(divisible))


def compile_ttir(source_path: Path, kernel: str, request: TtirRequest,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> str:
    """The TTIR text (without locations) of one specialization."""
    (result,) = compile_ttir_many(source_path, [(kernel, request)], timeout_s)
    if isinstance(result, TtirError):
        raise result
    return result


def compile_ttir_many(source_path: Path, jobs: list[tuple[str, TtirRequest]],
                      timeout_s: float = DEFAULT_TIMEOUT_S) -> list[str | TtirError]:
    """The TTIR text of each (kernel, specialization), all in one subprocess (importing
    Triton costs about a second); a specialization Triton rejects gives its `TtirError`."""
    if not jobs:
        return []
    source_text = source_path.read_text(encoding="utf-8")
    text = lift_triton(source_text, str(source_path))
    with tempfile.TemporaryDirectory(prefix="transpiler-ttir-") as tmp:
        lifted = Path(tmp) / f"lifted_{source_path.stem.replace('-', '_')}.py"
        lifted.write_text(text, encoding="utf-8")
        batch = [{"module": str(lifted), "kernel": kernel, "signature": dict(r.signature),
                  "constexprs": dict(r.constexprs), "divisible": list(r.divisible),
                  "dtype_constexprs": dtype_constexprs(source_text, kernel, dict(r.constexprs)),
                  "num_warps": r.num_warps, "target": list(TARGET),
                  "out": str(Path(tmp) / f"ttir{n}.txt"),
                  "error": str(Path(tmp) / f"error{n}.txt")}
                 for n, (kernel, r) in enumerate(jobs)]
        (Path(tmp) / "jobs.json").write_text(json.dumps(batch), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRITON_")}
        try:
            done = subprocess.run([sys.executable, "-I", "-c", _CHILD,
                                   str(Path(tmp) / "jobs.json")],
                                  capture_output=True, text=True, timeout=timeout_s,
                                  check=False, env=env)
        except subprocess.TimeoutExpired:
            raise TtirError(f"Triton ran past {timeout_s:.0f} s compiling "
                            f"{len(jobs)} specializations") from None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
            marked = [ln.split("ttir: ", 1)[1] for ln in lines if ln.startswith("ttir: ")]
            raise TtirError(marked[0] if marked else (lines[-1] if lines else "no message"))
        out: list[str | TtirError] = []
        for job in batch:
            error = Path(job["error"])
            out.append(TtirError(error.read_text(encoding="utf-8")) if error.exists()
                       else Path(job["out"]).read_text(encoding="utf-8"))
        return out


_CHILD = CHILD_LOAD_KERNEL + r'''
import json, sys
try:
    import triton
    from triton._C.libtriton import ir, passes
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource
except ImportError as err:
    sys.exit(f"ttir: Triton is not installed ({err}); see requirements.lock")

def ttir_of(job):
    fn = load_kernel(job, "ttir")
    names = list(fn.arg_names)
    try:
        consts = {k: getattr(triton.language, v) if k in job["dtype_constexprs"] else v
                  for k, v in job["constexprs"].items()}
        src = ASTSource(fn=fn, signature=job["signature"],
                        constexprs={(names.index(k),): v for k, v in consts.items()},
                        attrs={(names.index(k),): [["tt.divisibility", 16]]
                               for k in job["divisible"]})
        target = GPUTarget(*job["target"])
        backend = CUDABackend(target)
        options = backend.parse_options({"num_warps": job["num_warps"]})
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        mod = src.make_ir(target, options, backend.get_codegen_implementation(options),
                          backend.get_module_map(), context)
        pm = ir.pass_manager(mod.context)
        passes.common.add_inliner(pm)
        passes.ttir.add_combine(pm)
        passes.common.add_canonicalizer(pm)
        passes.common.add_cse(pm)
        passes.common.add_licm(pm)
        passes.common.add_symbol_dce(pm)
        pm.run(mod, "make_ttir")
    except Exception as err:
        message = " ".join(str(err).split())
        sys.exit(f"ttir: Triton cannot compile `{job['kernel']}`: {message}")
    return mod.str_nodebug()

for job in json.load(open(sys.argv[1])):
    try:
        text = ttir_of(job)
    except SystemExit as err:
        with open(job["error"], "w") as handle:
            handle.write(str(err).removeprefix("ttir: "))
        continue
    with open(job["out"], "w") as handle:
        handle.write(text)
'''


# ---- facts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryFact:
    """A load / store / atomic: `kind` is `load`, `store`, `atomic`, `descriptor_load` or
    `descriptor_store`; `other` the constant fill of masked-off lanes (`0.0`, `-inf`), None
    when absent, `?` when it is not a constant; `atomic` the op and ordering and scope."""

    kind: str
    element: str
    shape: tuple[int, ...]
    mask: bool
    other: str | None = None
    atomic: tuple[str, str, str] | None = None
    text: str = ""


@dataclass(frozen=True)
class DotFact:
    a: str
    b: str
    acc: str
    shape: tuple[int, ...]
    precision: str | None
    text: str = ""


@dataclass(frozen=True)
class ReduceFact:
    """A `tt.reduce` / `tt.scan` (`kind`), its axis, operand and result types, combiner ops
    (without their dialect: `addf`, `maxnumf`) and, for a scan, its direction."""

    kind: str
    axis: int
    operands: tuple[str, ...]
    results: tuple[str, ...]
    combiner: tuple[str, ...]
    reverse: bool = False
    text: str = ""


@dataclass
class TritonFacts:
    name: str
    #: entry parameters after specialization: (type, divisible by 16)
    params: list[tuple[str, bool]] = field(default_factory=list)
    memory: list[MemoryFact] = field(default_factory=list)
    dots: list[DotFact] = field(default_factory=list)
    reductions: list[ReduceFact] = field(default_factory=list)
    constants: list[str] = field(default_factory=list)


_FUNC = re.compile(r"tt\.func (?:public )?@(\w+)\((.*)\)")
_ARG = re.compile(r"%arg\d+: ([^,{]+?)(?:\s*\{([^}]*)\})?(?:,|$)")
_CONST = re.compile(r"^\s*(%[\w]+) = arith\.constant (?:dense<([^>]*)>|([^:]+?)) : (.+)$")
_OP = re.compile(r"^\s*(?:(%[\w#:]+) = )?(tt\.load|tt\.store|tt\.atomic_rmw|tt\.atomic_cas|"
                 r"tt\.descriptor_load|tt\.descriptor_store|tt\.dot) (.*)$")
_GENERIC = re.compile(r'^\s*(%[\w:#]+) = "(tt\.reduce|tt\.scan)"\((.*?)\) <\{(.*?)\}>')
_TENSOR = re.compile(r"tensor<((?:\d+x)*)(.+)>$")


def read_facts(ttir: str) -> TritonFacts:
    """The facts of the (single public) function of a TTIR module."""
    lines = ttir.splitlines()
    facts = TritonFacts("")
    constants: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        func = _FUNC.search(line)
        if func and not facts.name:
            facts.name = func.group(1)
            facts.params = [(t.strip(), "tt.divisibility = 16" in (attrs or ""))
                            for t, attrs in _ARG.findall(func.group(2))]
        const = _CONST.match(line)
        if const:
            value = (const.group(2) or const.group(3) or "").strip()
            constants[const.group(1)] = value
            if "tensor<" not in const.group(4):
                facts.constants.append(f"{value} : {const.group(4).strip()}")
        op = _OP.match(line)
        if op:
            _read_op(op.group(2), op.group(3), constants, facts, line.strip())
        generic = _GENERIC.match(line)
        if generic:
            end = i
            while not lines[end].lstrip().startswith("})"):
                end += 1
            facts.reductions.append(_read_reduce(generic, lines[i:end + 1]))
            i = end
        i += 1
    return facts


def _split_type(text: str) -> tuple[tuple[int, ...], str]:
    """`tensor<64x32x!tt.ptr<f16>>` -> ((64, 32), "f16"); `!tt.ptr<f32>` -> ((), "f32")."""
    text = text.strip()
    match = _TENSOR.match(text)
    shape: tuple[int, ...] = ()
    if match:
        shape = tuple(int(d) for d in match.group(1).split("x") if d)
        text = match.group(2)
    if text.startswith("!tt.ptr<"):
        text = text[len("!tt.ptr<"):-1]
    return shape, text


def _operands(text: str) -> list[str]:
    return re.findall(r"%[\w#]+", text)


def _read_op(name: str, rest: str, constants: dict[str, str], facts: TritonFacts,
             line: str) -> None:
    head, _, types = rest.rpartition(" : ")
    if name == "tt.dot":
        a_type, _, tail = types.partition(" * ")
        b_type, _, result = tail.partition(" -> ")
        precision = re.search(r"inputPrecision = (\w+)", head)
        shape, acc = _split_type(result)
        facts.dots.append(DotFact(_split_type(a_type)[1], _split_type(b_type)[1], acc, shape,
                                  precision.group(1) if precision else None, line))
        return
    if name in ("tt.load", "tt.store"):
        operands = _operands(head)
        shape, element = _split_type(types)
        count = len(operands)
        mask = count >= (2 if name == "tt.load" else 3)
        other = None
        if name == "tt.load" and count >= 3:
            other = _constant_text(constants.get(operands[2]))
        facts.memory.append(MemoryFact(name[3:], element, shape, mask, other, text=line))
        return
    if name in ("tt.descriptor_load", "tt.descriptor_store"):
        result = types.split(" -> ")[-1] if name == "tt.descriptor_load" else \
            types.split(",")[-1]
        shape, element = _split_type(result)
        facts.memory.append(MemoryFact(name[3:], element, shape, False, text=line))
        return
    words = [w.strip(",") for w in head.split()]
    mode = words[0] if name == "tt.atomic_rmw" else "cas"
    sem = words[1] if name == "tt.atomic_rmw" else words[0]
    scope = words[2] if name == "tt.atomic_rmw" else words[1]
    operand_types = types.split(" -> ")[0].strip("()").split(", ")
    shape, element = _split_type(operand_types[0])
    mask = name == "tt.atomic_rmw" and len(_operands(head)) >= 3
    facts.memory.append(MemoryFact("atomic", element, shape, mask, atomic=(mode, sem, scope),
                                   text=line))


def _constant_text(value: str | None) -> str:
    """A splat constant's value as a float text (`0.0`, `-inf`), `?` if not a constant."""
    if value is None:
        return "?"
    return {"true": "1.0", "false": "0.0"}.get(value, constant_value(value.split(":")[0]))


#: Bit patterns of the named float values (f32, f16, bf16).
NAMED_BITS: dict[int, str] = {0xFF800000: "-inf", 0x7F800000: "inf", 0x80000000: "-0.0",
                              0xFC00: "-inf", 0x7C00: "inf", 0xFF80: "-inf", 0x7F80: "inf",
                              0x8000: "-0.0", 0x7FC00000: "nan", 0xFFC00000: "nan",
                              0x7E00: "nan", 0x7FC0: "nan"}


def constant_value(text: str) -> str:
    """A TTIR or Tile IR float constant as a canonical text (`0.0`, `-inf`, `nan`)."""
    text = text.strip()
    if text.lower().startswith("0x"):
        return NAMED_BITS.get(int(text, 16), text.lower())
    try:
        return repr(float(text))
    except ValueError:
        return text


def _read_reduce(match: re.Match[str], lines: list[str]) -> ReduceFact:
    attrs = match.group(4)
    axis = int(re.search(r"axis = (-?\d+)", attrs).group(1))  # type: ignore[union-attr]
    reverse = "reverse = true" in attrs
    combiner = tuple(m.group(1) for ln in lines[1:]
                     for m in [re.search(r"= (?:arith|math)\.(\w+)", ln)] if m)
    signature = lines[-1].split(" : ", 1)[1]
    operands, _, results = signature.partition(" -> ")
    return ReduceFact(match.group(2)[3:], axis,
                      tuple(t.strip() for t in operands.strip("()").split(", ")),
                      tuple(t.strip() for t in results.strip("()").split(", ")),
                      combiner, reverse, lines[0].strip())
