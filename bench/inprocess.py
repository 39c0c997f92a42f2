"""What the in-process benchmarks share: the API app wired as ``serve`` wires it, on a fresh
database, a CPU clock per named step, and the choice of database from the command line.

``api_inprocess.py``, ``worker_inprocess.py`` and ``mdns_inprocess.py`` measure CPU per call
without HTTP or a load generator (``time.process_time``: every thread of the process, the
SQLite driver's included), so their figures hold on a busy machine. Imported by them as a plain
module: a script's own folder is first on ``sys.path``.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
from sqlalchemy import Engine, event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from openkeel_designate import config  # noqa: E402
from openkeel_designate.api.app import create_app  # noqa: E402
from openkeel_designate.central import pools  # noqa: E402
from openkeel_designate.central.policy import Policy  # noqa: E402
from openkeel_designate.central.services import Services  # noqa: E402
from openkeel_designate.storage import migrate, workqueue  # noqa: E402
from openkeel_designate.storage.database import Database  # noqa: E402
from openkeel_designate.worker import tasks  # noqa: E402
from support.databases import empty_database_url  # noqa: E402

HEADERS = {"X-Auth-Project-ID": "bench", "X-Roles": "member,reader"}
DATABASES = ["sqlite", "postgresql", "mysql"]
T = TypeVar("T")


@asynccontextmanager
async def wired(url: str, state_dir: str, **overrides: Any) -> AsyncIterator[tuple[Services, Any]]:
    """Central's services and the API app on ``url`` (migrated here), noauth, Designate's
    default policy, the default pool; ``overrides`` are set on the configuration."""
    migrate.upgrade(url)
    conf = config.load([])
    conf.set_override("state_path", state_dir)
    for name, value in overrides.items():
        conf.set_override(name, value)
    db = Database(url)
    services = Services(conf=conf, db=db, policy=Policy(conf))
    tasks.attach(services)
    await pools.ensure_default_pool(services)
    try:
        yield services, create_app(services)
    finally:
        await db.dispose()


async def serve_pending(db: Database, owner: str) -> list[workqueue.ClaimedZone]:
    """Claim what is pending and complete it as if every nameserver served it (untimed set-up:
    a zone the measured changes go into)."""
    claimed = await workqueue.claim(db, owner, 30, 10)
    if claimed:
        await workqueue.complete_many(db, [(zone, zone.serial) for zone in claimed], owner)
    return claimed


class Clock:
    """Milliseconds of process CPU per named step, summed over the measured calls; with
    ``statements`` (a ``StatementCount``), the statements each step ran too."""

    def __init__(self, steps: tuple[str, ...], statements: StatementCount | None = None) -> None:
        self.spent = dict.fromkeys(steps, 0.0)
        self.ran = dict.fromkeys(steps, 0)
        self._statements = statements

    async def time(self, step: str, call: Callable[[], Awaitable[T]]) -> T:
        ran = self._statements.count if self._statements else 0
        started = time.process_time()
        result = await call()
        self.spent[step] += 1000 * (time.process_time() - started)
        self.ran[step] += (self._statements.count if self._statements else 0) - ran
        return result


class StatementCount:
    """Statements the database received, counted by its driver, so that every path counts:
    SQLAlchemy's execution, the statements the storage runs on the driver itself (asyncpg's
    own on PostgreSQL, the one-trip driver on SQLite), BEGIN and COMMIT included.

    On SQLite each new ``sqlite3`` connection gets a trace callback; on PostgreSQL asyncpg's
    execution methods are wrapped. Both count only connections opened after ``install``, so a
    benchmark installs it before it opens the database. On MySQL the count is SQLAlchemy's
    ``before_cursor_execute`` (every statement runs through it there; BEGIN and COMMIT are
    not counted). ``recent`` keeps the texts since the last ``take``."""

    _installed: StatementCount | None = None

    def __init__(self) -> None:
        self.count = 0
        self.recent: list[object] = []

    @classmethod
    def install(cls, url: str) -> StatementCount:
        """The process's counter, its hooks set for ``url``'s database (once per process)."""
        if cls._installed is None:
            cls._installed = cls()
            if url.startswith("sqlite"):
                cls._installed._trace_sqlite()
            elif url.startswith("postgresql"):
                cls._installed._wrap_asyncpg()
            else:
                event.listen(Engine, "before_cursor_execute",
                             lambda _c, _cur, sql, *_: cls._installed._one(sql))
        return cls._installed

    def take(self) -> list[str]:
        """The statements since the last call, oldest first, each on one line."""
        taken, self.recent = self.recent, []
        return [" ".join(str(sql).split()) for sql in taken]

    def _one(self, sql: object) -> None:
        """Counted as it goes; the text is only tidied in ``take`` (the hook's own CPU falls
        in the measured steps of ``worker_inprocess.py``)."""
        self.count += 1
        self.recent.append(sql)

    def _trace_sqlite(self) -> None:
        opened = sqlite3.connect

        def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            connection = opened(*args, **kwargs)
            connection.set_trace_callback(self._one)
            return connection

        sqlite3.connect = connect  # the driver (storage/sqlite_driver.py) calls it by module

    def _wrap_asyncpg(self) -> None:
        counter = self

        def counted(method: Callable[..., Any], sql_at: int | None,
                    only_without_args: bool = False) -> Callable[..., Any]:
            @functools.wraps(method)
            def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                if not (only_without_args and len(args) > 1):
                    counter._one(args[sql_at] if sql_at is not None else self.get_query())
                return method(self, *args, **kwargs)
            return wrapper

        connection, prepared = asyncpg.connection.Connection, asyncpg.prepared_stmt.PreparedStatement
        # fetch/fetchrow/fetchval, execute with arguments and executemany end in _do_execute;
        # execute without arguments (BEGIN, COMMIT) sends a simple query instead.
        connection._do_execute = counted(connection._do_execute, 0)
        connection.execute = counted(connection.execute, 0, only_without_args=True)
        # SQLAlchemy's own execution: prepared statements, run or opened as a cursor.
        name = "_PreparedStatement__bind_execute"
        setattr(prepared, name, counted(getattr(prepared, name), None))
        prepared.executemany = counted(prepared.executemany, None)
        prepared.cursor = counted(prepared.cursor, None)


def run_on(database: str, measure: Callable[[str, str], Awaitable[None]]) -> None:
    """``measure(url, state_dir)`` on a fresh SQLite file or an empty database of ``database``."""
    with tempfile.TemporaryDirectory(prefix="okd-bench-") as state_dir:
        if database == "sqlite":
            asyncio.run(measure(f"sqlite:///{state_dir}/bench.sqlite", state_dir))
        else:
            with empty_database_url(database, prefix="okd-bench-") as url:
                asyncio.run(measure(url, state_dir))
