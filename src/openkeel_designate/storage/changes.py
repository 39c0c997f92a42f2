"""Change batches (extension): the row that keeps an applied batch retrievable by id."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import ChangeBatch, Zone


async def insert(session: AsyncSession, zone: Zone, tenant_id: str | None,
                 changes: list[dict[str, Any]]) -> ChangeBatch:
    """Written in the batch's own transaction, after its writes bumped ``zone.change_seq``."""
    batch = ChangeBatch(zone_id=zone.id, tenant_id=tenant_id, change_seq=zone.change_seq,
                        changes=json.dumps(changes))
    session.add(batch)
    await session.flush()
    return batch


async def get(session: AsyncSession, batch_id: str) -> ChangeBatch | None:
    return await session.get(ChangeBatch, batch_id)


def changes_of(batch: ChangeBatch) -> list[dict[str, Any]]:
    return json.loads(batch.changes)
