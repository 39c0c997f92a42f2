"""SQL for zone-file export: every record of a zone, recordset by recordset in creation order."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Record, RecordSet


async def export_rows(session: AsyncSession, zone_id: str) -> list[tuple[str, int | None, str, str]]:
    """(name, recordset ttl or None, type, data), whatever the records' action or status."""
    query = (select(RecordSet.name, RecordSet.ttl, RecordSet.type, Record.data)
             .join(Record, Record.recordset_id == RecordSet.id)
             .where(RecordSet.zone_id == zone_id)
             .order_by(RecordSet.created_at, RecordSet.id, Record.data))
    return [tuple(row) for row in (await session.execute(query)).all()]
