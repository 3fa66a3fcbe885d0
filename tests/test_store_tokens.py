"""Which stores the translation chains through a token, as cuTile Python's token order does
(tests of `transpiler.lowering.store_tokens` through the whole pipeline)."""

from __future__ import annotations

import re
import textwrap

from transpiler.driver import translate_text

_HEADER = """
import cuda.tile as ct
import torch
"""


def _rust(body: str) -> str:
    result = translate_text(_HEADER + textwrap.dedent(body), "op.py")
    assert result.ok, [d.message for d in result.all_diagnostics()]
    assert result.rust is not None
    return result.rust


def _chained(rust: str) -> set[str]:
    """Arrays whose stores go through `store_view_raw` with their token."""
    return set(re.findall(r"let mut \w+: Token = get_tensor_token\((\w+)\)", rust))


def test_store_at_the_loop_index_stays_unordered() -> None:
    rust = _rust("""
    @ct.kernel
    def copy_tiles(x, y, TILE: ct.Constant[int]):
        for j in range(ct.num_tiles(x, axis=0, shape=(TILE,))):
            ct.store(y, index=(j,), tile=ct.load(x, index=(j,), shape=(TILE,)))
    """)
    assert _chained(rust) == set()
    assert "store_view_tko_mut(" in rust and "store_view_raw" not in rust


def test_store_at_a_computed_index_is_chained() -> None:
    rust = _rust("""
    @ct.kernel
    def shifted(x, y, base: int, TILE: ct.Constant[int]):
        for j in range(4):
            t = ct.load(x, index=(j,), shape=(TILE,))
            ct.store(y, index=(base + j,), tile=t)
    """)
    assert _chained(rust) == {"y"}
    assert re.search(r"y_token = unsafe \{\s*store_view_raw\(\s*&y_out_\d+,", rust)
    assert "Some(y_token)" in rust


def test_store_under_an_if_in_a_loop_is_chained() -> None:
    rust = _rust("""
    @ct.kernel
    def some_tiles(x, y, keep: int, TILE: ct.Constant[int]):
        for j in range(4):
            t = ct.load(x, index=(j,), shape=(TILE,))
            if ct.bid(0) < keep:
                ct.store(y, index=(j,), tile=t)
    """)
    assert _chained(rust) == {"y"}


def test_second_access_in_the_loop_makes_the_store_chained() -> None:
    rust = _rust("""
    @ct.kernel
    def in_place(x, TILE: ct.Constant[int]):
        for j in range(4):
            t = ct.load(x, index=(j,), shape=(TILE,))
            ct.store(x, index=(j,), tile=t * 2)
    """)
    assert _chained(rust) == {"x"}


def test_stores_outside_loops_are_left_alone() -> None:
    rust = _rust("""
    @ct.kernel
    def once(x, y, TILE: ct.Constant[int]):
        ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))
    """)
    assert _chained(rust) == set()


def test_token_name_avoids_a_kernel_variable() -> None:
    rust = _rust("""
    @ct.kernel
    def named(x, y, TILE: ct.Constant[int]):
        y_token = ct.bid(0)
        for j in range(4):
            ct.store(y, index=(j + y_token,), tile=ct.load(x, index=(j,), shape=(TILE,)))
    """)
    assert "let mut y_token_: Token = get_tensor_token(y);" in rust


def test_loads_of_a_chained_array_wait_on_its_last_store() -> None:
    rust = _rust("""
    @ct.kernel
    def running(x, TILE: ct.Constant[int]):
        for j in range(1, 8):
            prev = ct.load(x, index=(j - 1,), shape=(TILE,))
            ct.store(x, index=(j,), tile=prev * 2)
    """)
    assert "let mut x_access: Token = x_token;" in rust
    load = re.search(r"load_view_raw\(\s*&x_view_\d+,\s*\[j - 1i32\],\s*Some\(x_token\),", rust)
    assert load is not None
    assert re.search(r"x_access = join_tokens\(&\[x_access, load_token_\d+\]\);", rust)
    assert re.search(r"store_view_raw\([^;]*Some\(x_access\),", rust, re.S)
    assert "x_access = x_token;" in rust


def test_loads_of_an_array_never_chained_stay_plain() -> None:
    rust = _rust("""
    @ct.kernel
    def copy_tiles(x, y, TILE: ct.Constant[int]):
        for j in range(4):
            ct.store(y, index=(j,), tile=ct.load(x, index=(j,), shape=(TILE,)))
    """)
    assert "load_view_raw" not in rust and "load_view_tko(" in rust


def test_store_after_a_load_of_the_same_array_outside_loops_is_chained() -> None:
    # The store must not overtake the load: the stored value does not depend on it.
    rust = _rust("""
    @ct.kernel
    def swap_in(x, y, TILE: ct.Constant[int]):
        old = ct.load(x, index=(0,), shape=(TILE,))
        ct.store(x, index=(0,), tile=ct.zeros((TILE,), dtype=x.dtype))
        ct.store(y, index=(0,), tile=old)
    """)
    assert _chained(rust) == {"x"}
    assert re.search(r"x_access = join_tokens\(&\[x_access, load_token_\d+\]\);", rust)
    assert "Some(x_access)" in rust


def test_the_only_access_outside_loops_stays_unordered() -> None:
    rust = _rust("""
    @ct.kernel
    def fill(y, TILE: ct.Constant[int]):
        ct.store(y, index=(ct.bid(0),), tile=ct.zeros((TILE,), dtype=y.dtype))
    """)
    assert _chained(rust) == set()
