"""Point reads of a SQLite file on the calling thread: a zone by id and what hangs on it.

Every SQLite statement of the async engine crosses to its connection's thread and back. For a
read that touches a handful of index pages the crossing is the cost: ~0.15 ms of CPU against
~0.02 ms for the query itself and ~0.05 ms for SQLAlchemy's execution of a prebuilt statement
(bench/README.md, "Point reads"). ``GET /v2/zones/{id}``, the API's most frequent call, is one
such read.

So short reads (a zone by id, a page walked along an index with a limit) run here, on a
connection of their own:

* read-only (``query_only``), in autocommit: each statement is its own read transaction on the
  latest commit, so nothing stays open to pin the WAL, and a write answered before is visible;
* ``busy_timeout = 0``: it never waits for a lock on the event loop. WAL readers do not wait for
  writers; if SQLite still says busy (a checkpoint resetting the WAL, recovery after a crash),
  ``Declined`` is raised and the caller reads the usual way;
* a step budget: a statement that runs more than ``STEP_BUDGET`` of SQLite's virtual machine
  instructions (1-3 ms here: a count over a project of a few thousand zones fits, one over
  100,000 does not) is interrupted, and ``Declined`` sends it the usual way too. What a
  tenant's data can make large never holds the loop longer than that (``StepBudget``).

Each statement is compiled once (``prebuilt.py``) and run on the sqlite3 connection itself:
SQLAlchemy's execution of a statement compiled long before still cost more than SQLite's run
of it. What ``prebuilt`` refuses runs through SQLAlchemy on the same connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine, Executable, Row, create_engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import StaticPool

from openkeel_designate.storage.prebuilt import Statements, Unsupported

Query = tuple[Executable, dict[str, Any]]
STEP_BUDGET = 50_000
# How often SQLite calls the budget's handler, in instructions.
STEP_CHECK = STEP_BUDGET // 8


class Declined(Exception):
    """Busy, or over the step budget: read through the async engine instead."""


class PointReader:
    """One read-only connection to a SQLite file, used from the event loop's thread."""

    def __init__(self, sync_url: str):
        # One connection (StaticPool), made on first use; ``check_same_thread`` is off because
        # the loop that uses it need not be the thread that built the Database.
        self._engine: Engine = create_engine(
            sync_url, poolclass=StaticPool, isolation_level="AUTOCOMMIT",
            connect_args={"check_same_thread": False})
        event.listen(self._engine, "connect", _read_only_pragmas)
        self._budget = StepBudget()
        event.listen(self._engine, "connect", lambda raw, _record: self._budget.watch(raw))
        self._connection: Connection | None = None
        self._statements = Statements(self._engine.dialect, convert_results=True)

    def run(self, queries: Sequence[Query]) -> list[list[Row]]:
        """Every query's rows, or ``Declined``."""
        try:
            if self._connection is None:
                self._connection = self._engine.connect()
            return [self._rows(self._connection, statement, params) for statement, params in queries]
        except (OperationalError, sqlite3.OperationalError) as exc:  # SQLAlchemy's, or the driver's
            self.close()  # whatever state it is in, the next call starts afresh
            raise Declined(str(getattr(exc, "orig", exc))) from exc

    def _rows(self, connection: Connection, statement: Executable, params: dict[str, Any]) -> list[Any]:
        self._budget.arm()
        try:
            compiled = self._statements.prepare(statement)
        except Unsupported:
            return list(connection.execute(statement, params))
        raw: sqlite3.Connection = connection.connection.driver_connection  # type: ignore[assignment]
        cursor = raw.execute(compiled.sql, compiled.arguments(params))
        try:
            return compiled.described_rows(cursor.description, cursor.fetchall())
        finally:
            cursor.close()

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._engine.dispose()


def _read_only_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")
    cursor.execute("PRAGMA query_only=1")
    cursor.close()


class StepBudget:
    """SQLite's progress handler that interrupts a statement past ``STEP_BUDGET`` instructions
    of its own run: ``arm`` before each statement.

    A handler installed with the budget itself as its period would not do: SQLite counts a
    prepared statement's instructions over all its runs, and Python's sqlite3 keeps statements
    prepared. A point read of 200 instructions was interrupted every 250th run, a recordset
    POST's rules read (about 6,000 at 300 recordsets) every 8th; each went through the
    connection's thread instead, and after a few interrupts every later run of that read on
    that connection cost three times as much (bench/README.md, "Statements interrupted by
    their own history"). So the handler runs every ``STEP_CHECK`` instructions and counts its
    calls since ``arm``: the statement is interrupted after between ``STEP_BUDGET`` and
    ``STEP_BUDGET + STEP_CHECK`` of its own."""

    def __init__(self) -> None:
        self._calls = 0

    def watch(self, raw: sqlite3.Connection) -> None:
        """Install on a connection (for as long as it lives)."""
        raw.set_progress_handler(self, STEP_CHECK)

    def arm(self) -> None:
        """A statement starts: its budget is whole."""
        self._calls = 0

    def __call__(self) -> int:
        self._calls += 1
        return int(self._calls > STEP_BUDGET // STEP_CHECK)
