"""The API in-process (ASGI) on a real database: SQLite, PostgreSQL and MariaDB.

Each test gets a fresh database (migrated with alembic) and an app with central wired in; no
worker runs here, so writes stay PENDING — the end-to-end tests cover propagation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.central import pools
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage import migrate
from openkeel_designate.storage import workqueue
from openkeel_designate.storage.database import Database
from openkeel_designate.worker import tasks
from support.databases import empty_database_url

BACKENDS = ("sqlite", "postgresql", "mysql")


@pytest.fixture(params=BACKENDS)
def database_url(request) -> Iterator[str]:
    with empty_database_url(request.param, prefix="okd-api-") as url:
        yield url


@pytest.fixture
def conf(tmp_path):
    conf = config.load([])
    conf.set_override("state_path", str(tmp_path))
    conf.set_override("quota_zones", 1000)
    return conf


@pytest.fixture
async def wired(conf, database_url) -> AsyncIterator[tuple[Services, tasks.TaskRunner]]:
    """Central on a fresh database, with the zone-task runner a serving process attaches."""
    migrate.upgrade(database_url)
    db = Database(database_url)
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    runner = tasks.attach(svc)
    await pools.ensure_default_pool(svc)
    yield svc, runner
    await db.dispose()


@pytest.fixture
def services(wired) -> Services:
    return wired[0]


@pytest.fixture
def task_runner(wired) -> tasks.TaskRunner:
    """Drain it to wait for the imports and exports a test started."""
    return wired[1]


@pytest.fixture
async def client(services) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http


def project(name: str, roles: str = "member,reader") -> dict[str, str]:
    """noauth headers of a caller in project ``name``."""
    return {"X-Auth-Project-ID": name, "X-Roles": roles}


async def serve_pending(services: Services, owner: str) -> list[workqueue.ClaimedZone]:
    """What the worker does before and after its push: the pending zones get their serial (and
    IXFR history), then are complete."""
    claimed = await workqueue.claim(services.db, owner, 30, 10)
    await workqueue.complete_many(services.db, [(z, z.serial) for z in claimed], owner)
    return claimed
