"""The element-type table: one row per element type a kernel value can have.

Takes nothing; gives `ELEMENTS`, one `ElementType` per type with every name it goes by (the
model's, the target's, the host libraries', the Tile IR's), its size, its class, and the
code the launcher ABI passes for it. Every other table of element types in the product is a
read of this one, so a new type is one new row.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ElementKind(StrEnum):
    FLOAT = "float"
    INT = "int"
    BOOL = "bool"


@dataclass(frozen=True)
class ElementType:
    """One element type and its names.

    `name` is the model's name (the one `DType` carries). `rust` is the cutile crate's
    element type, `tileir` the Tile IR's spelling (signless: unsigned ints read as their
    signed width), `torch` the names torch gives it (the canonical attribute first, then
    aliases such as `half`), `numpy` numpy's attribute, `triton` Triton's language spelling.
    `abi_code` is the `DT_*` code the launcher runtime passes for a tensor of this type
    (None where the launcher has no code for it).
    """

    name: str
    kind: ElementKind
    bits: int
    signed: bool
    rust: str
    tileir: str
    torch: tuple[str, ...]
    numpy: str | None
    triton: str | None
    abi_code: int | None

    @property
    def bytes(self) -> int:
        return max(1, self.bits // 8)

    @property
    def is_float(self) -> bool:
        return self.kind is ElementKind.FLOAT

    @property
    def is_int(self) -> bool:
        return self.kind is ElementKind.INT

    @property
    def is_bool(self) -> bool:
        return self.kind is ElementKind.BOOL


_F, _I, _B = ElementKind.FLOAT, ElementKind.INT, ElementKind.BOOL

ELEMENTS: tuple[ElementType, ...] = (
    ElementType("bool_", _B, 1, False, "bool", "i1", ("bool",), "bool_", "tl.int1", 0),
    ElementType("int8", _I, 8, True, "i8", "i8", ("int8",), "int8", "tl.int8", 2),
    ElementType("int16", _I, 16, True, "i16", "i16", ("int16",), "int16", "tl.int16", 3),
    ElementType("int32", _I, 32, True, "i32", "i32", ("int32", "int"), "int32", "tl.int32", 4),
    ElementType("int64", _I, 64, True, "i64", "i64", ("int64", "long"), "int64", "tl.int64", 5),
    ElementType("uint8", _I, 8, False, "u8", "i8", ("uint8",), "uint8", "tl.uint8", 1),
    ElementType("uint16", _I, 16, False, "u16", "i16", ("uint16",), "uint16", "tl.uint16", 10),
    ElementType("uint32", _I, 32, False, "u32", "i32", ("uint32",), "uint32", "tl.uint32", 11),
    ElementType("uint64", _I, 64, False, "u64", "i64", ("uint64",), "uint64", "tl.uint64", 12),
    ElementType("float16", _F, 16, True, "f16", "f16", ("float16", "half"), "float16",
                "tl.float16", 6),
    ElementType("bfloat16", _F, 16, True, "bf16", "bf16", ("bfloat16",), None, "tl.bfloat16", 7),
    ElementType("float32", _F, 32, True, "f32", "f32", ("float32", "float"), "float32",
                "tl.float32", 8),
    ElementType("float64", _F, 64, True, "f64", "f64", ("float64", "double"), "float64",
                "tl.float64", 9),
    ElementType("tfloat32", _F, 32, True, "tf32", "tf32", (), None, None, None),
    ElementType("float8_e4m3fn", _F, 8, True, "f8e4m3fn", "f8E4M3FN", ("float8_e4m3fn",), None,
                "tl.float8e4nv", None),
    ElementType("float8_e5m2", _F, 8, True, "f8e5m2", "f8E5M2", ("float8_e5m2",), None,
                "tl.float8e5", None),
)

BY_NAME: dict[str, ElementType] = {e.name: e for e in ELEMENTS}
BY_RUST: dict[str, ElementType] = {e.rust: e for e in ELEMENTS}

FLOAT_DTYPES: tuple[str, ...] = tuple(e.name for e in ELEMENTS if e.is_float)
INT_DTYPES: tuple[str, ...] = tuple(e.name for e in ELEMENTS if e.is_int)
ALL_DTYPES: tuple[str, ...] = FLOAT_DTYPES + INT_DTYPES + ("bool_",)

#: model dtype name -> cutile element type name.
RUST_ELEMENT_TYPES: dict[str, str] = {e.name: e.rust for e in ELEMENTS}

#: cutile element name -> launcher ABI `DT_*` code.
ABI_DTYPE_CODES: dict[str, int] = {e.rust: e.abi_code for e in ELEMENTS
                                   if e.abi_code is not None}

#: torch dtype attribute (aliases included) -> cutile element name, for the types the
#: launcher ABI carries.
TORCH_ELEMENT_NAMES: dict[str, str] = {alias: e.rust for e in ELEMENTS
                                       if e.abi_code is not None for alias in e.torch}


def dtype_of_rust(element: str) -> str | None:
    """The model dtype name of a cutile element type (`f32` -> `float32`), or None."""
    row = BY_RUST.get(element)
    return row.name if row else None
