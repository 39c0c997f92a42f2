"""SQL behind the ``/admin/reports`` counts and per-tenant summaries (live zones only)."""

from __future__ import annotations

from sqlalchemy import distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Record, Zone
from openkeel_designate.storage.zones import LIVE


async def count_zones(session: AsyncSession) -> int:
    query = select(func.count()).select_from(Zone).where(Zone.deleted == LIVE)
    return (await session.execute(query)).scalar_one()


async def count_zones_delayed_notify(session: AsyncSession) -> int:
    query = select(func.count()).select_from(Zone).where(
        Zone.deleted == LIVE, Zone.delayed_notify.is_(True))
    return (await session.execute(query)).scalar_one()


async def count_records(session: AsyncSession) -> int:
    live = select(Zone.id).where(Zone.deleted == LIVE)
    query = select(func.count()).select_from(Record).where(Record.zone_id.in_(live))
    return (await session.execute(query)).scalar_one()


async def count_tenants(session: AsyncSession) -> int:
    query = select(func.count(distinct(Zone.tenant_id))).where(Zone.deleted == LIVE)
    return (await session.execute(query)).scalar_one()


async def tenants(session: AsyncSession) -> list[tuple[str, int]]:
    """(project id, number of live zones) for every project owning a zone."""
    query = (select(Zone.tenant_id, func.count(Zone.id)).where(Zone.deleted == LIVE)
             .group_by(Zone.tenant_id).order_by(Zone.tenant_id))
    return [(tenant, count) for tenant, count in (await session.execute(query)).all()]


async def tenant_zone_names(session: AsyncSession, project_id: str) -> list[str]:
    query = (select(Zone.name).where(Zone.deleted == LIVE, Zone.tenant_id == project_id)
             .order_by(Zone.created_at, Zone.id))
    return list((await session.execute(query)).scalars())
