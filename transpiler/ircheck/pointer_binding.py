"""Binding a Rust entry in the pointer calling convention to its cuTile Python kernel.

Takes a Rust entry written by hand or elsewhere (the harness' `list` of its parameters and
generics): raw pointers (`out_ptr: *mut E`) with shapes and strides as separate scalars, or
`&Tensor`s whose names differ from the Python ones; the parameters of the cuTile Python kernel
it translates, optionally the host glue (`ffi.rs`) that launches it and explicit bindings
(`--bind RS=PY`); gives an `EntryBinding`: for every Rust parameter, the Python array it points
into (its base) or is (a whole `&Tensor`), the array's shape or stride it carries
(`x.shape[1]`, `x.stride[0]`), or the Python scalar or constant it is; for every generic, the
Python array whose element type it is (through the pointers and tensors that have it as
element type), the constant it is, or a test of an array's element type
(`CAST_TF32=a.dtype==float32`).

Inference, in this order, first found wins:
1. `--bind RS=PY` (`PY` is `name`, `name.shape[k]`, `name.stride[k]` or `name.dtype==DTYPE`);
2. the same name on both sides, up to case and the spellings of `NAME_REWRITES`
   (`BM`, `BLOCK_M`, `TILE_SIZE_M` are `TILE_M`; `rt_m` is `M`), when exactly one Python
   parameter has it (scalars, constants, const generics, tensors);
3. the host glue: a pointer made from a tensor descriptor's `.ptr`, scalars from its
   `.dim(k)` / `.strides[k]`, matched to the call of the entry by position;
4. names (`NAME_RULES`): `x_ptr` points into `x`; `x_shape1` / `x_stride_0` /
   `x_row_stride` are parts of the array `x_ptr` points into; a pointer stem that is a unique
   prefix of one array name (`in_ptr` -> `input`) binds to it;
5. one const generic left and one Python constant left: each other.
A parameter that none of these bind is an error that names it. A pointer or tensor whose
element type is concrete (`*mut f32`, `&Tensor<i32, ...>`) must meet the dtype the
specialization gives its array (`generics_for_binding` refuses it otherwise).

`rebind_entry` then rewrites the generated entry so that its arguments are laid out as the
reference's (array: base, shape..., strides...; scalar: one; constants: none), which is how the
structural comparison pairs arguments; Rust scalars bound to a Python constant become extra
arguments with that constant as their value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from transpiler.ircheck.parse import BlockArg, Operation, TileIrEntry
from transpiler.ircheck.spec import (
    RUST_ELEMENT_TYPES,
    ArraySpec,
    ConstSpec,
    KernelSpec,
    ScalarSpec,
)

#: Rust scalar names that carry a part of the array a pointer of the same stem points into:
#: regex -> (part, dim or None for the dim group).
NAME_RULES: tuple[tuple[str, str, int | None], ...] = (
    (r"^(?P<stem>\w+?)_?shape_?(?P<dim>\d)$", "shape", None),
    (r"^(?P<stem>\w+?)_?stride_?(?P<dim>\d)$", "stride", None),
    (r"^(?P<stem>\w+?)_row_stride$", "stride", 0),
    (r"^(?P<stem>\w+?)_col_stride$", "stride", 1),
    (r"^stride_(?P<stem>\w+?)_?(?P<dim>\d)$", "stride", None),
)
#: Suffixes and prefixes of pointer parameter names around the array's own name.
POINTER_AFFIXES: tuple[str, ...] = ("_ptr", "_dp", "_p", "ptr_")
#: Spellings of one constant or scalar (applied in order to the upper-cased name): the
#: block/tile synonyms of tile-size constants and the `rt_` prefix of run-time copies.
NAME_REWRITES: tuple[tuple[str, str], ...] = (
    (r"^RT_", ""),
    (r"^BLOCK_", "TILE_"),
    (r"^BLOCK$", "TILE"),
    (r"^(?:B|T)([MNKD])$", r"TILE_\1"),
    (r"^TILE_SIZE_([MNKD])$", r"TILE_\1"),
)
#: Element-type tests a const generic may stand for, and the value each outcome gives.
DTYPE_TEST_VALUES: dict[str, tuple[str, str]] = {"i32": ("1", "0"), "bool": ("true", "false")}
_PY_PART = re.compile(r"^(?P<name>\w+)(?:\.(?P<part>shape|stride)\[(?P<dim>\d+)\])?$")
_DTYPE_TEST = re.compile(r"^(?P<name>\w+)\.dtype\s*==\s*(?P<dtype>\w+)$")


class BindingError(ValueError):
    """A Rust parameter or generic that nothing binds; the message names it."""


@dataclass(frozen=True)
class ParamBinding:
    """What one Rust parameter is on the Python side; `how` says which rule bound it."""

    rust: str
    python: str
    part: str  # base | tensor | shape | stride | scalar | const
    dim: int | None = None
    how: str = ""
    #: a `tensor`'s rank (it takes base, shapes and strides, as cuTile Python's array does)
    rank: int = 0

    def describe(self) -> str:
        target = self.python if self.part in ("base", "tensor", "scalar", "const") else \
            f"{self.python}.{self.part}[{self.dim}]"
        return f"{self.rust} = {target} ({self.how})"


@dataclass
class EntryBinding:
    entry: str
    kernel: str
    params: list[ParamBinding]
    #: generic -> ("dtype", python array) or ("const", python constant)
    generics: list[tuple[str, str, str]] = field(default_factory=list)
    #: element type (a generic or a concrete Rust type) -> every Python array a pointer or
    #: tensor with that element type binds to
    shared_dtypes: dict[str, list[str]] = field(default_factory=dict)
    #: const generic -> its Rust kind (`i32`, `bool`): how a bound value is written
    generic_kinds: dict[str, str] = field(default_factory=dict)

    def describe(self) -> list[str]:
        return [p.describe() for p in self.params] + [
            f"{g} = {kind} of {src}" for g, kind, src in self.generics]


def is_pointer_entry(entry: dict[str, Any]) -> bool:
    """An entry in the pointer calling convention: some parameter is a raw pointer."""
    return any(p.get("kind") == "pointer" for p in entry.get("params", []))


def normal_name(name: str) -> str:
    """The spelling two names of one constant or scalar share (`NAME_REWRITES`)."""
    out = name.upper()
    for pattern, replacement in NAME_REWRITES:
        out = re.sub(pattern, replacement, out)
    return out


def parse_binds(texts: list[str]) -> dict[str, str]:
    """`--bind RS=PY` options -> {RS: PY}."""
    out: dict[str, str] = {}
    for text in texts:
        rust, sep, python = text.partition("=")
        python = python.strip()
        if not sep or not rust.strip() or not (_PY_PART.match(python)
                                               or _DTYPE_TEST.match(python)):
            raise BindingError(f"--bind takes RS_PARAM=PY (`x`, `x.shape[k]`, `x.stride[k]`,"
                               f" `x.dtype==float32`), not `{text}`")
        out[rust.strip()] = python.strip()
    return out


def infer_binding(entry: dict[str, Any], kernel: str, python_params: dict[str, str],
                  ffi_text: str | None = None, binds: dict[str, str] | None = None
                  ) -> EntryBinding:
    """Bind one Rust entry (`list_kernels` form) to a Python kernel whose parameters are
    `python_params` (name -> `array`, `scalar`, `const`, `const_float`)."""
    binds = binds or {}
    arrays = [n for n, k in python_params.items() if k == "array"]
    ffi = _ffi_parts(ffi_text, entry["name"], [p["name"] for p in entry["params"]]) \
        if ffi_text else {}
    bound: dict[str, ParamBinding] = {}
    pointer_array: dict[str, str] = {}
    for p in entry["params"]:
        name = p["name"]
        found = _explicit(name, binds, python_params, p) or _same_name(name, python_params, p)
        if found is None and p["kind"] in ("pointer", "tensor"):
            found = _pointer_by_ffi_or_name(name, ffi, arrays)
        if found is not None:
            if p["kind"] == "tensor":
                if found.part not in ("base", "tensor"):
                    raise BindingError(f"the Rust tensor `{name}` is bound to "
                                       f"`{found.describe()}`: a tensor is a whole array")
                found = replace(found, part="tensor", rank=int(p.get("rank") or 1))
            bound[name] = found
            if found.part in ("base", "tensor"):
                pointer_array[name] = found.python
    stems = {_stem(rust): array for rust, array in pointer_array.items()}
    descs = {ffi[r][0]: array for r, array in pointer_array.items() if r in ffi}
    for p in entry["params"]:
        name = p["name"]
        if name in bound:
            continue
        found = _part_by_ffi(name, ffi, descs) or _part_by_name(name, stems)
        if found is not None:
            bound[name] = found
    missing = [p["name"] for p in entry["params"] if p["name"] not in bound]
    if missing:
        raise BindingError(
            f"cannot bind parameter{'s' if len(missing) > 1 else ''} "
            + ", ".join(f"`{m}`" for m in missing) + f" of the Rust entry `{entry['name']}` "
            f"to `{kernel}`: pass --bind RS=PY (PY: `x`, `x.shape[k]`, `x.stride[k]`) or the "
            "host glue (--ffi)")
    binding = EntryBinding(entry["name"], kernel, [bound[p["name"]] for p in entry["params"]])
    binding.generics = _generics(entry, binding, python_params, binds)
    binding.generic_kinds = {g["name"]: g["kind"] for g in entry["generics"]
                             if g["kind"] != "type"}
    for rust, array in pointer_array.items():
        element = element_type(next(p["ty"] for p in entry["params"] if p["name"] == rust))
        binding.shared_dtypes.setdefault(element, [])
        if array not in binding.shared_dtypes[element]:
            binding.shared_dtypes[element].append(array)
    return binding


def element_type(rust_type: str) -> str:
    """The element type of a pointer (`*mut E`) or tensor (`&Tensor<E, {...}>`) type."""
    text = rust_type.replace(" ", "")
    if "Tensor<" in text:
        return text.split("Tensor<", 1)[1].split(",", 1)[0].rstrip(">")
    return text.removeprefix("*mut").removeprefix("*const")


def _explicit(name: str, binds: dict[str, str], python_params: dict[str, str],
              param: dict[str, Any]) -> ParamBinding | None:
    if name not in binds:
        return None
    match = _PY_PART.match(binds[name])
    if match is None:
        raise BindingError(f"--bind {name}={binds[name]}: a dtype test binds a const "
                           "generic, not a parameter")
    target = match.group("name")
    if target not in python_params:
        raise BindingError(f"--bind {name}={binds[name]}: the kernel has no parameter "
                           f"`{target}`")
    if match.group("part"):
        return ParamBinding(name, target, match.group("part"), int(match.group("dim")),
                            "--bind")
    kind = python_params[target]
    part = {"array": "base", "scalar": "scalar"}.get(kind, "const")
    return ParamBinding(name, target, part, None, "--bind")


def _named(name: str, candidates: list[str]) -> str | None:
    """The one candidate spelled as `name` (exactly, else up to case and `NAME_REWRITES`)."""
    if name in candidates:
        return name
    same = [c for c in candidates if normal_name(c) == normal_name(name)]
    return same[0] if len(same) == 1 else None


def _same_name(name: str, python_params: dict[str, str],
               param: dict[str, Any]) -> ParamBinding | None:
    if param["kind"] in ("pointer", "tensor"):
        array = _named(name, [n for n, k in python_params.items() if k == "array"])
        return ParamBinding(name, array, "base", None, "name") if array else None
    found = _named(name, [n for n, k in python_params.items() if k != "array"])
    if found is None:
        return None
    kind = python_params[found]
    return ParamBinding(name, found, "scalar" if kind == "scalar" else "const", None, "name")


def _stem(name: str) -> str:
    for affix in POINTER_AFFIXES:
        if affix.startswith("_") and name.endswith(affix):
            return name[: -len(affix)]
        if affix.endswith("_") and name.startswith(affix):
            return name[len(affix):]
    return name


def _array_for_stem(stem: str, arrays: list[str]) -> str | None:
    exact = _named(stem, arrays)
    if exact is not None:
        return exact
    lower = stem.lower()
    prefixed = [a for a in arrays if a.lower().startswith(lower) or lower.startswith(a.lower())]
    return prefixed[0] if len(prefixed) == 1 else None


def _pointer_by_ffi_or_name(name: str, ffi: dict[str, tuple[str, str, int | None]],
                            arrays: list[str]) -> ParamBinding | None:
    if name in ffi:
        desc_source = ffi[name][0]
        array = _array_for_stem(desc_source, arrays)
        if array is not None:
            return ParamBinding(name, array, "base", None, "host glue")
    array = _array_for_stem(_stem(name), arrays)
    return ParamBinding(name, array, "base", None, "name") if array else None


def _part_by_ffi(name: str, ffi: dict[str, tuple[str, str, int | None]],
                 descs: dict[str, str]) -> ParamBinding | None:
    if name not in ffi:
        return None
    desc, part, dim = ffi[name]
    if part in ("shape", "stride") and desc in descs:
        return ParamBinding(name, descs[desc], part, dim, "host glue")
    return None


def _part_by_name(name: str, stems: dict[str, str]) -> ParamBinding | None:
    for pattern, part, dim in NAME_RULES:
        match = re.match(pattern, name)
        if match and match.group("stem") in stems:
            found_dim = dim if dim is not None else int(match.group("dim"))
            return ParamBinding(name, stems[match.group("stem")], part, found_dim, "name")
    return None


def _generics(entry: dict[str, Any], binding: EntryBinding, python_params: dict[str, str],
              binds: dict[str, str]) -> list[tuple[str, str, str]]:
    element_types = {p["name"]: element_type(p["ty"]) for p in entry["params"]
                     if p["kind"] in ("pointer", "tensor")}
    bases = {b.rust: b.python for b in binding.params if b.part in ("base", "tensor")}
    consts = [n for n, k in python_params.items() if k.startswith("const")]
    used_consts = {b.python for b in binding.params if b.part == "const"}
    out: list[tuple[str, str, str]] = []
    left: list[str] = []
    for g in entry["generics"]:
        name = g["name"]
        if g["kind"] == "type":
            source = next((bases[r] for r, element in element_types.items()
                           if element == name and r in bases), None)
            if source is None:
                raise BindingError(f"cannot bind generic `{name}` of the Rust entry: no "
                                   "pointer or tensor parameter has it as element type")
            out.append((name, "dtype", source))
            continue
        found = _generic_bind(name, binds.get(name), python_params) if name in binds \
            else None
        if found is None and name not in binds:
            const = _named(name, [c for c in consts if c not in used_consts])
            found = (name, "const", const) if const else None
        if found is None:
            left.append(name)
            continue
        out.append(found)
        if found[1] == "const":
            used_consts.add(found[2])
    free = [c for c in consts if c not in used_consts]
    if len(left) == 1 and len(free) == 1 and left[0] not in binds:
        out.append((left[0], "const", free[0]))
    elif left:
        raise BindingError(f"cannot bind generic{'s' if len(left) > 1 else ''} "
                           + ", ".join(f"`{n}`" for n in left) + " of the Rust entry to a "
                           f"`ct.Constant` of the source: pass --bind {left[0]}=CONST "
                           f"(or --bind {left[0]}=ARRAY.dtype==DTYPE)")
    order = [g["name"] for g in entry["generics"]]
    return sorted(out, key=lambda g: order.index(g[0]))


def _generic_bind(name: str, text: str | None, python_params: dict[str, str]
                  ) -> tuple[str, str, str] | None:
    """A `--bind` of a const generic: a constant, or a dtype test of an array."""
    if text is None:
        return None
    test = _DTYPE_TEST.match(text)
    if test is not None:
        if python_params.get(test.group("name")) != "array":
            raise BindingError(f"--bind {name}={text}: the kernel has no array "
                               f"`{test.group('name')}`")
        return (name, "dtype_is", f"{test.group('name')}=={test.group('dtype')}")
    if python_params.get(text, "").startswith("const"):
        return (name, "const", text)
    raise BindingError(f"--bind {name}={text}: `{text}` is not a `ct.Constant` of the kernel")


# ---- host glue -------------------------------------------------------------------------------


_DESCS = re.compile(r"let\s*\(([^)]*)\)\s*=\s*[\w:]*deref_descs!\(([^)]*)\)")
_POINTER = re.compile(r"let\s+(\w+)\s*:?[^=;]*=\s*[^;]*?from_cu_deviceptr\((\w+)\.ptr\)")
_TENSOR = re.compile(r"let\s+(\w+)\s*:?[^=;]*=\s*[^;]*?borrow_tensor(?:::<[^>]*>)?\((\w+)\)")
_LET = re.compile(r"let\s+(\w+)\s*(?::[^=]+)?=\s*([^;]+);")
_DIM = re.compile(r"^(\w+)\.dim\((\d+)\)")
_STRIDE = re.compile(r"^(\w+)\.strides\[(\d+)\]")


def _ffi_parts(text: str, entry: str, params: list[str]
               ) -> dict[str, tuple[str, str, int | None]]:
    """Rust parameter -> (tensor-descriptor source, `base` / `shape` / `stride`, dim), read
    from the call of `entry` in the host glue; the descriptor source is the FFI parameter
    the descriptor was read from (`out` for `out_d`)."""
    call = re.search(rf"\b{re.escape(entry)}\s*\(", text)
    if call is None:
        return {}
    args = _call_args(text, call.end())
    if len(args) != len(params):
        return {}
    sources: dict[str, str] = {}
    for locals_, froms in _DESCS.findall(text):
        for local, source in zip(locals_.split(","), froms.split(","), strict=False):
            sources[local.strip()] = source.strip()
    pointers = {local: desc for local, desc in (*_POINTER.findall(text),
                                                  *_TENSOR.findall(text))}
    lets = {name: value.strip() for name, value in _LET.findall(text)}
    out: dict[str, tuple[str, str, int | None]] = {}
    for param, arg in zip(params, args, strict=True):
        expr = lets.get(arg, arg) if re.fullmatch(r"\w+", arg) else arg
        if arg in pointers:
            desc = pointers[arg]
            out[param] = (sources.get(desc, desc), "base", None)
            continue
        for pattern, part in ((_DIM, "shape"), (_STRIDE, "stride")):
            match = pattern.match(expr)
            if match:
                desc = match.group(1)
                out[param] = (sources.get(desc, desc), part, int(match.group(2)))
    return out


def _call_args(text: str, start: int) -> list[str]:
    depth, current, args = 0, "", []
    for ch in text[start:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        args.append(current.strip())
    return [re.sub(r"^&\**", "", re.sub(r"\s+as\s+\w+$", "", a)) for a in args]


# ---- generics and the argument layout ---------------------------------------------------------


def generics_for_binding(binding: EntryBinding, spec: KernelSpec) -> list[str]:
    """The Rust generic arguments that realize `spec`; a `ValueError` when the entry cannot
    take it (arrays that share an element-type generic with different dtypes, or an array
    whose dtype is not the concrete element type of its pointer or tensor)."""
    generic_names = {g for g, kind, _ in binding.generics if kind == "dtype"}
    for element, arrays in binding.shared_dtypes.items():
        dtypes = {a: spec.param(a).dtype for a in arrays
                  if isinstance(spec.param(a), ArraySpec)}  # type: ignore[union-attr]
        if len(set(dtypes.values())) > 1:
            raise ValueError(f"the entry's `{element}` is the element type of "
                             + ", ".join(f"`{a}` ({d})" for a, d in dtypes.items())
                             + ": this entry does not take that specialization")
        if element not in generic_names:
            wrong = {a: d for a, d in dtypes.items() if RUST_ELEMENT_TYPES.get(d) != element}
            if wrong:
                raise ValueError("the entry reads " + ", ".join(
                    f"`{a}` ({d})" for a, d in wrong.items()) + f" as `{element}`: this "
                    "entry does not take that specialization")
    out: list[str] = []
    for name, kind, source in binding.generics:
        generic_kind = binding.generic_kinds.get(name, "i32")
        if kind == "dtype_is":
            array, dtype = source.split("==", 1)
            param = spec.param(array)
            if not isinstance(param, ArraySpec):
                raise ValueError(f"`{array}` is not an array in this specialization")
            yes, no = DTYPE_TEST_VALUES.get(generic_kind, DTYPE_TEST_VALUES["i32"])
            out.append(yes if param.dtype == dtype else no)
            continue
        param = spec.param(source)
        if kind == "dtype":
            if not isinstance(param, ArraySpec):
                raise ValueError(f"`{source}` is not an array in this specialization")
            out.append(RUST_ELEMENT_TYPES[param.dtype])
        elif isinstance(param, ConstSpec):
            value = param.value
            out.append(("true" if value else "false") if generic_kind == "bool"
                       else str(int(value)))
        else:
            raise ValueError(f"`{source}` is not a constant in this specialization")
    return out


def argument_slots(binding: EntryBinding) -> list[ParamBinding]:
    """One binding per entry argument of the Rust side: a `&Tensor` of rank r takes base,
    r shapes and r strides (as cuTile Rust lowers it), every other parameter one."""
    out: list[ParamBinding] = []
    for bound in binding.params:
        if bound.part != "tensor":
            out.append(bound)
            continue
        out.append(replace(bound, part="base"))
        out += [replace(bound, part="shape", dim=d) for d in range(bound.rank)]
        out += [replace(bound, part="stride", dim=d) for d in range(bound.rank)]
    return out


def reference_layout(spec: KernelSpec) -> dict[tuple[str, str, int | None], int]:
    """(python param, part, dim) -> entry-argument position in cuTile Python's Tile IR:
    an array takes base, shape..., strides...; a runtime scalar one; constants none."""
    layout: dict[tuple[str, str, int | None], int] = {}
    position = 0
    for name, param in spec.params:
        if isinstance(param, ArraySpec):
            layout[(name, "base", None)] = position
            for d in range(param.ndim):
                layout[(name, "shape", d)] = position + 1 + d
                layout[(name, "stride", d)] = position + 1 + param.ndim + d
            position += 1 + 2 * param.ndim
        elif isinstance(param, ScalarSpec):
            layout[(name, "scalar", None)] = position
            position += 1
    return layout


def rebind_entry(generated: TileIrEntry, reference: TileIrEntry, binding: EntryBinding,
                 spec: KernelSpec) -> tuple[TileIrEntry, dict[int, str]]:
    """The generated entry with the reference's argument layout, and the bound literals of
    the extra arguments (Rust scalars that stand for Python constants)."""
    layout = reference_layout(spec)
    if len(layout) and max(layout.values()) + 1 != len(reference.args):
        raise ValueError(f"cuTile Python's entry has {len(reference.args)} arguments, the "
                         f"specialization lays out {max(layout.values()) + 1}")
    slots = argument_slots(binding)
    if len(generated.args) != len(slots):
        raise ValueError(f"the Rust entry has {len(generated.args)} arguments for "
                         f"{len(slots)} parameter parts")
    args = [BlockArg(f"%bound{i}", a.type) for i, a in enumerate(reference.args)]
    renames: dict[str, str] = {}
    literals: dict[int, str] = {}
    for arg, bound in zip(generated.args, slots, strict=True):
        if bound.part == "const":
            value = spec.param(bound.python)
            if not isinstance(value, ConstSpec):
                raise ValueError(f"`{bound.python}` is not a constant in this specialization")
            extra = BlockArg(f"%bound{len(args)}", arg.type)
            literals[len(args)] = _literal(value.value, arg.type.element if arg.type else None)
            args.append(extra)
            renames[arg.name] = extra.name
            continue
        key = (bound.python, bound.part, bound.dim)
        if key not in layout:
            raise ValueError(f"`{bound.describe()}` has no argument in cuTile Python's entry "
                             "for this specialization")
        position = layout[key]
        if args[position].name in renames.values():
            raise ValueError(f"two Rust parameters bind to the same argument: "
                             f"{bound.describe()}")
        args[position] = BlockArg(args[position].name, arg.type)
        renames[arg.name] = args[position].name
    ops = [_renamed(op, renames) for op in generated.ops]
    return replace(generated, args=args, ops=ops), literals


def _literal(value: object, element: str | None) -> str:
    element = element or "i32"
    if element.startswith("f"):
        return f"<{element}: {float(value)!r}>"  # type: ignore[arg-type]
    return f"<{element}: {int(value)}>"  # type: ignore[call-overload]


def _renamed(op: Operation, renames: dict[str, str]) -> Operation:
    regions = [replace(r, ops=[_renamed(o, renames) for o in r.ops]) for r in op.regions]
    return replace(op, operands=[renames.get(o, o) for o in op.operands], regions=regions)
