"""The specializations Triton's JIT makes on runtime arguments, as data for the manifest.

Takes a kernel parameter's kind (an integer scalar or a pointer) and the kernel's
`@triton.jit(do_not_specialize=..., do_not_specialize_on_alignment=...)` lists; gives the
keys Triton 3.9 compiles separately for (`runtime/jit.py`'s `specialize_impl`): an integer
equal to 1 becomes the constant 1, an integer divisible by 16 and a pointer aligned to 16
bytes carry `tt.divisibility = 16`. Each key is (key, condition tree over the argument,
fact): the Rust entry is correct for every value (it assumes none of these), and the host
glue or the proof can dispatch on the condition and state the fact (`assume_div_by`).
An entry translated under some of these facts records each key's condition with the argument
named (`specialization.manifest.bound_condition`: `["arg", NAME]`) in its manifest.
"""

from __future__ import annotations

# key, condition over the argument (["arg"] is its value; for a pointer its address in
# bytes), the fact Triton's compiler assumes when the condition holds.
INT_KEYS: tuple[tuple[str, object, str], ...] = (
    ("1", ["==", ["arg"], 1], "equals 1 (compiled as a constant)"),
    ("D", ["==", ["%", ["arg"], 16], 0], "div_by 16"),
)
POINTER_KEYS: tuple[tuple[str, object, str], ...] = (
    ("D", ["==", ["%", ["arg"], 16], 0], "div_by 16 (bytes)"),
)


def jit_keys(kind: str, name: str, index: int, unspecialized: set[str | int],
             unaligned: set[str | int]) -> tuple[tuple[str, object, str], ...]:
    """The JIT's keys for one parameter (`kind` "int" or "pointer"), without those the
    kernel's `do_not_specialize` / `do_not_specialize_on_alignment` turn off."""
    if name in unspecialized or index in unspecialized:
        return ()
    if kind == "pointer":
        return () if name in unaligned or index in unaligned else POINTER_KEYS
    if name in unaligned or index in unaligned:
        return INT_KEYS[:1]
    return INT_KEYS

