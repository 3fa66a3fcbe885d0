
# ---- generated Triton launch glue (transpiler --emit pywrapper) ----
import ctypes as _tl_ctypes
import importlib as _tl_importlib
import operator as _tl_operator
import os as _tl_os

_TL_ABI_VERSION = 2
#: How an autotuned kernel picks its config: "benchmark" (time every config once per key
#: value, as Triton's autotuner does, and keep the fastest), "first", or a config's index.
AUTOTUNE = _tl_os.environ.get("TRANSPILER_TRITON_AUTOTUNE", "benchmark")
#: Repetitions per config when benchmarking (after one warm-up launch that compiles).
AUTOTUNE_REPS = int(_tl_os.environ.get("TRANSPILER_TRITON_AUTOTUNE_REPS", "10"))
#: `DT_*` codes of the launcher library, by torch dtype name.
_TL_DTYPE_CODES = {"bool": 0, "uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5,
                   "float16": 6, "bfloat16": 7, "float32": 8, "float64": 9, "uint16": 10,
                   "uint32": 11, "uint64": 12}
#: torch dtype name of each element type an entry names.
_TL_ELEMENT_DTYPES = {"bool": "bool", "u8": "uint8", "i8": "int8", "i16": "int16",
                      "i32": "int32", "i64": "int64", "f16": "float16", "bf16": "bfloat16",
                      "f32": "float32", "f64": "float64", "u16": "uint16", "u32": "uint32",
                      "u64": "uint64"}
_TL_CTYPES = {"i32": _tl_ctypes.c_int32, "i64": _tl_ctypes.c_int64, "f32": _tl_ctypes.c_float,
              "f64": _tl_ctypes.c_double, "bool": _tl_ctypes.c_bool,
              "u32": _tl_ctypes.c_uint32, "u64": _tl_ctypes.c_uint64,
              "i16": _tl_ctypes.c_int16, "i8": _tl_ctypes.c_int8, "u8": _tl_ctypes.c_uint8,
              "u16": _tl_ctypes.c_uint16}
#: Range of each integer C type an int argument must fit.
_TL_INT_RANGES = {"i8": (-2**7, 2**7), "i16": (-2**15, 2**15), "i32": (-2**31, 2**31),
                  "i64": (-2**63, 2**63), "u8": (0, 2**8), "u16": (0, 2**16),
                  "u32": (0, 2**32), "u64": (0, 2**64)}
#: Launch keywords of Triton that tune its own compiler (accepted; cuTile Rust compiles the
#: entry with its own choices) or that are no kernel argument.
_TL_LAUNCH_OPTIONS = frozenset({"num_warps", "num_stages", "num_ctas", "maxnreg",
                                "enable_fp_fusion", "launch_cooperative_grid",
                                "launch_pdl", "debug", "sanitize_overflow", "warmup"})
#: Python's operators on the constexpr expressions of a manifest (`["+", a, b]`).
_TL_OPS = {"+": _tl_operator.add, "-": _tl_operator.sub, "*": _tl_operator.mul,
           "/": _tl_operator.truediv, "//": _tl_operator.floordiv, "%": _tl_operator.mod,
           "**": _tl_operator.pow, "&": _tl_operator.and_, "|": _tl_operator.or_,
           "^": _tl_operator.xor, "<<": _tl_operator.lshift, ">>": _tl_operator.rshift,
           "<": _tl_operator.lt, "<=": _tl_operator.le, ">": _tl_operator.gt,
           ">=": _tl_operator.ge, "==": _tl_operator.eq, "!=": _tl_operator.ne}
_tl_state = {"lib": None, "funcs": {}}
#: Names of the dtype objects seen (`torch.float16` -> `float16`): read once per dtype.
_tl_dtype_names = {}


class TranslationUnsupported(ValueError):
    """A launch the Rust translation has no entry for (the message names the argument)."""


def load_library(path=None):
    """Loads the launcher library (default: $TRANSPILER_LAUNCHER_LIB, else LIBRARY beside
    this file) and returns it."""
    path = (path or _tl_os.environ.get("TRANSPILER_LAUNCHER_LIB")
            or _tl_os.path.join(_tl_os.path.dirname(_tl_os.path.abspath(__file__)), LIBRARY))
    lib = _tl_ctypes.CDLL(str(path))
    lib.tl_last_error.restype = _tl_ctypes.c_char_p
    if lib.tl_abi_version() != _TL_ABI_VERSION:
        raise RuntimeError(f"{path}: launcher ABI {lib.tl_abi_version()}, "
                           f"this wrapper needs {_TL_ABI_VERSION}")
    _tl_state["lib"] = lib
    _tl_state["funcs"] = {}
    return lib


