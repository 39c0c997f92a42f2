"""Writers of every process on one SQLite file take their turn here, woken as soon as it is free.

SQLite lets one writer in at a time; a process that finds the file locked by another sleeps and
tries again (its busy handler: 1, 2, 5, 10 … 100 ms), so with writers in several processes — the
API processes of ``[service:api] workers``, the worker in their parent — most of the time went
to those sleeps. Here each process's writer first takes an exclusive ``flock`` on a file beside
the database: the kernel hands it to the next waiter the moment it is released, and SQLite's own
lock is then free when the transaction begins. Uncontended (one process) the lock is taken
without blocking and without leaving the event loop; contended, the wait runs in a thread.
"""

from __future__ import annotations

import asyncio
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
