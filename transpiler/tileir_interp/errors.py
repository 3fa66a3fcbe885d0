"""Errors the interpreter reports: each names the op and, when the text carries debug
locations (`tileirdisasm -g`), the source line that produced it."""

from __future__ import annotations


class InterpError(Exception):
    """The program did something with no defined result (an access outside every buffer,
    a division by zero, a violated `assume`), or uses an op the interpreter lacks."""

    def __init__(self, message: str, op: str | None = None, location: str | None = None,
                 kind: str = "error") -> None:
        self.message = message
        self.op = op
        self.location = location
        self.kind = kind
        where = f" at {location}" if location else ""
        what = f"`{op}`{where}: " if op else ""
        super().__init__(f"{what}{message}")


class MemoryAccessError(InterpError):
    """A read or write of bytes outside every buffer (or misaligned)."""


class AssumptionError(InterpError):
    """An `assume` whose predicate the inputs do not satisfy."""


class UnsupportedOpError(InterpError):
    """An op, attribute or type the interpreter does not implement."""