# -- binding a launch: pure functions of the call's values (no GPU, no torch)

def _tl_bind(plan, args, kwargs):
    """The kernel's parameters bound to a launch's values, as Triton binds them (positional,
    then by name, then the defaults); Triton's own launch keywords are set aside."""
    params = plan["params"]
    if len(args) > len(params):
        raise TypeError(f"{plan['name']}: takes {len(params)} arguments, got {len(args)}")
    bound = dict(zip(params, args, strict=False))
    for name, value in kwargs.items():
        if name in params:
            if name in bound:
                raise TypeError(f"{plan['name']}: argument `{name}` given twice")
            bound[name] = value
        elif name not in _TL_LAUNCH_OPTIONS:
            raise TypeError(f"{plan['name']}: unexpected keyword argument `{name}`")
    for name, value in plan["defaults"].items():
        bound.setdefault(name, value)
    missing = [p for p in params if p not in bound]
    if missing:
        raise TypeError(f"{plan['name']}: missing argument(s) {', '.join(missing)}")
    return {p: bound[p] for p in params}


def _tl_grid(grid, bound):
    """The launch grid as 3 ints: `grid` itself, or `grid(META)` with META the bound
    arguments (Triton's rule); missing dimensions are 1."""
    value = grid(dict(bound)) if callable(grid) else grid
    items = tuple(value) if isinstance(value, tuple | list) else (value,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"the grid has {len(items)} dimensions; a launch takes 1 to 3")
    return tuple(int(g) for g in items) + (1,) * (3 - len(items))


