"""Lowering rules of the model's pointer operations (`model.POINTER_OPS`) -> cuTile Rust.

Takes typed pointer operations (a pointer parameter as a 0-d pointer tile, a pointer tile
moved by an offset tile, loads, stores and atomics through pointer tiles, fresh tokens);
gives the Rust the cuTile Rust 0.5.0 pointer model spells them with: `pointer_to_tile`,
`.offset_tile`, `load_ptr_tko` / `store_ptr_tko` / `atomic_rmw_tko` / `atomic_cas_tko` with
their masks,
paddings and tokens, `new_token_unordered`, `join_tokens`. The rules register in
`lower.RULES` when this module is imported (the driver imports it).

The shapes of a pointer tile, its offsets and its mask are equal when a rule sees them: the
front end makes every broadcast explicit (`reshape` / `broadcast`, whose rules are shared
with value tiles: a `PointerTile` has the same methods).

Padding: the crate types `padding_value` as a scalar of the element type and reshapes it to
rank 1 whatever the tile's rank (triton.md section 4), so a masked load of rank >= 2 with a
scalar padding is made at rank 1 and reshaped back (the same flattening `lower_gather`
does). A padding the element type has no scalar literal of (16-bit floats, a launch-time
element type, infinities) comes as a tile operand instead: the load is unpadded and
`select(mask, loaded, other)` gives the masked lanes their value, as Triton's `other`
tensor does.

Raised accesses (`load_ptr_view` / `store_ptr_view`, from `raise_pointers`): a tensor view
over the pointer parameter (`make_tensor_view` with the access' extents and strides, a
stride of 1 known at compile time in the type), partitioned at the tile's shape with the
padding (`make_partition_view`), read or written at the tile index by `load_view_raw` /
`store_view_raw`, which take and give tokens as the pointer operations do.

Tokens: each memory operation waits on the token variable its `wait` attribute names (None:
unordered) and updates the variables of its `record` attribute from its own token: `set`
replaces the variable, `join` joins the token into it (`join_tokens`). The front end decides
the discipline (which accesses are chained, per pointer parameter).
"""

from __future__ import annotations

import functools

from rust_emit import tree as t
from transpiler.lowering.lower import KernelLowerer, rule
from transpiler.model import Dim, PointerType, TExpr, TileType, dim_op

# Scalar element types whose padding is a plain Rust literal.
_LITERAL_PADDING = {"f32": "f32", "f64": "f64", "i8": "i8", "i16": "i16", "i32": "i32",
                    "i64": "i64", "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64"}
# Triton's `tl.atomic_*` function (with the element kind) -> the crate's `atomic::` mode.
ATOMIC_MODES: dict[tuple[str, str], str] = {
    ("add", "float"): "AddF", ("add", "int"): "Add", ("add", "uint"): "Add",
    ("max", "int"): "Max", ("max", "uint"): "Umax", ("min", "int"): "Min",
    ("min", "uint"): "Umin", ("xchg", "int"): "Xchg", ("xchg", "uint"): "Xchg",
    ("xchg", "float"): "Xchg", ("and", "int"): "And", ("and", "uint"): "And",
    ("or", "int"): "Or", ("or", "uint"): "Or", ("xor", "int"): "Xor", ("xor", "uint"): "Xor",
}
# Triton's `sem=` / `scope=` strings -> the crate's `ordering::` / `scope::` members.
ATOMIC_ORDERINGS = {"acq_rel": "AcqRel", "acquire": "Acquire", "release": "Release",
                    "relaxed": "Relaxed"}
ATOMIC_SCOPES = {"gpu": "Device", "cta": "TileBlock", "sys": "System"}


def padding_literal(value: object, elem: str) -> t.Lit | None:
    """The scalar padding `value` as a Rust literal of `elem`, or None when `elem` has no
    literal of it (the front end then passes `other` as a tile)."""
    suffix = _LITERAL_PADDING.get(elem)
    if suffix is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if suffix.startswith("f"):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return None
        text = repr(number)
        return t.Lit((text if "e" in text or "." in text else text + ".0") + suffix)
    if isinstance(value, float) and not value.is_integer():
        return None
    return t.Lit(f"{int(value)}{suffix}")


