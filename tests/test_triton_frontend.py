"""The Triton front end and the front-end dispatch: language detection, `--from`, a file
holding both languages, Triton's semantics in the typed model, diagnostics at the construct."""

from __future__ import annotations

import pytest

from specialization.manifest import parse_manifests, read_manifests
from transpiler.driver import front_ends_for, translate_text
from transpiler.frontend.triton import TritonFrontEnd
from transpiler.model import TileType, statement_exprs

HEADER = "import triton\nimport triton.language as tl\n\n\n"


def _kernel(body: str, params: str = "x_ptr, y_ptr, n, BLOCK: tl.constexpr") -> str:
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    return f"{HEADER}@triton.jit\ndef k({params}):\n{lines}\n"


def _models(text: str) -> list:
    front = TritonFrontEnd()
    source = front.parse(text, "k.py")
    return [m for kernel in source.kernels for m in front.analyze(source, kernel, False)]


def _ops(text: str) -> list[str]:
    out = []
    for model in _models(text):
        stack = list(statement_exprs(model.body))
        while stack:
            e = stack.pop()
            out.append(e.op)
            stack.extend(e.args)
    return out


def test_detects_the_language_by_imports() -> None:
    assert [f.name for f in front_ends_for(HEADER)] == ["triton"]
    assert [f.name for f in front_ends_for("import cuda.tile as ct\n")] == ["cutile"]
    both = "import cuda.tile as ct\nimport triton\n"
    assert [f.name for f in front_ends_for(both)] == ["cutile", "triton"]
    assert [f.name for f in front_ends_for(both, "triton")] == ["triton"]


def test_a_file_may_hold_both_languages() -> None:
    text = ("import cuda.tile as ct\n" + HEADER + "@ct.kernel\ndef c(x, y, T: ct.Constant[int]):"
            "\n    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), "
            "shape=(T,)))\n\n\n@triton.jit\ndef t(x_ptr, y_ptr, B: tl.constexpr):\n"
            "    o = tl.arange(0, B)\n    tl.store(y_ptr + o, tl.load(x_ptr + o))\n")
    result = translate_text(text, "both.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert [k.name for k in result.kernels] == ["c", "t"]
    assert "unsafe fn t<" in (result.rust or "") and "fn c<" in (result.rust or "")


def test_triton_only_file_without_kernel_says_so() -> None:
    result = translate_text(HEADER + "X = 1\n", "none.py")
    assert [d.code for d in result.diagnostics] == ["E0003"]
    assert "@triton.jit" in result.diagnostics[0].message


def test_aliases_of_triton_and_language_are_resolved() -> None:
    text = ("import triton as tr\nfrom triton import language as L\n\n\n@tr.jit\n"
            "def k(p, B: L.constexpr):\n    L.store(p + L.arange(0, B), 1.0)\n")
    assert translate_text(text, "a.py").ok


def test_integer_division_truncates_and_true_division_is_float() -> None:
    ops = _ops(_kernel("""
o = tl.arange(0, BLOCK)
a = tl.load(x_ptr + o).to(tl.int32)
tl.store(y_ptr + o, (a // 3 + a % 3).to(tl.float32) + a / 2)
"""))
    assert "div_trunc" in ops and "rem_trunc" in ops
    assert ops.count("binary") >= 2


def test_f32_dot_is_tf32_unless_ieee() -> None:
    body = """
a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]).to(tl.float32)
c = tl.dot(a, a{})
tl.store(y_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)
"""
    def converts(precision: str) -> list[object]:
        dtypes = []
        for model in _models(_kernel(body.format(precision))):
            stack = list(statement_exprs(model.body))
            while stack:
                e = stack.pop()
                if e.op == "convert":
                    dtypes.append(getattr(e.type.dtype, "name", None))
                stack.extend(e.args)
        return dtypes

    assert "tfloat32" in converts("")
    assert "tfloat32" not in converts(', input_precision="ieee"')


def test_max_ignores_nan_and_arange_is_i32() -> None:
    models = _models(_kernel("""
o = tl.arange(0, BLOCK)
x = tl.load(x_ptr + o)
tl.store(y_ptr + o, tl.maximum(x, 0.0))
"""))
    found = []
    for model in models:
        for e in statement_exprs(model.body):
            stack = [e]
            while stack:
                node = stack.pop()
                if node.op == "binary" and node.attrs.get("op") == "maximum":
                    found.append(node.attrs["nan"])
                if node.op == "arange":
                    assert isinstance(node.type, TileType) and node.type.dtype.name == "int32"
                stack.extend(node.args)
    assert found and not any(found)


def test_stores_chain_through_tokens_per_pointer() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
for i in range(n):
    v = tl.load(y_ptr + o)
    tl.store(y_ptr + o, v + tl.load(x_ptr + o))
""")
    rust = translate_text(text, "k.py").rust or ""
    assert "y_ptr_written" in rust and "y_ptr_accessed" in rust
    assert "x_ptr_written" not in rust


@pytest.mark.parametrize(("body", "code", "column"), [
    ("tl.store(y_ptr, libdevice.erf(tl.load(x_ptr)))", "E0120", 21),
    ("tl.store(y_ptr, tl.inline_asm_elementwise('mov', '=r', [n], tl.int32, True, 1))",
     "E0120", 21),
    ("tl.store(y_ptr, tl.rand(n, 0))", "E0121", 21),
    ("tl.store(y_ptr, tl.no_such_fn(n))", "E0122", 21),
    ("while n > 0:\n    n -= 1\nelse:\n    n = 0", "E0104", 5),
])
def test_unsupported_constructs_are_diagnostics_at_their_column(body: str, code: str,
                                                               column: int) -> None:
    text = _kernel(body).replace("import triton.language as tl\n", "import triton.language as "
                                 "tl\nfrom triton.language.extra import libdevice\n")
    result = translate_text(text, "k.py")
    assert not result.ok
    (diag,) = result.all_diagnostics()
    assert diag.code == code, diag.message
    assert diag.span is not None and diag.span.line == 8 and diag.span.col + 1 == column


@pytest.mark.parametrize("loop", ["for i in range(n):", "while n > 0:"])
@pytest.mark.parametrize("jump", ["break", "continue"])
def test_break_and_continue_are_diagnostics_as_in_tritons_compiler(loop: str,
                                                                   jump: str) -> None:
    # Triton's compiler rejects both (only its interpreter runs them).
    text = _kernel(f"""
{loop}
    if n > 3:
        {jump}
""")
    result = translate_text(text, "k.py")
    (diag,) = result.all_diagnostics()
    assert not result.ok and diag.code == "E0104" and "Triton's compiler" in diag.message


def test_stores_in_a_while_loop_chain_through_tokens() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
i = 0
while i < n:
    tl.store(y_ptr + o, tl.load(y_ptr + o) + tl.load(x_ptr + o))
    i += 1
""")
    rust = translate_text(text, "k.py").rust or ""
    assert "while i < n {" in rust
    assert "y_ptr_written" in rust and "x_ptr_written" not in rust