def _tl_dtype_name(value):
    """`float16` for a tensor of torch.float16 (read from the dtype's text, so objects that
    only look like tensors work too); None for a value without a dtype."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    try:
        return _tl_dtype_names[dtype]
    except (KeyError, TypeError):
        name = str(dtype).rsplit(".", 1)[-1]
    try:
        _tl_dtype_names[dtype] = name
    except TypeError:
        pass  # an unhashable dtype-like object: named at every call
    return name


def _tl_is_tensor(value):
    return hasattr(value, "data_ptr") and _tl_dtype_name(value) is not None


def _tl_eval(tree, values):
    """A manifest expression over constexprs (`["param", NAME]`, `[OP, A, B]`, literals)."""
    if isinstance(tree, list) and tree and tree[0] == "param":
        return values[tree[1]]
    if isinstance(tree, list) and len(tree) == 3 and tree[0] in _TL_OPS:
        return _TL_OPS[tree[0]](_tl_eval(tree[1], values), _tl_eval(tree[2], values))
    if isinstance(tree, list) and len(tree) == 2 and tree[0] == "not":
        return not _tl_eval(tree[1], values)
    if isinstance(tree, list) and len(tree) == 2 and tree[0] == "neg":
        return -_tl_eval(tree[1], values)
    if isinstance(tree, list | dict):
        raise TranslationUnsupported(f"cannot compute the launch condition {tree!r}")
    return tree


#: Triton dtype names (`tl.float16.name`) -> the names manifests give element types.
_TL_LANGUAGE_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
                       "fp64": "float64"}


def _tl_language_dtype(value):
    """The manifest name of a `triton.language` dtype (`tl.float16` -> `float16`), else
    None."""
    name = getattr(value, "name", None)
    if type(value).__name__ != "dtype" or not isinstance(name, str):
        return None
    return _TL_LANGUAGE_DTYPES.get(name, name)


def _tl_same_value(given, wanted):
    if isinstance(wanted, str) and _tl_language_dtype(given) is not None:
        # An element-type constexpr (`X_dtype=tl.float16`): its entry holds the name.
        return _tl_language_dtype(given) == wanted
    return type(given) is type(wanted) and given == wanted


def _tl_jit_value(value):
    """What Triton's JIT keys read of an argument: a tensor's address in bytes, an int's
    value; None for anything else (a bool, a float: no key applies)."""
    if _tl_is_tensor(value):
        return int(value.data_ptr())
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _tl_fact_holds(tree, bound):
    """Whether a JIT fact (`["==", ["%", ["arg", NAME], 16], 0]`, `["==", ["arg", NAME], 1]`)
    holds for the call's arguments, as Triton's launcher decides its specialization."""
    if isinstance(tree, list) and len(tree) == 2 and tree[0] == "arg":
        return _tl_jit_value(bound[tree[1]])
    if isinstance(tree, list) and len(tree) == 3 and tree[0] in ("==", "%"):
        left, right = _tl_fact_holds(tree[1], bound), _tl_fact_holds(tree[2], bound)
        if left is None or right is None:
            return None
        return _TL_OPS[tree[0]](left, right)
    if isinstance(tree, int) and not isinstance(tree, bool):
        return tree
    raise TranslationUnsupported(f"cannot compute the JIT fact {tree!r}")


def _tl_entry_misfit(entry, bound, element_types):
    """Why `entry` cannot run this call ("" when it can)."""
    for tree, text in entry.get("facts", ()):
        if _tl_fact_holds(tree, bound) is not True:
            return text
    for name, element in entry["variant"]:
        if _tl_dtype_name(bound[name]) != _TL_ELEMENT_DTYPES.get(element):
            return f"{name} -> {element}"
    for name, value in (*entry["consts"], *entry["folded"]):
        if not _tl_same_value(bound[name], value):
            return f"{name} = {value!r}"
    for tree, outcome, text in entry["conds"]:
        if bool(_tl_eval(tree, bound)) != outcome:
            return text if outcome else f"not ({text})"
    for generic, kind, params, _ in entry["generics"]:
        dtypes = {_tl_dtype_name(bound[p]) for p in params} if kind == "type" else set()
        if len(dtypes) > 1:
            return f"one dtype for {', '.join(params)} (generic {generic})"
        # The launcher's arms: the defaults, and what the file's own launches pass.
        elements = [*element_types, *(e for e in entry.get("launched", {}).get(generic, ())
                                      if e not in element_types)]
        if dtypes and not dtypes <= {_TL_ELEMENT_DTYPES[e] for e in elements}:
            return f"{params[0]} -> one of {', '.join(elements)}"
    generics = {g for g, kind, _, _ in entry["generics"] if kind == "type"}
    for name, kind, element in entry["args"]:
        if kind == "ptr" and element not in generics and (
                _tl_dtype_name(bound[name]) != _TL_ELEMENT_DTYPES.get(element)):
            return f"{name} -> {element}"
    return ""


def _tl_check_values(plan, bound):
    """Refuses what no entry of a kernel takes: a pointer that is no tensor, a constexpr
    value that is neither int nor bool where the entries take it as a generic."""
    for name in plan["pointers"]:
        if not _tl_is_tensor(bound[name]):
            raise TranslationUnsupported(
                f"{plan['name']}: `{name}` = {bound[name]!r}: the Rust translation takes a "
                "tensor here (a pointer), and has no entry for this value")
    for name in plan["generic_constexprs"]:
        value = bound[name]
        if not isinstance(value, int):
            raise TranslationUnsupported(
                f"{plan['name']}: constexpr `{name}` = {value!r}: the Rust translation takes "
                "it as an int or bool generic, and has no entry for this value")


def _tl_select(plan, bound):
    """The Rust entry that translates the kernel for this call (its pointer dtypes, constexpr
    values and conditions, and the JIT facts of its arguments: the entries are in selection
    order, the most specific fact entry first, the general one last), or
    TranslationUnsupported naming what the call passed."""
    if not plan["entries"]:
        raise TranslationUnsupported(f"{plan['name']}: {plan['why_none']}")
    _tl_check_values(plan, bound)
    misfits = []
    for entry in plan["entries"]:
        why = _tl_entry_misfit(entry, bound, plan["element_types"])
        if not why:
            return entry
        misfits.append(f"`{entry['rust_fn']}` needs {why}")
    passed = ", ".join(f"{n} = {_tl_dtype_name(bound[n]) or repr(bound[n])}"
                       for n in plan["params"] if n in plan["selectors"])
    raise TranslationUnsupported(f"{plan['name']}: no Rust entry for {passed} ("
                                 + "; ".join(misfits) + ")")


def _tl_int(name, value, ctype):
    if isinstance(value, bool) or not isinstance(value, int):
        if ctype in ("f32", "f64"):
            return float(value)
        if ctype == "bool":
            return bool(value)
        raise TranslationUnsupported(f"`{name}` = {value!r}: the Rust entry takes a {ctype}")
    low, high = _TL_INT_RANGES.get(ctype, (None, None))
    if low is not None and not low <= value < high:
        raise TranslationUnsupported(f"`{name}` = {value}: out of the range of the Rust "
                                     f"entry's {ctype} (Triton would pass a wider int)")
    return float(value) if ctype in ("f32", "f64") else value


def _tl_call_values(entry, bound):
    """The launcher's arguments after stream and device, before the grid: per pointer its
    address and dtype code, the scalars in their C types, the int and bool generics."""
    out = []
    for name, kind, _ in entry["args"]:
        value = bound[name]
        if kind == "ptr":
            out += [int(value.data_ptr()), _TL_DTYPE_CODES[_tl_dtype_name(value)]]
        else:
            out.append(_tl_int(name, value, kind))
    for name, kind, params, tree in entry["generics"]:
        if kind == "type":
            continue
        value = _tl_eval(tree, bound) if tree is not None else bound[params[0]]
        if kind == "bool":
            out.append(bool(value))
        else:
            out.append(_tl_int(name, int(value), "i32"))
    return out


def _tl_specialization_keys(plan, bound):
    """Triton's key of each int argument (`"1"`, `"D"` divisible by 16, `""`): what its
    compiler would know (for reports; the entry is chosen by the JIT facts of each entry,
    `_tl_fact_holds`, which read the same values)."""
    keys = {}
    for name in plan["params"]:
        value = bound[name]
        if name in plan["constexprs"] or isinstance(value, bool) or not isinstance(value, int):
            continue
        keys[name] = "1" if value == 1 else "D" if value % 16 == 0 else ""
    return keys


# -- launching

def _tl_function(entry):
    fn = _tl_state["funcs"].get(entry["symbol"])
    if fn is None:
        lib = _tl_state["lib"] or load_library()
        fn = getattr(lib, entry["symbol"])
        types = [_tl_ctypes.c_void_p, _tl_ctypes.c_int32]
        for _, kind, _ in entry["args"]:
            types += ([_tl_ctypes.c_uint64, _tl_ctypes.c_int32] if kind == "ptr"
                      else [_TL_CTYPES[kind]])
        for _, kind, _, _ in entry["generics"]:
            if kind != "type":
                types.append(_tl_ctypes.c_bool if kind == "bool" else _tl_ctypes.c_int32)
        fn.argtypes = types + [_tl_ctypes.c_int64] * 3
        fn.restype = _tl_ctypes.c_int32
        _tl_state["funcs"][entry["symbol"]] = fn
    return fn


def _tl_stream_and_device(plan, bound):
    """The caller's current CUDA stream on the device of the first tensor argument (Triton
    launches there too)."""
    import torch as _torch

    device = next((bound[n].device for n in plan["pointers"] if _tl_is_tensor(bound[n])), None)
    index = getattr(device, "index", None)
    if index is None:
        index = _torch.cuda.current_device()
    return _torch.cuda.current_stream(index).cuda_stream, index


def _tl_check(code, symbol):
    if code != 0:
        message = (_tl_state["lib"].tl_last_error() or b"").decode("utf-8", "replace")
        raise RuntimeError(f"{symbol} failed (code {code}): {message}")


def _tl_value_class(value, exact):
    """What entry selection reads of one argument (`exact`: its value itself, for a
    constexpr), or None when it cannot be told by a key (the call is then selected without
    the cache): a tensor's dtype and 16-byte alignment, an int's JIT keys (== 1, % 16)."""
    if hasattr(value, "data_ptr") and _tl_dtype_name(value) is not None:
        return (_tl_dtype_name(value), int(value.data_ptr()) % 16 == 0)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if exact else (value == 1, value % 16 == 0)
    if isinstance(value, float):
        return value if exact else float
    if _tl_language_dtype(value) is not None:
        return ("dtype", _tl_language_dtype(value))
    if isinstance(value, str):
        return value
    return None


def _tl_selection_key(plan, bound):
    """The class of every argument that decides `_tl_select`'s answer: the pointers'
    dtypes and alignment, the values of the constexprs and of the arguments an entry is
    folded for, the other ints' JIT keys (the only facts entries have: `== 1`, `% 16 == 0`;
    conditions and generic values read constexprs only; an int's range is checked at every
    call)."""
    exact = plan.get("_exact")
    if exact is None:
        # A runtime float or int an entry is folded for (`folded`) is compared as a value.
        exact = plan["_exact"] = frozenset((*plan["constexprs"], *plan["selectors"]))
    key = []
    for name in plan["params"]:
        cls = _tl_value_class(bound[name], name in exact)
        if cls is None and bound[name] is not None:
            return None
        key.append(cls)
    return tuple(key)


def _tl_selected(plan, bound):
    """`_tl_select`, remembered per selection key (Triton's launcher keys its compiled
    kernels the same way): a repeated call costs one key, not a walk over every entry."""
    key = _tl_selection_key(plan, bound)
    if key is None:
        return _tl_select(plan, bound)
    cache = plan.setdefault("_selected", {})
    entry = cache.get(key)
    if entry is None:
        entry = cache[key] = _tl_select(plan, bound)
    return entry


def _tl_launch(plan, bound, grid):
    entry = _tl_selected(plan, bound)
    values = _tl_call_values(entry, bound)
    grid3 = _tl_grid(grid, bound)
    stream, device = _tl_stream_and_device(plan, bound)
    _tl_check(_tl_function(entry)(stream, device, *values, *grid3), entry["symbol"])


# -- Triton's kernel objects, standing in for the translated kernels

class _TlLaunchable:
    """`kernel[grid](*args, **kwargs)`, as Triton's kernels are called."""

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            return self.run(*args, grid=grid, **kwargs)
        return launch

    @property
    def arg_names(self):
        return list(self.plan["params"])


