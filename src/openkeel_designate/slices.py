"""CPU work on the event loop in slices short enough that every other tenant keeps being served.

The API, mdns and the built-in nameserver share one asyncio loop.  Some work must end up on that
loop because its result lives there: the built-in nameserver answers from dnspython objects, so
the records of a transferred zone have to be built in the serving process.  Building them in the
offload pool (``offload.py``) does not remove the stall: the result comes back as one pickle, and
unpickling 20,000 records of dnspython objects took 1.1 s (parsing their wire form 3.1 s, on the
busy shared machine) in one piece that cannot be split, on the loop or in the executor's thread
holding the GIL against it.  So the work is written as a generator that yields between
small steps (a record, a name), and ``drive`` runs it, handing the loop back whenever a slice
has run for ``SLICE`` seconds.  ``run`` drives the same generator without pausing, for the
callers that have no loop to share (start-up, tests): one way to build, two ways to wait.

What slicing cannot split: CPython's full garbage collection, which scans every object the
process holds (``bench/nameserver_refresh.py`` prints them). ``serve`` freezes what start-up
built (``runtime.freeze_startup_heap``), and work that keeps many short-lived objects alive
across its slices pauses the collector (``gcpause.py``) so as not to set one off.

A step must stay small (microseconds): the slice is checked between steps, never inside one.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable, Generator, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
Work = Generator[None, None, T]

SLICE = 0.002  # seconds of CPU on the loop before other tasks get a turn
_SORT_CHUNK = 2_000  # items sorted in one step (~1 ms): the merge of the chunks is sliced


async def drive(work: Work[T], slice_seconds: float = SLICE) -> T:
    """Run ``work`` on the loop, yielding to other tasks after each ``slice_seconds``."""
    clock = time.perf_counter
    deadline = clock() + slice_seconds
    try:
        while True:
            next(work)
            if clock() >= deadline:
                await asyncio.sleep(0)
                deadline = clock() + slice_seconds
    except StopIteration as done:
        return done.value


def run(work: Work[T]) -> T:
    """Run ``work`` to the end at once (no loop to share)."""
    try:
        while True:
            next(work)
    except StopIteration as done:
        return done.value


def sort(items: Iterable[T], key: Callable[[T], Any]) -> Work[list[T]]:
    """``sorted(items, key=key)`` in steps: chunks sorted one per step, then merged one item
    per step (a plain ``sorted`` of 100,000 names would be one step of a few hundred ms)."""
    runs: list[list[tuple[Any, int, T]]] = []
    chunk: list[tuple[Any, int, T]] = []
    for position, item in enumerate(items):
        chunk.append((key(item), position, item))  # position: equal keys never compare items
        yield
        if len(chunk) == _SORT_CHUNK:
            chunk.sort()
            runs.append(chunk)
            chunk = []
            yield
    if chunk:
        chunk.sort()
        runs.append(chunk)
    result: list[T] = []
    for entry in heapq.merge(*runs):
        result.append(entry[2])
        yield
    return result
