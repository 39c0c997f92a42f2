"""Prebuilt statements on PostgreSQL run by asyncpg itself, without SQLAlchemy's execution.

SQLAlchemy's async execution of a prebuilt statement costs several times the statement's own
work on the client: a greenlet switch, the compiled-cache lookup, the execution context, the
adapted cursor and the result object. For ``GET /v2/zones/{id}`` that was ~0.5 ms of CPU per
statement against ~0.1 ms for asyncpg's ``fetch`` of the same prepared statement, and inside a
recordset POST ~0.3 ms per statement of a write path that runs five (bench/README.md, "Zone
reads in one statement", "the writes' statements run by asyncpg on PostgreSQL").

So each statement is compiled once, for the engine's dialect, into its SQL and the order of its
parameters, and run on the asyncpg connection underneath, which keeps the prepared statement.
Two places:

* ``reads``: point reads on a pooled connection, outside any transaction (each statement sees
  the latest commit, as the AUTOCOMMIT reads did);
* ``run_in``, ``count_in`` and ``run_many_in``: the statements of a write transaction, on the
  transaction's own connection. SQLAlchemy's asyncpg adapter sends its BEGIN lazily, before
  the first statement it runs itself; here the adapter is asked to send it first (its
  ``_start_transaction``: this reaches into the adapter, whose parts ``_adapter_fits`` checks
  are there), so every statement of the transaction, whoever runs it, is inside the one
  transaction the adapter commits or rolls back. A driver error is raised as SQLAlchemy would raise it (a unique
  violation as ``IntegrityError``, a serialization failure with its SQLSTATE), so
  ``Database.transaction`` maps and retries it the same way.

A parameter's type conversion on the way in (a Boolean's) is applied as SQLAlchemy applies it.
asyncpg's records become named tuples, which index, slice, unpack and name their columns like
SQLAlchemy's rows, and hold what SQLAlchemy would have returned as long as no selected column's
type converts values on the way out; a statement with such a column, with an expanding IN-list,
or an INSERT whose columns SQLAlchemy would fill itself, is refused when first compiled
(``Unsupported``), so a wrong row never comes back quietly, and it runs through SQLAlchemy
instead.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

T = TypeVar("T")
Query = tuple[Executable, dict[str, Any]]
# Of each parameter in order: its name, its fixed value (``_NO_VALUE``: the caller gives it) and
# its type's conversion on the way in (None for most).
Parameter = tuple[str, Any, Callable[[Any], Any] | None]
# A statement's SQL and its parameters.
Compiled = tuple[str, tuple[Parameter, ...]]
# Statements are module-level constants; an unbounded stream of ad-hoc ones cannot pile up.
_MAX_COMPILED = 256
_NO_VALUE = object()


class Unsupported(ValueError):
    """A statement this runner cannot run as SQLAlchemy would: run it the general way."""


class ConnectionLost(Exception):
    """The statement failed with its connection gone: the database is away or restarting."""


class AsyncpgStatements:
    """Compiled statements, run by asyncpg: a few point reads on one pooled connection, or
    one statement inside the write transaction of a session."""

    def __init__(self, engine: AsyncEngine):
        self._engine = engine
        self._dialect: Dialect = engine.dialect
        self._compiled: dict[Any, Compiled | Unsupported] = {}

    async def reads(self, queries: Sequence[Query]) -> list[list[Any]]:
        """Every query's rows (asyncpg records), outside any transaction."""
        prepared = [(self._prepare(statement), params) for statement, params in queries]
        async with driver_connection(self._engine) as connection:
            try:
                return [_rows(await connection.fetch(sql, *_args(names, params)))
                        for (sql, names), params in prepared]
            except Exception as exc:
                if connection.is_closed():
                    raise ConnectionLost(str(exc)) from exc
                raise

    async def run_in(self, connection: AsyncConnection, statement: Executable,
                     params: dict[str, Any]) -> list[Any]:
        """The rows of one statement (none for a write without RETURNING), run inside the
        transaction ``connection`` is in."""
        sql, names = self._prepare(statement)
        args = _args(names, params)
        return _rows(await self._in_transaction(
            connection, sql, args, lambda driver: driver.fetch(sql, *args)))

    async def count_in(self, connection: AsyncConnection, statement: Executable,
                       params: dict[str, Any]) -> int:
        """How many rows one write (an UPDATE, a DELETE) touched, run as ``run_in``."""
        sql, names = self._prepare(statement)
        args = _args(names, params)
        status = await self._in_transaction(
            connection, sql, args, lambda driver: driver.execute(sql, *args))
        return int(status.rsplit(" ", 1)[-1])  # "UPDATE 1", "DELETE 0"

    async def run_many_in(self, connection: AsyncConnection, statement: Executable,
                          rows: Sequence[dict[str, Any]]) -> None:
        """One write for each of ``rows`` (an INSERT's new rows, every one with the same
        keys), run as ``run_in``."""
        sql, names = self._prepare(statement, tuple(rows[0]))
        args = [_args(names, row) for row in rows]
        await self._in_transaction(connection, sql, args,
                                   lambda driver: driver.executemany(sql, args))

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

    async def _as_sqlalchemy(self, connection: AsyncConnection, adapter: Any, error: Exception,
                             sql: str, args: Any) -> Exception:
        """``error`` as SQLAlchemy's execution would have raised it: the adapter's DB-API
        error (with the SQLSTATE) wrapped in SQLAlchemy's class for it, and the connection
        invalidated when the server dropped it."""
        try:
            adapter._handle_exception(error)  # raises the DB-API form of the error
        except Exception as dbapi_error:  # noqa: BLE001 - every form is wrapped as SQLAlchemy does
            lost = adapter._connection.is_closed()
            if lost:
                await connection.invalidate()
            return DBAPIError.instance(sql, args, dbapi_error, self._dialect.loaded_dbapi.Error,
                                       connection_invalidated=lost, dialect=self._dialect)
        raise AssertionError("the adapter's _handle_exception returned")

    def _prepare(self, statement: Executable, keys: tuple[str, ...] | None = None) -> Compiled:
        """The compiled form, or ``Unsupported`` (remembered too: a refused statement is not
        compiled again at every call). ``keys``: the columns an INSERT's rows give."""
        cache_key = statement if keys is None else (statement, keys)
        known = self._compiled.get(cache_key)
        if known is None:
            if len(self._compiled) >= _MAX_COMPILED:
                self._compiled.clear()
            try:
                known = self._compile(statement, keys)
            except Unsupported as exc:
                known = exc
            self._compiled[cache_key] = known
        if isinstance(known, Unsupported):
            raise known
        return known

    def _compile(self, statement: Executable, keys: tuple[str, ...] | None) -> Compiled:
        """The SQL and its parameters (``Parameter``)."""
        dialect = self._dialect
        compiled = statement.compile(dialect=dialect,  # type: ignore[attr-defined]
                                     column_keys=list(keys) if keys is not None else None)
        if compiled.post_compile_params or compiled.literal_execute_params:
            raise Unsupported("expanding or literal-execute parameters: not a prepared statement")
        if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
            raise Unsupported("SQLAlchemy computes a column's default for this statement")
        names = []
        for name in compiled.positiontup or ():
            bind = compiled.binds[name]
            if bind.callable is not None:
                raise Unsupported(f"parameter {name!r} takes its value from a callable")
            # A type's conversion of the value on its way in (a Boolean's 1 to True) is
            # applied here as SQLAlchemy would.
            names.append((name, _NO_VALUE if bind.required else bind.value,
                          bind.type.dialect_impl(dialect).bind_processor(dialect)))
        for column in getattr(statement, "selected_columns", ()):
            if column.type.dialect_impl(dialect).result_processor(dialect, None) is not None:
                raise Unsupported(f"column {column.key!r} needs SQLAlchemy's conversion")
        return str(compiled), tuple(names)


