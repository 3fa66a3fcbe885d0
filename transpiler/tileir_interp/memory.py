"""Global memory for the interpreter: byte buffers at distinct addresses, with bounds.

Takes numpy arrays (copied in, each into its own buffer); gives byte addresses, vectorized
gathers and scatters of elements at address tiles, and read-modify-write rounds for atomics.
Buffers lie 256-byte aligned with a gap between them, so that an address computed past the end
of one buffer never falls into another: every access outside a buffer (or not aligned to its
element size) raises `MemoryAccessError` instead of returning a value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from transpiler.tileir_interp.elements import ElementType
from transpiler.tileir_interp.errors import MemoryAccessError

_FIRST_ADDRESS = 1 << 20
_ALIGN = 256
_GAP = 1 << 16


@dataclass(eq=False)
class Buffer:
    name: str
    base: int
    data: np.ndarray  # uint8, length a multiple of 8

    @property
    def end(self) -> int:
        return self.base + self.nbytes

    nbytes: int = 0


class Memory:
    """The address space of one kernel launch."""

    def __init__(self) -> None:
        self.buffers: list[Buffer] = []
        self._next = _FIRST_ADDRESS
        self._bases = np.zeros(0, dtype=np.int64)
        #: the op being run (set by the machine), recorded as the writer of what it stores
        self.current_op: object | None = None
        self.writer_ops: list[object] = []
        self._writers: list[np.ndarray] = []

    def allocate(self, name: str, array: np.ndarray) -> int:
        """Copies `array` (C order) into a new buffer; returns its base address."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        padded = np.zeros((raw.size + 7) // 8 * 8 or 8, dtype=np.uint8)
        padded[: raw.size] = raw
        buffer = Buffer(name, self._next, padded, raw.size)
        self.buffers.append(buffer)
        self._writers.append(np.full(raw.size, -1, dtype=np.int32))
        self._bases = np.array([b.base for b in self.buffers], dtype=np.int64)
        self._next = (buffer.base + padded.size + _GAP + _ALIGN - 1) // _ALIGN * _ALIGN
        return buffer.base

    def read_back(self, name: str, like: np.ndarray) -> np.ndarray:
        buffer = self._named(name)
        return buffer.data[: buffer.nbytes].view(like.dtype).reshape(like.shape).copy()

    def _named(self, name: str) -> Buffer:
        for buffer in self.buffers:
            if buffer.name == name:
                return buffer
        raise KeyError(name)

    def writer(self, name: str, element: int, itemsize: int) -> object | None:
        """The op that last wrote element `element` of buffer `name` (None: never written)."""
        index = next(i for i, b in enumerate(self.buffers) if b.name == name)
        which = int(self._writers[index][element * itemsize])
        return self.writer_ops[which] if which >= 0 else None

    def _record(self, buffer_index: int, elements: np.ndarray, size: int) -> None:
        if self.current_op is None:
            return
        if not self.writer_ops or self.writer_ops[-1] is not self.current_op:
            self.writer_ops.append(self.current_op)
        self._writers[buffer_index][elements * size] = len(self.writer_ops) - 1

    # -- element access --------------------------------------------------------------------

    def _locate(self, addresses: np.ndarray, etype: ElementType, what: str) -> np.ndarray:
        """Buffer index per address; raises unless every access lies inside one buffer."""
        index = np.searchsorted(self._bases, addresses, side="right") - 1
        if addresses.size == 0:
            return index
        ok = index >= 0
        safe = np.where(ok, index, 0)
        bases = self._bases[safe]
        ends = np.array([b.end for b in self.buffers], dtype=np.int64)[safe]
        ok &= (addresses >= bases) & (addresses + etype.size <= ends)
        ok &= (addresses - bases) % etype.size == 0
        if not ok.all():
            bad = int(np.flatnonzero(~ok.reshape(-1))[0])
            address = int(addresses.reshape(-1)[bad])
            raise MemoryAccessError(f"{what} of {etype.size} bytes at address {address:#x} "
                                    f"(element {bad} of the tile) is {self._describe(address)}")
        return index

    def _describe(self, address: int) -> str:
        for buffer in self.buffers:
            if buffer.base - _GAP // 2 <= address < buffer.end + _GAP // 2:
                if buffer.base <= address < buffer.end:
                    return (f"misaligned or past the end of `{buffer.name}` "
                            f"({buffer.nbytes} bytes at {buffer.base:#x})")
                side = "before" if address < buffer.base else "past the end of"
                distance = buffer.base - address if address < buffer.base else (
                    address - buffer.end)
                return f"{distance} bytes {side} `{buffer.name}` ({buffer.nbytes} bytes)"
        return "outside every buffer"

    def _groups(self, addresses: np.ndarray, etype: ElementType, what: str
                ) -> list[tuple[Buffer, np.ndarray, np.ndarray]]:
        flat = addresses.reshape(-1).astype(np.int64)
        single = self._single_buffer(flat, etype)
        if single is not None:
            return [single]
        index = self._locate(flat, etype, what)
        out = []
        for b in np.unique(index):
            picked = np.flatnonzero(index == b)
            buffer = self.buffers[int(b)]
            out.append((buffer, picked, (flat[picked] - buffer.base) // etype.size))
        return out

    def _single_buffer(self, flat: np.ndarray, etype: ElementType
                       ) -> tuple[Buffer, np.ndarray, np.ndarray] | None:
        """The common case without a search per element: every address aligned inside the
        buffer that holds the lowest one (None: not so, or no address; `_locate` decides)."""
        if flat.size == 0:
            return None
        low, high = int(flat.min()), int(flat.max())
        at = int(np.searchsorted(self._bases, low, side="right")) - 1
        if at < 0:
            return None
        buffer = self.buffers[at]
        if low < buffer.base or high + etype.size > buffer.end:
            return None
        offsets = flat - buffer.base
        if etype.size > 1 and np.any(offsets % etype.size):
            return None
        return buffer, np.arange(flat.size), offsets // etype.size

    def gather(self, addresses: np.ndarray, etype: ElementType) -> np.ndarray:
        out = np.zeros(addresses.size, dtype=etype.dtype)
        for buffer, picked, elements in self._groups(addresses, etype, "read"):
            out[picked] = buffer.data.view(etype.dtype)[elements]
        return out.reshape(addresses.shape)

    def scatter(self, addresses: np.ndarray, values: np.ndarray, etype: ElementType) -> None:
        """Writes in element order: where two elements of the tile share an address, the
        later one (in row-major order) is what remains."""
        flat_values = np.broadcast_to(values, addresses.shape).reshape(-1).astype(etype.dtype)
        for buffer, picked, elements in self._groups(addresses, etype, "write"):
            buffer.data.view(etype.dtype)[elements] = flat_values[picked]
            self._record(self.buffers.index(buffer), elements, etype.size)

    def rounds(self, addresses: np.ndarray) -> list[np.ndarray]:
        """Element positions split into rounds of distinct addresses, each element in the
        round of its rank among the earlier elements with the same address: applying the
        rounds in order is applying the elements one by one, in row-major order."""
        flat = addresses.reshape(-1)
        order = np.argsort(flat, kind="stable")
        sorted_addresses = flat[order]
        starts = np.r_[True, sorted_addresses[1:] != sorted_addresses[:-1]]
        group_start = np.maximum.accumulate(np.where(starts, np.arange(flat.size), 0))
        rank = np.empty(flat.size, dtype=np.int64)
        rank[order] = np.arange(flat.size) - group_start
        return [np.flatnonzero(rank == r) for r in range(int(rank.max(initial=-1)) + 1)]
