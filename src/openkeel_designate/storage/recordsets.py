"""SQL for recordsets and their records."""

from __future__ import annotations

import hashlib
from collections import defaultdict

from sqlalchemy import delete, distinct, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.filters import Page, apply_criteria, criterion, paginate
from openkeel_designate.storage.models import Record, RecordSet, SharedZone, Zone
from openkeel_designate.storage.zones import LIVE

# Filters that match individual records rather than the recordset row.
RECORD_FILTERS = {"data": Record.data, "status": Record.status}


def record_hash(recordset_id: str, data: str) -> str:
    return hashlib.md5(f"{recordset_id}:{data}".encode()).hexdigest()


async def get(session: AsyncSession, recordset_id: str) -> RecordSet | None:
    return await session.get(RecordSet, recordset_id)


async def find_one(session: AsyncSession, zone_id: str, name: str, rtype: str) -> RecordSet | None:
    query = select(RecordSet).where(RecordSet.zone_id == zone_id, RecordSet.name == name,
                                    RecordSet.type == rtype)
    return (await session.execute(query)).scalar_one_or_none()


async def names_in_zone(session: AsyncSession, zone_id: str, name: str) -> list[RecordSet]:
    query = select(RecordSet).where(RecordSet.zone_id == zone_id, RecordSet.name == name)
    return list((await session.execute(query)).scalars())


async def count_in_zone(session: AsyncSession, zone_id: str) -> int:
    query = select(func.count()).select_from(RecordSet).where(RecordSet.zone_id == zone_id)
    return (await session.execute(query)).scalar_one()


async def count_unmanaged_records(session: AsyncSession, zone_id: str,
                                  exclude_recordset: str | None = None) -> int:
    query = select(func.count()).select_from(Record).where(Record.zone_id == zone_id,
                                                           Record.managed.is_(False))
    if exclude_recordset:
        query = query.where(Record.recordset_id != exclude_recordset)
    return (await session.execute(query)).scalar_one()


async def find(session: AsyncSession, page: Page, *, zone_id: str | None, project_id: str | None,
               all_tenants: bool, count: bool = True) -> tuple[list[RecordSet], int | None]:
    """One page of recordsets (of one zone, or every visible zone) and the total count.

    ``count=False`` (OpenStack-DNS-Hide-Counts) skips the COUNT, which is the expensive part of
    a listing over a million recordsets.
    """
    query = select(RecordSet)
    if zone_id is not None:
        query = query.where(RecordSet.zone_id == zone_id)
    else:
        live = select(Zone.id).where(Zone.deleted == LIVE)
        if not all_tenants:
            shared = select(SharedZone.zone_id).where(SharedZone.target_project_id == project_id)
            live = live.where(or_(Zone.tenant_id == project_id, Zone.id.in_(shared)))
        query = query.where(RecordSet.zone_id.in_(live))
    plain = {k: v for k, v in page.criteria.items() if k not in RECORD_FILTERS}
    query = apply_criteria(query, RecordSet, plain)
    for key, column in RECORD_FILTERS.items():
        if key in page.criteria:
            value = page.criteria[key]
            if key == "status":
                value = value.upper()
            matching = select(distinct(Record.recordset_id)).where(criterion(column, value))
            query = query.where(RecordSet.id.in_(matching))
    total = None
    if count:
        total = (await session.execute(select(func.count()).select_from(query.subquery()))
                 ).scalar_one()
    paged = await paginate(session, query, RecordSet, page)
    return list((await session.execute(paged)).scalars()), total


async def records_of(session: AsyncSession, recordset_ids: list[str]) -> dict[str, list[Record]]:
    result: dict[str, list[Record]] = defaultdict(list)
    if recordset_ids:
        query = select(Record).where(Record.recordset_id.in_(recordset_ids))
        for record in (await session.execute(query)).scalars():
            result[record.recordset_id].append(record)
    return result


async def delete_recordset(session: AsyncSession, recordset_id: str) -> None:
    await session.execute(delete(Record).where(Record.recordset_id == recordset_id))
    await session.execute(delete(RecordSet).where(RecordSet.id == recordset_id))


async def delete_records(session: AsyncSession, record_ids: list[str]) -> None:
    if record_ids:
        await session.execute(delete(Record).where(Record.id.in_(record_ids)))



async def managed_records(session: AsyncSession, zone_id: str | None, plugin_name: str,
                          plugin_type: str, resource_type: str, resource_id: str) -> list[Record]:
    """Records a notification handler created for one resource (instance, floating IP)."""
    query = select(Record).where(
        Record.managed.is_(True), Record.managed_plugin_name == plugin_name,
        Record.managed_plugin_type == plugin_type, Record.managed_resource_type == resource_type,
        Record.managed_resource_id == resource_id)
    if zone_id is not None:
        query = query.where(Record.zone_id == zone_id)
    return list((await session.execute(query)).scalars())
