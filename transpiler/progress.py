"""A one-line progress bar for batches: files, kernels, specializations, elapsed time, ETA.

Takes counts as a batch advances; gives a line redrawn in place on a terminal (stderr), and
nothing at all when the stream is not a terminal (a pipe, a file, CI logs) or `--quiet` is
given. Lines the batch prints meanwhile go through `Progress.print`, which clears the bar
first so the two never mix.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

BAR_WIDTH = 20
LINE_WIDTH = 100


def clock(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss`) for a duration."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass
class Counts:
    files_done: int = 0
    files: int = 0
    kernels: int = 0
    specs_done: int = 0
    specs: int = 0

    @property
    def fraction(self) -> float:
        """Share of the work done: files and specializations weigh alike per unit."""
        total = self.files + self.specs
        return (self.files_done + self.specs_done) / total if total else 0.0


def render_line(counts: Counts, elapsed: float) -> str:
    """The bar as text, e.g. `[#####....] files 3/10  kernels 7  specs 4/12  0:12  ETA 0:30`."""
    fraction = counts.fraction
    filled = int(round(fraction * BAR_WIDTH))
    parts = [f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}]",
             f"files {counts.files_done}/{counts.files}", f"kernels {counts.kernels}"]
    if counts.specs:
        parts.append(f"specializations {counts.specs_done}/{counts.specs}")
    parts.append(f"elapsed {clock(elapsed)}")
    if 0 < fraction < 1:
        parts.append(f"ETA {clock(elapsed * (1 - fraction) / fraction)}")
    return "  ".join(parts)[:LINE_WIDTH]


@dataclass
class Progress:
    """The bar of one batch. `enabled` is decided once, from the stream and `--quiet`."""

    stream: TextIO = field(default_factory=lambda: sys.stderr)
    enabled: bool = False
    counts: Counts = field(default_factory=Counts)
    started: float = field(default_factory=time.monotonic)
    _shown: bool = False

    @classmethod
    def for_terminal(cls, quiet: bool, stream: TextIO | None = None) -> Progress:
        stream = stream or sys.stderr
        return cls(stream, enabled=not quiet and _is_terminal(stream))

    def update(self, **changes: int) -> None:
        for name, value in changes.items():
            setattr(self.counts, name, value)
        self.draw()

    def advance(self, name: str, by: int = 1) -> None:
        setattr(self.counts, name, getattr(self.counts, name) + by)
        self.draw()

    def draw(self) -> None:
        if not self.enabled:
            return
        line = render_line(self.counts, time.monotonic() - self.started)
        self.stream.write("\r" + line.ljust(LINE_WIDTH))
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\r" + " " * LINE_WIDTH + "\r")
            self.stream.flush()
            self._shown = False

    def print(self, text: str, stream: TextIO) -> None:
        """Print a line of the batch's own output without tearing the bar."""
        self.clear()
        print(text, file=stream, flush=True)
        self.draw()

    def finish(self) -> None:
        self.clear()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
