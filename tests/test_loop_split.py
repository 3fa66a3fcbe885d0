"""Loop splitting (transpiler/lowering/loop_split.py): which loops become two."""

from __future__ import annotations

import pytest

from transpiler.driver import translate_bytes

KERNEL = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, n: int, TILE: ct.Constant[int]):
    pid = ct.bid(0)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for j in range({range}):
        t = ct.load(x, index=(j,), shape=(TILE,)).astype(ct.float32)
        {body}
        acc += t
    ct.store(y, index=(pid,), tile=acc.astype(y.dtype))
'''


def _loops(range_args: str, body: str) -> int:
    source = KERNEL.format(range=range_args, body=body)
    result = translate_bytes(source.encode(), "k.py")
    assert result.ok, result.diagnostics
    return (result.rust or "").count("for j in ")


@pytest.mark.parametrize("cond", ["j >= pid", "j > pid", "j < pid", "j <= pid", "pid > j",
                                  "pid <= j"])
def test_one_branch_on_the_index_against_an_invariant_splits(cond: str) -> None:
    assert _loops("0, n", f"if {cond}:\n            t = t * 0.5") == 2


@pytest.mark.parametrize("range_args, body", [
    # Step other than 1.
    ("0, n, 2", "if j >= pid:\n            t = t * 0.5"),
    # Two branches on the index.
    ("0, n", "if j >= pid:\n            t = t * 0.5\n        if j < n:\n"
             "            t = t * 2.0"),
    # A bound that is not a variable defined before the loop.
    ("0, n", "if j >= pid + 1:\n            t = t * 0.5"),
    # Not a comparison of the index.
    ("0, n", "if pid >= 2:\n            t = t * 0.5"),
    ("0, n", "if j == pid:\n            t = t * 0.5"),
])
def test_other_loops_stay_whole(range_args: str, body: str) -> None:
    assert _loops(range_args, body) == 1