def test_a_while_condition_that_loads_is_tested_inside_the_loop() -> None:
    text = _kernel("""
i = 0
while tl.load(x_ptr + i) > 0.0:
    i += 1
tl.store(y_ptr, i)
""")
    rust = translate_text(text, "k.py").rust or ""
    body = rust[rust.index("loop {"):]
    assert body.index("load_ptr_tko") < body.index("break;")


def test_a_string_constexpr_is_a_diagnostic_not_a_comparison() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
x = tl.load(x_ptr + o)
if ACT == "relu":
    x = tl.maximum(x, 0.0)
tl.store(y_ptr + o, x)
""", params="x_ptr, y_ptr, ACT: tl.constexpr, BLOCK: tl.constexpr")
    result = translate_text(text, "k.py")
    assert not result.ok and [d.code for d in result.all_diagnostics()] == ["E0123"]


def test_a_string_constexpr_gets_one_entry_per_launch_value() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
x = tl.load(x_ptr + o)
if ACT == "relu":
    x = tl.maximum(x, 0.0)
tl.store(y_ptr + o, x)
""", params="x_ptr, y_ptr, ACT: tl.constexpr, BLOCK: tl.constexpr") + """

def run(x, y, act):
    k[(1,)](x, y, ACT=act, BLOCK=128)


def both(x, y):
    run(x, y, "relu")
    run(x, y, None)
"""
    result = translate_text(text, "k.py", jit_facts=False)
    assert result.ok, [d.message for d in result.all_diagnostics()]
    (kernel,) = result.kernels
    assert [(v["entry"], v["const_variant"]) for v in kernel.variants] == [
        ("k_act_none", {"ACT": None}), ("k_act_relu", {"ACT": "relu"})]
    relu, none = result.rust.split("fn k_act_relu")[1], result.rust.split("fn k_act_none")[1]
    assert "max" in relu.split("fn ")[0] and "max" not in none.split("fn ")[0]


