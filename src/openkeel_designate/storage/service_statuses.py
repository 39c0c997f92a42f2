"""SQL for service heartbeats (``/v2/service_statuses``)."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.paging import Page
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import ServiceStatus, new_id, utcnow
from openkeel_designate.storage.upsert import insert_if_absent


async def upsert(session: AsyncSession, service_name: str, hostname: str, status: str) -> None:
    """Record a heartbeat; the row is made on the first one. Processes of one host share the
    row of a service, and may all make their first heartbeat at the same instant."""
    now = utcnow()
    await insert_if_absent(session, ServiceStatus, {
        "id": new_id(), "service_name": service_name, "hostname": hostname,
        "status": status, "heartbeated_at": now, "stats": json.dumps({}),
        "capabilities": json.dumps({}), "created_at": now})
    await session.execute(update(ServiceStatus).where(
        ServiceStatus.service_name == service_name, ServiceStatus.hostname == hostname
    ).values(status=status, heartbeated_at=now, updated_at=now))


async def find(session: AsyncSession, page: Page) -> list[ServiceStatus]:
    query = apply_criteria(select(ServiceStatus), ServiceStatus, page.criteria)
    return list((await session.execute(await paginate(session, query, ServiceStatus, page)))
                .scalars())


async def get(session: AsyncSession, status_id: str) -> ServiceStatus | None:
    return await session.get(ServiceStatus, status_id)


async def mark_down(session: AsyncSession, older_than: datetime) -> None:
    rows = await session.execute(select(ServiceStatus).where(
        ServiceStatus.status == "UP", ServiceStatus.heartbeated_at < older_than))
    for row in rows.scalars():
        row.status = "DOWN"
