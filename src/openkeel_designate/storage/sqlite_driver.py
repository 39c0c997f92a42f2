"""SQLite calls made on the event loop's own thread, instead of aiosqlite's one thread per connection.

aiosqlite runs every call (execute, fetch, commit, even ``cursor()``) on a thread of its own and
hands the result back through the loop: two thread switches and a GIL hand-off per call, about
ten per API request. A query on a local SQLite file in WAL mode takes tens of microseconds,
far less than the hops around it, so here the calls run inline and the hops are gone.

What inline costs, and why it is bounded:

* A reader never waits in WAL mode, and this process has one writer at a time
  (``Database._write_lock``), so a call waits only for another *process* holding the write
  lock (``[service:api] workers`` > 1, a ``manage`` command). ``busy_timeout`` is therefore
  short (``INLINE_BUSY_TIMEOUT_MS``): past it SQLite says "database is locked", which
  ``Database.transaction`` retries after an asynchronous sleep, so the loop is never held long.
* ``executemany`` (the bulk inserts of a zone import) and the ``fetchall`` of many rows stay
  short per call, as the callers page big reads and batch big writes.

Durability is unchanged: the same connection settings (``journal_mode=WAL``,
``synchronous=NORMAL``) and the same commit points.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any

import aiosqlite

# Long enough to ride over another process's commit, short enough not to stall the loop.
INLINE_BUSY_TIMEOUT_MS = 200


class InlineConnection(aiosqlite.Connection):
    """An ``aiosqlite.Connection`` whose calls run at once on the caller's (the loop's) thread."""

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    async def _connect(self) -> "InlineConnection":
        if self._connection is None:
            self._connection = self._connector()
        return self

    def __await__(self):  # noqa: ANN204 - the awaitable aiosqlite.connect() returns
        return self._connect().__await__()

    def stop(self) -> None:
        self._running = False
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def close(self) -> None:
        self.stop()


def connect(database: str, **kwargs: Any) -> InlineConnection:
    """What SQLAlchemy's aiosqlite dialect calls (``async_creator_fn``) instead of aiosqlite.connect."""
    kwargs.setdefault("check_same_thread", False)
    iter_chunk_size = kwargs.pop("iter_chunk_size", 64)
    return InlineConnection(partial(sqlite3.connect, database, **kwargs), iter_chunk_size)