def test_a_choice_on_a_condition_gets_an_entry_per_outcome() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
width = BLOCK if W == 0 else W
tl.store(y_ptr + o, tl.load(x_ptr + o) * width)
""", params="x_ptr, y_ptr, W: tl.constexpr, BLOCK: tl.constexpr")
    result = translate_text(text, "k.py", jit_facts=False)
    assert result.ok, [d.message for d in result.all_diagnostics()]
    conditions = [v["conditions"] for v in result.kernels[0].variants]
    assert conditions == [[{"text": "W == 0", "tree": ["==", ["param", "W"], 0], "value": v}]
                          for v in (True, False)]


def test_isinstance_of_a_pointer_and_a_descriptor_is_false() -> None:
    text = _kernel("""
if isinstance(x_ptr, tl.tensor_descriptor):
    tl.store(y_ptr, 1)
else:
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)))
""")
    result = translate_text(text, "k.py")
    # The else branch: a load of `x_ptr` (raised to a view, or a pointer tile).
    rust = result.rust or ""
    assert result.ok and ("load_ptr_tko" in rust or "load_view_raw" in rust)


def test_a_loaded_index_gives_one_entry_per_index_type() -> None:
    text = _kernel("""
row = tl.load(x_ptr + tl.program_id(0))
o = tl.arange(0, BLOCK)
tl.store(y_ptr + o, tl.load(y_ptr + row * n + o))
""")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert "fn k_i32<" in (result.rust or "") and "fn k_i64<" in (result.rust or "")


def test_bool_casts_are_zero_or_one_and_int1_is_not_equal_zero() -> None:
    ops = _ops(_kernel("""
o = tl.arange(0, BLOCK)
m = o < n
x = tl.load(x_ptr + o).to(tl.float32)
tl.store(y_ptr + o, m.to(tl.float32) + x.to(tl.int1).to(tl.float32))
"""))
    assert ops.count("where") == 2
    assert ops.count("compare") == 2


def test_jit_specializations_are_recorded_per_argument_in_the_manifest() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n) * scale, mask=o < m)
""", params="x_ptr, y_ptr, n, m, scale: tl.float32, BLOCK: tl.constexpr").replace(
        "@triton.jit", "@triton.jit(do_not_specialize=['m'], "
        "do_not_specialize_on_alignment=['y_ptr'])")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    entry, manifest = next(iter(read_manifests(result.rust or "").items()))
    keys = {p["name"]: [j["key"] for j in p.get("jit", [])] for p in manifest["params"]}
    assert keys == {"x_ptr": ["D"], "y_ptr": [], "n": ["1", "D"], "m": [], "scale": [],
                    "BLOCK": []}
    (n,) = [p for p in manifest["params"] if p["name"] == "n"]
    assert n["jit"][1] == {"key": "D", "when": ["==", ["%", ["arg"], 16], 0],
                           "fact": "div_by 16"}
    typed = parse_manifests(result.rust or "")
    assert [j.key for j in typed[entry].params[2].jit] == ["1", "D"]
    assert typed[entry].to_json() == manifest  # the typed form keeps the text exactly


def test_module_constants_fold_tl_constexpr_and_python_math() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
m = tl.full([BLOCK], NEG * n, dtype=tl.float32)
tl.store(y_ptr + o, tl.load(x_ptr + o) * INV_LOG_2 + m)
""").replace("@triton.jit", "import math\nINV_LOG_2 = tl.constexpr(1.0 / math.log(2))\n"
             "NEG = -2.0\n\n\n@triton.jit")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert "1.442695" in (result.rust or "")  # 1 / ln 2, folded
    assert "broadcast_scalar" in (result.rust or "")  # a runtime fill value is splat


def test_bitwise_not_of_a_tile_is_a_xor_with_all_ones() -> None:
    # cuTile Rust 0.5.0's compiler has no `cuda_tile.noti`: Triton's own `x ^ ~0`.
    text = _kernel("o = tl.arange(0, BLOCK)\nx = tl.load(x_ptr + o)\n"
                   "tl.store(y_ptr + o, ~x)\ntl.store(y_ptr + o, tl.where(~(x < 0), x, 0))")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    rust = result.rust or ""
    assert "noti" not in rust and "constant(-1i32" in rust and "constant(true" in rust
    assert "unsafe fn k_i32<" in rust and "unsafe fn k_i64<" in rust


def test_bitwise_not_of_a_float_tile_is_a_diagnostic() -> None:
    text = _kernel("o = tl.arange(0, BLOCK)\nx = tl.load(x_ptr + o).to(tl.float32)\n"
                   "tl.store(y_ptr + o, ~x)")
    result = translate_text(text, "k.py")
    assert not result.ok


def test_a_pointer_from_an_integer_is_a_diagnostic_naming_why() -> None:
    text = _kernel("p = tl.load(x_ptr).to(tl.pointer_type(tl.float16))\n"
                   "tl.store(p + tl.arange(0, BLOCK), 1.0)")
    result = translate_text(text, "k.py")
    assert not result.ok
    (diag,) = result.all_diagnostics()
    assert diag.code == "E0121" and "int_to_ptr" in diag.message and "alias" in diag.message


GUARDED_IMPORT = """import triton
import triton.language as tl

