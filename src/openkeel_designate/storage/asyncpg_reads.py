"""Point reads on PostgreSQL, run by asyncpg itself on a connection of the engine's pool.

SQLAlchemy's async execution of a prebuilt statement costs several times the statement's own
work on the client: a greenlet switch, the compiled-cache lookup, the execution context, the
adapted cursor and the result object, then the connection's checkout with its isolation level
set and reset. For ``GET /v2/zones/{id}`` that was ~0.5 ms of CPU per statement against ~0.1 ms
for asyncpg's ``fetch`` of the same prepared statement (bench/README.md, "Zone reads in one
statement").

So each statement is compiled once, for the engine's dialect, into its SQL and the order of its
parameters, and run with ``fetch`` on the pool connection's asyncpg connection, outside any
transaction (each statement sees the latest commit, as the AUTOCOMMIT reads did). asyncpg keeps
the prepared statement per connection. Its records become named tuples, which index, slice,
unpack and name their columns like SQLAlchemy's rows, and hold what SQLAlchemy would have returned as long as no type of the statement converts
values on the way in or out; a statement with such a type, or with an expanding IN-list, is
refused when first compiled (``Unsupported``), so a wrong row never comes back quietly, and
``Database.point_reads`` runs it through SQLAlchemy instead.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

Query = tuple[Executable, dict[str, Any]]
# Statements are module-level constants; an unbounded stream of ad-hoc ones cannot pile up.
_MAX_COMPILED = 256
_NO_VALUE = object()


class Unsupported(ValueError):
    """A statement this runner cannot run as SQLAlchemy would: run it the general way."""


class ConnectionLost(Exception):
    """The statement failed with its connection gone: the database is away or restarting."""


class AsyncpgReads:
    """Compiled statements, and the running of a few of them on one pooled connection."""

    def __init__(self, engine: AsyncEngine):
        self._engine = engine
        self._dialect: Dialect = engine.dialect
        self._compiled: dict[Executable,
                             tuple[str, tuple[tuple[str, Any], ...]] | Unsupported] = {}

    async def run(self, queries: Sequence[Query]) -> list[list[Any]]:
        """Every query's rows (asyncpg records)."""
        prepared = [(self._prepare(statement), params) for statement, params in queries]
        async with driver_connection(self._engine) as connection:
            try:
                return [_rows(await connection.fetch(sql, *[params[name] if value is _NO_VALUE
                                                            else params.get(name, value)
                                                            for name, value in names]))
                        for (sql, names), params in prepared]
            except Exception as exc:
                if connection.is_closed():
                    raise ConnectionLost(str(exc)) from exc
                raise

    def _prepare(self, statement: Executable) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The compiled form, or ``Unsupported`` (remembered too: a refused statement is not
        compiled again at every call)."""
        if statement not in self._compiled:
            if len(self._compiled) >= _MAX_COMPILED:
                self._compiled.clear()
            try:
                self._compiled[statement] = self._compile(statement)
            except Unsupported as exc:
                self._compiled[statement] = exc
        known = self._compiled[statement]
        if isinstance(known, Unsupported):
            raise known
        return known

    def _compile(self, statement: Executable) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The SQL and, in order, each parameter's name and fixed value (``_NO_VALUE`` when the
        caller must give it)."""
        dialect = self._dialect
        compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        if compiled.post_compile_params or compiled.literal_execute_params:
            raise Unsupported("expanding or literal-execute parameters: not a prepared statement")
        names = []
        for name in compiled.positiontup or ():
            bind = compiled.binds[name]
            if bind.callable is not None:
                raise Unsupported(f"parameter {name!r} takes its value from a callable")
            if bind.type.dialect_impl(dialect).bind_processor(dialect) is not None:
                raise Unsupported(f"parameter {name!r} needs SQLAlchemy's conversion")
            names.append((name, _NO_VALUE if bind.required else bind.value))
        for column in getattr(statement, "selected_columns", ()):
            if column.type.dialect_impl(dialect).result_processor(dialect, None) is not None:
                raise Unsupported(f"column {column.key!r} needs SQLAlchemy's conversion")
        return str(compiled), tuple(names)


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
