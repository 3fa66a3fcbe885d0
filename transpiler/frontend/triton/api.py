"""The Triton API table: surface name -> signature, typing rule, model operation.

Takes nothing; gives `API`, one row per `triton.language` function or tensor method the
front end knows, and `LIBDEVICE`, the libdevice / `tl.math` functions with the crate function
each becomes (or the reason none does). A row's `signature` is Triton's parameter list
(`name` or `name=default`), bound by `bind`; `rule` names the analyzer's typing rule
(`Analyzer.rule_<rule>`); `op` is the model operation the rule produces; `status` is
`"lowered"` or a diagnostic code with `reason` (a construct cuTile Rust 0.5.0 cannot express
is E0120, one not translated yet E0121).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class ApiEntry:
    signature: tuple[str, ...]
    rule: str
    op: str
    status: str = "lowered"
    reason: str = ""


def _sig(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _unsupported(code: str, reason: str) -> ApiEntry:
    return ApiEntry((), "unsupported", "", code, reason)


API: dict[str, ApiEntry] = {
    "program_id": ApiEntry(_sig("axis"), "program_id", "bid"),
    "num_programs": ApiEntry(_sig("axis"), "num_programs", "num_blocks"),
    "arange": ApiEntry(_sig("start, end"), "arange", "arange"),
    "zeros": ApiEntry(_sig("shape, dtype"), "zeros", "full"),
    "full": ApiEntry(_sig("shape, value, dtype"), "full", "full"),
    "zeros_like": ApiEntry(_sig("input"), "zeros_like", "full"),
    "load": ApiEntry(_sig("pointer, mask=None, other=None, boundary_check=(), "
                          "padding_option='', cache_modifier='', eviction_policy='', "
                          "volatile=False"), "load", "load_ptr"),
    "store": ApiEntry(_sig("pointer, value, mask=None, boundary_check=(), "
                           "cache_modifier='', eviction_policy=''"), "store", "store_ptr"),
    "where": ApiEntry(_sig("condition, x, y"), "where", "where"),
    "sum": ApiEntry(_sig("input, axis=None, keep_dims=False, dtype=None"), "sum", "reduce"),
    "max": ApiEntry(_sig("input, axis=None, return_indices=False, "
                         "return_indices_tie_break_left=True, keep_dims=False"), "max",
                    "reduce"),
    "min": ApiEntry(_sig("input, axis=None, return_indices=False, "
                         "return_indices_tie_break_left=True, keep_dims=False"), "min",
                    "reduce"),
    "argmax": ApiEntry(_sig("input, axis, tie_break_left=True, keep_dims=False"), "argmax",
                       "reduce"),
    "argmin": ApiEntry(_sig("input, axis, tie_break_left=True, keep_dims=False"), "argmin",
                       "reduce"),
    "cumsum": ApiEntry(_sig("input, axis=0, reverse=False, dtype=None"), "cumsum", "scan"),
    "maximum": ApiEntry(_sig("x, y, propagate_nan=None"), "maximum", "binary"),
    "minimum": ApiEntry(_sig("x, y, propagate_nan=None"), "minimum", "binary"),
    "dot": ApiEntry(_sig("input, other, acc=None, input_precision=None, allow_tf32=None, "
                         "max_num_imprecise_acc=None, out_dtype=None"), "dot", "mma"),
    "exp": ApiEntry(_sig("x"), "math_exp", "unary"),
    "exp2": ApiEntry(_sig("x"), "math_exp2", "unary"),
    "log": ApiEntry(_sig("x"), "math_log", "unary"),
    "log2": ApiEntry(_sig("x"), "math_log2", "unary"),
    "sin": ApiEntry(_sig("x"), "math_sin", "unary"),
    "cos": ApiEntry(_sig("x"), "math_cos", "unary"),
    "sqrt": ApiEntry(_sig("x"), "math_sqrt", "unary"),
    "sqrt_rn": ApiEntry(_sig("x"), "math_sqrt", "unary"),
    "rsqrt": ApiEntry(_sig("x"), "math_rsqrt", "unary"),
    "abs": ApiEntry(_sig("x"), "math_abs", "unary"),
    "floor": ApiEntry(_sig("x"), "math_floor", "unary"),
    "ceil": ApiEntry(_sig("x"), "math_ceil", "unary"),
    "sigmoid": ApiEntry(_sig("x"), "sigmoid", "binary"),
    "fma": ApiEntry(_sig("x, y, z"), "fma", "fma"),
    "fdiv": ApiEntry(_sig("x, y, ieee_rounding=False"), "fdiv", "binary"),
    "div_rn": ApiEntry(_sig("x, y"), "fdiv", "binary"),
    "cdiv": ApiEntry(_sig("x, div"), "cdiv", "div_trunc"),
    "expand_dims": ApiEntry(_sig("input, axis"), "expand_dims", "reshape"),
    "reshape": ApiEntry(_sig("input, shape, can_reorder=False"), "reshape", "reshape"),
    "view": ApiEntry(_sig("input, shape"), "reshape", "reshape"),
    "broadcast_to": ApiEntry(_sig("input, shape"), "broadcast_to", "broadcast"),
    "trans": ApiEntry(_sig("input, dims=None"), "trans", "permute"),
    "permute": ApiEntry(_sig("input, dims"), "trans", "permute"),
    "cast": ApiEntry(_sig("input, dtype, fp_downcast_rounding=None, bitcast=False"), "cast",
                     "convert"),
    "multiple_of": ApiEntry(_sig("input, values"), "hint", "var"),
    "max_contiguous": ApiEntry(_sig("input, values"), "hint", "var"),
    "max_constancy": ApiEntry(_sig("input, values"), "hint", "var"),
    "assume": ApiEntry(_sig("cond"), "assume", ""),
    "debug_barrier": ApiEntry((), "debug_barrier", "barrier"),
    "static_assert": ApiEntry(_sig("cond, msg=''"), "static_assert", ""),
    "constexpr": ApiEntry(_sig("value"), "constexpr", ""),
    "static_print": ApiEntry(_sig("values"), "ignored", ""),
    "device_print": ApiEntry(_sig("prefix, args"), "ignored", ""),
    "device_assert": ApiEntry(_sig("cond, msg=''"), "ignored", ""),
    "atomic_add": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                           "atomic_ptr"),
    "atomic_max": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                           "atomic_ptr"),
    "atomic_min": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                           "atomic_ptr"),
    "atomic_xchg": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                            "atomic_ptr"),
    "atomic_and": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                           "atomic_ptr"),
    "atomic_or": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                          "atomic_ptr"),
    "atomic_xor": ApiEntry(_sig("pointer, val, mask=None, sem=None, scope=None"), "atomic",
                           "atomic_ptr"),
    "inline_asm_elementwise": _unsupported(
        "E0120", "inline assembly has no Tile IR form (cuTile Rust 0.5.0 cannot express it)"),
    "make_block_ptr": _unsupported(
        "E0120", "block pointers were removed in Triton 3.9 and have no cuTile Rust form; "
        "use tensor descriptors or pointer arithmetic"),
    "advance": _unsupported("E0120", "block pointers have no cuTile Rust form"),
    "make_tensor_descriptor": ApiEntry(_sig(
        "base, shape, strides, block_shape, padding_option=None"), "make_tensor_descriptor",
        "descriptor"),
    "rand": ApiEntry(_sig("seed, offset, n_rounds=None"), "random", "philox"),
    "randn": ApiEntry(_sig("seed, offset, n_rounds=None"), "random", "philox"),
    "randint": ApiEntry(_sig("seed, offset, n_rounds=None"), "random", "philox"),
    "randint4x": ApiEntry(_sig("seed, offset, n_rounds=None"), "random", "philox"),
    "rand4x": ApiEntry(_sig("seed, offset, n_rounds=None"), "random", "philox"),
    "atomic_cas": ApiEntry(_sig("pointer, cmp, val, sem=None, scope=None"), "atomic_cas",
                           "atomic_cas_ptr"),
    "associative_scan": _unsupported(
        "E0121", "scans with a user combiner are not translated yet (`tl.cumsum` is)"),
    "reduce": _unsupported(
        "E0121", "reductions with a user combiner are not translated yet (`tl.sum`, "
        "`tl.max`, `tl.min` are)"),
    "histogram": _unsupported("E0120", "`tl.histogram` has no Tile IR form"),
    "gather": _unsupported("E0121", "`tl.gather` is not translated yet"),
    "join": ApiEntry(_sig("a, b"), "join", "cat"),
    "split": ApiEntry(_sig("a"), "split", "extract"),
    "cat": _unsupported("E0121", "`tl.cat` is not translated yet"),
    "dot_scaled": _unsupported("E0120", "`tl.dot_scaled` has no cuTile Rust 0.5.0 form"),
    "pointer_type": _unsupported(
        "E0121", "a pointer made from an integer (`x.to(tl.pointer_type(...))`) is not "
        "translated yet: cuTile Rust 0.5.0 has `int_to_ptr`, but an access through such a "
        "pointer may alias any pointer parameter, and the translation orders memory per "
        "pointer parameter"),
    "softmax": _unsupported("E0121", "`tl.softmax` is not translated yet"),
    "umulhi": _unsupported("E0121", "`tl.umulhi` is not translated yet"),
    "clamp": ApiEntry(_sig("x, min, max, propagate_nan=None"), "clamp", "binary"),
}

# Tensor methods -> the `API` row they share (`x.to(...)` is its own rule).
METHODS: dict[str, str] = {
    "sum": "sum", "max": "max", "min": "min", "argmax": "argmax", "argmin": "argmin",
    "cumsum": "cumsum", "reshape": "reshape", "view": "reshape", "broadcast_to":
    "broadcast_to", "expand_dims": "expand_dims", "trans": "trans", "permute": "permute",
    "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt", "abs": "abs",
    "sigmoid": "sigmoid", "cast": "cast", "split": "split",
}

# libdevice / `tl.math` function -> the model's unary function (None: the crate has none).
LIBDEVICE: dict[str, str | None] = {
    "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt",
    "rsqrt": "rsqrt", "tanh": "tanh", "sin": "sin", "cos": "cos", "tan": "tan",
    "sinh": "sinh", "cosh": "cosh", "floor": "floor", "ceil": "ceil", "fabs": "abs",
    "abs": "abs", "erf": None, "erfc": None, "erfinv": None, "log1p": None, "expm1": None,
    "asin": None, "acos": None, "atan": None, "asinh": None, "acosh": None, "atanh": None,
    "cbrt": None, "lgamma": None, "tgamma": None, "j0": None, "y0": None, "round": None,
    "rint": None, "trunc": None, "nearbyint": None, "isnan": None, "isinf": None,
    "signbit": None, "log10": None, "exp10": None, "fmod": None, "hypot": None,
}

# libdevice functions that are also `triton.language` functions of the same meaning (the
# API table row is used).
LIBDEVICE_AS_LANGUAGE: dict[str, str] = {"fma": "fma"}


def bind(entry: ApiEntry, call: cst.Call) -> dict[str, cst.BaseExpression | None]:
    """The call's arguments by parameter name (defaults as None); raises ValueError with a
    message for an unknown keyword or too many arguments."""
    names = [p.split("=")[0] for p in entry.signature]
    bound: dict[str, cst.BaseExpression | None] = {n: None for n in names}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        raise ValueError("`*args` / `**kwargs` in a Triton call")
    if len(positional) > len(names):
        raise ValueError(f"takes {len(names)} arguments, {len(positional)} given")
    for name, arg in zip(names, positional, strict=False):
        bound[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in bound:
                raise ValueError(f"has no parameter `{arg.keyword.value}`")
            bound[arg.keyword.value] = arg.value
    required = [p for p in entry.signature if "=" not in p]
    missing = [p for p in required if bound[p] is None]
    if missing:
        raise ValueError(f"needs `{missing[0]}`")
    return bound
