"""Cross-process wake-ups: PostgreSQL LISTEN/NOTIFY, so a worker in another process starts a
push within milliseconds of the API's commit.

Only a hint: workers also sweep the queue periodically, so a lost notification (or an engine
without LISTEN/NOTIFY, like MariaDB and SQLite) costs latency, never correctness.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncConnection

from openkeel_designate.storage.asyncpg_statements import driver_connection
from openkeel_designate.storage.database import Database

LOG = logging.getLogger(__name__)
CHANNEL = "openkeel_designate_work"


async def announce(db: Database) -> None:
    """Tell workers of other processes that a zone became pending (PostgreSQL only).

    One ``NOTIFY`` on a pooled connection's asyncpg connection, outside any transaction: one
    round trip, where a SQLAlchemy connection with ``SELECT pg_notify`` and its COMMIT took
    three and the execution machinery around each (bench/README.md, "One NOTIFY per burst").
    """
    if db.backend != "postgresql":
        return
    try:
        async with driver_connection(db.kept) as connection:
            await connection.execute(f"NOTIFY {CHANNEL}")
    except Exception as exc:  # a hint only: the sweep will find the zone anyway
        LOG.debug("could not announce pending work: %s", exc)


class Listener:
    """Keeps one connection LISTENing and calls ``on_wake`` for every notification."""

    def __init__(self, db: Database, on_wake: Callable[[], None]):
        self.db = db
        self.on_wake = on_wake
        self._connection: AsyncConnection | None = None

    async def start(self) -> bool:
        if self.db.backend != "postgresql":
            return False
        self._connection = await self.db.engine.connect()
        raw = await self._connection.get_raw_connection()
        await raw.driver_connection.add_listener(CHANNEL, lambda *_: self.on_wake())
        return True

    async def stop(self) -> None:
        if self._connection is not None:
            try:
                await self._connection.invalidate()
            finally:
                self._connection = None
