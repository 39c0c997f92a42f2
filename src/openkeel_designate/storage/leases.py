"""Named leases: a periodic job runs once per interval across every process of the cluster."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, update

from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Lease, utcnow
from openkeel_designate.storage.upsert import insert_if_absent


async def acquire(db: Database, name: str, owner: str, seconds: float) -> bool:
    """Take lease ``name`` for ``seconds`` unless another owner holds an unexpired one.

    The row is made (unowned) if missing, then taken by one conditional update: processes
    asking at the same instant queue on the row and exactly one of them gets it.
    """
    async def work(session) -> bool:
        now = utcnow()
        await insert_if_absent(session, Lease, {"name": name, "owner": None, "expires_at": None})
        result = await session.execute(update(Lease).where(
            Lease.name == name,
            or_(Lease.expires_at.is_(None), Lease.expires_at < now, Lease.owner == owner),
        ).values(owner=owner, expires_at=now + timedelta(seconds=seconds)))
        return result.rowcount == 1

    return await db.transaction(work)
