"""Names the entries' type generics must not take.

Takes nothing; gives `DSL_TYPE_PARAMETERS`: the type-parameter names of the generic items
(functions, impls, traits, structs) of the cuTile Rust DSL, `cutile` 0.5.0, read off the
crate's source. cutile's compiler types an unannotated call of a generic DSL function, e.g.
`tile_to_scalar(sqrt(x, ..))`, by resolving the callee's result type `Tile<E, S>` in the
kernel's scope: a kernel generic that is also called `E` is substituted, so with `E = f16` a
square root of an f32 tile is declared to give f16, which tileiras rejects
(`'cuda_tile.sqrt' op failed to verify that all of {source, result} have same type`). A kernel
generic named differently is not captured, and the call is typed from its operands.
"""

from __future__ import annotations

DSL_TYPE_PARAMETERS: frozenset[str] = frozenset({
    "A", "ARGS", "B", "C", "DI", "DstType", "E", "E1", "E2", "EByte", "EIn", "EOut", "EScale",
    "F", "FROM", "FromType", "G", "I", "Item", "K", "M", "O", "Ops", "Ord", "P", "PTR_T", "R",
    "Result", "S", "SL", "SMode", "SR", "SRC_T", "STORED", "Sc", "SrcType", "T", "TO", "ToType",
    "U", "V", "X", "Y",
})
