"""Operands are lowered in source order (`KernelLowerer.in_order`): an operand left inline
must not run after a later operand's `let`s, since cuTile Python emits them left to right
and tileiras schedules by that order."""

from __future__ import annotations

import re
import textwrap

from transpiler.driver import translate_text

_HEADER = """
import cuda.tile as ct
import torch
"""


def _body(source: str) -> list[str]:
    result = translate_text(_HEADER + textwrap.dedent(source), "op.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert result.rust is not None
    return [line.strip() for line in result.rust.splitlines()]


def _index(lines: list[str], pattern: str) -> int:
    found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    assert found, pattern
    return found[0]


def test_mma_operands_keep_their_order() -> None:
    lines = _body("""
    @ct.kernel
    def weigh(w, v, out, N: ct.Constant[int], D: ct.Constant[int]):
        wt = ct.load(w, index=(0,), shape=(N,))
        vt = ct.load(v, index=(0, 0), shape=(N, D))
        acc = ct.mma(wt[None, :], ct.astype(vt, ct.float32), ct.zeros((1, D), dtype=ct.float32))
        ct.store(out, index=(0, 0), tile=acc)
    """)
    reshaped = _index(lines, r"= wt\.reshape\(const_shape!\[1, N\]\);")
    converted = _index(lines, r"= convert_tile\(vt\);")
    product = _index(lines, r"= mma\(")
    assert reshaped < converted < product


def test_inline_operand_without_later_lets_stays_inline() -> None:
    lines = _body("""
    @ct.kernel
    def axpy(x, y, TILE: ct.Constant[int]):
        a = ct.load(x, index=(0,), shape=(TILE,))
        b = ct.load(y, index=(0,), shape=(TILE,))
        ct.store(y, index=(0,), tile=a * 2.0 + b)
    """)
    assert not any(line.startswith("let arg_") for line in lines)


def test_left_operand_of_a_binary_op_runs_before_the_right_ones_lets() -> None:
    lines = _body("""
    @ct.kernel
    def centered(x, out, TILE: ct.Constant[int]):
        t = ct.load(x, index=(0, 0), shape=(1, TILE))
        ct.store(out, index=(0, 0), tile=ct.maximum(t + t, ct.sum(t, axis=1, keepdims=True)))
    """)
    doubled = _index(lines, r"^let arg_\d+: .* = t \+ t;")
    reduced = _index(lines, r"reduce_sum\(t, 1i32\)")
    assert doubled < reduced


def test_each_load_of_a_shared_view_after_the_first_has_its_own_view() -> None:
    # cuTile Rust's `load_view_tko` leaves its token in the view: a second load through the
    # same view would wait on the first, which cuTile Python's loads never do.
    lines = _body("""
    @ct.kernel
    def halves(x, y, TILE: ct.Constant[int]):
        a = ct.load(x, index=(0, 0), shape=(1, TILE))
        b = ct.load(x, index=(0, 1), shape=(1, TILE))
        ct.store(y, index=(0, 0), tile=a + b)
    """)
    views = [line for line in lines if re.match(r"let x_view_\d+: Partition<", line)]
    assert len(views) == 2
    loads = [lines[i + 1] for i, line in enumerate(lines) if line.endswith("load_view_tko(")]
    assert sorted(loads) == sorted(f"&{v.split(':')[0][4:]}," for v in views)
