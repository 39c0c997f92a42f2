"""SQL for service heartbeats (``/v2/service_statuses``)."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.filters import Page, apply_criteria, paginate
from openkeel_designate.storage.models import ServiceStatus, utcnow


async def upsert(session: AsyncSession, service_name: str, hostname: str, status: str) -> None:
    row = (await session.execute(select(ServiceStatus).where(
        ServiceStatus.service_name == service_name, ServiceStatus.hostname == hostname)
    )).scalar_one_or_none()
    now = utcnow()
    if row is None:
        session.add(ServiceStatus(service_name=service_name, hostname=hostname, status=status,
                                  heartbeated_at=now, stats=json.dumps({}),
                                  capabilities=json.dumps({}), created_at=now))
    else:
        row.status, row.heartbeated_at, row.updated_at = status, now, now


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
