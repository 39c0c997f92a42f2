"""SQL for floating IP PTR records: managed records tagged ``ptr:floatingip``."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import names
from openkeel_designate.storage.models import Record, Zone
from openkeel_designate.storage.zones import LIVE

PTR_RESOURCE = "ptr:floatingip"


def _live_ptrs():
    live = select(Zone.id).where(Zone.deleted == LIVE)
    return select(Record).where(Record.managed_resource_type == PTR_RESOURCE,
                                Record.zone_id.in_(live))


async def ptr_records(session: AsyncSession, fip_ids: list[str]) -> list[Record]:
    """Every PTR record of these floating IPs, whichever project set it."""
    if not fip_ids:
        return []
    query = _live_ptrs().where(Record.managed_resource_id.in_(fip_ids))
    return list((await session.execute(query)).scalars())


async def ptr_record(session: AsyncSession, region: str, fip_id: str,
                     tenant_id: str | None) -> Record | None:
    """The PTR record a project set on one floating IP, if any."""
    query = _live_ptrs().where(Record.managed_resource_id == fip_id,
                               Record.managed_resource_region == region,
                               Record.managed_tenant_id == tenant_id)
    return (await session.execute(query.limit(1))).scalar_one_or_none()


async def zone_named(session: AsyncSession, name: str, tenant_id: str) -> Zone | None:
    """The live zone of that name (in any case) owned by ``tenant_id`` (the reverse zone's owner)."""
    query = select(Zone).where(Zone.deleted == LIVE, Zone.name_key == names.key(name),
                               Zone.tenant_id == tenant_id).order_by(Zone.created_at)
    return (await session.execute(query.limit(1))).scalar_one_or_none()


async def zone_ttls(session: AsyncSession, zone_ids: set[str]) -> dict[str, int]:
    if not zone_ids:
        return {}
    query = select(Zone.id, Zone.ttl).where(Zone.id.in_(zone_ids))
    return {zone_id: ttl for zone_id, ttl in (await session.execute(query)).all()}
