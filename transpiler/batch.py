"""Parallel batches: one function over many inputs in N worker processes, results in order.

Takes a picklable function, its inputs and a worker count (`-j N`); gives the results in the
inputs' order whatever order the workers finish in (`ordered_map`; `WorkerPool` for tasks
submitted as earlier ones finish), so a batch prints and writes the same
thing with `-j 1` and `-j 8`. Workers only compute: they never write output files or print,
the calling process does both, so an interrupted batch leaves no worker writing a file.
Workers ignore SIGINT (a Ctrl-C reaches the whole process group): the calling process gets
it, cancels what has not started and stops the pool; SIGTERM is turned into the same
`KeyboardInterrupt` (`interrupt_on_sigterm`) so every temp file is cleaned up on the way out.
"""

from __future__ import annotations

import heapq
import os
import signal
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import FrameType, TracebackType
from typing import Any, TypeVar

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


class WorkerPool:
    """Tasks submitted at any time, to `workers` processes (in this process when `workers`
    is 1), each with a tag the caller chooses and a rank: of the tasks waiting, the lowest
    rank starts first (then the earliest submitted), so that a batch finishes its first
    files first while every process stays busy. `next_done()` gives the tag and result of
    a finished task. For work whose next tasks depend on earlier results (the rounds of
    `--verify`); a `with` block stops the pool, cancelling what has not started, however it
    is left."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = (ProcessPoolExecutor(max_workers=self.workers, initializer=_ignore_sigint)
                      if self.workers > 1 else None)
        self._waiting: list[tuple[int, int, Hashable, Callable[[Any], Any], Any]] = []
        self._submitted = 0
        self._running: dict[Future[Any], Hashable] = {}

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._waiting.clear()
        if self._pool is not None:
            for future in self._running:
                future.cancel()
            self._pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, tag: Hashable, function: Callable[[In], Out], item: In,
               rank: int = 0) -> None:
        heapq.heappush(self._waiting, (rank, self._submitted, tag, function, item))
        self._submitted += 1

    def busy(self) -> bool:
        return bool(self._waiting or self._running)

    def next_done(self) -> tuple[Hashable, Any]:
        """A finished task's tag and result (a worker's exception is raised here)."""
        if self._pool is None:
            _rank, _order, tag, function, item = heapq.heappop(self._waiting)
            return tag, function(item)
        # The executor gets only as many tasks as it has processes: the rest wait here,
        # where a task submitted later with a lower rank can still go first.
        while self._waiting and len(self._running) < self.workers:
            _rank, _order, tag, function, item = heapq.heappop(self._waiting)
            self._running[self._pool.submit(function, item)] = tag
        done, _ = wait(list(self._running), return_when=FIRST_COMPLETED)
        future = next(f for f in self._running if f in done)  # the earliest submitted
        return self._running.pop(future), future.result()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def interrupt_on_sigterm() -> None:
    """Handle SIGTERM as Ctrl-C: the batch unwinds, removing its temp files."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
