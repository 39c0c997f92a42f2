"""A write transaction without SQLAlchemy's session, for work that runs prebuilt statements only.

Every statement of the hot write paths (a recordset or zone POST, the worker's claim, its
completion and observations) already runs on the driver without SQLAlchemy's execution
(``sqlite_statements``, ``asyncpg_statements``). What was left around them was the session:
its creation, its BEGIN and COMMIT, each a greenlet switch and SQLAlchemy's transaction
bookkeeping. On a SQLite file a ``Database.transaction`` of one bounded ``SELECT`` cost 0.21
ms of CPU, where SQLite's own ``BEGIN IMMEDIATE``, statement and ``COMMIT`` cost 0.005 ms; a
change takes four such transactions (bench/README.md, "Issue 13, session of 2026-12-06
(23:01-)"). On PostgreSQL it is the claim's transaction, the one a change still takes there.

``PlainSession`` is what such work sees in place of an ``AsyncSession``: the runner of its
statements and the driver connection they run on (``info``, as ``database.execute`` reads
them from a write session) and the engine (``bind``, whose dialect some work asks for).
Nothing else: where the work reaches for more (adds ORM objects, flushes, calls
``session.execute``: a claim's rarer branches), the session raises ``Unsupported``, the
transaction is rolled back and ``Database.transaction`` runs the work again in a real session.
The common branches of the hot paths need nothing more, and the rare ones pay for one
rolled-back attempt. The transaction is the driver connection's own (``sqlite_transaction``,
``postgresql_transaction``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from openkeel_designate.storage.asyncpg_statements import AsyncpgStatements
from openkeel_designate.storage.connections import KeptConnections
from openkeel_designate.storage.prebuilt import Unsupported
from openkeel_designate.storage.sqlite_statements import SqliteStatements

# Where a write session (plain or SQLAlchemy's) holds the runner of ``database.execute``, and
# its connection (``session.info``).
RUNNER, CONNECTION = "prebuilt_statements", "prebuilt_connection"


class PlainSession:
    """The session of a plain transaction: its statements' runner and connection, its engine."""

    __slots__ = ("bind", "info")

    def __init__(self, bind: AsyncEngine, runner: Any, connection: Any):
        self.bind = bind
        self.info = {RUNNER: runner, CONNECTION: connection}

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(f"the work uses session.{name}: it runs in a session")


@asynccontextmanager
async def sqlite_transaction(kept: KeptConnections, runner: SqliteStatements
                             ) -> AsyncIterator[PlainSession]:
    """A write transaction on a pooled SQLite connection, begun by ``BEGIN IMMEDIATE`` and
    committed (or rolled back) by the driver connection itself (``sqlite_driver``: on the
    loop's thread when every write of it was vouched small). The caller holds the write turn.

    A connection whose rollback failed is thrown away rather than handed back with a
    transaction perhaps still open on it."""
    proxied = await kept.take()
    driver = proxied.driver_connection
    try:
        await runner.begin_immediate(driver)
        yield PlainSession(kept.engine, runner, driver)
        await runner.commit(driver)
    except BaseException:
        try:
            await driver.rollback()
        except BaseException:
            proxied.invalidate()
            raise
        raise
    finally:
        kept.give_back(proxied)


@asynccontextmanager
async def postgresql_transaction(kept: KeptConnections, runner: AsyncpgStatements
                                 ) -> AsyncIterator[PlainSession]:
    """A write transaction on a pooled PostgreSQL connection: SQLAlchemy's asyncpg adapter
    begins it at the first statement, as it does in a session (``asyncpg_statements.run_in``),
    and ``runner.end`` commits or rolls it back without a greenlet. A connection the server
    dropped, or whose rollback failed, is thrown away."""
    proxied = await kept.take()
    adapter = proxied.dbapi_connection
    try:
        yield PlainSession(kept.engine, runner, adapter)
        await runner.end(adapter, commit=True)
    except BaseException:
        try:
            await runner.end(adapter, commit=False)
        except BaseException:
            proxied.invalidate()
            raise
        if adapter._connection.is_closed():
            proxied.invalidate()
        raise
    finally:
        kept.give_back(proxied)