def _named(lw: KernelLowerer, ctx: object, e: TExpr, hint: str) -> t.Path:
    """The operand lowered and, unless it is a name already, bound to a typed `let` (the
    memory operations are generic: the cuTile Rust compiler needs their operands' types)."""
    value = lw.expr(e, ctx)
    if isinstance(value, t.Path):
        return value
    return lw.let(ctx, hint, value, lw.rust_type(e.type, e.span) or "_")


def _token_arg(e: TExpr) -> t.Expr:
    wait = e.attrs.get("wait")
    return t.Call("Some", (t.Path(wait),)) if wait else t.Path("None")


def _record(lw: KernelLowerer, ctx: object, e: TExpr, token: str) -> None:
    for variable, how in e.attrs.get("record", ()):
        value: t.Expr = t.Path(token) if how == "set" else t.Call("join_tokens", (
            t.Ref(t.ArrayExpr((t.Path(variable), t.Path(token)))),))
        ctx.stmts.append(t.Assign(variable, value))


def _token_name(lw: KernelLowerer, e: TExpr) -> str:
    return lw.temp("token") if e.attrs.get("record") else "_"


def _latency(e: TExpr) -> t.Path:
    return t.Path(f"Latency::<{int(e.attrs.get('latency') or 0)}>")


@rule("ptr_param")
def lower_ptr_param(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    return t.Call("pointer_to_tile", (t.Path(e.attrs["name"]),))


@rule("ptr_reshape", "ptr_broadcast")
def lower_ptr_reshape(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`.reshape` / `.broadcast` of a pointer tile, its operand named first: the cuTile
    Rust compiler cannot type a pointer tile method called on another's result."""
    pointers = _named(lw, ctx, e.args[0], "pointers")
    method = "reshape" if e.op == "ptr_reshape" else "broadcast"
    return t.MethodCall(pointers, method, (lw.const_shape(e.attrs["shape"], e.span),))


@rule("ptr_offset")
def lower_ptr_offset(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    pointers = _named(lw, ctx, e.args[0], "pointers")
    offsets = _named(lw, ctx, e.args[1], "offsets")
    return t.MethodCall(pointers, "offset_tile", (offsets,))


@rule("make_token")
def lower_make_token(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    return t.Call("new_token_unordered", ())


@rule("load_ptr")
def lower_load_ptr(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`let (v, tok) = load_ptr_tko(pointers, Weak, None, mask, padding, token, latency)`."""
    assert isinstance(e.type, TileType)
    pointers = _named(lw, ctx, e.args[0], "pointers")
    mask = _named(lw, ctx, e.args[1], "mask") if e.attrs.get("has_mask") else None
    other = e.args[2] if e.attrs.get("has_mask") and e.attrs.get("other_tile") else None
    elem = lw.elem(e.type.dtype)
    shape = tuple(e.type.shape)
    pad: t.Expr = t.Path("None")
    if mask is not None and other is None and e.attrs.get("padding") is not None:
        literal = padding_literal(e.attrs["padding"], elem)
        assert literal is not None, "the front end passes a padding without literal as a tile"
        pad = t.Call("Some", (lw.let(ctx, "padding", literal, elem),))
    token = _token_name(lw, e)
    name = lw.temp("loaded")
    if len(shape) >= 2 and mask is not None and pad != t.Path("None"):
        flat: tuple[Dim, ...] = (functools.reduce(lambda a, b: dim_op("*", a, b), shape),)
        flat_shape = lw.const_shape(flat, e.span)
        flat_ty = lw.shape_type(flat, e.span)
        flat_pointers = lw.let(ctx, "flat_pointers", t.MethodCall(
            pointers, "reshape", (flat_shape,)), f"PointerTile<*mut {elem}, {flat_ty}>")
        flat_mask = lw.let(ctx, "flat_mask", t.MethodCall(mask, "reshape", (flat_shape,)),
                           f"Tile<bool, {flat_ty}>")
        call = t.Call("load_ptr_tko", (
            flat_pointers, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"),
            t.Call("Some", (flat_mask,)), pad, _token_arg(e), _latency(e)))
        ctx.stmts.append(t.Let(f"({name}, {token})", t.BlockExpr((), call, unsafe=True),
                               t.RType(f"(Tile<{elem}, {flat_ty}>, Token)")))
        _record(lw, ctx, e, token)
        return t.MethodCall(t.Path(name), "reshape", (lw.const_shape(shape, e.span),))
    call = t.Call("load_ptr_tko", (
        pointers, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"),
        t.Call("Some", (mask,)) if mask is not None else t.Path("None"), pad, _token_arg(e),
        _latency(e)))
    ctx.stmts.append(t.Let(f"({name}, {token})", t.BlockExpr((), call, unsafe=True),
                           t.RType(f"({lw.rust_type(e.type, e.span)}, Token)")))
    _record(lw, ctx, e, token)
    if other is None or mask is None:
        return t.Path(name)
    # Triton's `other` where the crate's scalar padding cannot say it: masked lanes take it.
    fill = _named(lw, ctx, other, "other")
    return lw.let(ctx, "selected", t.Call("select", (mask, t.Path(name), fill)),
                  lw.rust_type(e.type, e.span) or "_")


@rule("store_ptr")
def lower_store_ptr(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`store_ptr_tko(pointers, value, Weak, None, mask, token, latency)`."""
    pointers = _named(lw, ctx, e.args[0], "pointers")
    value = _named(lw, ctx, e.args[1], "values")
    mask = _named(lw, ctx, e.args[2], "mask") if e.attrs.get("has_mask") else None
    call = t.BlockExpr((), t.Call("store_ptr_tko", (
        pointers, value, t.Path("ordering::Weak"), t.Path("None::<scope::TileBlock>"),
        t.Call("Some", (mask,)) if mask is not None else t.Path("None"), _token_arg(e),
        _latency(e))), unsafe=True)
    if not e.attrs.get("record"):
        ctx.stmts.append(t.ExprStmt(call, semicolon=True))
        return t.TupleExpr(())
    token = lw.temp("token")
    ctx.stmts.append(t.Let(token, call, t.RType("Token")))
    _record(lw, ctx, e, token)
    return t.TupleExpr(())


@rule("atomic_ptr")
def lower_atomic_ptr(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`let (old, tok) = atomic_rmw_tko(pointers, value, mode, ordering, scope, mask, token)`
    with Triton's ordering and scope (default `acq_rel` / `gpu`)."""
    assert isinstance(e.type, TileType) and isinstance(e.args[0].type, PointerType)
    pointers = _named(lw, ctx, e.args[0], "pointers")
    value = _named(lw, ctx, e.args[1], "update")
    mask = _named(lw, ctx, e.args[2], "mask") if e.attrs.get("has_mask") else None
    elem = lw.elem(e.type.dtype)
    result_type = lw.rust_type(e.type, e.span)
    if not e.type.shape:
        # cuTile Rust 0.5.0 cannot compile a 0-d atomic: it is made at shape [1].
        one = lw.const_shape((1,), e.span)
        pointers = lw.let(ctx, "pointers", t.MethodCall(pointers, "reshape", (one,)),
                          f"PointerTile<*mut {elem}, {{ [1] }}>")
        value = lw.let(ctx, "update", t.MethodCall(value, "reshape", (one,)),
                       f"Tile<{elem}, {{ [1] }}>")
        if mask is not None:
            mask = lw.let(ctx, "mask", t.MethodCall(mask, "reshape", (one,)),
                          "Tile<bool, { [1] }>")
        result_type = f"Tile<{elem}, {{ [1] }}>"
    call = t.BlockExpr((), t.Call("atomic_rmw_tko", (
        pointers, value, t.Path(f"atomic::{e.attrs['mode']}"),
        t.Path(f"ordering::{e.attrs['ordering']}"), t.Path(f"scope::{e.attrs['scope']}"),
        t.Call("Some", (mask,)) if mask is not None else t.Path("None"), _token_arg(e))),
        unsafe=True)
    keep = e.attrs.get("keep_old", True)
    old = lw.temp("old") if keep else "_"
    token = _token_name(lw, e)
    ctx.stmts.append(t.Let(f"({old}, {token})", call, t.RType(f"({result_type}, Token)")))
    _record(lw, ctx, e, token)
    if not keep:
        return t.TupleExpr(())
    if not e.type.shape:
        return t.MethodCall(t.Path(old), "reshape", (lw.const_shape((), e.span),))
    return t.Path(old)


@rule("atomic_cas_ptr")
def lower_atomic_cas_ptr(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`let (old, tok) = atomic_cas_tko(pointers, cmp, value, ordering, scope, None, token)`;
    a 0-d compare-and-swap is made at shape [1], as `lower_atomic_ptr` makes its atomics."""
    assert isinstance(e.type, TileType) and isinstance(e.args[0].type, PointerType)
    pointers = _named(lw, ctx, e.args[0], "pointers")
    cmp = _named(lw, ctx, e.args[1], "expected")
    value = _named(lw, ctx, e.args[2], "update")
    elem = lw.elem(e.type.dtype)
    result_type = lw.rust_type(e.type, e.span)
    if not e.type.shape:
        one = lw.const_shape((1,), e.span)
        pointers = lw.let(ctx, "pointers", t.MethodCall(pointers, "reshape", (one,)),
                          f"PointerTile<*mut {elem}, {{ [1] }}>")
        cmp = lw.let(ctx, "expected", t.MethodCall(cmp, "reshape", (one,)),
                     f"Tile<{elem}, {{ [1] }}>")
        value = lw.let(ctx, "update", t.MethodCall(value, "reshape", (one,)),
                       f"Tile<{elem}, {{ [1] }}>")
        result_type = f"Tile<{elem}, {{ [1] }}>"
    call = t.BlockExpr((), t.Call("atomic_cas_tko", (
        pointers, cmp, value, t.Path(f"ordering::{e.attrs['ordering']}"),
        t.Path(f"scope::{e.attrs['scope']}"), t.Path("None"), _token_arg(e))), unsafe=True)
    keep = e.attrs.get("keep_old", True)
    old = lw.temp("old") if keep else "_"
    token = _token_name(lw, e)
    ctx.stmts.append(t.Let(f"({old}, {token})", call, t.RType(f"({result_type}, Token)")))
    _record(lw, ctx, e, token)
    if not keep:
        return t.TupleExpr(())
    if not e.type.shape:
        return t.MethodCall(t.Path(old), "reshape", (lw.const_shape((), e.span),))
    return t.Path(old)


def _scalar_name(lw: KernelLowerer, ctx: object, e: TExpr, hint: str) -> t.Expr:
    """An i32 scalar operand of a view: a name or literal as it is, else a typed `let`."""
    value = lw.expr(e, ctx)
    if isinstance(value, t.Path | t.Lit):
        return value
    return lw.let(ctx, hint, value, "i32")


def _pointer_view(lw: KernelLowerer, ctx: object, e: TExpr) -> tuple[t.Path, t.ArrayExpr]:
    """The partition view a raised access goes through (`raise_pointers`): a tensor view
    over the pointer parameter with the access' extents and strides (a stride of 1 known
    at compile time is written in the type, as cuTile Python writes it), partitioned at the
    tile's shape with the padding; and the tile index. The views take fresh tokens: the
    accesses themselves carry the order (`load_view_raw` / `store_view_raw`)."""
    rank = int(e.attrs["rank"])
    tile = tuple(e.attrs["tile"])
    unit = tuple(e.attrs["unit_strides"])
    base_e, rest = e.args[0], e.args[1:]
    extents, strides, index = rest[:rank], rest[rank:2 * rank], rest[2 * rank:3 * rank]
    elem = lw.elem(base_e.type.dtype)
    base = _named(lw, ctx, base_e, "base")
    dims = tuple(_scalar_name(lw, ctx, x, "extent") for x in extents)
    dynamic = tuple(_scalar_name(lw, ctx, s, "stride") for s, one in zip(strides, unit,
                                                                            strict=True)
                    if not one)
    idx = t.ArrayExpr(tuple(_scalar_name(lw, ctx, i, "index") for i in index))
    shape_ty = "{ [" + ", ".join(["-1"] * rank) + "] }"
    stride_ty = "{ [" + ", ".join("1" if one else "-1" for one in unit) + "] }"
    shape = lw.let(ctx, "shape", t.StructLit(f"Shape::<{shape_ty}>", (
        ("dims", t.Ref(t.ArrayExpr(dims))),)), f"Shape<{shape_ty}>")
    stride_array = lw.let(ctx, "strides", t.StructLit(f"Array::<{stride_ty}>", (
        ("dims", t.Ref(t.ArrayExpr(dynamic))),)), f"Array<{stride_ty}>")
    fresh = t.Call("new_token_unordered", ())
    tensor = lw.let(ctx, "tensor", t.BlockExpr((), t.Call("make_tensor_view", (
        base, shape, stride_array, fresh)), unsafe=True), f"Tensor<{elem}, {shape_ty}>")
    view = lw.let(ctx, "view", t.BlockExpr((), t.Call("make_partition_view", (
        t.Ref(tensor), lw.const_shape(tile, e.span), t.Path(f"padding::{e.attrs['view_padding']}"),
        t.Path("dim_map::Identity"), fresh)), unsafe=True),
        f"Partition<{elem}, {lw.shape_type(tile, e.span)}>")
    return view, idx


def _no_inbounds_promise(rank: int) -> t.ArrayExpr:
    # The raw view ops' `inbounds` flags: none promised (the view's extent clips the tile).
    return t.ArrayExpr(tuple(t.Lit("false") for _ in range(rank)))


def _tma(e: TExpr) -> t.Path:
    # Whether the raising pass found the view's descriptor buildable once, before the launch.
    return t.Path("tma::Enabled" if e.attrs.get("tma", True) else "tma::Disabled")


@rule("load_ptr_view")
def lower_load_ptr_view(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`let (v, tok) = load_view_raw(&view, [index], token, Weak, .., [false; R], tile)`."""
    view, idx = _pointer_view(lw, ctx, e)
    rank = int(e.attrs["rank"])
    call = t.Call("load_view_raw", (
        t.Ref(view), idx, _token_arg(e), t.Path("ordering::Weak"), t.Path("scope::TileBlock"),
        _tma(e), t.Path("None"), _no_inbounds_promise(rank),
        lw.const_shape(tuple(e.attrs["tile"]), e.span)))
    name = lw.temp("loaded")
    token = _token_name(lw, e)
    ctx.stmts.append(t.Let(f"({name}, {token})", t.BlockExpr((), call, unsafe=True),
                           t.RType(f"({lw.rust_type(e.type, e.span)}, Token)")))
    _record(lw, ctx, e, token)
    return t.Path(name)


@rule("store_ptr_view")
def lower_store_ptr_view(lw: KernelLowerer, e: TExpr, ctx: object) -> t.Expr:
    """`store_view_raw(&view, value, [index], token, Weak, .., [false; R])`; the lanes
    outside the view's extent are dropped, as the mask drops them."""
    view, idx = _pointer_view(lw, ctx, e)
    value = _named(lw, ctx, e.args[-1], "values")
    rank = int(e.attrs["rank"])
    call = t.BlockExpr((), t.Call("store_view_raw", (
        t.Ref(view), value, idx, _token_arg(e), t.Path("ordering::Weak"),
        t.Path("scope::TileBlock"), _tma(e), t.Path("None"),
        _no_inbounds_promise(rank))), unsafe=True)
    if not e.attrs.get("record"):
        ctx.stmts.append(t.ExprStmt(call, semicolon=True))
        return t.TupleExpr(())
    token = lw.temp("token")
    ctx.stmts.append(t.Let(token, call, t.RType("Token")))
    _record(lw, ctx, e, token)
    return t.TupleExpr(())
