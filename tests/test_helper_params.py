"""Helper parameters are the helper's own variables (transpiler/analysis.py): Python passes
values, so a helper that rebinds a parameter never changes the caller's variable."""

from __future__ import annotations

import pytest

from transpiler.driver import translate_bytes

KERNEL = '''
import cuda.tile as ct


def _repeat(a, steps):
    for _ in range(steps):
        a = a * a + 1.0
    return a


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    p = ct.load(x, index=(ct.bid(0), 0), shape=(1, TILE)).astype(ct.float32)
    q = _repeat({arg}, 3)
    ct.store(y, index=(ct.bid(0), 0), tile=(q + p).astype(y.dtype))
'''


def _rust(arg: str) -> str:
    result = translate_bytes(KERNEL.format(arg=arg).encode(), "k.py")
    assert result.ok, result.diagnostics
    return result.rust or ""


@pytest.mark.parametrize("arg", ["p", "p * 0.5"])
def test_a_loop_in_the_helper_carries_a_copy_of_the_argument(arg: str) -> None:
    rust = _rust(arg)
    # The loop reassigns the helper's local, declared `mut` before it ...
    assert "let mut repeat_a" in rust
    assert "repeat_a = fma(" in rust
    # ... and the caller's `p`, read after the call, is never reassigned.
    assert "let mut p" not in rust
    assert "\n        p = " not in rust
