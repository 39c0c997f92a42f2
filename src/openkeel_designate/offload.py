"""CPU-bound work off the event loop, in a small pool of worker processes.

The API, mdns and the built-in nameserver share one asyncio loop, so anything that computes for
long on it — dnspython parsing an imported zone file (central), signing a zone with DNSSEC
(mdns) — delays every DNS answer and API call of every tenant.  ``run(fn, *args)`` executes
``fn`` in another process and awaits the result.  This module sits below every layer (it knows
nothing of zones) so that central and mdns can both use it.

Why processes and not threads: under the GIL a thread running pure Python hands the GIL back
only every switch interval (5 ms), and the loop thread must win it again after each socket call
it released it for, so the loop crawls while the thread computes.  Measured with
``bench/import_isolation.py`` (loop part: a 5 ms ticker while 9,000 records are parsed, on the
shared 2-core machine, four runs): worst loop lag 0.7-2.2 s inline (the whole parse), 60-170 ms
in a thread, 30-55 ms in a process (one run 190 ms, when every core was busy elsewhere).
Shipping the text and the parsed result between processes (pickle, done by the executor's own
threads) costs a few ms for that size, far less than the parse.  Work that is cheaper than its
pickling (rendering an export: ``central/zonefile.py``) does not belong here.

Why a bounded pool: at most ``WORKERS`` processes (one per core beyond the first, at most two),
started on first use, so concurrent jobs queue instead of taking every core from the loop.
Each worker is a single-process executor of its own (a "slot"), so that a job can be sent to a
chosen one: ``affinity`` (e.g. a zone id) always lands on the same worker while it lives, and a
worker may keep a cache for it between jobs (DNSSEC signing keeps a zone's signatures there, so a
new version of the zone signs only what changed).  A job without affinity takes the slot with
the fewest jobs in flight.  A worker's cache is lost with the worker (killed, pool shut down):
the next job then starts cold, never wrong.
Why ``spawn``: forking a process that runs threads (notifications, database drivers) can copy a
lock held by another thread into the child; a spawned worker imports only what ``fn`` needs.
A worker exits by itself when the process that started it dies, even by SIGKILL.

Why a lower CPU priority (``NICE``): on a machine with fewer idle cores than work, the kernel
would share a core evenly between a worker parsing one tenant's import and the process whose
loop answers every tenant's DNS and API; niced, the worker gets what the loop leaves.

``fn`` and its arguments must be picklable: a plain module-level function (e.g.
``central/zonefile_import.parse``).  Arguments and results cross through the pool's local pipe,
in memory only (nothing is written anywhere).  As with any ``spawn`` pool, a worker re-imports
the main module, so a script that uses this must keep its work under
``if __name__ == "__main__":`` (the console script, pytest and the bench scripts do).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
WORKERS = max(1, min(2, (os.cpu_count() or 1) - 1))
_PARENT_CHECK_SECONDS = 1.0
NICE = 10

_slots: dict[int, ProcessPoolExecutor] = {}
_in_flight: dict[int, int] = {}
_lock = threading.Lock()


async def run(fn: Callable[..., T], *args: Any, affinity: str | None = None) -> T:
    """``fn(*args)`` in a worker process; its exception is raised here as it was raised there.

    Jobs with the same ``affinity`` run in the same worker process (one after the other)."""
    slot = _slot(affinity)
    pool = _executor(slot)
    _in_flight[slot] = _in_flight.get(slot, 0) + 1
    try:
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
    except BrokenProcessPool:
        _discard(slot, pool)  # the worker died (killed, out of memory): a new one next time
        raise
    finally:
        _in_flight[slot] -= 1


def shutdown() -> None:
    """Stop the workers (idle ones at once; a running job is finished first)."""
    with _lock:
        pools = list(_slots.values())
        _slots.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


def _slot(affinity: str | None) -> int:
    """The worker for a job: by a stable hash of its affinity (``hash()`` of a str differs
    between runs), else the least busy."""
    if affinity is not None:
        return zlib.crc32(affinity.encode()) % WORKERS
    return min(range(WORKERS), key=lambda slot: _in_flight.get(slot, 0))


def _executor(slot: int) -> ProcessPoolExecutor:
    with _lock:
        pool = _slots.get(slot)
        if pool is None:
            pool = _slots[slot] = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent, initargs=(os.getpid(),))
        return pool


def _discard(slot: int, pool: ProcessPoolExecutor) -> None:
    with _lock:
        if _slots.get(slot) is pool:
            del _slots[slot]
    pool.shutdown(wait=False, cancel_futures=True)


def _watch_parent(parent_pid: int) -> None:
    """In the worker: yield the CPU to the serving process first (``NICE``), and exit when the
    parent is gone (a pool worker outlives a SIGKILLed parent)."""
    with contextlib.suppress(OSError):  # a platform without nice(): same priority as before
        os.nice(NICE)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(_PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="offload-parent-watch", daemon=True).start()
