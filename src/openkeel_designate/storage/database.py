"""Engines and transactions on SQLite, PostgreSQL and MariaDB.

Operators' URLs are accepted as they are (``mysql+pymysql://``, ``postgresql://``,
``postgresql+psycopg2://``) and mapped to the asyncio driver of the same engine.  Every central
operation runs in one ``transaction()``; deadlocks and serialisation failures are retried there,
so they never surface to clients as 500s. On PostgreSQL the hottest creates write by one
statement that is its own transaction (``write_alone``) and go back to ``transaction()`` when
that cannot be.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Executable, Row, event, literal_column
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker,
                                    create_async_engine)

from openkeel_designate.domain import errors
from openkeel_designate.storage import plain_session, sqlite_driver, wal
from openkeel_designate.storage.asyncpg_statements import AsyncpgStatements, ConnectionLost
from openkeel_designate.storage.connections import KeptConnections, ping_when_idle
from openkeel_designate.storage.plain_session import CONNECTION, RUNNER, PlainSession
from openkeel_designate.storage.point_reads import Declined, PointReader, Query
from openkeel_designate.storage.prebuilt import Unsupported
from openkeel_designate.storage.sqlite_statements import SqliteStatements
from openkeel_designate.storage.write_turn import LocalTurns, WriteTurn

LOG = logging.getLogger(__name__)
T = TypeVar("T")

_ASYNC_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "mysql": "mysql+aiomysql",
    "mariadb": "mysql+aiomysql",
}

# Error codes meaning "run the transaction again": MySQL deadlock / lock wait, PostgreSQL
# serialization failure / deadlock, SQLite busy.
_RETRY_MARKERS = ("1213", "1205", "40001", "40P01", "database is locked", "Deadlock")
# SQLSTATE classes meaning "the server is not there right now": connection exception (08),
# insufficient resources (53: too many connections), operator intervention (57: shutting down,
# starting up, admin shutdown).  asyncpg reports these as plain DBAPIError, not OperationalError.
_OUTAGE_SQLSTATE_CLASSES = ("08", "53", "57")


def async_url(url: str) -> str:
    """The asyncio-driver form of an operator's database URL."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    driver = _ASYNC_DRIVERS.get(backend)
    if driver is None:
        raise ValueError(f"unsupported database backend {backend!r}")
    query = dict(parsed.query)
    if backend in ("mysql", "mariadb"):
        query.setdefault("charset", "utf8mb4")
    return parsed.set(drivername=driver, query=query).render_as_string(hide_password=False)


