"""The variant loop (transpiler/frontend/variants.py), its split requests (splits.py), the
syntax facts every variant shares (syntax_facts.py, cst_walk.py) and fma's returned request."""

from __future__ import annotations

import libcst as cst
import pytest

from transpiler.analysis import KernelAnalyzer
from transpiler.frontend.cst_walk import in_source_order, walk
from transpiler.frontend.cutile_py import parse_source
from transpiler.frontend.splits import ConstSplit, DtypeSplit
from transpiler.frontend.syntax_facts import SyntaxFacts, assigned_names
from transpiler.frontend.variants import (
    DEFAULT_VARIANT_DTYPES,
    Variant,
    analyze_kernel_variants,
    dtype_children,
)
from transpiler.lowering.fma import contract_fma
from transpiler.model import DType, KernelModel

# `.dtype` compared: the code depends on the launch-time element type of `x` (and `y`,
# which shares it); the host names float16 only.
DTYPE_KERNEL = '''
import cuda.tile as ct
import torch


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    if x.dtype == ct.float16:
        t = t * 2.0
    ct.store(y, index=(ct.bid(0),), tile=t)


def run(x):
    y = torch.empty_like(x, dtype=torch.float16)
    ct.launch(None, (1,), k, (x, y, 16))
'''

# A bool constant that selects which code exists: one variant per value.
FLAG_KERNEL = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, FLAG: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0),), shape=(16,))
    if FLAG:
        u = ct.reshape(t, (4, 4))
        ct.store(y, index=(ct.bid(0), 0), tile=u)
    else:
        ct.store(y, index=(ct.bid(0),), tile=t)
'''

# `acc + convert(a * b)` with `a * b` of the launch's element type: an fma exactly when the
# conversion is the identity.
FMA_KERNEL = '''
import cuda.tile as ct


@ct.kernel
def k(x, y):
    a = ct.load(x, index=(ct.bid(0),), shape=(16,))
    acc = ct.full((16,), 1.0, dtype=ct.float32)
    acc = acc + (a * a).astype(ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=acc)
'''


def _kernel(text: str):
    source = parse_source(text, "k.py")
    return source, source.kernels[0]


def test_a_dtype_dependent_kernel_gets_one_variant_per_host_and_default_dtype() -> None:
    source, kernel = _kernel(DTYPE_KERNEL)
    models = analyze_kernel_variants(source, kernel)
    got = [m.dtype_variant for m in models]
    # The host's float16 and the usual floats; a variant that fixes `y` too gives it the
    # dtype it gave `x` (no mixed-dtype combinations).
    assert sorted(v["x"] for v in got) == sorted({"float16", *DEFAULT_VARIANT_DTYPES})
    assert all(v.get("y", v["x"]) == v["x"] for v in got)


def test_a_bool_constant_that_selects_code_gets_one_variant_per_value() -> None:
    source, kernel = _kernel(FLAG_KERNEL)
    models = analyze_kernel_variants(source, kernel)
    assert [m.const_variant for m in models] == [{"FLAG": True}, {"FLAG": False}]


def test_the_analyzer_returns_the_split_as_a_value() -> None:
    source, kernel = _kernel(FLAG_KERNEL)
    outcome = KernelAnalyzer(source, kernel).run()
    assert isinstance(outcome, ConstSplit)
    assert outcome.params == ("FLAG",)
    # With the constant fixed, the same analysis gives a model.
    fixed = KernelAnalyzer(source, kernel, const_values={"FLAG": True}).run()
    assert isinstance(fixed, KernelModel)


def test_fma_returns_the_dtype_it_cannot_decide_and_the_loop_splits_on_it() -> None:
    source, kernel = _kernel(FMA_KERNEL)
    outcome = KernelAnalyzer(source, kernel).run()
    assert isinstance(outcome, DtypeSplit)
    assert "multiply-add" in outcome.what and "x" in outcome.params
    models = analyze_kernel_variants(source, kernel)
    by_dtype = {m.dtype_variant["x"]: m for m in models}
    assert set(by_dtype) >= {"float32", "float16"}
    # Contracted again, each variant has nothing left undecided.
    assert contract_fma(by_dtype["float32"]) == []


def test_a_variant_is_analyzed_once_whatever_order_fixed_its_facts() -> None:
    one = Variant({"x": DType("float16")}, {"A": True, "B": 2}, {})
    other = Variant({"x": DType("float16")}, {"B": 2, "A": True}, {})
    assert one.key() == other.key()
    assert one.key() != Variant({"x": DType("float32")}, {"A": True, "B": 2}, {}).key()


def test_dtype_children_follow_the_dtype_a_variant_already_fixed() -> None:
    request = DtypeSplit(("y",), "a dtype comparison", None)
    fresh, fresh_mixed = dtype_children(Variant(), request, ["int8"])
    assert [v.dtypes["y"].name for v in fresh] == ["int8", *DEFAULT_VARIANT_DTYPES]
    assert fresh_mixed == []
    fixed, mixed = dtype_children(Variant({"x": DType("bfloat16")}), request, ["int8"])
    assert [(v.dtypes["x"].name, v.dtypes["y"].name) for v in fixed] == [
        ("bfloat16", "bfloat16")]
    # A launch mixing element types: the dtypes the host code names, not the float guesses.
    assert [(v.dtypes["x"].name, v.dtypes["y"].name) for v in mixed] == [
        ("bfloat16", "int8")]


CODE = '''
def f(a, n):
    s = 0
    for i in range(n):
        if a:
            t, (u, v) = 1, (2, 3)
        s += i
    w: int = s if n else t
    return w
'''


def test_walk_reaches_every_node_a_visitor_reaches() -> None:
    module = cst.parse_module(CODE)
    seen: list[int] = []

    class Recorder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            seen.append(id(node))
            return True

    module.visit(Recorder())
    walked = [id(n) for n in walk(module)]
    assert sorted(walked) == sorted(seen) and len(walked) > 50


def test_assigned_names_through_nested_blocks_and_memoized_parts() -> None:
    source = parse_source(CODE, "f.py")
    fn = source.module.body[0]
    assert isinstance(fn, cst.FunctionDef)
    expected = {"s", "t", "u", "v", "w"}
    facts = SyntaxFacts(source)
    loop = fn.body.body[1]
    assert facts.assigned_names([loop]) == {"t", "u", "v", "s"}  # the inner part first
    assert facts.assigned_names(fn.body.body) == expected == assigned_names(fn.body.body)


def test_in_source_order_puts_an_ifexp_body_before_its_test() -> None:
    source = parse_source("x = A.b if C.d else E.f\n", "m.py")
    attrs = [n for n in walk(source.module) if isinstance(n, cst.Attribute)]
    ordered = [n.attr.value for n in in_source_order(attrs, source.span)]
    assert ordered == ["b", "d", "f"]


@pytest.mark.parametrize("text", [DTYPE_KERNEL, FLAG_KERNEL])
def test_shared_facts_change_nothing(text: str) -> None:
    source, kernel = _kernel(text)
    alone = analyze_kernel_variants(source, kernel)
    shared = analyze_kernel_variants(source, kernel, facts=SyntaxFacts(source))
    assert [(m.dtype_variant, m.const_variant) for m in alone] == [
        (m.dtype_variant, m.const_variant) for m in shared]
