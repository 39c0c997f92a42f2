"""SQL for zone transfer requests and accepts, and the change of a zone's owner."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.paging import Page
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import (
    Record,
    RecordSet,
    Zone,
    ZoneTransferAccept,
    ZoneTransferRequest,
    new_id,
    utcnow,
)

RequestRow = tuple[ZoneTransferRequest, str | None]  # the request and its zone's name


def _requests(project_id: str | None, all_tenants: bool):
    """Requests with their zone name; without all projects only the owner's and the target's."""
    query = select(ZoneTransferRequest, Zone.name).outerjoin(
        Zone, Zone.id == ZoneTransferRequest.zone_id)
    if not all_tenants:
        query = query.where(or_(ZoneTransferRequest.tenant_id == project_id,
                                ZoneTransferRequest.target_tenant_id == project_id))
    return query


async def get_request(session: AsyncSession, request_id: str, *, project_id: str | None = None,
                      all_tenants: bool = True) -> RequestRow | None:
    query = _requests(project_id, all_tenants).where(ZoneTransferRequest.id == request_id)
    row = (await session.execute(query)).first()
    return (row[0], row[1]) if row is not None else None


async def lock_request(session: AsyncSession, request_id: str) -> ZoneTransferRequest | None:
    """The request row locked and re-read, so two accepts of one request cannot both succeed."""
    query = (select(ZoneTransferRequest).where(ZoneTransferRequest.id == request_id)
             .with_for_update().execution_options(populate_existing=True))
    return (await session.execute(query)).scalar_one_or_none()


async def find_requests(session: AsyncSession, page: Page, *, project_id: str | None,
                        all_tenants: bool) -> list[RequestRow]:
    query = apply_criteria(_requests(project_id, all_tenants), ZoneTransferRequest,
                           page.criteria)
    paged = await paginate(session, query, ZoneTransferRequest, page)
    return [(row[0], row[1]) for row in (await session.execute(paged)).all()]


async def active_request_exists(session: AsyncSession, zone_id: str, project_id: str | None,
                                all_tenants: bool) -> bool:
    """An ACTIVE request for the zone that the caller can see (Designate's duplicate rule)."""
    query = _requests(project_id, all_tenants).where(
        ZoneTransferRequest.zone_id == zone_id, ZoneTransferRequest.status == "ACTIVE")
    return (await session.execute(query.limit(1))).first() is not None


async def get_accept(session: AsyncSession, accept_id: str, *, project_id: str | None,
                     all_tenants: bool) -> ZoneTransferAccept | None:
    query = select(ZoneTransferAccept).where(ZoneTransferAccept.id == accept_id)
    if not all_tenants:
        query = query.where(ZoneTransferAccept.tenant_id == project_id)
    return (await session.execute(query)).scalar_one_or_none()


async def find_accepts(session: AsyncSession, page: Page, *, project_id: str | None,
                       all_tenants: bool) -> tuple[list[ZoneTransferAccept], int]:
    query = select(ZoneTransferAccept)
    if not all_tenants:
        query = query.where(ZoneTransferAccept.tenant_id == project_id)
    query = apply_criteria(query, ZoneTransferAccept, page.criteria)
    total = (await session.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
    paged = await paginate(session, query, ZoneTransferAccept, page)
    return list((await session.execute(paged)).scalars()), total


async def change_owner(session: AsyncSession, zone: Zone, project_id: str) -> None:
    """The zone, every recordset and every record of it now belong to ``project_id``.

    ``zone_tenant_id`` follows the zone, or the recordsets would stay in the old owner's
    cross-zone list (storage/recordsets.py).
    """
    now = utcnow()
    await session.execute(update(RecordSet).where(RecordSet.zone_id == zone.id)
                          .values(tenant_id=project_id, zone_tenant_id=project_id, updated_at=now))
    await session.execute(update(Record).where(Record.zone_id == zone.id)
                          .values(tenant_id=project_id, updated_at=now))
    zone.tenant_id = project_id
    zone.version += 1
    zone.updated_at = now


async def insert_request(session: AsyncSession, values: dict[str, Any]) -> ZoneTransferRequest:
    """A new ACTIVE request carrying its secret key, written at once."""
    request = ZoneTransferRequest(id=new_id(), status="ACTIVE", created_at=utcnow(), **values)
    session.add(request)
    await session.flush()
    return request


async def delete_request(session: AsyncSession, request: ZoneTransferRequest) -> None:
    await session.delete(request)


def new_accept(request: ZoneTransferRequest, project_id: str, key: str) -> ZoneTransferAccept:
    """An ACTIVE accept of ``request`` by ``project_id`` (not yet in any session)."""
    return ZoneTransferAccept(
        id=new_id(), zone_transfer_request_id=request.id, zone_id=request.zone_id,
        tenant_id=project_id, key=key, status="ACTIVE", created_at=utcnow())


async def save_accept(session: AsyncSession, accept: ZoneTransferAccept) -> None:
    """The accept written, new or changed (a failed one is kept in its own transaction)."""
    session.add(accept)
    await session.flush()
