"""The API table: one entry per public cuda.tile function, and how it reaches cuTile Rust.

Takes nothing; gives `API`, the data the passes dispatch on and the coverage report reads:
for each cuda.tile 1.7.0 function, its status (`lowered`: a typing rule in
`typing_rules.TYPERS` produces a typed op that a rule in `lower.RULES` turns into Rust;
`front-end`: handled by the front end or the launcher generator; `not-lowered`: a
diagnostic names it, and element-wise calls may go to the LLM fallback; `inexpressible`: cuTile
Rust 0.5.0 has no form for it, see bench/results/gaps.md) and the Rust it becomes. Signatures
(parameter names, defaults, keyword-only modes) are in `signatures.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.lowering import signatures
from transpiler.lowering.typing_rules import ATOMIC_RMW, TYPERS


@dataclass(frozen=True)
class ApiEntry:
    name: str
    status: str
    rust: str


# The Rust form of each lowered function (what `lower.RULES` emits for its typed op).
_RUST_FORMS: dict[str, str] = {
    "bid": "get_tile_block_id().N",
    "num_blocks": "get_num_tile_blocks().N",
    "num_tiles": "num_tiles(&view, axis) on an unpadded partition view",
    "cdiv": "ceil_div(a, b) (scalars), divi(.., rounding::PositiveInf) (tiles); folded for "
            "constants",
    "load": "load_view_tko(&make_partition_view(.., padding::P, dim_map, token), idx, "
            "ordering::Weak, scope::TileBlock, latency, tma)",
    "store": "store_view_tko_mut(&mut partition_full_mut(shape), tile, idx, ..)",
    "gather": "get_tensor_base + offset_tile + load_ptr_tko(mask, padding) (1-D arrays)",
    "scatter": "get_tensor_base + offset_tile + store_ptr_tko(mask) (1-D arrays)",
    "arange": "iota(const_shape![N])",
    "full": "constant(v, shape) / broadcast_scalar(s, shape)",
    "zeros": "constant(0, shape)",
    "ones": "constant(1, shape)",
    "astype": "convert_tile / exti / bitcast / convert_scalar",
    "mma": "mma (rank 2) / mmaf (rank 3)",
    "matmul": "mma(a, b, constant(0, acc)) + convert_tile (per dtype)",
    "expand_dims": ".reshape(const_shape![..])",
    "broadcast_to": ".broadcast(const_shape![..])",
    "reshape": ".reshape(const_shape![..])",
    "permute": "permute(x, const_array![..])",
    "transpose": "permute(x, const_array![1, 0])",
    "sum": "reduce_sum(x, axis) (+ reshape for keepdims)",
    "max": "reduce_max(x, axis)",
    "min": "reduce_min(x, axis)",
    "prod": "reduce_prod(x, axis)",
    "cumsum": "scan_sum(x, axis, reverse::Forward, 0)",
    "add": "+ / addf(rounding, ftz)",
    "sub": "- / subf(rounding, ftz)",
    "mul": "* / mulf(rounding, ftz)",
    "truediv": "/ / divf(rounding, ftz)",
    "floordiv": "divi(.., rounding::NegativeInf) / py_floordiv_T",
    "mod": "py_mod_T (remainder with the divisor's sign)",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_lshift": "<<",
    "bitwise_rshift": ">>",
    "bitwise_not": "noti",
    "minimum": "minf(nan, ftz) / mini",
    "maximum": "maxf(nan, ftz) / maxi",
    "greater": "gt_tile", "greater_equal": "ge_tile", "less": "lt_tile",
    "less_equal": "le_tile", "equal": "eq_tile", "not_equal": "ne_tile",
    "exp": "exp / exp_with_rounding", "exp2": "exp2(x, ftz)", "log": "log", "log2": "log2",
    "sqrt": "sqrt(x, rounding, ftz)", "rsqrt": "rsqrt(x, ftz)", "sin": "sin", "cos": "cos",
    "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh / tanh_with_rounding",
    "floor": "floor", "ceil": "ceil", "abs": "absf / absi", "negative": "negf / negi",
    "where": "select(cond, x, y)",
    "static_assert": "checked at translation time",
    "assume_divisible_by": "assume_div_by::<_, D>(x)",
    "item": "reshape to 0-d + tile_to_scalar",
    "extract": "extract(x, [scalar_to_tile(i), ..])",
    "cat": "cat(a, b, axis) (one tile: itself)",
    "Array.slice": "get_tensor_base + offset_tile(start * stride) + make_tensor_view(base, "
                   "shape, strides, token) (strides but the last passed by the launcher)",
}



_ORDERED_ATOMICS = ("(an acquiring or releasing order puts every memory access of the kernel "
                    "in one token chain)")


def _atomic_form(name: str) -> str:
    modes = "/".join(sorted(ATOMIC_RMW[name].modes()))
    return (f"get_tensor_base + offset_tile + atomic_rmw_tko(atomic::{modes}, ordering::O, "
            f"scope::S, mask, token) {_ORDERED_ATOMICS}")


_RUST_FORMS.update({name: _atomic_form(name) for name in ATOMIC_RMW})
_RUST_FORMS["atomic_cas"] = ("get_tensor_base + offset_tile + atomic_cas_tko(cmp, val, "
                             f"ordering::O, scope::S, mask, token) {_ORDERED_ATOMICS}")

_FRONT_END = {
    "kernel": "#[cutile::entry()] (decorator options -> optimization_hints)",
    "function": "inlined at each call, as cuTile inlines it",
    "launch": "launcher generator (--emit launcher)",
}

_INEXPRESSIBLE = {
    "compiler_timeout": "no compile timeout in cutile-compiler",
    "grid_dependency_control_wait": "no programmatic dependent launch in cuTile Rust",
    "grid_dependency_control_launch_dependents": "no programmatic dependent launch",
    "load_advanced_indexing": "gather views take one dense index and no padding",
    "store_advanced_indexing": "no gather/scatter view store",
    "static_eval": "no compile-time evaluation hook",
    "static_iter": "no compile-time unrolling",
    "static_exception": "no compile-time exception",
}


# Typed by the analysis but not yet written in Rust: the lowering gives a diagnostic.
_LOWERING_PENDING = {"pow", "isnan"}


def _status(name: str) -> ApiEntry:
    if name in _LOWERING_PENDING:
        return ApiEntry(name, "not-lowered", "diagnostic E0101 from the lowering")
    if name in _FRONT_END:
        return ApiEntry(name, "front-end", _FRONT_END[name])
    if name in TYPERS:
        return ApiEntry(name, "lowered", _RUST_FORMS.get(name, ""))
    if name in _INEXPRESSIBLE:
        return ApiEntry(name, "inexpressible", _INEXPRESSIBLE[name])
    return ApiEntry(name, "not-lowered", "diagnostic E0101 (element-wise calls may go to the "
                    "LLM fallback)")


API: dict[str, ApiEntry] = {
    name: _status(name) for name in sorted({*signatures.all_names(), *_FRONT_END}) if name != "item"
}


def coverage() -> tuple[int, int]:
    """(functions lowered or handled by the front end, public functions)."""
    handled = sum(1 for e in API.values() if e.status in ("lowered", "front-end"))
    return handled, len(API)
