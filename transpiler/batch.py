"""Parallel batches: one function over many inputs in N worker processes, results in order.

Takes a picklable function, its inputs and a worker count (`-j N`); gives the results in the
inputs' order whatever order the workers finish in, so a batch prints and writes the same
thing with `-j 1` and `-j 8`. Workers only compute: they never write output files or print,
the calling process does both, so an interrupted batch leaves no worker writing a file.
Workers ignore SIGINT (a Ctrl-C reaches the whole process group): the calling process gets
it, cancels what has not started and stops the pool; SIGTERM is turned into the same
`KeyboardInterrupt` (`interrupt_on_sigterm`) so every temp file is cleaned up on the way out.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from types import FrameType
from typing import TypeVar

In = TypeVar("In")
Out = TypeVar("Out")


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def ordered_map(function: Callable[[In], Out], items: Iterable[In], workers: int
                ) -> Iterator[Out]:
    """`map(function, items)` on `workers` processes (in this process when 1 or for a single
    item); yields results in the order of `items` as soon as each is ready."""
    items = list(items)
    if workers <= 1 or len(items) <= 1:
        yield from map(function, items)
        return
    pool = ProcessPoolExecutor(max_workers=min(workers, len(items)), initializer=_ignore_sigint)
    futures: list[Future[Out]] = []
    try:
        futures = [pool.submit(function, item) for item in items]
        for future in futures:
            yield future.result()
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def interrupt_on_sigterm() -> None:
    """Handle SIGTERM as Ctrl-C: the batch unwinds, removing its temp files."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
