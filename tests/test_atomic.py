"""`ct.atomic_*` read-modify-write functions: typing (modes per element type, memory
order and scope, refused element types) and their Rust form (`atomic_rmw_tko`).

The IR of translated atomics is checked against cuTile Python's by the golden
`bucket_scatter` (tests/test_golden_ircheck.py) and by tests/test_ircheck_compare.py.
"""

from __future__ import annotations

import pytest

from transpiler.driver import translate_text

HEADER = ("import cuda.tile as ct\nimport torch\n\nRELAXED = ct.MemoryOrder.RELAXED\n\n\n"
          "@ct.kernel\n")
# Host code naming the element types a launch uses (the dtype variants come from it).
HOST = ("\n\ndef host(x):\n    y = torch.zeros(4, dtype=torch.{dtype}, device=x.device)\n"
        "    return y\n")


def _translate(body: str, dtype: str = "int32"):
    return translate_text(HEADER + body + HOST.format(dtype=dtype), "atomic_test.py")


def _rust(body: str, dtype: str = "int32") -> str:
    result = _translate(body, dtype)
    assert result.rust is not None, [d.message for d in result.all_diagnostics()]
    return result.rust


def _codes(body: str, dtype: str = "int32") -> list[tuple[str, str]]:
    result = _translate(body, dtype)
    assert result.rust is None
    return [(d.code, d.message) for d in result.all_diagnostics()]


COUNT = ("def k(bins, counts, T: ct.Constant[int]):\n"
         "    b = ct.load(bins, index=(ct.bid(0),), shape=(T,))\n"
         "    {call}\n")


def _count(*calls: str) -> str:
    """The counting kernel with `calls` as its last statements."""
    return COUNT.format(call="\n    ".join(calls))


def test_an_atomic_add_statement_is_an_atomic_rmw_with_a_bounds_mask() -> None:
    rust = _rust(_count("ct.atomic_add(counts, (b,), 1, memory_order=RELAXED)"))
    assert "let (_, _): (Tile<i32, { [T] }>, Token) = unsafe {" in rust
    assert "atomic_rmw_tko(" in rust
    for arg in ("atomic::Add,", "ordering::Relaxed,", "scope::Device,", "Some(in_bounds_"):
        assert arg in rust, arg


def test_the_old_values_are_the_value_of_an_atomic() -> None:
    rust = _rust(_count("old = ct.atomic_add(counts, (b,), 1, memory_order=RELAXED)",
                        "ct.store(bins, index=(ct.bid(0),), tile=old)"))
    assert "let (old_" in rust
    assert "let old: Tile<i32, { [T] }> = old_" in rust


def test_without_check_bounds_there_is_no_mask() -> None:
    rust = _rust(_count("ct.atomic_add(counts, (b,), 1, check_bounds=False, "
                                   "memory_order=RELAXED)"))
    assert "in_bounds" not in rust
    assert "None,\n                None,\n            )" in rust


@pytest.mark.parametrize("function, dtype, mode", [
    ("atomic_add", "float32", "AddF"),
    ("atomic_add", "int64", "Add"),
    ("atomic_max", "int32", "Max"),
    ("atomic_max", "uint32", "Umax"),
    ("atomic_min", "uint64", "Umin"),
    ("atomic_xchg", "float32", "Xchg"),
    ("atomic_or", "int32", "Or"),
])
def test_the_mode_follows_the_function_and_the_element_type(function: str, dtype: str,
                                                             mode: str) -> None:
    call = f"ct.atomic_{function[7:]}(counts, (b,), 1, memory_order=RELAXED)"
    if dtype.startswith("uint"):
        # The host code names no unsigned type: a bitwise atomic's update fixes it.
        pin = (f"ct.atomic_or(counts, (b,), ct.full((T,), 0, dtype=ct.{dtype}), "
               "memory_order=RELAXED)")
        rust = _rust(_count(pin, call), dtype)
    else:
        rust = _rust(_count(call), dtype)
    assert f"atomic::{mode}," in rust


def test_block_and_system_scopes() -> None:
    rust = _rust(_count("ct.atomic_add(counts, (b,), 1, memory_order=RELAXED, "
                        "memory_scope=ct.MemoryScope.BLOCK)",
                        "ct.atomic_add(bins, (b,), 1, memory_order=RELAXED, "
                        "memory_scope=ct.MemoryScope.SYS)"))
    assert "scope::TileBlock," in rust and "scope::System," in rust


def test_a_later_atomic_on_the_same_array_waits_on_the_earlier_one() -> None:
    rust = _rust(_count("ct.atomic_add(counts, (b,), 1, memory_order=RELAXED)",
                        "ct.atomic_xor(counts, (b,), 3, memory_order=RELAXED)"))
    assert "let (_, token_" in rust
    assert "Some(token_" in rust


