"""SQLite for the async engine with one thread hop per statement.

SQLite's Python driver blocks, so aiosqlite runs each connection in a thread of its own and hands
every call across: a statement executed through SQLAlchemy's aiosqlite adapter costs four
crossings (open a cursor, execute, fetch the rows, close the cursor), each a queue put in one
thread and a ``call_soon_threadsafe`` wake-up of the event loop in the other.  On the embedded
server a recordset POST runs a few dozen statements, so these crossings — not SQLite — were a
large share of its CPU time (see ``bench/README.md``, "SQLite driver").

``OneTripConnection`` is aiosqlite's connection whose cursors do the whole statement in one
crossing: execute, read every row (SQLAlchemy's adapter reads them all at once anyway), note the
description, row count and last row id, and close, all inside the connection's thread; fetching
and closing are then plain reads of what came back.  Everything else (commit, rollback,
functions, closing the connection) is aiosqlite's own.  ``connect`` takes the same arguments as
``aiosqlite.connect`` and is handed to SQLAlchemy as ``connect_args={"async_creator_fn": ...}``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite

_Description = tuple[tuple[Any, ...], ...] | None


class OneTripCursor:
    """The cursor SQLAlchemy's adapter sees: ``execute``/``executemany`` cross to the
    connection's thread once; the rest answers from what that crossing brought back."""

    arraysize = 1

    def __init__(self, connection: OneTripConnection):
        self._connection = connection
        self._rows: list[Any] = []
        self.description: _Description = None
        self.rowcount = -1
        self.lastrowid: int | None = None

    async def __aenter__(self) -> OneTripCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def execute(self, sql: str, parameters: Sequence[Any] | dict | None = None
                      ) -> OneTripCursor:
        return await self._one_trip(sql, () if parameters is None else parameters, False)

    async def executemany(self, sql: str, seq_of_parameters: Sequence[Any]) -> OneTripCursor:
        return await self._one_trip(sql, seq_of_parameters, True)

    async def _one_trip(self, sql: str, parameters: Any, many: bool) -> OneTripCursor:
        connection = self._connection
        try:
            outcome = await connection._execute(_run, connection, sql, parameters, many)
        except BaseException:
            connection.in_transaction = True  # unknown after a failure: roll back for real
            raise
        (self.description, self.rowcount, self.lastrowid, self._rows,
         connection.in_transaction) = outcome
        return self

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        count = self.arraysize if size is None else size
        rows, self._rows = self._rows[:count], self._rows[count:]
        return rows

    async def close(self) -> None:
        self._rows = []

    async def nextset(self) -> None:
        return None

    async def setinputsizes(self, *sizes: Any) -> None:
        return None


def _run(connection: OneTripConnection, sql: str, parameters: Any, many: bool
         ) -> tuple[_Description, int, int | None, list[Any], bool]:
    """In the connection's thread: the whole statement, rows included, and whether a
    transaction is open after it."""
    cursor: sqlite3.Cursor = connection._conn.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, parameters)
        rows = cursor.fetchall() if cursor.description else []
        return (cursor.description, cursor.rowcount, cursor.lastrowid, rows,
                connection._conn.in_transaction)
    finally:
        cursor.close()


class OneTripConnection(aiosqlite.Connection):
    """aiosqlite's connection, with cursors that cost one thread crossing per statement."""

    # Whether SQLite may have a transaction open, as the last statement left it (unknown, so
    # True, until one ran). Every statement goes through ``OneTripCursor``, so this is exact.
    in_transaction = True

    def cursor(self) -> OneTripCursor:  # type: ignore[override]
        # Not a coroutine: opening a cursor crosses to no thread; SQLAlchemy awaits __aenter__.
        return OneTripCursor(self)

    async def rollback(self) -> None:
        """No crossing when nothing is open: SQLAlchemy rolls back every read session at its
        end, and reads run outside transactions here (the driver begins one only to write)."""
        if self.in_transaction:
            await super().rollback()
            self.in_transaction = False

    async def commit(self) -> None:
        await super().commit()
        self.in_transaction = False


def connect(database: str, *, iter_chunk_size: int = 64, **kwargs: Any) -> OneTripConnection:
    """``aiosqlite.connect`` for ``OneTripConnection`` (same arguments)."""

    def connector() -> sqlite3.Connection:
        return sqlite3.connect(database, **kwargs)

    connection = OneTripConnection(connector, iter_chunk_size)
    connection._thread.daemon = True  # as SQLAlchemy does for aiosqlite's own connections
    return connection
