"""Random cuTile Python kernels (`import cuda.tile as ct`, `@ct.kernel`, `ct.launch` host code).

Takes a seed, an index and a size; gives a `GeneratedKernel` whose kernel `fuzz_kernel` runs
one block per (TM, TN) tile of 2-D arrays: it loads its inputs (ragged shapes, paddings),
computes a typed random expression DAG over tiles and scalars (arithmetic, comparisons,
`where`, math functions, casts, broadcasting, transposes and reshapes, reductions and scans
along an axis, `mma` in a K loop, gathers with masks, constant-dependent `if`s, loops with
carried values, `ct.function` helpers) and stores the result; optionally scatters and does
relaxed atomics. With `beyond` a few constructs outside the translator's language are mixed
in (`ct.pow`, `ct.isnan`, `ct.atan2`, `ct.cumprod`, `ct.argmax`, an atomic with the default
memory order) so that its diagnostics are exercised too. The spec object fixes every
parameter and the numeric check's launch cases (a multiple of the tile, a ragged size, a tiny
one).
"""

from __future__ import annotations

from bench.fuzzgen.common import (
    BROADCAST_PAIRS,
    SHAPES,
    Chooser,
    GeneratedKernel,
    KernelParts,
    Scope,
    TileType,
)

KERNEL = "fuzz_kernel"
INPUT_DTYPES: dict[str, float] = {"float32": 4, "float16": 2, "int32": 2}
OUTPUT_DTYPES: dict[str, float] = {"float32": 4, "float16": 1, "int32": 1}
PADDINGS: dict[str, float] = {"ZERO": 4, "NEG_INF": 1, "POS_INF": 1, "NAN": 1, "": 1}
FLOAT_UNARY = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
               "sinh", "cosh", "floor", "ceil", "abs")
FLOAT_BINARY = ("+", "-", "*", "/")
INT_BINARY = ("+", "-", "*", "&", "|", "^")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
REDUCTIONS = ("sum", "max", "min", "prod")
#: Calls outside the translator's language (each a diagnostic), by the type they give.
BEYOND_FLOAT = ("ct.pow({a}, {b})", "ct.atan2({a}, {b})", "ct.cumprod({a}, axis=1)")
BEYOND_BOOL = ("ct.isnan({a})",)


def _shape_text(shape: str) -> str:
    return "(" + ", ".join(SHAPES[shape]) + ")"