def sync_url(url: str) -> str:
    """A blocking-driver URL for alembic (which runs migrations synchronously)."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    drivers = {"sqlite": "sqlite", "postgresql": "postgresql+psycopg2", "mysql": "mysql+pymysql",
               "mariadb": "mysql+pymysql"}
    return parsed.set(drivername=drivers[backend]).render_as_string(hide_password=False)


class Database:
    """One engine plus the transaction discipline of the project."""

    def __init__(self, url: str, *, pool_size: int = 5, max_overflow: int = 50,
                 pool_timeout: int | None = None, recycle: int = 3600):
        self.url = url
        self.backend = make_url(url).get_backend_name()
        if self.backend == "mariadb":
            self.backend = "mysql"
        # SQLite reads run outside transactions (the driver opens one only for writes, and
        # writes always end in commit or rollback), so the reset round trip on every checkout
        # is pure latency there.
        # The SQLite driver is ours (``sqlite_driver``): one thread hop per statement.
        # Every connection opened is kept, up to max_pool_size + max_overflow: with more
        # concurrent sessions than max_pool_size (one process runs the API, the worker's pushes
        # and mdns's transfers, each a service with its own pool in Designate) the overflow
        # was opened and closed again on every request. On SQLite opening one costs a thread
        # and the pragmas; on PostgreSQL a round of connection set-up and the statements
        # prepared again: a burst of 300 creates cost twice the CPU per zone with 5 kept.
        # Handed out last-in first-out: a burst's extra connections stay open, but a quiet
        # stream of requests keeps reusing the one it just returned. Round robin over all of
        # them (the pool's default) made each SQLite connection find its page cache stale
        # (another connection wrote since), so every write read its pages again: ~50 preads
        # per recordset POST instead of ~2 (bench/README.md, "The pool hands out the last
        # connection returned"); on PostgreSQL it spreads asyncpg's prepared statements thin.
        pool_sizes = {"pool_size": pool_size + max_overflow, "max_overflow": 0,
                      "pool_use_lifo": True}
        kwargs: dict = {}
        if self.backend == "sqlite":
            kwargs = {"pool_reset_on_return": None,
                      "connect_args": {"async_creator_fn": sqlite_driver.connect}}
            if make_url(url).database not in (None, "", ":memory:"):
                # (an in-memory database has one connection, SQLAlchemy's StaticPool: no sizes)
                kwargs.update(pool_sizes)
        else:
            kwargs = {**pool_sizes, "pool_recycle": recycle}
            if pool_timeout:
                kwargs["pool_timeout"] = pool_timeout
        if self.backend == "mysql":
            kwargs["isolation_level"] = "READ COMMITTED"
            repair_aiomysql_bytes_escape()
        self.engine: AsyncEngine = create_async_engine(async_url(url), **kwargs)
        if self.backend == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
            event.listen(self.engine.sync_engine, "before_cursor_execute", _note_bounded)
        else:
            ping_when_idle(self.engine)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # What runs on the driver connection itself takes it from a few kept checked out.
        self.kept = KeptConnections(self.engine)
        # On PostgreSQL asyncpg runs the point reads on a pooled connection, and the hot
        # statements of write transactions (``execute``), without SQLAlchemy's execution around
        # them (asyncpg_statements.py); on SQLite our driver runs the latter
        # (sqlite_statements.py).
        self._asyncpg = AsyncpgStatements(self.kept) if self.backend == "postgresql" else None
        self._statements: AsyncpgStatements | SqliteStatements | None = self._asyncpg
        if self.backend == "sqlite":
            self._statements = SqliteStatements(self.engine.dialect)
        # SQLite has one writer at a time; queueing writers here avoids "database is locked".
        self._write_lock = LocalTurns() if self.backend == "sqlite" else None
        # ... and across processes on the same file, a turn handed over at once (write_turn).
        path = make_url(url).database if self.backend == "sqlite" else None
        on_file = bool(path) and path != ":memory:" and not path.startswith("file:")
        self._write_turn = WriteTurn(f"{path}.write-turn") if on_file else None
        self._point_reader = PointReader(sync_url(url)) if on_file else None
        # ... and its log checkpointed off the loop's thread (wal.py says why).
        self._checkpoints = wal.Checkpoints(
            self.engine, lambda: self._sqlite_write_turn(ahead=True)) if on_file else None
        # Plain transactions whose work ran again in a session (``transaction``): a hot path
        # that reached for the ORM pays for two attempts.
        self.plain_declined = 0

    @property
    def supports_row_locks(self) -> bool:
        return self.backend != "sqlite"

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for reads only (no lock taken on SQLite)."""
        try:
            async with self.sessions() as session:
                yield session
        except (DBAPIError, PoolTimeout, OSError) as exc:
            if not _is_outage(exc):
                raise
            raise _unavailable(exc) from exc

    async def point_reads(self, queries: Sequence[Query]) -> list[list[Row]]:
        """The rows of a few short reads (a zone by id, its attributes, a page).

        On a SQLite file they run right here, on the event loop's thread, never waiting for a
        lock and within a step budget (``point_reads.py`` says why that is safe); if SQLite is
        busy or a statement runs long, in one read session. On PostgreSQL asyncpg runs them on
        a pooled connection (``asyncpg_statements.py``: prebuilt statements without IN-lists). On
        MariaDB they share one READ COMMITTED transaction, in which each statement still reads
        the latest commit: its ROLLBACK is one round trip, where AUTOCOMMIT cost four (setting
        autocommit and back, then the isolation level again and a COMMIT).
        """
        if self._point_reader is not None:
            try:
                return self._point_reader.run(queries)
            except Declined as exc:
                LOG.debug("point read through the async engine: %s", exc)
        try:
            if self._asyncpg is not None:
                try:
                    return await self._asyncpg.reads(queries)
                except Unsupported as exc:
                    LOG.debug("point read through SQLAlchemy: %s", exc)
            async with self.engine.connect() as connection:
                return [list(await connection.execute(statement, params))
                        for statement, params in queries]
        except Exception as exc:  # noqa: BLE001 - asyncpg's own errors too; the rest re-raised
            if not _is_outage(exc):
                raise
            raise _unavailable(exc) from exc

    @property
    def writes_alone(self) -> bool:
        """Whether ``write_alone`` runs here (PostgreSQL)."""
        return self._asyncpg is not None

    async def write_alone(self, statement: Executable, params: dict) -> list[Row] | None:
        """The rows of one write that is its own transaction (PostgreSQL only: ``writes_alone``).

        No BEGIN, no COMMIT: two round trips and SQLAlchemy's session fewer than a
        ``transaction`` of the same statement. The statement must be safe alone, checking
        itself what the caller read before (``recordsets.create_if_unchanged``). None when the
        database asked for the write to be run again (a deadlock, a serialization failure):
        the caller's ``transaction`` then retries it; None too for a statement asyncpg cannot
        run as SQLAlchemy would (``Unsupported``), which the transaction runs through
        SQLAlchemy. A unique violation is ``Duplicate``."""
        assert self._asyncpg is not None
        try:
            return await self._asyncpg.alone(statement, params)
        except Unsupported as exc:
            LOG.debug("write alone declined: %s", exc)
            return None
        except Exception as exc:  # noqa: BLE001 - asyncpg's own errors; the rest re-raised
            state = _sqlstate(exc)
            if state.startswith("23"):
                raise errors.Duplicate("Duplicate resource") from exc
            if _is_retryable(exc):
                return None
            if not _is_outage(exc):
                raise
            raise _unavailable(exc) from exc

    async def write_one(self, statement: Executable, params: dict) -> list[Row]:
        """The rows of one write that is safe alone: ``write_alone`` on PostgreSQL, and in a
        ``transaction`` (which retries it) where that declined or cannot run."""
        if self.writes_alone:
            found = await self.write_alone(statement, params)
            if found is not None:
                return found
        return await self.transaction(lambda session: execute(session, statement, params),
                                      plain=True)

    @asynccontextmanager
    async def _write_session(self, ahead: bool, plain: bool
                             ) -> AsyncIterator[AsyncSession | PlainSession]:
        if self._write_lock is None:
            if plain and self._asyncpg is not None:
                async with plain_session.postgresql_transaction(self.kept,
                                                                self._asyncpg) as plain_one:
                    yield plain_one
                return
            async with self.sessions() as session, session.begin():
                if self._statements is not None:
                    session.info[RUNNER] = self._statements
                yield session
            return
        async with self._sqlite_write_turn(ahead):
            if plain and self._write_turn is not None:
                assert isinstance(self._statements, SqliteStatements)
                async with plain_session.sqlite_transaction(self.kept,
                                                            self._statements) as plain_one:
                    yield plain_one
                return
            async with self.sessions() as session, session.begin():
                # The driver would BEGIN (deferred) only at the first write, so what the
                # work read before it could be changed by another process's commit in between
                # (a lost update: API processes of [service:api] workers, the worker of
                # another serve). IMMEDIATE takes SQLite's write lock before the first read.
                session.info[RUNNER] = self._statements
                connection, statements = await _connection(session)
                await statements.begin_immediate(connection)
                yield session

    @asynccontextmanager
    async def _sqlite_write_turn(self, ahead: bool = False) -> AsyncIterator[None]:
        """SQLite's one writer: this process's turn (``LocalTurns``), then, on a file, the
        turn among the processes that write it (``WriteTurn``)."""
        assert self._write_lock is not None
        await self._write_lock.acquire(ahead)
        try:
            if self._write_turn is not None:
                await self._write_turn.acquire()
            try:
                yield
            finally:
                if self._write_turn is not None:
                    self._write_turn.release()
        finally:
            self._write_lock.release()

    async def transaction(self, work: Callable[[AsyncSession], Awaitable[T]],
                          attempts: int = 5, *, ahead: bool = False, plain: bool = False) -> T:
        """Run ``work`` in one transaction, retrying on deadlock or serialisation failure.

        ``ahead``: on SQLite, pass the writers of this process waiting without it (the
        worker's, see ``LocalTurns``); elsewhere the database orders writers itself.
        ``plain``: ``work`` runs its statements by ``execute``, ``execute_count`` and
        ``execute_many``, so on a SQLite file and on PostgreSQL it gets a ``PlainSession`` in a
        transaction without SQLAlchemy's session (``plain_session`` says why); should it need
        more (``Unsupported``: a statement the driver cannot run itself, the ORM), it runs
        again in a session."""
        for attempt in range(1, attempts + 1):
            try:
                async with self._write_session(ahead, plain) as session:
                    result = await work(session)  # type: ignore[arg-type]
                if self._checkpoints is not None:
                    self._checkpoints.committed()
                return result
            except Unsupported as exc:
                if not plain:
                    raise
                LOG.debug("plain transaction declined, run in a session: %s", exc)
                self.plain_declined += 1
                plain = False
                continue
            except IntegrityError as exc:
                # A concurrent writer won a race the rules checked before writing.
                raise errors.Duplicate("Duplicate resource") from exc
            except (DBAPIError, PoolTimeout, OSError) as exc:
                retryable = _is_retryable(exc)
                if not retryable and not _is_outage(exc):
                    raise
                if attempt == attempts or not retryable:
                    raise _unavailable(exc) from exc
                LOG.info("retrying transaction after %s (attempt %d)", exc.__class__.__name__, attempt)
                await asyncio.sleep(random.uniform(0.005, 0.05) * attempt)
        raise AssertionError("unreachable")

    async def dispose(self) -> None:
        if self._checkpoints is not None:
            await self._checkpoints.close()
        self.kept.close()
        await self.engine.dispose()
        if self._point_reader is not None:
            self._point_reader.close()
        if self._write_turn is not None:
            self._write_turn.close()


