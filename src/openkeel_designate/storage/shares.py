"""SQL for zone shares (API v2.1) and what blocks removing one."""

from __future__ import annotations

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import errors
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import RecordSet, SharedZone, Zone, new_id, utcnow
from openkeel_designate.storage.zones import LIVE


def _visible(query, project_id: str | None, all_tenants: bool):
    """Share rows are seen by the project that shared and the project shared with."""
    if all_tenants:
        return query
    return query.where(or_(SharedZone.project_id == project_id,
                           SharedZone.target_project_id == project_id))


async def get(session: AsyncSession, zone_id: str, share_id: str, *, project_id: str | None,
              all_tenants: bool) -> SharedZone | None:
    query = _visible(select(SharedZone).where(SharedZone.id == share_id,
                                              SharedZone.zone_id == zone_id),
                     project_id, all_tenants)
    return (await session.execute(query)).scalar_one_or_none()


async def find(session: AsyncSession, zone_id: str, page: Page, *, project_id: str | None,
               all_tenants: bool) -> list[SharedZone]:
    query = _visible(select(SharedZone).where(SharedZone.zone_id == zone_id),
                     project_id, all_tenants)
    query = apply_criteria(query, SharedZone, page.criteria)
    paged = await paginate(session, query, SharedZone, page)
    return list((await session.execute(paged)).scalars())


async def add(session: AsyncSession, zone_id: str, project_id: str | None,
              target_project_id: str) -> SharedZone:
    """Insert the share; the unique (zone, target) constraint decides duplicates, races too."""
    if await _exists(session, zone_id, target_project_id):
        raise errors.DuplicateSharedZone("Duplicate SharedZone")
    share = SharedZone(id=new_id(), zone_id=zone_id, project_id=project_id,
                       target_project_id=target_project_id, created_at=utcnow())
    session.add(share)
    try:
        await session.flush()
    except IntegrityError as exc:
        raise errors.DuplicateSharedZone("Duplicate SharedZone") from exc
    return share


async def _exists(session: AsyncSession, zone_id: str, target_project_id: str) -> bool:
    query = select(SharedZone.id).where(SharedZone.zone_id == zone_id,
                                        SharedZone.target_project_id == target_project_id)
    return (await session.execute(query)).first() is not None


async def remove(session: AsyncSession, share_id: str) -> None:
    await session.execute(delete(SharedZone).where(SharedZone.id == share_id))


async def count_sub_zones_of(session: AsyncSession, zone_id: str, project_id: str) -> int:
    query = select(func.count()).select_from(Zone).where(
        Zone.parent_zone_id == zone_id, Zone.tenant_id == project_id, Zone.deleted == LIVE)
    return (await session.execute(query)).scalar_one()


async def count_recordsets_of(session: AsyncSession, zone_id: str, project_id: str) -> int:
    query = select(func.count()).select_from(RecordSet).where(
        RecordSet.zone_id == zone_id, RecordSet.tenant_id == project_id)
    return (await session.execute(query)).scalar_one()