class _TlJit(_TlLaunchable):
    """A `@triton.jit` kernel whose launches run its Rust translation."""

    def __init__(self, name):
        self.name = self.__name__ = name
        self.plan = _TL_KERNELS[name]
        self.fn = self

    def run(self, *args, grid, warmup=False, **kwargs):
        bound = _tl_bind(self.plan, args, kwargs)
        if warmup:
            raise TranslationUnsupported(f"{self.name}: `warmup` compiles a Triton kernel; "
                                         "the Rust translation has no Triton handle")
        _tl_launch(self.plan, bound, grid)

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name}: a Triton kernel is launched as kernel[grid](...)")

    def __repr__(self):
        return f"<translated Triton kernel {self.name}>"


class _TlHeuristics(_TlLaunchable):
    """`@triton.heuristics(values)`: each value computed from the call's named arguments."""

    def __init__(self, fn, values):
        self.fn, self.values = fn, dict(values)
        self.name, self.plan = fn.name, fn.plan

    def run(self, *args, grid, **kwargs):
        for name, rule in self.values.items():
            kwargs[name] = rule({**dict(zip(self.arg_names, args, strict=False)), **kwargs})
        return self.fn.run(*args, grid=grid, **kwargs)


class _TlConfig:
    """`triton.Config`: constexpr values and Triton's compile options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, **options):
        self.kwargs, self.pre_hook = dict(kwargs), pre_hook
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
        self.maxnreg, self.options = maxnreg, options

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages,
                "num_ctas": self.num_ctas,
                **({"maxnreg": self.maxnreg} if self.maxnreg is not None else {})}

    def __repr__(self):
        return f"Config({self.kwargs}, num_warps={self.num_warps}, num_stages={self.num_stages})"


def _tl_autotune_key(names, keys, args, kwargs):
    """Triton's autotuner cache key: the `key` arguments' values, then each tensor
    argument's dtype."""
    named = {**dict(zip(names, args, strict=False)), **kwargs}
    out = [named[k] for k in keys if k in named]
    out += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
    return tuple(out)