if triton.__version__ >= "3":
    try:
        from triton.language.extra.libdevice import tanh as th
    except ModuleNotFoundError:
        from triton.language.extra.cuda.libdevice import tanh as th
else:
    from triton.language.math import tanh as th


@triton.jit
def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y_ptr + o, th(tl.load(x_ptr + o)))
"""


def test_libdevice_function_imported_under_a_guard_is_resolved() -> None:
    result = translate_text(GUARDED_IMPORT, "g.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert "tanh(" in (result.rust or "")


def test_unknown_bare_function_is_still_a_diagnostic() -> None:
    text = GUARDED_IMPORT.replace("th(tl.load", "erfcx(tl.load")
    result = translate_text(text, "g.py")
    assert [d.code for d in result.all_diagnostics()] == ["E0105"]


def _loop_rust(body: str, params: str = "x_ptr, y_ptr, n, BLOCK: tl.constexpr") -> str:
    result = translate_text(_kernel(body, params), "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    return result.rust or ""


def test_a_loop_with_a_negative_constant_step_counts_a_counter_up() -> None:
    rust = _loop_rust("""
acc = 0
for t in range(n, 2, -3):
    acc += t
tl.store(y_ptr, acc)
""")
    # cuTile Rust's `for` counts up: a counter over the trip count, `t = n - i * 3`.
    assert "for t_index in 0i32.." in rust
    assert "step_by" not in rust
    assert "n - t_index * 3i32" in rust


def test_a_negative_step_over_a_tile_extent_needs_no_entry_per_sign() -> None:
    rust = _loop_rust("""
o = tl.arange(0, BLOCK)
acc = tl.zeros((BLOCK,), dtype=tl.float32)
for s in range(n, -1, -BLOCK):
    acc += tl.load(x_ptr + s + o, mask=s + o < n, other=0.0)
tl.store(y_ptr + o, acc)
""")
    assert "step_by" not in rust and "_when_" not in rust and "s_index * BLOCK" in rust


def test_a_step_of_unknown_sign_gets_an_entry_per_sign() -> None:
    rust = _loop_rust("""
acc = 0
for t in range(0, n, STEP):
    acc += t
tl.store(y_ptr, acc)
""", "x_ptr, y_ptr, n, STEP: tl.constexpr")
    manifests = list(read_manifests(rust).values())
    conditions = sorted(str(c) for m in manifests for c in m.get("conditions", []))
    assert len(manifests) == 2 and conditions, conditions
    # The entry for a negative step counts down; the other steps up by STEP.
    assert "t_index" in rust and "step_by" in rust


def test_a_loop_bound_read_through_a_generic_pointer_gets_integer_entries() -> None:
    rust = _loop_rust("""
m = tl.load(x_ptr)
acc = 0
for t in range(0, m):
    acc += 1
tl.store(y_ptr, acc)
""")
    entries = [m["entry"] for m in read_manifests(rust).values()]
    assert entries == ["k_i32", "k_i64"], entries
    # An i64 loop states its step as a bare literal (the compiler types it as the start).
    assert "for t in 0i32..m {" in rust and "for t in (0i64..m).step_by(1) {" in rust


def test_a_loop_over_int64_bounds_with_a_runtime_step_is_a_counted_loop() -> None:
    rust = _loop_rust("""
m = tl.load(x_ptr).to(tl.int64)
acc = 0
for t in range(0, m, n):
    acc += 1
tl.store(y_ptr, acc)
""")
    # cuTile Rust's `step_by` takes an i32 step only: the counter is stepped by hand, the
    # bounds evaluated once before the loop.
    assert "step_by" not in rust and "let mut t: i64 = 0i64;" in rust
    assert "if t < stop {" in rust and "t = t + step;" in rust


def test_a_counted_loop_whose_body_assigns_its_variable_is_a_diagnostic() -> None:
    text = _kernel("""
