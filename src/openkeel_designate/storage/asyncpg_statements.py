"""Prebuilt statements on PostgreSQL run by asyncpg itself, without SQLAlchemy's execution.

SQLAlchemy's async execution of a prebuilt statement costs several times the statement's own
work on the client: a greenlet switch, the compiled-cache lookup, the execution context, the
adapted cursor and the result object. For ``GET /v2/zones/{id}`` that was ~0.5 ms of CPU per
statement against ~0.1 ms for asyncpg's ``fetch`` of the same prepared statement, and inside a
recordset POST ~0.3 ms per statement of a write path that runs five (bench/README.md, "Zone
reads in one statement", "the writes' statements run by asyncpg on PostgreSQL").

So each statement is compiled once, for the engine's dialect (``prebuilt.py``), and run on the
asyncpg connection underneath, which keeps the prepared statement. Two places:

* ``reads``: point reads on a pooled connection, outside any transaction (each statement sees
  the latest commit, as the AUTOCOMMIT reads did); ``alone``: one write there, its own
  transaction;
* ``run_in``, ``count_in`` and ``run_many_in``: the statements of a write transaction, on the
  transaction's own connection. SQLAlchemy's asyncpg adapter sends its BEGIN lazily, before
  the first statement it runs itself; here the adapter is asked to send it first (its
  ``_start_transaction``: this reaches into the adapter, whose parts ``_adapter_fits`` checks
  are there), so every statement of the transaction, whoever runs it, is inside the one
  transaction the adapter commits or rolls back. A driver error is raised as SQLAlchemy would
  raise it (a unique violation as ``IntegrityError``, a serialization failure with its
  SQLSTATE), so ``Database.transaction`` maps and retries it the same way.

asyncpg's records become named tuples, which index, slice, unpack and name their columns like
SQLAlchemy's rows. A statement with a returned column whose type converts values on the way
out is refused (``Unsupported``) and runs through SQLAlchemy, as are those ``prebuilt`` refuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from openkeel_designate.storage.connections import KeptConnections
from openkeel_designate.storage.prebuilt import Compiled, Statements, Unsupported

T = TypeVar("T")
Query = tuple[Executable, dict[str, Any]]


class ConnectionLost(Exception):
    """The statement failed with its connection gone: the database is away or restarting."""


class AsyncpgStatements:
    """Compiled statements, run by asyncpg: a few point reads on one pooled connection, or
    one statement inside the write transaction of a session."""

    def __init__(self, kept: KeptConnections):
        self._kept = kept
        self._dialect: Dialect = kept.engine.dialect
        self._statements = Statements(kept.engine.dialect, convert_results=False)

    async def reads(self, queries: Sequence[Query]) -> list[list[Any]]:
        """Every query's rows (asyncpg records), outside any transaction."""
        prepared = [(self._statements.prepare(statement), params) for statement, params in queries]
        async with driver_connection(self._kept) as connection:
            try:
                return [_rows(compiled, await connection.fetch(compiled.sql, *compiled.arguments(params)))
                        for compiled, params in prepared]
            except Exception as exc:
                if connection.is_closed():
                    raise ConnectionLost(str(exc)) from exc
                raise

    async def alone(self, statement: Executable, params: dict[str, Any]) -> list[Any]:
        """The rows of one statement run outside any transaction on a pooled connection: a
        write there is its own transaction, committed before the answer comes back."""
        compiled = self._statements.prepare(statement)
        async with driver_connection(self._kept) as connection:
            try:
                return _rows(compiled, await connection.fetch(compiled.sql,
                                                              *compiled.arguments(params)))
            except Exception as exc:
                if connection.is_closed():
                    raise ConnectionLost(str(exc)) from exc
                raise

    async def run_in(self, connection: AsyncConnection, statement: Executable,
                     params: dict[str, Any], options: dict[str, Any] | None = None) -> list[Any]:
        """The rows of one statement (none for a write without RETURNING), run inside the
        transaction ``connection`` is in. (``options``: SQLAlchemy's execution options, which
        mean nothing to asyncpg.)"""
        compiled = self._statements.prepare(statement)
        args = compiled.arguments(params)
        return _rows(compiled, await self._in_transaction(
            connection, compiled.sql, args, lambda driver: driver.fetch(compiled.sql, *args)))

    async def count_in(self, connection: AsyncConnection, statement: Executable,
                       params: dict[str, Any], options: dict[str, Any] | None = None) -> int:
        """How many rows one write (an UPDATE, a DELETE) touched, run as ``run_in``."""
        compiled = self._statements.prepare(statement)
        args = compiled.arguments(params)
        status = await self._in_transaction(
            connection, compiled.sql, args, lambda driver: driver.execute(compiled.sql, *args))
        return int(status.rsplit(" ", 1)[-1])  # "UPDATE 1", "DELETE 0"

    async def run_many_in(self, connection: AsyncConnection, statement: Executable,
                          rows: Sequence[dict[str, Any]], options: dict[str, Any] | None = None
                          ) -> None:
        """One write for each of ``rows`` (an INSERT's new rows, every one with the same
        keys), run as ``run_in``."""
        compiled = self._statements.prepare(statement, tuple(rows[0]))
        args = [compiled.arguments(row) for row in rows]
        await self._in_transaction(connection, compiled.sql, args,
                                   lambda driver: driver.executemany(compiled.sql, args))

    async def end(self, adapter: Any, commit: bool) -> None:
        """The COMMIT (or ROLLBACK) of a transaction ``run_in`` began on SQLAlchemy's adapter
        outside its session (``plain_session``), as the adapter's own would end it but without
        a greenlet; nothing when no statement ran."""
        transaction, adapter._transaction = adapter._transaction, None
        if transaction is None:
            return
        try:
            await (transaction.commit() if commit else transaction.rollback())
        except Exception as error:
            raise await self._as_sqlalchemy(adapter, adapter, error,
                                            "COMMIT" if commit else "ROLLBACK", ()) from error

    async def _in_transaction(self, connection: AsyncConnection, sql: str, args: Any,
                              call: Callable[[Any], Awaitable[T]]) -> T:
        """``call`` on the asyncpg connection under ``connection``, after the adapter's BEGIN,
        holding the adapter's lock of its statements as its own cursor does."""
        adapter = _adapter(connection)
        async with adapter._execute_mutex:
            try:
                await _begin(adapter)
                return await call(adapter._connection)
            except Exception as error:
                raise await self._as_sqlalchemy(connection, adapter, error, sql, args) from error

    async def _as_sqlalchemy(self, connection: AsyncConnection | Any, adapter: Any,
                             error: Exception, sql: str, args: Any) -> Exception:
        """``error`` as SQLAlchemy's execution would have raised it: the adapter's DB-API
        error (with the SQLSTATE) wrapped in SQLAlchemy's class for it, and SQLAlchemy's
        connection invalidated when the server dropped it (a plain transaction's is thrown
        away by ``plain_session``)."""
        try:
            adapter._handle_exception(error)  # raises the DB-API form of the error
        except Exception as dbapi_error:  # noqa: BLE001 - every form is wrapped as SQLAlchemy does
            lost = adapter._connection.is_closed()
            if lost and isinstance(connection, AsyncConnection):
                await connection.invalidate()
            return DBAPIError.instance(sql, args, dbapi_error, self._dialect.loaded_dbapi.Error,
                                       connection_invalidated=lost, dialect=self._dialect)
        raise AssertionError("the adapter's _handle_exception returned")