def test_an_acquiring_or_releasing_atomic_orders_every_access_in_one_chain() -> None:
    # The default order is ACQ_REL: cuTile Python orders it against every memory access of
    # the block, on all arrays; the translation threads one token chain through them all.
    for call, order in (("ct.atomic_add(counts, (b,), 1)", "AcqRel"),
                        ("ct.atomic_add(counts, (b,), 1, memory_order=ct.MemoryOrder.ACQUIRE)",
                         "Acquire")):
        rust = _rust(_count(call, "ct.store(bins, index=(ct.bid(0),), tile=b + 1)"))
        assert f"ordering::{order}," in rust
        assert "let mut all_written: Token = new_token_unordered();" in rust
        # The load of `bins` joins the chain, the atomic waits on it, the store on the
        # atomic (another array: ordered only because the atomic acquires or releases).
        assert "all_accessed = join_tokens(&[all_accessed, load_token_" in rust
        atomic = rust.index("atomic_rmw_tko(")
        assert "Some(all_accessed)" in rust[atomic:atomic + 400]
        assert "all_written = token_" in rust
        store = rust.index("store_view_raw(")
        assert "Some(all_accessed)" in rust[store:store + 300]


def test_a_relaxed_atomic_keeps_the_per_array_order() -> None:
    rust = _rust(_count("ct.atomic_add(counts, (b,), 1, memory_order=RELAXED)",
                        "ct.store(bins, index=(ct.bid(0),), tile=b + 1)"))
    assert "all_written" not in rust


def test_compare_and_swap_in_a_spin_loop_is_evaluated_every_iteration() -> None:
    rust = _rust("def k(locks, x, T: ct.Constant[int]):\n"
                 "    while ct.atomic_cas(locks, 0, 0, 1, "
                 "memory_order=ct.MemoryOrder.ACQUIRE) == 1:\n"
                 "        pass\n"
                 "    ct.store(x, index=(0,), tile=ct.full((T,), 1, dtype=ct.int32))\n"
                 "    ct.atomic_xchg(locks, 0, 0, memory_order=ct.MemoryOrder.RELEASE)\n")
    loop = rust.index("loop {")
    cas = rust.index("atomic_cas_tko(")
    assert loop < cas < rust.index("break;")
    assert "ordering::Acquire," in rust and "ordering::Release," in rust
    assert "while " not in rust


def test_compare_and_swap_takes_only_32_and_64_bit_types() -> None:
    body = ("def k(flags, T: ct.Constant[int]):\n"
            "    ct.atomic_cas(flags, (ct.arange(T, dtype=ct.int32),), 0, 1, "
            "memory_order=RELAXED)\n")
    rust = _rust(body, "int16")
    assert "fn k_f32<" in rust and "fn k_i16<" not in rust
    assert "`ct.atomic_cas` does not take `int16` arrays" in rust
    codes = _codes("def k(flags, T: ct.Constant[int]):\n"
                   "    ct.store(flags, index=(0,), tile=ct.full((T,), 1, dtype=ct.int16))\n"
                   "    ct.atomic_cas(flags, (ct.arange(T, dtype=ct.int32),), 0, 1)\n")
    assert codes and codes[0][0] == "E0108" and "atomic_cas" in codes[0][1], codes


def test_an_ordered_atomic_with_array_slices_is_a_diagnostic() -> None:
    codes = _codes("def k(x, counts, T: ct.Constant[int]):\n"
                   "    s = x.slice(axis=0, start=0, stop=T)\n"
                   "    t = ct.load(s, index=(0,), shape=(T,))\n"
                   "    ct.atomic_add(counts, (t,), 1)\n")
    assert codes and codes[0][0] == "E0111" and "slice" in codes[0][1], codes


def test_an_element_type_the_function_does_not_take_is_refused() -> None:
    # Bitwise atomics take no float array (cuTile Python refuses them too); the update
    # fixes the array's type here.
    codes = _codes(COUNT.format(
        call="ct.atomic_and(counts, (b,), ct.full((T,), 1.0, dtype=ct.float32), "
             "memory_order=RELAXED)"))
    assert codes[0][0] == "E0108" and "float32" in codes[0][1], codes


def test_launches_with_a_refused_element_type_are_not_translated() -> None:
    # `atomic_max` takes integers: of the candidate element types only int32 remains.
    rust = _rust(_count("ct.atomic_max(counts, (b,), b, memory_order=RELAXED)"))
    assert "fn k_i32<" in rust and "fn k_f32<" not in rust
    assert "not translated for the element types that reach line 10: `ct.atomic_max` does " \
        "not take `float32` arrays" in rust


def test_a_narrowing_update_is_refused() -> None:
    codes = _codes(_count("ct.atomic_add(counts, (b,), ct.full((T,), 1.0, dtype=ct.float32), "
                          "memory_order=RELAXED)",
                          "ct.atomic_and(counts, (b,), b, memory_order=RELAXED)"))
    assert codes[0][0] == "E0108" and "wider" in codes[0][1], codes