class CutileGenerator:
    def __init__(self, chooser: Chooser, beyond: float) -> None:
        self.c = chooser
        self.beyond = beyond
        self.k = KernelParts()
        self.depth = 1 + min(chooser.size, 6) // 2

    # --- expressions ------------------------------------------------------------------

    def expr(self, ty: TileType, scope: Scope, depth: int) -> str:
        if depth <= 0 or self.c.chance(0.25):
            return self.leaf(ty, scope)
        if ty.dtype == "bool":
            return self.bool_expr(ty, scope, depth)
        if ty.is_float:
            return self.float_expr(ty, scope, depth)
        return self.int_expr(ty, scope, depth)

    def leaf(self, ty: TileType, scope: Scope) -> str:
        same = scope.of_type(ty)
        if same and self.c.chance(0.7):
            return self.c.pick(same)
        if ty.dtype == "bool":
            return self.compare(TileType(self.c.pick(("float32", "int32")), ty.shape), scope, 0)
        others = [(n, t) for n, t in scope.of_shape(ty.shape) if t.dtype != "bool"]
        if others and self.c.chance(0.6):
            name, _ = self.c.pick(others)
            self.k.features.add("cast")
            return f"{name}.astype(ct.{ty.dtype})"
        if ty.dtype == "int32" and ty.shape in ("row", "col") and self.c.chance(0.5):
            return self.arange(ty.shape)
        if self.c.chance(0.5):
            return self.load(ty)
        value = self.c.pick(("0.5", "-1.25", "2.0", "3.0")) if ty.is_float else \
            self.c.pick(("1", "-2", "3", "7"))
        self.k.features.add("full")
        return f"ct.full({_shape_text(ty.shape)}, {value}, dtype=ct.{ty.dtype})"

    def arange(self, shape: str) -> str:
        self.k.features.add("arange")
        if shape == "row":
            return self.c.pick(("ct.arange(TN, dtype=ct.int32)[None, :]",
                                "ct.reshape(ct.arange(TN, dtype=ct.int32), (1, TN))"))
        return self.c.pick(("ct.arange(TM, dtype=ct.int32)[:, None]",
                            "ct.expand_dims(ct.arange(TM, dtype=ct.int32), 1)"))

    def load(self, ty: TileType) -> str:
        array = self.c.pick(sorted(a for a in self.k.arrays if a.startswith("x")))
        index = {"full": "(bm, bn)", "col": "(bm, 0)", "row": "(0, bn)", "tr": "(bn, bm)"}
        padding = self.c.weighted(PADDINGS)
        if padding in ("NEG_INF", "POS_INF", "NAN") and self.k.arrays[array] == "int32":
            padding = "ZERO"
        pad = f", padding_mode=ct.PaddingMode.{padding}" if padding else ""
        self.k.features.add("load-padding" if padding else "load")
        text = f"ct.load({array}, index={index[ty.shape]}, shape={_shape_text(ty.shape)}{pad})"
        if self.k.arrays[array] != ty.dtype:
            self.k.features.add("cast")
            text += f".astype(ct.{ty.dtype})"
        return text

    def operands(self, ty: TileType) -> tuple[TileType, TileType]:
        if ty.shape != "full":
            return ty, ty
        left, right = self.c.pick(BROADCAST_PAIRS)
        if (left, right) != ("full", "full"):
            self.k.features.add("broadcast")
        return TileType(ty.dtype, left), TileType(ty.dtype, right)

    def float_expr(self, ty: TileType, scope: Scope, depth: int) -> str:
        kind = self.c.weighted({"binary": 5, "unary": 3, "scalar": 2, "minmax": 1, "where": 1,
                                "reduce": 1.5 if ty.shape in ("col", "row") else 0,
                                "scan": 1 if ty.shape != "tr" else 0, "transpose": 1,
                                "helper": 0.7, "cast": 1, "beyond": self.beyond})
        return self.common_expr(kind, ty, scope, depth)

    def int_expr(self, ty: TileType, scope: Scope, depth: int) -> str:
        kind = self.c.weighted({"binary": 5, "scalar": 2, "divmod": 1, "shift": 1, "minmax": 1,
                                "where": 1, "reduce": 1.5 if ty.shape in ("col", "row") else 0,
                                "scan": 1 if ty.shape != "tr" else 0, "transpose": 1,
                                "cast": 1.5, "helper": 0.5})
        return self.common_expr(kind, ty, scope, depth)

    def common_expr(self, kind: str, ty: TileType, scope: Scope, depth: int) -> str:
        sub = depth - 1
        if kind == "binary":
            lt, rt = self.operands(ty)
            op = self.c.pick(FLOAT_BINARY if ty.is_float else INT_BINARY)
            self.k.features.add("arith")
            return f"({self.expr(lt, scope, sub)} {op} {self.expr(rt, scope, sub)})"
        if kind == "unary":
            fn = self.c.pick((*FLOAT_UNARY, "neg"))
            self.k.features.add("math")
            inner = self.expr(ty, scope, sub)
            return f"(-{inner})" if fn == "neg" else f"ct.{fn}({inner})"
        if kind == "scalar":
            value = self.c.pick(("0.5", "2.0", "-3.0")) if ty.is_float else self.c.pick(
                ("1", "3", "-2"))
            op = self.c.pick(("+", "-", "*"))
            self.k.features.add("scalar")
            inner = self.expr(ty, scope, sub)
            return f"({inner} {op} {value})" if self.c.chance(0.6) else f"({value} {op} {inner})"
        if kind == "divmod":
            op, divisor = self.c.pick(("//", "%")), self.c.pick(("3", "5", "-4"))
            self.k.features.add("int-divmod")
            return f"({self.expr(ty, scope, sub)} {op} {divisor})"
        if kind == "shift":
            self.k.features.add("shift")
            return f"({self.expr(ty, scope, sub)} {self.c.pick(('<<', '>>'))} " \
                   f"{self.c.pick(('1', '2'))})"
        if kind == "minmax":
            lt, rt = self.operands(ty)
            self.k.features.add("minmax")
            return f"ct.{self.c.pick(('minimum', 'maximum'))}({self.expr(lt, scope, sub)}, " \
                   f"{self.expr(rt, scope, sub)})"
        if kind == "where":
            lt, rt = self.operands(ty)
            cond = self.expr(TileType("bool", ty.shape), scope, sub)
            self.k.features.add("where")
            return f"ct.where({cond}, {self.expr(lt, scope, sub)}, {self.expr(rt, scope, sub)})"
        if kind == "reduce":
            axis = 1 if ty.shape == "col" else 0
            fn = self.c.pick(REDUCTIONS)
            self.k.features.add("reduce")
            inner = self.expr(TileType(ty.dtype, "full"), scope, sub)
            return f"ct.{fn}({inner}, axis={axis}, keepdims=True)"
        if kind == "scan":
            axis = self.c.pick((0, 1))
            self.k.features.add("scan")
            return f"ct.cumsum({self.expr(ty, scope, sub)}, axis={axis})"
        if kind == "transpose":
            return self.transpose(ty, scope, sub)
        if kind == "helper":
            return self.helper_call(ty, scope, sub)
        if kind == "cast":
            source = self.c.pick([d for d in ("float32", "float16", "int32") if d != ty.dtype])
            self.k.features.add("cast")
            return f"{self.expr(TileType(source, ty.shape), scope, sub)}.astype(ct.{ty.dtype})"
        self.k.features.add("beyond")
        a = self.expr(ty, scope, sub)
        b = self.expr(ty, scope, sub)
        return self.c.pick(BEYOND_FLOAT).format(a=a, b=b)

    def transpose(self, ty: TileType, scope: Scope, depth: int) -> str:
        self.k.features.add("transpose")
        if ty.shape == "full":
            return f"ct.transpose({self.expr(TileType(ty.dtype, 'tr'), scope, depth)})"
        if ty.shape == "tr":
            inner = self.expr(TileType(ty.dtype, "full"), scope, depth)
            return self.c.pick((f"ct.permute({inner}, (1, 0))", f"ct.reshape({inner}, (TN, TM))"))
        flipped = "row" if ty.shape == "col" else "col"
        inner = self.expr(TileType(ty.dtype, flipped), scope, depth)
        return f"ct.reshape({inner}, {_shape_text(ty.shape)})"

    def compare(self, ty: TileType, scope: Scope, depth: int) -> str:
        lt, rt = self.operands(ty)
        self.k.features.add("compare")
        return f"({self.expr(lt, scope, depth)} {self.c.pick(COMPARISONS)} " \
               f"{self.expr(rt, scope, depth)})"

    def bool_expr(self, ty: TileType, scope: Scope, depth: int) -> str:
        kind = self.c.weighted({"compare": 4, "logic": 1, "mask": 1, "beyond": self.beyond})
        if kind == "compare":
            return self.compare(TileType(self.c.pick(("float32", "int32", "float16")), ty.shape),
                                scope, depth - 1)
        if kind == "logic":
            lt, rt = self.operands(ty)
            return f"({self.expr(lt, scope, depth - 1)} {self.c.pick(('&', '|'))} " \
                   f"{self.expr(rt, scope, depth - 1)})"
        if kind == "mask" and ty.shape in ("row", "full"):
            self.k.features.add("mask")
            return f"((bn * TN + {self.arange('row')}) < n)"
        self.k.features.add("beyond")
        return self.c.pick(BEYOND_BOOL).format(a=self.expr(TileType("float32", ty.shape),
                                                           scope, depth - 1))

    def helper_call(self, ty: TileType, scope: Scope, depth: int) -> str:
        """A `@ct.function` of one or two tile parameters, defined for this call."""
        name = self.k.fresh("helper_")
        arity = self.c.pick((1, 2))
        params = [f"p{i}" for i in range(arity)]
        inner = Scope([(p, ty) for p in params])
        body = self._helper_body(ty, inner)
        self.k.helpers.append(f"@ct.function\ndef {name}({', '.join(params)}):\n"
                              f"    return {body}\n")
        self.k.features.add("helper")
        args = ", ".join(self.expr(ty, scope, depth) for _ in params)
        return f"{name}({args})"

    def _helper_body(self, ty: TileType, scope: Scope) -> str:
        if ty.is_float:
            fn = self.c.pick(FLOAT_UNARY)
            parts = [v for v, _ in scope.variables]
            op = self.c.pick(FLOAT_BINARY)
            return f"ct.{fn}({parts[0]}) {op} {parts[-1]}"
        return f"{scope.variables[0][0]} * 3 + {scope.variables[-1][0]}"

    # --- statements -------------------------------------------------------------------

    def assign(self, ty: TileType, scope: Scope, indent: str) -> str:
        name = self.k.fresh("v")
        self.k.body.append(f"{indent}{name} = {self.expr(ty, scope, self.depth)}")
        scope.variables.append((name, ty))
        return name

    def random_type(self) -> TileType:
        dtype = self.c.weighted({"float32": 5, "float16": 1.5, "int32": 2})
        shape = self.c.weighted({"full": 6, "col": 1.5, "row": 1.5, "tr": 0.7})
        return TileType(dtype, shape)

    def statement(self, scope: Scope) -> None:
        kind = self.c.weighted({"assign": 6, "if": 1.2, "loop": 1.2, "gather": 0.8,
                                "mma": 0.6})
        getattr(self, f"stmt_{kind}")(scope)

    def stmt_assign(self, scope: Scope) -> None:
        self.assign(self.random_type(), scope, "    ")

    def stmt_if(self, scope: Scope) -> None:
        ty = self.random_type()
        name = self.k.fresh("v")
        cond = self.c.pick(("FLAG", "not FLAG", "TM >= 16", "TN < 16", "TM == TN"))
        self.k.features.add("const-if")
        self.k.body.append(f"    if {cond}:")
        self.k.body.append(f"        {name} = {self.expr(ty, scope, self.depth)}")
        self.k.body.append("    else:")
        self.k.body.append(f"        {name} = {self.expr(ty, scope, self.depth)}")
        scope.variables.append((name, ty))

    def stmt_loop(self, scope: Scope) -> None:
        ty = TileType(self.c.weighted({"float32": 3, "int32": 1}), self.c.pick(("full", "col")))
        acc = self.k.fresh("acc")
        trips = self.c.pick(("2", "3", "ct.cdiv(n, TN)"))
        self.k.body.append(f"    {acc} = {self.expr(ty, scope, 1)}")
        self.k.body.append(f"    for i in range({trips}):")
        inner = scope.copy()
        array = self.c.pick(sorted(a for a in self.k.arrays if a.startswith("x")))
        tile = self.k.fresh("t")
        self.k.body.append(f"        {tile} = ct.load({array}, index=(bm, i), shape=(TM, TN), "
                           "padding_mode=ct.PaddingMode.ZERO)")
        loaded = tile if self.k.arrays[array] == ty.dtype else f"{tile}.astype(ct.{ty.dtype})"
        inner.variables.append((loaded, TileType(ty.dtype, "full")))
        step = self.expr(TileType(ty.dtype, "full"), inner, self.depth - 1)
        if ty.shape == "col":
            step = f"ct.sum({step}, axis=1, keepdims=True)"
        op = self.c.pick(("+", "*")) if ty.is_float else self.c.pick(("+", "^"))
        self.k.body.append(f"        {acc} = {acc} {op} {step}")
        self.k.features.add("loop")
        scope.variables.append((acc, ty))

    def stmt_gather(self, scope: Scope) -> None:
        array = self.c.pick(sorted(a for a in self.k.arrays if a.startswith("x")))
        dtype = self.k.arrays[array]
        rows = f"bm * TM + {self.arange('col')}"
        cols = f"bn * TN + {self.arange('row')}"
        if self.c.chance(0.4):
            rows = f"({rows} + {self.c.pick(('1', '-1', '3'))})"
        extra = ""
        if self.c.chance(0.5):
            extra += f", mask=({cols}) < n"
            self.k.features.add("mask")
        if self.c.chance(0.5):
            extra += f", padding_value={'2' if dtype == 'int32' else '-1.5'}"
        name = self.k.fresh("g")
        self.k.body.append(f"    {name} = ct.gather({array}, ({rows}, {cols}){extra})")
        self.k.features.add("gather")
        scope.variables.append((name, TileType(dtype, "full")))

    def stmt_mma(self, scope: Scope) -> None:
        if "a" not in self.k.arrays:
            operand = self.c.pick(("float16", "float32"))
            for array, dims in (("a", ["M", "K"]), ("b", ["K", "N"])):
                self.k.arrays[array] = operand
                self.k.array_dims[array] = dims
        acc = self.k.fresh("acc")
        self.k.body.append(f"    {acc} = ct.full((TM, TN), 0.0, dtype=ct.float32)")
        self.k.body.append("    for k in range(ct.cdiv(a.shape[1], TK)):")
        self.k.body.append("        ta = ct.load(a, index=(bm, k), shape=(TM, TK), "
                           "padding_mode=ct.PaddingMode.ZERO)")
        self.k.body.append("        tb = ct.load(b, index=(k, bn), shape=(TK, TN), "
                           "padding_mode=ct.PaddingMode.ZERO)")
        self.k.body.append(f"        {acc} = ct.mma(ta, tb, {acc})")
        self.k.features.add("mma")
        scope.variables.append((acc, TileType("float32", "full")))

    def stores(self, scope: Scope) -> None:
        out_dtype = self.k.arrays["y"]
        result = self.expr(TileType(self.c.pick(("float32", "int32", "float16")), "full"),
                           scope, self.depth)
        self.k.body.append(f"    ct.store(y, index=(bm, bn), "
                           f"tile=({result}).astype(ct.{out_dtype}))")
        rows = f"bm * TM + {self.arange('col')}"
        cols = f"bn * TN + {self.arange('row')}"
        if "w" in self.k.arrays:
            value = self.expr(TileType("float32", "full"), scope, self.depth - 1)
            mask = f", mask=({cols}) < n" if self.c.chance(0.5) else ""
            self.k.body.append(f"    ct.scatter(w, ({rows}, {cols}), {value}{mask})")
            self.k.features.add("scatter")
        if "z" in self.k.arrays:
            zdt = self.k.arrays["z"]
            op = self.c.pick(("atomic_add", "atomic_max", "atomic_min")) if zdt == "int32" \
                else "atomic_add"
            value = self.expr(TileType(zdt, "full"), scope, self.depth - 1)
            order = ", memory_order=RELAXED" if not self.c.chance(self.beyond) else ""
            if not order:
                self.k.features.add("beyond")
            self.k.body.append(f"    ct.{op}(z, ({rows}, {cols}), {value}{order})")
            self.k.features.add("atomic")

    # --- the file ---------------------------------------------------------------------

    def build(self, ident: str) -> GeneratedKernel:
        c = self.c
        count = c.between(1, 3)
        for i in range(count):
            self.k.arrays[f"x{i}"] = c.weighted(INPUT_DTYPES)
            self.k.array_dims[f"x{i}"] = ["M", "N"]
        self.k.arrays["y"] = c.weighted(OUTPUT_DTYPES)
        self.k.array_dims["y"] = ["M", "N"]
        if c.chance(0.2):
            self.k.arrays["w"] = "float32"
            self.k.array_dims["w"] = ["M", "N"]
        if c.chance(0.2):
            self.k.arrays["z"] = c.pick(("float32", "int32"))
            self.k.array_dims["z"] = ["M", "N"]
        scope = Scope()
        self.k.body += ["    bm = ct.bid(0)", "    bn = ct.bid(1)"]
        for i in range(count):
            name = f"v_x{i}"
            dtype = self.k.arrays[f"x{i}"]
            pad = c.weighted(PADDINGS) if dtype != "int32" else c.pick(("ZERO", ""))
            pad_text = f", padding_mode=ct.PaddingMode.{pad}" if pad else ""
            self.k.body.append(f"    {name} = ct.load(x{i}, index=(bm, bn), shape=(TM, TN)"
                               f"{pad_text})")
            scope.variables.append((name, TileType(dtype, "full")))
        for _ in range(c.between(1, 1 + c.size)):
            self.statement(scope)
        self.stores(scope)
        return self.file(ident)

    def file(self, ident: str) -> GeneratedKernel:
        c = self.c
        tm, tn, tk = c.pick((8, 16)), c.pick((8, 16, 32)), c.pick((8, 16))
        flag = c.pick((True, False))
        arrays = list(self.k.arrays)
        order = sorted(arrays, key=lambda a: ("xabywz".index(a[0]), a))
        consts = ["TM", "TN", "FLAG"] + (["TK"] if "a" in arrays else [])
        sig = ", ".join([*order, "n: int", *(f"{k}: ct.Constant[{'bool' if k == 'FLAG' else 'int'}]"
                                             for k in consts)])
        values = {"TM": tm, "TN": tn, "FLAG": flag, "TK": tk}
        head = ["import cuda.tile as ct", "import torch", "",
                "RELAXED = ct.MemoryOrder.RELAXED", *(f"{k}_VALUE = {values[k]}" for k in consts),
                "", ""]
        helpers = [h + "\n" for h in self.k.helpers]
        kernel = ["@ct.kernel", f"def {KERNEL}({sig}):", *self.k.body, "", ""]
        host_args = ", ".join([*order, "y.shape[1]", *(f"{k}_VALUE" for k in consts)])
        host = [f"def fuzz_launch({', '.join(order)}):",
                *(f"    assert {a}.dtype == torch.{d}" for a, d in self.k.arrays.items()),
                "    grid = (ct.cdiv(y.shape[0], TM_VALUE), ct.cdiv(y.shape[1], TN_VALUE), 1)",
                f"    ct.launch(torch.cuda.current_stream(), grid, {KERNEL}, ({host_args}))", ""]
        source = "\n".join(head) + "\n".join(helpers) + ("\n" if helpers else "") + \
            "\n".join(kernel) + "\n".join(host)
        entry: dict[str, object] = {a: {"dtype": self.k.arrays[a], "ndim": 2} for a in order}
        entry["n"] = {"scalar": "int32"}
        entry.update({k: values[k] for k in consts})
        sizes = [{"M": 2 * tm, "N": 2 * tn, "K": 2 * tk},
                 {"M": 2 * tm - 3, "N": tn + 5, "K": tk + 3},
                 {"M": 3, "N": 2, "K": 5}]
        entry["numeric"] = {"sizes": sizes,
                            "shapes": {a: self.k.array_dims[a] for a in order},
                            "grid": ["cdiv(M, TM)", "cdiv(N, TN)", 1],
                            "scalars": {"n": "N"}}
        return GeneratedKernel(ident, "cutile", source, {KERNEL: [entry]},
                               set(self.k.features))


def generate(seed: int, index: int, size: int = 3, beyond: float = 0.03) -> GeneratedKernel:
    """The `index`-th kernel of campaign `seed`."""
    return CutileGenerator(Chooser(seed, index, size), beyond).build(f"cutile-{seed}-{index}")
