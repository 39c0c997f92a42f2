"""Service heartbeats: each role of each process reports UP periodically."""

from __future__ import annotations

from typing import Any

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import service_statuses as store
from openkeel_designate.storage.rows import snapshot


async def heartbeat(svc: Services, service_names: list[str], status: str = "UP") -> None:
    """One row per service and host, shared by the processes of that host (as Designate's).

    Rows are written in name order, so processes with the same roles listed differently lock
    them in the same order and do not deadlock each other."""
    async def work(session) -> None:
        for name in sorted(service_names):
            await store.upsert(session, name, svc.conf.host, status)

    await svc.db.transaction(work)


async def find(svc: Services, ctx: RequestContext, page: Page) -> list[Any]:
    svc.policy.check("find_service_statuses", ctx)
    async with svc.db.read() as session:
        return [snapshot(row) for row in await store.find(session, page)]


async def get(svc: Services, ctx: RequestContext, status_id: str) -> Any:
    svc.policy.check("find_service_status", ctx)
    async with svc.db.read() as session:
        row = await store.get(session, status_id)
    if row is None:
        raise errors.ServiceStatusNotFound("Could not find ServiceStatus")
    return snapshot(row)
