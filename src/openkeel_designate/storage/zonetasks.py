"""SQL for zone imports and exports (rows of ``zone_tasks``).

A PENDING task row is the durable work item of an import or export, like the zone row is for
the worker: the runner takes it under a row lock in the same transaction that writes its result,
so a task is finished exactly once however many processes try.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.paging import Page
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import ZoneTask, new_id, utcnow

IMPORT, EXPORT = "IMPORT", "EXPORT"


async def insert(session: AsyncSession, task_type: str, tenant_id: str, *,
                 zone_id: str | None = None, payload: str | None = None) -> ZoneTask:
    """A new PENDING task, flushed so that its id and times are readable at once."""
    task = ZoneTask(id=new_id(), version=1, tenant_id=tenant_id, zone_id=zone_id,
                    task_type=task_type, status="PENDING", payload=payload, created_at=utcnow())
    session.add(task)
    await session.flush()
    return task


def _scoped(query, task_type: str | None, project_id: str | None, all_tenants: bool):
    if task_type is not None:
        query = query.where(ZoneTask.task_type == task_type)
    if not all_tenants:
        query = query.where(ZoneTask.tenant_id == project_id)
    return query


async def get(session: AsyncSession, task_id: str, task_type: str | None, *,
              project_id: str | None = None, all_tenants: bool = True) -> ZoneTask | None:
    query = _scoped(select(ZoneTask).where(ZoneTask.id == task_id), task_type, project_id,
                    all_tenants)
    return (await session.execute(query)).scalar_one_or_none()


async def find(session: AsyncSession, page: Page, task_type: str, *, project_id: str | None,
               all_tenants: bool) -> tuple[list[ZoneTask], int]:
    """One page of the caller's tasks of one type and the total count of matches."""
    query = apply_criteria(_scoped(select(ZoneTask), task_type, project_id, all_tenants),
                           ZoneTask, page.criteria)
    total = (await session.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
    paged = await paginate(session, query, ZoneTask, page)
    return list((await session.execute(paged)).scalars()), total


async def remove(session: AsyncSession, task_id: str) -> None:
    await session.execute(delete(ZoneTask).where(ZoneTask.id == task_id))


async def lock_pending(session: AsyncSession, task_id: str) -> ZoneTask | None:
    """The task if it still waits for its result, locked until the transaction ends."""
    query = select(ZoneTask).where(ZoneTask.id == task_id, ZoneTask.status == "PENDING")
    return (await session.execute(query.with_for_update())).scalar_one_or_none()


async def pending(session: AsyncSession, created_before: datetime | None = None,
                  limit: int = 100) -> list[str]:
    """Ids of tasks still waiting (oldest first), optionally only those older than a time."""
    query = select(ZoneTask.id).where(ZoneTask.status == "PENDING")
    if created_before is not None:
        query = query.where(ZoneTask.created_at < created_before)
    query = query.order_by(ZoneTask.created_at).limit(limit)
    return list((await session.execute(query)).scalars())


def finish(task: ZoneTask, status: str, message: str | None, *, zone_id: str | None = None,
           location: str | None = None) -> None:
    """Record the outcome on a locked row (``message`` fits the 160-character column)."""
    task.status = status
    task.payload = None  # an imported file is not kept once the import has its result
    task.message = message[:160] if message is not None else None
    if zone_id is not None:
        task.zone_id = zone_id
    if location is not None:
        task.location = location
    task.version += 1
    task.updated_at = utcnow()