# What ``run_in`` uses of SQLAlchemy's asyncpg adapter: its lazy BEGIN, the transaction it
# holds, the lock of its statements, its error mapping and the asyncpg connection.
_ADAPTER_PARTS = ("_start_transaction", "_transaction", "_execute_mutex", "_handle_exception",
                  "_connection")


@functools.cache
def _adapter_fits(kind: type) -> bool:
    """Whether this adapter class (another SQLAlchemy's, say) has every part ``run_in`` uses;
    if not, writes run through SQLAlchemy."""
    return all(hasattr(kind, name) for name in _ADAPTER_PARTS)  # slots too: descriptors


def _adapter(connection: AsyncConnection | Any) -> Any:
    """SQLAlchemy's asyncpg adapter under a connection already checked out (or that adapter
    itself: a plain transaction's, ``plain_session``)."""
    adapter = connection
    if isinstance(connection, AsyncConnection):
        adapter = connection.sync_connection.connection.dbapi_connection  # type: ignore[union-attr]
    if not _adapter_fits(type(adapter)):
        raise Unsupported(f"{type(adapter).__name__} lacks a part run_in uses")
    return adapter


async def _begin(adapter: Any) -> None:
    """The adapter's BEGIN, if it has not sent it yet (it would before its own first
    statement): what runs next is then inside the transaction it commits."""
    if adapter._transaction is None:
        await adapter._start_transaction()


@contextlib.asynccontextmanager
async def driver_connection(kept: KeptConnections) -> AsyncIterator[Any]:
    """The asyncpg connection of one pooled connection (``KeptConnections``), outside
    SQLAlchemy's execution, given back when done. Thrown away when the statement was cancelled
    midway (it may still be busy with it) or when the server dropped the connection."""
    proxied = await kept.take()
    connection = proxied.driver_connection
    try:
        yield connection
    except asyncio.CancelledError:
        proxied.invalidate()
        raise
    except Exception:
        if connection.is_closed():
            proxied.invalidate()
        raise
    finally:
        kept.give_back(proxied)


def _rows(compiled: Compiled, records: list[Any]) -> list[Any]:
    """asyncpg's records as rows that also answer ``row.column``, as SQLAlchemy's do (callers
    of ``Database.point_reads`` use both)."""
    if not records:
        return []
    return compiled.rows(tuple(records[0].keys()), records)