def _tl_choose_config(configs, mode, bench):
    """The config an autotuned launch uses: by `mode` ("first", an index) or, for
    "benchmark", the one whose `bench(config)` time is least (configs whose launch the
    translation refuses are skipped, as Triton skips configs that fail to compile)."""
    if mode == "first" or len(configs) == 1:
        return configs[0]
    if mode != "benchmark":
        index = int(mode)
        if not 0 <= index < len(configs):
            raise ValueError(f"AUTOTUNE = {mode!r}: there are {len(configs)} configs")
        return configs[index]
    timings, refused = [], []
    for index, config in enumerate(configs):
        try:
            timings.append((bench(config), index))
        except TranslationUnsupported as err:
            refused.append(str(err))
    if not timings:
        raise TranslationUnsupported("no autotune config runs: " + "; ".join(refused))
    return configs[min(timings)[1]]


class _TlAutotuner(_TlLaunchable):
    """`@triton.autotune(configs, key, ...)`: per key value, picks a config (see AUTOTUNE)
    and keeps it."""

    def __init__(self, fn, configs, key, reset_to_zero=None, restore_value=None,
                 prune_configs_by=None, pre_hook=None, post_hook=None, **options):
        self.fn, self.configs, self.keys = fn, list(configs), list(key)
        self.name, self.plan = fn.name, fn.plan
        self.reset_to_zero, self.restore_value = list(reset_to_zero or []), list(
            restore_value or [])
        self.prune = (prune_configs_by or {}).get("early_config_prune")
        self.pre_hook, self.post_hook = pre_hook, post_hook
        self.cache = {}

    def run(self, *args, grid, **kwargs):
        key = _tl_autotune_key(self.arg_names, self.keys, args, kwargs)
        config = self.cache.get(key)
        if config is None:
            configs = self.configs
            if self.prune is not None and AUTOTUNE == "benchmark":
                configs = list(self.prune(configs, {**dict(zip(self.arg_names, args, strict=False)),
                                                    **kwargs}, **kwargs))
            config = _tl_choose_config(configs, AUTOTUNE,
                                       lambda c: self._bench(c, args, grid, kwargs))
            self.cache[key] = config
        self._launch(config, args, grid, kwargs)

    def _launch(self, config, args, grid, kwargs):
        full = {**kwargs, **config.all_kwargs()}
        if config.pre_hook is not None:
            config.pre_hook({**dict(zip(self.arg_names, args, strict=False)), **full})
        self.fn.run(*args, grid=grid, **full)

    def _bench(self, config, args, grid, kwargs):
        import torch as _torch

        named = dict(zip(self.arg_names, args, strict=False))
        saved = {n: named[n].clone() for n in self.restore_value if n in named}

        def once():
            for name in self.reset_to_zero:
                if name in named:
                    named[name].zero_()
            self._launch(config, args, grid, kwargs)

        once()  # compiles
        _torch.cuda.synchronize()
        start, end = _torch.cuda.Event(enable_timing=True), _torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(AUTOTUNE_REPS):
            once()
        end.record()
        end.synchronize()
        for name, value in saved.items():
            named[name].copy_(value)
        return start.elapsed_time(end) / AUTOTUNE_REPS


