"""Service heartbeats: each role of each process reports UP periodically."""

from __future__ import annotations

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import service_statuses as store
from openkeel_designate.storage.filters import Page
from openkeel_designate.storage.models import ServiceStatus


async def heartbeat(svc: Services, service_names: list[str], status: str = "UP") -> None:
    async def work(session) -> None:
        for name in service_names:
            await store.upsert(session, name, svc.conf.host, status)

    try:
        await svc.db.transaction(work)
    except errors.Duplicate:  # another process of this host inserted the row first
        await svc.db.transaction(work)


async def find(svc: Services, ctx: RequestContext, page: Page) -> list[ServiceStatus]:
    svc.policy.check("find_service_statuses", ctx)
    async with svc.db.read() as session:
        return await store.find(session, page)


async def get(svc: Services, ctx: RequestContext, status_id: str) -> ServiceStatus:
    svc.policy.check("find_service_status", ctx)
    async with svc.db.read() as session:
        row = await store.get(session, status_id)
    if row is None:
        raise errors.ServiceStatusNotFound("Could not find ServiceStatus")
    return row
