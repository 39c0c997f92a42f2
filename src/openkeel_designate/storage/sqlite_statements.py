"""Prebuilt statements of SQLite write transactions, run on the driver without SQLAlchemy's
execution.

On the embedded default the API's writes and the worker's claims share one process and one
write turn. Profiled there (bench/README.md, "the writes' statements run without SQLAlchemy
on SQLite"), a quarter of each write transaction's CPU was SQLAlchemy's execution of
statements it had compiled long before: the compiled-cache lookup, the execution context, the
adapted cursor, the result object and a greenlet switch, around statements SQLite itself runs
in a few tens of microseconds. ``asyncpg_statements`` does the same on PostgreSQL.

Each statement is compiled once for the engine's dialect (``prebuilt.py``, which also applies
SQLAlchemy's conversions of values on the way in and out, a DateTime's to SQLite's text and
back) and handed to the transaction's own driver connection (``sqlite_driver``), which runs
it on the loop's thread where it may (a read within the step budget, a write its caller
vouched small, ``database.bounded``) and crosses to the connection's thread otherwise, exactly
as for a statement SQLAlchemy runs. The transaction stays SQLAlchemy's: its COMMIT and ROLLBACK
go through the session, and the driver connection, which every statement of the transaction
goes through either way, knows the transaction's state. A driver error is raised as SQLAlchemy
would raise it (a unique violation as ``IntegrityError``, "database is locked" as
``OperationalError``), so ``Database.transaction`` maps and retries it the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from openkeel_designate.storage.prebuilt import Statements, Unsupported
from openkeel_designate.storage.sqlite_driver import BEGIN_IMMEDIATE, OneTripConnection

# A write transaction's connection: SQLAlchemy's, or the driver's own (``plain_session``).
Connection = AsyncConnection | OneTripConnection


class SqliteStatements:
    """Compiled statements, run on the driver connection of a write transaction."""

    def __init__(self, dialect: Dialect):
        self._dialect = dialect
        self._statements = Statements(dialect, convert_results=True)

    async def begin_immediate(self, connection: Connection) -> None:
        """``BEGIN IMMEDIATE`` on the transaction's connection: SQLite's write lock before
        the transaction's first read."""
        await self._run(connection, BEGIN_IMMEDIATE, (), False, False)

    async def commit(self, connection: Connection) -> None:
        """The COMMIT of a transaction begun by ``begin_immediate`` without SQLAlchemy's
        session (``plain_session``), a failure raised as SQLAlchemy would raise it."""
        with self._as_sqlalchemy("COMMIT", ()):
            await _driver(connection).commit()

    async def run_in(self, connection: Connection, statement: Executable,
                     params: dict[str, Any], options: dict[str, Any] | None = None) -> list[Any]:
        """The rows of one statement (none for a write without RETURNING), run inside the
        transaction ``connection`` is in; ``options`` as SQLAlchemy's execution options."""
        compiled = self._statements.prepare(statement)
        description, _, rows = await self._run(connection, compiled.sql, compiled.arguments(params),
                                               False, _bounded(statement, options))
        return compiled.described_rows(description, rows)

    async def count_in(self, connection: Connection, statement: Executable,
                       params: dict[str, Any], options: dict[str, Any] | None = None) -> int:
        """How many rows one write (an UPDATE, a DELETE) touched, run as ``run_in``."""
        compiled = self._statements.prepare(statement)
        _, count, _ = await self._run(connection, compiled.sql, compiled.arguments(params),
                                      False, _bounded(statement, options))
        return count

    async def run_many_in(self, connection: Connection, statement: Executable,
                          rows: Sequence[dict[str, Any]], options: dict[str, Any] | None = None
                          ) -> None:
        """One write for each of ``rows`` (an INSERT's new rows, every one with the same
        keys), run as ``run_in``."""
        compiled = self._statements.prepare(statement, tuple(rows[0]))
        await self._run(connection, compiled.sql, [compiled.arguments(row) for row in rows],
                        True, _bounded(statement, options))

    async def _run(self, connection: Connection, sql: str, args: Any, many: bool,
                   bounded: bool) -> tuple[Any, int, list[Any]]:
        """The description, row count and rows of one statement on the driver connection."""
        with self._as_sqlalchemy(sql, args):
            description, count, _, rows = await _driver(connection).statement(
                sql, args, many, bounded)
        return description, count, rows

    @contextmanager
    def _as_sqlalchemy(self, sql: str, args: Any) -> Iterator[None]:
        """A driver error raised as SQLAlchemy's execution would raise it."""
        try:
            yield
        except self._dialect.loaded_dbapi.Error as error:
            raise DBAPIError.instance(sql, args, error, self._dialect.loaded_dbapi.Error,
                                      dialect=self._dialect) from error


def _driver(connection: Connection) -> OneTripConnection:
    """The driver connection under a connection already checked out (or that connection
    itself: a plain transaction's, ``plain_session``)."""
    if isinstance(connection, OneTripConnection):
        return connection
    driver = connection.sync_connection.connection.driver_connection  # type: ignore[union-attr]
    if not isinstance(driver, OneTripConnection):
        raise Unsupported(f"{type(driver).__name__} is not the project's SQLite driver")
    return driver


def _bounded(statement: Executable, options: dict[str, Any] | None) -> bool:
    """Whether the caller vouched the statement small (``database.bounded``), on the
    statement or for this execution."""
    return bool(statement.get_execution_options().get("bounded")
                or (options is not None and options.get("bounded")))

