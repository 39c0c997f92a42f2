"""Writers of every process on one SQLite file take their turn here, woken as soon as it is free.

SQLite lets one writer in at a time; a process that finds the file locked by another sleeps and
tries again (its busy handler: 1, 2, 5, 10 … 100 ms), so with writers in several processes — the
API processes of ``[service:api] workers``, the worker in their parent — most of the time went
to those sleeps. Here each process's writer first takes an exclusive ``flock`` on a file beside
the database: the kernel hands it to the next waiter the moment it is released, and SQLite's own
lock is then free when the transaction begins. Uncontended (one process) the lock is taken
without blocking and without leaving the event loop; contended, the wait runs in a thread.
Within a process the writers queue first in ``LocalTurns``.
"""

from __future__ import annotations

import asyncio
import collections
import fcntl
import os


class WriteTurn:
    """One process's handle on ``path`` (created if missing). Callers serialise themselves
    first (the database's in-process lock): one holder per process at a time."""

    def __init__(self, path: str):
        self.path = path
        self._fd: int | None = None

    async def acquire(self) -> None:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fd = self._fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        waiting = asyncio.get_running_loop().run_in_executor(None, fcntl.flock, fd, fcntl.LOCK_EX)
        try:
            await asyncio.shield(waiting)
        except asyncio.CancelledError:
            # The thread will get the lock anyway: give it back then, or every process waits.
            waiting.add_done_callback(
                lambda done: done.cancelled() or done.exception() or self.release())
            raise

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class LocalTurns:
    """The writers of one process, one at a time: first come, first served, except that a
    writer asking to go ``ahead`` passes those waiting without that flag.

    Why: the worker's claims and completions of new zones (in batches) are what a burst of
    creates waits for. With the API's writers queued in plain arrival order, ten concurrent
    clients put ten writes (~14 ms each) before every one of the worker's, and the zones were
    ACTIVE only long after the last POST. The worker writes a few short batches per round, so
    letting them pass costs the API little and never starves it (``workqueue`` says which
    writes go ahead)."""

    def __init__(self) -> None:
        self._held = False
        self._ahead: collections.deque[asyncio.Future] = collections.deque()
        self._behind: collections.deque[asyncio.Future] = collections.deque()

    async def acquire(self, ahead: bool = False) -> None:
        if not self._held and not self._ahead and not self._behind:
            self._held = True
            return
        queue = self._ahead if ahead else self._behind
        turn = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed the turn just as it was cancelled: pass it on
            elif turn in queue:  # (``release`` may have dropped it already)
                queue.remove(turn)
            raise

    def release(self) -> None:
        """Hand the turn to the next waiter (the lock stays held), or free it."""
        for queue in (self._ahead, self._behind):
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._held = False
