"""What the in-process benchmarks share: the API app wired as ``serve`` wires it, on a fresh
database, a CPU clock per named step, and the choice of database from the command line.

``api_inprocess.py``, ``worker_inprocess.py`` and ``mdns_inprocess.py`` measure CPU per call
without HTTP or a load generator (``time.process_time``: every thread of the process, the
SQLite driver's included), so their figures hold on a busy machine. Imported by them as a plain
module: a script's own folder is first on ``sys.path``.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

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
    """Statements the engine ran through SQLAlchemy's execution, counted as they go. Point reads
    that bypass it (asyncpg's own on PostgreSQL, the loop's thread on SQLite) are not counted:
    a figure for comparing two trees' steps, not every round trip."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.count = 0
        event.listen(engine.sync_engine, "before_cursor_execute", self._one)

    def _one(self, *_: object) -> None:
        self.count += 1


def run_on(database: str, measure: Callable[[str, str], Awaitable[None]]) -> None:
    """``measure(url, state_dir)`` on a fresh SQLite file or an empty database of ``database``."""
    with tempfile.TemporaryDirectory(prefix="okd-bench-") as state_dir:
        if database == "sqlite":
            asyncio.run(measure(f"sqlite:///{state_dir}/bench.sqlite", state_dir))
        else:
            with empty_database_url(database, prefix="okd-bench-") as url:
                asyncio.run(measure(url, state_dir))