# What ``run_in`` uses of SQLAlchemy's asyncpg adapter: its lazy BEGIN, the transaction it
# holds, the lock of its statements, its error mapping and the asyncpg connection.
_ADAPTER_PARTS = ("_start_transaction", "_transaction", "_execute_mutex", "_handle_exception",
                  "_connection")


@functools.cache
def _adapter_fits(kind: type) -> bool:
    """Whether this adapter class (another SQLAlchemy's, say) has every part ``run_in`` uses;
    if not, writes run through SQLAlchemy."""
    return all(hasattr(kind, name) for name in _ADAPTER_PARTS)  # slots too: descriptors


def _adapter(connection: AsyncConnection) -> Any:
    """SQLAlchemy's asyncpg adapter under a connection already checked out."""
    adapter = connection.sync_connection.connection.dbapi_connection  # type: ignore[union-attr]
    if not _adapter_fits(type(adapter)):
        raise Unsupported(f"{type(adapter).__name__} lacks a part run_in uses")
    return adapter


async def _begin(adapter: Any) -> None:
    """The adapter's BEGIN, if it has not sent it yet (it would before its own first
    statement): what runs next is then inside the transaction it commits."""
    if adapter._transaction is None:
        await adapter._start_transaction()


def _args(names: tuple[Parameter, ...], params: dict[str, Any]) -> list[Any]:
    """The statement's arguments, in order, from the caller's ``params``."""
    args = []
    for name, value, process in names:
        given = params[name] if value is _NO_VALUE else params.get(name, value)
        args.append(given if process is None else process(given))
    return args


@contextlib.asynccontextmanager
async def driver_connection(engine: AsyncEngine) -> AsyncIterator[Any]:
    """The asyncpg connection of one pooled connection, outside SQLAlchemy's execution, given
    back when done. Not back into the pool when the statement was cancelled midway (it may
    still be busy with it) or when the server dropped the connection."""
    proxied = await engine.raw_connection()
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
        proxied.close()


def _rows(records: list[Any]) -> list[Any]:
    """asyncpg's records as rows that also answer ``row.column``, as SQLAlchemy's do (callers
    of ``Database.point_reads`` use both)."""
    if not records:
        return []
    row = _row_class(tuple(records[0].keys()))
    return [row._make(record) for record in records]


@functools.lru_cache(maxsize=_MAX_COMPILED)
def _row_class(keys: tuple[str, ...]) -> Any:
    return collections.namedtuple("Row", keys, rename=True)  # type: ignore[misc]