# -- the `triton` names host code uses, without Triton (others: from Triton, if installed)

class _TlLazyModule:
    """A module imported at first use (host code that reads Triton's driver, say)."""

    def __init__(self, name):
        self._tl_name = name

    def __getattr__(self, attr):
        return getattr(_tl_importlib.import_module(self._tl_name), attr)


class _TlLazyAttr:
    """`from triton.x import name` read at first use: attribute reads, calls and indexing go
    to the real object."""

    def __init__(self, module, name):
        self._tl_where = (module, name)

    def _tl_target(self):
        module, name = self._tl_where
        return getattr(_tl_importlib.import_module(module), name)

    def __getattr__(self, attr):
        return getattr(self._tl_target(), attr)

    def __call__(self, *args, **kwargs):
        return self._tl_target()(*args, **kwargs)

    def __getitem__(self, item):
        return self._tl_target()[item]


class _TlUntranslated(_TlLaunchable):
    """A `@triton.jit` function the wrapper could not replace (defined inside a function or
    class): launching it is refused."""

    def __init__(self, fn):
        self.name = getattr(fn, "__name__", repr(fn))

    def run(self, *args, grid, **kwargs):
        raise TranslationUnsupported(f"{self.name}: a `@triton.jit` function defined inside "
                                     "another scope has no Rust launcher")


class _TlTritonHost(_TlLazyModule):
    """`triton` for the host code: its host helpers and decorators here, the rest lazily
    from Triton itself."""

    Config = _TlConfig

    def __init__(self):
        super().__init__("triton")
        self.language = _TlTritonLanguage()

    @staticmethod
    def cdiv(a, b):
        return -(-a // b)

    @staticmethod
    def next_power_of_2(n):
        n = int(n)
        return 1 if n <= 1 else 1 << (n - 1).bit_length()

    @staticmethod
    def jit(fn=None, **options):
        if fn is None:
            return _TlUntranslated
        return _TlUntranslated(fn)

    @staticmethod
    def heuristics(values):
        return lambda fn: _TlHeuristics(fn, values)

    @staticmethod
    def autotune(configs, key, **options):
        return lambda fn: _TlAutotuner(fn, configs, key, **options)


class _TlTritonLanguage(_TlLazyModule):
    """`triton.language` for the host code (`tl.constexpr` in annotations; dtypes and the
    rest lazily from Triton)."""

    def __init__(self):
        super().__init__("triton.language")

    class constexpr:  # noqa: N801 - Triton's name
        def __init__(self, value):
            self.value = value

    @staticmethod
    def cdiv(a, b):
        return -(-a // b)


_TL_TRITON = _TlTritonHost()
