"""SQL for per-project quota overrides."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Quota


# Prebuilt: every zone and recordset create reads it (see storage/recordsets.py, _write_path).
_FOR_PROJECT = select(Quota.__table__.c.resource, Quota.__table__.c.hard_limit).where(
    Quota.__table__.c.tenant_id == bindparam("project_id"))


async def for_project(session: AsyncSession, project_id: str | None) -> dict[str, int]:
    if project_id is None:
        return {}
    connection = await session.connection()
    return dict((await connection.execute(_FOR_PROJECT, {"project_id": project_id})).all())


async def set_limit(session: AsyncSession, project_id: str, resource: str, limit: int) -> None:
    row = (await session.execute(select(Quota).where(
        Quota.tenant_id == project_id, Quota.resource == resource))).scalar_one_or_none()
    if row is None:
        session.add(Quota(tenant_id=project_id, resource=resource, hard_limit=limit))
    else:
        row.hard_limit = limit


async def reset(session: AsyncSession, project_id: str) -> None:
    await session.execute(delete(Quota).where(Quota.tenant_id == project_id))