S = TypeVar("S", bound=Executable)
BOUNDED = {"bounded": True}


async def execute(session: AsyncSession, statement: Executable, params: dict | None = None,
                  options: dict | None = None) -> list[Row]:
    """The rows of one prebuilt statement inside ``session``'s transaction (none for a write
    without RETURNING).

    The hot statements of the write paths (a recordset POST's five, the worker's claim) go
    through here: in a write transaction the driver runs them on the transaction's connection
    without SQLAlchemy's execution, asyncpg on PostgreSQL at about a third of its CPU
    (``asyncpg_statements.py``), ours on SQLite (``sqlite_statements.py``). A statement they
    cannot run as SQLAlchemy would, and every statement elsewhere, runs through SQLAlchemy.
    ``options``: SQLAlchemy's execution options (``BOUNDED``). Like
    ``AsyncConnection.execute``, it does not flush the session first."""
    connection, runner = await _connection(session)
    if runner is not None:
        try:
            return await runner.run_in(connection, statement, params or {}, options)
        except Unsupported:
            _require_sqlalchemy_connection(connection)
    result = await connection.execute(statement, params, execution_options=options or {})
    return list(result) if result.returns_rows else []


async def execute_count(session: AsyncSession, statement: Executable, params: dict,
                        options: dict | None = None) -> int:
    """``execute`` of a write (an UPDATE, a DELETE): how many rows it touched."""
    connection, runner = await _connection(session)
    if runner is not None:
        try:
            return await runner.count_in(connection, statement, params, options)
        except Unsupported:
            _require_sqlalchemy_connection(connection)
    return (await connection.execute(statement, params, execution_options=options or {})).rowcount


