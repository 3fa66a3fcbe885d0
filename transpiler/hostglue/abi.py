"""The launcher's C ABI: element-type codes, scalar types and the names it reserves.

Takes nothing; gives the tables the Rust launchers and the Python wrapper agree on with
`launcher/template/src/runtime.rs`: the `DT_*` code of each element type (a read of
`model/elements.py`), the torch dtype names host code may use, the element types a
dispatched dtype generic is built for, the C type of each scalar, and the identifiers the
generated code uses itself.
"""

from __future__ import annotations

from transpiler.model.elements import ABI_DTYPE_CODES, TORCH_ELEMENT_NAMES

#: Element types each dispatched dtype generic is built for (cutile names).
DEFAULT_ELEMENT_TYPES: tuple[str, ...] = ("f32", "f16", "bf16")

#: `DT_*` codes of runtime.rs, by cutile element name.
DTYPE_CODES: dict[str, int] = ABI_DTYPE_CODES

#: torch dtype attribute -> cutile element name (host code that names a dtype).
TORCH_DTYPES: dict[str, str] = TORCH_ELEMENT_NAMES

#: Rust type of a scalar parameter of the C ABI, by cutile element name.
RUST_SCALAR_C_TYPES = {"f32": "f32", "f64": "f64", "i32": "i32", "i64": "i64", "u32": "u32",
                       "u64": "u64", "i16": "i16", "i8": "i8", "u8": "u8", "u16": "u16",
                       "bool": "bool"}
#: Names the generated launchers use themselves: a parameter so named gets `_arg`.
RESERVED_NAMES = {"stream", "device", "context", "grid", "grid_x", "grid_y", "grid_z", "out",
                  "generics", "key", "op", "self", "Self", "crate", "super", "fast", "fast_key",
                  "packet", "spec", "probe", "resolve_generics", "tl_packet", "tl_reader"}
