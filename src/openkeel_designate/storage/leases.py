"""Named leases: a periodic job runs once per interval across every process of the cluster."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, select, update

from openkeel_designate.domain import errors
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Lease, utcnow


async def acquire(db: Database, name: str, owner: str, seconds: float) -> bool:
    """Take lease ``name`` for ``seconds`` unless another owner holds an unexpired one."""
    async def work(session) -> bool:
        now = utcnow()
        until = now + timedelta(seconds=seconds)
        exists = (await session.execute(select(Lease.name).where(Lease.name == name))).first()
        if exists is None:
            session.add(Lease(name=name, owner=owner, expires_at=until))
            await session.flush()
            return True
        result = await session.execute(update(Lease).where(
            Lease.name == name, or_(Lease.expires_at < now, Lease.owner == owner)
        ).values(owner=owner, expires_at=until))
        return result.rowcount == 1

    try:
        return await db.transaction(work)
    except errors.Duplicate:  # another process inserted it first
        return False
