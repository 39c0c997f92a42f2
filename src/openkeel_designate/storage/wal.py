"""SQLite's WAL checkpoints, run on a connection's thread instead of inside a COMMIT.

By default SQLite checkpoints in the COMMIT that takes the write-ahead log past 1,000 pages:
that COMMIT copies the log into the database file and syncs it, milliseconds to hundreds of
them. Since small transactions commit on the event loop's thread (``sqlite_driver``), that
would stall every request and DNS answer of the process now and then. So the connections
are opened with ``wal_autocheckpoint = 0`` and ``Checkpoints`` runs a PASSIVE checkpoint
after every ``EVERY`` write transactions of the process, on one pooled connection whose
statement crosses to its own thread. PASSIVE neither waits for nor blocks readers and
writers; what it cannot copy yet (a reader still needs it) is copied by a later one. When
the last connection to the file closes, SQLite checkpoints the rest itself.

A checkpoint alone does not keep the log small. SQLite writes the log from its start again
only when a writer begins with every frame of it copied; under a steady stream of writes a
few land while the checkpoint runs (it takes milliseconds), so that moment never came and
the log grew by every write for as long as the stream lasted: 500 MB after 20 s of recordset
POSTs (bench/README.md, "The write-ahead log that never restarted"). So after the checkpoint
copied the bulk, a second one copies what came meanwhile while holding the writers' turn
(``turn``): no frame can land in between, and the next writer starts the log over. That
second one holds the writers for the copy of a few transactions' pages, not of the bulk.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from sqlalchemy.ext.asyncio import AsyncEngine

LOG = logging.getLogger(__name__)

# Write transactions between two checkpoints: a recordset change writes a few pages in each of
# its four, so the log stays in the low thousands of pages between checkpoints.
EVERY = 100
PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)"
# What SQLite leaves of the log's file when it starts the log over (``journal_size_limit``):
# it reuses the file rather than shrinking it, so one large transaction (an import of 100,000
# records) would otherwise leave a file of hundreds of MB until the service stops. A round of
# ``EVERY`` recordset changes takes about 8 MB.
KEPT_BYTES = 32 * 1024 * 1024


class Checkpoints:
    """Counts a process's write transactions on one SQLite file; every ``EVERY`` of them, one
    PASSIVE checkpoint in a task of its own (never two at once), finished in ``turn``, the
    writers' turn on the file, so that the next writer restarts the log."""

    def __init__(self, engine: AsyncEngine, turn: Callable[[], AbstractAsyncContextManager[None]],
                 every: int = EVERY):
        self._engine = engine
        self._turn = turn
        self._every = every
        self._since = 0
        self._running: asyncio.Task | None = None
        self.done = 0  # checkpoints completed (for tests and curiosity)

    def committed(self) -> None:
        """A write transaction ended; start a checkpoint if one is due and none runs."""
        self._since += 1
        if self._since < self._every or (self._running and not self._running.done()):
            return
        self._since = 0
        self._running = asyncio.get_running_loop().create_task(self._checkpoint())

    async def _checkpoint(self) -> None:
        try:
            async with self._engine.connect() as connection:
                await connection.exec_driver_sql(PASSIVE)
            # A connection is taken inside the turn, as every writer takes its own.
            async with self._turn(), self._engine.connect() as connection:
                await connection.exec_driver_sql(PASSIVE)
            self.done += 1
        except Exception as exc:  # noqa: BLE001 - a later one tries again; the data is safe
            LOG.warning("WAL checkpoint failed: %s", exc)

    async def close(self) -> None:
        """Wait for a running checkpoint (the engine is disposed of next)."""
        if self._running is not None:
            await asyncio.gather(self._running, return_exceptions=True)