async def execute_many(session: AsyncSession, statement: Executable, rows: list[dict],
                       options: dict | None = None) -> None:
    """``execute`` of a write once for each of ``rows`` (an INSERT's new rows, each with the
    same keys)."""
    connection, runner = await _connection(session)
    if runner is not None:
        try:
            await runner.run_many_in(connection, statement, rows, options)
            return
        except Unsupported:
            _require_sqlalchemy_connection(connection)
    await connection.execute(statement, rows, execution_options=options or {})


async def _connection(session: AsyncSession | PlainSession
                      ) -> tuple[Any, AsyncpgStatements | SqliteStatements | None]:
    """The session's connection, and the statements' runner of a write session
    (``Database._write_session``; none on MariaDB).

    ``AsyncSession.connection`` costs a greenlet switch at every call, ~20 µs, a dozen times
    per claim; a write session (``Database._write_session``) lives for one transaction on one
    connection, so its runner keeps the connection once asked."""
    runner = session.info.get(RUNNER)
    if runner is None:
        return await session.connection(), None
    connection = session.info.get(CONNECTION)
    if connection is None:
        connection = session.info[CONNECTION] = await session.connection()
    return connection, runner


def _require_sqlalchemy_connection(connection: object) -> None:
    """Before a statement the runner declined runs through SQLAlchemy: a plain transaction
    has no SQLAlchemy connection, so there ``Unsupported`` goes on up to ``transaction``,
    which runs the work again in a session."""
    if not isinstance(connection, AsyncConnection):
        raise Unsupported("a statement the driver cannot run, in a plain transaction")


