"""SQLite for the async engine with at most one thread hop per statement.

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

Inside a write transaction some statements do not cross at all: they run on the calling thread
(the event loop's), as the point reads do (``point_reads.py``). A crossing costs ~0.15 ms of CPU
and, when the loop is busy, about a millisecond of waiting for the answer; the claim of a change
runs a dozen statements in the one write turn every writer of the file queues for
(bench/README.md, "Statements on the loop's thread"). The transaction already holds SQLite's
write lock (``BEGIN IMMEDIATE``), so none of its statements waits for a lock; what is left to
bound is how long one runs:

* a read (``SELECT``) runs here within the point reads' step budget; one that exceeds it (a
  large zone read whole for its IXFR history) is interrupted, which leaves the transaction as
  it was, and runs again on the connection's thread;
* a write runs here only when its caller vouched that it touches a handful of rows by key (the
  execution option ``bounded``, ``database.bounded``; the engine's listener sets
  ``bounded_next``). No budget can guard a write: an interrupted INSERT, UPDATE or DELETE rolls
  the whole transaction back;
* ``BEGIN IMMEDIATE`` runs here when the lock is free at once, and the COMMIT when every write
  of the transaction ran here (``_ends_here``).

Everything else, and every statement outside a write transaction, crosses as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite

from openkeel_designate.storage.point_reads import StepBudget

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
        bounded, connection.bounded_next = connection.bounded_next, False
        self.description, self.rowcount, self.lastrowid, self._rows = \
            await connection.statement(sql, parameters, many, bounded)
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


BEGIN_IMMEDIATE = "BEGIN IMMEDIATE"


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
    # The next statement's caller vouched that it is small (set by the engine's listener).
    bounded_next = False
    # A write of the open transaction ran on the connection's thread: not vouched small, so
    # neither is its COMMIT (the WAL frames of a whole import, say).
    wrote_elsewhere = False
    # Calls handed to the connection's thread, and those it finished: each counter is written
    # by one thread only. A call still running there (its caller cancelled, say) means the
    # connection is not free for this thread: sqlite3's objects are not safe from two at once.
    _sent = 0
    _finished = 0

    async def _execute(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self._sent += 1
        return await super()._execute(self._counted, fn, *args, **kwargs)

    def _counted(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """On the connection's thread: the call, then counted as finished."""
        try:
            return fn(*args, **kwargs)
        finally:
            self._finished += 1

    def _begin_here(self) -> tuple[_Description, int, int | None, list[Any], bool] | None:
        """``BEGIN IMMEDIATE`` on this thread if SQLite's write lock is free at once (it is,
        unless a process that does not queue for the write turn holds it: ``manage``, a
        migration); else None, and it waits for the lock on the connection's thread."""
        raw = self._connection
        assert raw is not None
        (wait,), = raw.execute("PRAGMA busy_timeout").fetchall()
        raw.execute("PRAGMA busy_timeout=0")
        try:
            return _run(self, BEGIN_IMMEDIATE, (), False)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            return None
        finally:
            raw.execute(f"PRAGMA busy_timeout={int(wait)}")

    def run_here(self, sql: str, parameters: Any, many: bool, bounded: bool
                 ) -> tuple[_Description, int, int | None, list[Any], bool] | None:
        """The statement run on this thread, if it may be (see the module's docstring); None
        when it is to cross to the connection's thread."""
        raw = self._connection
        if raw is None or self._finished != self._sent:
            return None
        if not raw.in_transaction:
            return self._begin_here() if sql == BEGIN_IMMEDIATE else None
        if bounded:
            return _run(self, sql, parameters, many)
        if many or not sql.startswith("SELECT"):
            return None
        budget = StepBudget()
        budget.watch(raw)
        try:
            return _run(self, sql, parameters, many)
        except sqlite3.OperationalError as exc:
            if str(exc) != "interrupted":
                raise
            return None  # over the budget: read again on the connection's thread
        finally:
            raw.set_progress_handler(None, 0)

    async def statement(self, sql: str, parameters: Any, many: bool, bounded: bool
                        ) -> tuple[_Description, int, int | None, list[Any]]:
        """One statement, rows included: here if it may run here, else in one crossing to
        the connection's thread. ``bounded``: its caller vouched that it is small. (What
        ``OneTripCursor`` runs, and ``sqlite_statements`` without a cursor.)"""
        try:
            outcome = self.run_here(sql, parameters, many, bounded)
            if outcome is None:
                if not sql.startswith(("SELECT", BEGIN_IMMEDIATE)):
                    self.wrote_elsewhere = True
                outcome = await self._execute(_run, self, sql, parameters, many)
        except BaseException:
            self.in_transaction = True  # unknown after a failure: roll back for real
            raise
        self.in_transaction = outcome[4]
        return outcome[:4]

    def cursor(self) -> OneTripCursor:  # type: ignore[override]
        # Not a coroutine: opening a cursor crosses to no thread; SQLAlchemy awaits __aenter__.
        return OneTripCursor(self)

    async def rollback(self) -> None:
        """No crossing when nothing is open: SQLAlchemy rolls back every read session at its
        end, and reads run outside transactions here (the driver begins one only to write)."""
        if not self.in_transaction:
            return
        if self._ends_here():
            self._connection.rollback()  # type: ignore[union-attr]
        else:
            await super().rollback()
        self._ended()

    async def commit(self) -> None:
        if self._ends_here():
            self._connection.commit()  # type: ignore[union-attr]
        else:
            await super().commit()
        self._ended()

    def _ends_here(self) -> bool:
        """Whether the transaction's COMMIT or ROLLBACK runs on this thread: when every write of
        it ran here (vouched small), it appends a few pages to the WAL, without fsync
        (``synchronous = NORMAL``) and without a checkpoint (``wal_autocheckpoint = 0``: the
        database's checkpoints run on a connection's thread, ``storage/wal.py``)."""
        return self._connection is not None and not self.wrote_elsewhere \
            and self._finished == self._sent

    def _ended(self) -> None:
        self.in_transaction = False
        self.wrote_elsewhere = False


def connect(database: str, *, iter_chunk_size: int = 64, **kwargs: Any) -> OneTripConnection:
    """``aiosqlite.connect`` for ``OneTripConnection`` (same arguments)."""

    def connector() -> sqlite3.Connection:
        # Used from the loop's thread too (``run_here``), never at the same time as from its own.
        return sqlite3.connect(database, **{**kwargs, "check_same_thread": False})

    connection = OneTripConnection(connector, iter_chunk_size)
    connection._thread.daemon = True  # as SQLAlchemy does for aiosqlite's own connections
    return connection
