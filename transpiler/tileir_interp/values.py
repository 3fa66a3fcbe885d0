"""Values of the interpreter besides tiles, and the reading of Tile IR types.

Takes `TileIrType`s from the parser; gives tile shapes and element types, and the view
values (`TensorView`, `PartitionView`) that `make_tensor_view` / `make_partition_view` build.
Tiles themselves are numpy arrays (0-d for `tile<i32>`); tokens are the single `TOKEN`, since
the interpreter runs every memory op in program order, which any token chain allows.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from transpiler.ircheck.parse import TileIrType
from transpiler.tileir_interp.elements import ElementType, element


class Token:
    """The value of every token: ordering is program order."""

    def __repr__(self) -> str:
        return "token"


TOKEN = Token()


@dataclass(frozen=True)
class TileType:
    shape: tuple[int, ...]
    element: ElementType
    element_name: str


def tile_type(t: TileIrType) -> TileType:
    return _tile_type_of(t.text, t.shape, t.element)


@functools.lru_cache(maxsize=4096)
def _tile_type_of(text: str, shape: tuple[int | None, ...] | None,
                  name: str | None) -> TileType:
    if name is None:
        raise ValueError(f"`{text}` is not a tile type")
    dims = tuple(int(d) if d is not None else -1 for d in (shape or ()))
    return TileType(dims, element(name), name)


@dataclass(frozen=True)
class TensorView:
    """`make_tensor_view`: a base address, a shape and strides in elements."""

    base: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    element: ElementType


@dataclass(frozen=True)
class PartitionView:
    """`make_partition_view`: a tensor view cut into tiles of `tile` elements; tile axis k
    runs along the tensor's axis `dim_map[k]`; `padding` fills positions outside it."""

    tensor: TensorView
    tile: tuple[int, ...]
    dim_map: tuple[int, ...]
    padding: str | None

    def index_space(self) -> tuple[int, ...]:
        return tuple(-(-self.tensor.shape[d] // t) for t, d in zip(self.tile, self.dim_map,
                                                                     strict=True))

    def positions(self, index: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray | bool]:
        """Element addresses of tile `index` (tile-shaped) and where they lie inside the
        tensor (True: everywhere, the common case, found without a test per element)."""
        tensor = self.tensor
        starts = [int(index[k]) * self.tile[k] for k in range(len(self.dim_map))]
        start_offset = sum(s * tensor.strides[axis] for s, axis in zip(
            starts, self.dim_map, strict=True))
        relative = _relative_offsets(self.tile, tuple(tensor.strides[a] for a in self.dim_map))
        addresses = tensor.base + (relative + start_offset) * tensor.element.size
        if all(0 <= s and s + t <= tensor.shape[axis]
               for s, t, axis in zip(starts, self.tile, self.dim_map, strict=True)):
            return addresses, True
        grids = _tile_indices(self.tile)
        inside = np.ones(self.tile, dtype=bool)
        for k, axis in enumerate(self.dim_map):
            coord = grids[k] + starts[k]
            inside &= (coord >= 0) & (coord < tensor.shape[axis])
        return addresses, inside


@functools.lru_cache(maxsize=256)
def _relative_offsets(tile: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """Element offsets of a tile's positions from its first, for these strides (shared)."""
    grids = _tile_indices(tile)
    offset = np.zeros(tile, dtype=np.int64)
    for k, stride in enumerate(strides):
        offset += grids[k] * stride
    offset.setflags(write=False)
    return offset


@functools.lru_cache(maxsize=256)
def _tile_indices(tile: tuple[int, ...]) -> np.ndarray:
    """`np.indices(tile)`, computed once per tile shape (read-only: shared)."""
    grids = np.indices(tile, dtype=np.int64)
    grids.setflags(write=False)
    return grids


_TILE_FIELD = re.compile(r"\(([0-9x]+)\)")


@functools.lru_cache(maxsize=1024)
def partition_layout(t: TileIrType) -> tuple[tuple[int, ...], tuple[int, ...] | None,
                                             str | None]:
    """(tile shape, dim_map or None for the identity, padding value) of a partition type."""
    tile_text = t.field("tile") or ""
    match = _TILE_FIELD.search(tile_text)
    tile = tuple(int(d) for d in match.group(1).split("x")) if match else ()
    dim_map_text = t.field("dim_map")
    dim_map = (tuple(int(d) for d in re.findall(r"-?[0-9]+", dim_map_text))
               if dim_map_text else None)
    padding = t.field("padding_value")
    return tile, dim_map, padding