m = tl.load(x_ptr).to(tl.int64)
acc = 0
for t in range(0, m, n):
    t = t + 1
    acc += 1
tl.store(y_ptr, acc)
""")
    result = translate_text(text, "k.py")
    assert [d.code for d in result.all_diagnostics()] == ["E0110"]
    assert "int64" in result.all_diagnostics()[0].message


def test_is_none_of_a_constexpr_folds_and_is_of_other_values_is_refused() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
if SCALE is None:
    tl.store(y_ptr + o, tl.load(x_ptr + o))
""", "x_ptr, y_ptr, SCALE: tl.constexpr = None, BLOCK: tl.constexpr = 64")
    assert translate_text(text, "k.py").ok
    bad = _kernel("""
o = tl.arange(0, BLOCK)
if x_ptr is y_ptr:
    tl.store(y_ptr + o, 1.0)
""")
    result = translate_text(bad, "k.py")
    assert [d.code for d in result.all_diagnostics()] == ["E0104"]


def test_a_float_constexpr_that_selects_code_names_its_entry() -> None:
    text = _kernel("""
o = tl.arange(0, BLOCK)
x = tl.load(x_ptr + o)
if BETA == 0.0:
    x = x * 2.0
tl.store(y_ptr + o, x * BETA)
""", "x_ptr, y_ptr, BETA: tl.constexpr, BLOCK: tl.constexpr") + (
        "\n\ndef run(x, y):\n    k[(1,)](x, y, BETA=-0.5, BLOCK=64)\n"
        "    k[(1,)](x, y, BETA=1e-06, BLOCK=64)\n")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    entries = sorted(m["entry"] for m in read_manifests(result.rust or "").values())
    assert [e for e in entries if not e.endswith("_jit")] == ["k_beta_1em06", "k_beta_m0p5"]


def test_a_pointer_moved_in_one_arm_of_a_constexpr_if_is_still_a_pointer() -> None:
    text = _kernel("""
pid = tl.program_id(0)
if FLAG:
    y_ptr += pid
o = tl.arange(0, BLOCK)
tl.store(x_ptr + o, 1.0)
if FLAG:
    tl.store(y_ptr, 2.0)
""", "x_ptr, y_ptr, FLAG: tl.constexpr, BLOCK: tl.constexpr")
    result = translate_text(text, "k.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert "y_ptr: *mut" in (result.rust or "")


def test_a_scalar_accumulates_a_zero_dimensional_tensor() -> None:
    # `acc = 0.0; acc += tl.sum(x, axis=0)`: a 0-d tensor is Triton's scalar (it compiles).
    rust = _loop_rust("""
acc = 0.0
o = tl.arange(0, BLOCK)
for i in range(0, n):
    acc += tl.sum(tl.load(x_ptr + i * BLOCK + o), axis=0)
tl.store(y_ptr, acc)
""")
    assert "let mut acc: f32" in rust


def test_a_jit_function_passed_as_a_combiner_is_a_helper_not_a_kernel() -> None:
    text = HEADER + (
        "@triton.jit\ndef _add(a, b):\n    return a + b\n\n\n"
        "@triton.jit\ndef k(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(y_ptr + offs, tl.associative_scan(tl.load(x_ptr + offs), 0, _add))\n")
    source = TritonFrontEnd().parse(text, "k.py")
    assert [k.name for k in source.kernels] == ["k"]
    result = translate_text(text, "k.py")
    assert [(d.code, d.kernel) for d in result.all_diagnostics()] == [("E0121", "k")]


def test_calling_an_element_type_is_a_diagnostic_as_in_triton() -> None:
    result = translate_text(_kernel("""
m = tl.float32(0.0)
tl.store(y_ptr, m)
"""), "k.py")
    (diagnostic,) = result.all_diagnostics()
    assert diagnostic.code == "E0122" and "not callable" in diagnostic.message
    assert "`.to(tl.float32)`" in diagnostic.message


def test_a_none_test_after_a_nested_exit_sees_the_pointer_parameter() -> None:
    text = _kernel("""
if MASK is not None:
    keep = tl.load(MASK)
    if keep == 0:
        return
if x_ptr is None:
    v = 0.0
else:
    x_ptr += 1
    v = tl.load(x_ptr)
tl.store(y_ptr, v)
""", "x_ptr, y_ptr, MASK")
    entries = [m["entry"] for m in read_manifests(translate_text(text, "k.py").rust or "")
               .values()]
    # Both pointers taken as None or as tensors: four entries, none refused.
    assert len([e for e in entries if not e.endswith("_jit")]) == 4, entries