def bounded(statement: S) -> S:
    """``statement``, vouched to touch a handful of rows found by key.

    On SQLite, inside a write transaction, such a statement runs on the event loop's thread
    instead of crossing to the driver's (``sqlite_driver``): a write there cannot be
    interrupted without losing the transaction, so only writes their callers know to be small
    may. For one execution only: ``execution_options=BOUNDED``. Elsewhere the mark does
    nothing."""
    return statement.execution_options(**BOUNDED)


def among(column: ColumnElement, constants: tuple[str, ...]) -> ColumnElement[bool]:
    """``column IN (...)`` of the code's own constant strings, written into the SQL instead of
    bound. SQLAlchemy binds a list as one parameter it expands at each execution, so the
    statement is not prepared once: asyncpg does not run it itself (``execute``), and the
    worker's claim has several."""
    if not all(value.isalnum() for value in constants):
        raise ValueError(f"not a plain constant among {constants!r}")
    return column.in_([literal_column(f"'{value}'") for value in constants])


def _note_bounded(conn, _cursor, _statement, _parameters, context, _many) -> None:  # noqa: ANN001
    """Before each SQLite statement: tell the driver whether its caller vouched for it."""
    if context is not None and context.execution_options.get("bounded"):
        conn.connection.driver_connection.bounded_next = True


async def flush(session: AsyncSession) -> None:
    """Write what the transaction holds so far: the next query sees it, a clash raises here."""
    await session.flush()


def _unavailable(exc: Exception) -> errors.ServiceUnavailable:
    """The database is down or restarting: clients get a 503 to retry, not a 500."""
    LOG.warning("database unavailable: %s", exc)
    return errors.ServiceUnavailable("The database is unavailable, please retry later")


def _is_retryable(exc: Exception) -> bool:
    text = str(getattr(exc, "orig", exc))
    return any(marker in text for marker in _RETRY_MARKERS) or _sqlstate(exc) in ("40001", "40P01")


def _sqlstate(exc: Exception) -> str:
    """The SQLSTATE of a driver error, wrapped by SQLAlchemy (``orig``) or raw (asyncpg's, from
    a point read)."""
    return str(getattr(getattr(exc, "orig", exc), "sqlstate", None) or "")


def _is_outage(exc: Exception) -> bool:
    """The database is unreachable, restarting or out of connections: a 503, not a 500.

    A bug (bad SQL, a value too long) stays a 500: only errors that say the server or the link
    to it failed count, whatever class the driver maps them to."""
    if isinstance(exc, (OperationalError, InterfaceError, OSError, PoolTimeout, ConnectionLost)):
        return True
    if getattr(exc, "connection_invalidated", False):
        return True
    return _sqlstate(exc)[:2] in _OUTAGE_SQLSTATE_CLASSES


def repair_aiomysql_bytes_escape() -> None:
    """Make bytes parameters work with aiomysql 0.3.2 on PyMySQL >= 1.2.3.

    aiomysql escapes ``bytes`` with ``pymysql.converters.escape_bytes_prefixed``, which PyMySQL
    1.2.3 turned into a placeholder string (aio-libs/aiomysql#1080, still open): every write of a
    LargeBinary column (the IXFR history) failed with "'str' object is not callable" on MariaDB,
    so no zone update there could become ACTIVE. The replacement emits what PyMySQL itself emits.
    """
    import aiomysql.connection

    if not callable(getattr(aiomysql.connection, "escape_bytes_prefixed", None)):
        aiomysql.connection.escape_bytes_prefixed = lambda value: f"_binary X'{value.hex()}'"


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # noqa: ANN001 - DB-API objects
    cursor = dbapi_connection.cursor()
    # The wait first: a connection opened while another process holds the file then waits for
    # it instead of failing its first pragma at once.
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # wal.Checkpoints runs them instead
    cursor.execute(f"PRAGMA journal_size_limit={wal.KEPT_BYTES}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
