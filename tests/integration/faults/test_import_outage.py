"""A zone import that meets a database outage stays PENDING and is retried; it does not fail.

Regression: storage turns a lost database into ``ServiceUnavailable``, which is a
``DesignateError``; ``run_import`` caught it as "a rule refused the zone" and ended the import
ERROR for good (its ``except OperationalError`` meant for this case could never fire). Here the
outage is injected in-process on SQLite, at the point where the zone would be written.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from openkeel_designate import config
from openkeel_designate.central import pools, zone_imports
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import migrate
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.database import Database

ZONEFILE = """$ORIGIN outage-import.example.
$TTL 300
@ IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300
@ IN NS ns1.example.org.
www IN A 192.0.2.9
"""


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[Services]:
    url = f"sqlite:///{tmp_path}/designate.sqlite"
    migrate.upgrade(url)
    conf = config.load([])
    conf.set_override("state_path", str(tmp_path))
    db = Database(url)
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    await pools.ensure_default_pool(svc)
    yield svc
    await db.dispose()


async def _status(svc: Services, task_id: str) -> str:
    async with svc.db.read() as session:
        task = await task_store.get(session, task_id, task_store.IMPORT)
    assert task is not None
    return task.status


async def test_import_survives_an_outage_at_write_time(services: Services,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = RequestContext(user_id="u", project_id="p", roles=["admin"])
    task = await zone_imports.create_zone_import(services, ctx, ZONEFILE)

    async def database_gone(*_args: object) -> bool:
        raise errors.ServiceUnavailable("The database is unavailable, please retry later")

    with monkeypatch.context() as patch:
        patch.setattr(zone_imports, "_create", database_gone)
        with pytest.raises(errors.ServiceUnavailable):
            await zone_imports.run_import(services, task.id)
    assert await _status(services, task.id) == "PENDING"

    await zone_imports.run_import(services, task.id)  # what the sweep does once it is back
    assert await _status(services, task.id) == "COMPLETE"
