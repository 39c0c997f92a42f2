"""SQL for zone-file export: every record of a zone, recordset by recordset in creation order.

Read a page of recordsets at a time (keyset on ``(created_at, id)``, the index of
migration 0004): turning database rows into Python tuples is the costly part of an export, and
one query for a 100,000-record zone would hold the event loop for all of it.  Between pages the
loop serves other requests.  Records of one recordset never straddle two pages, so the
ordering by ``data`` (whose collation differs between engines) is never a keyset column.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Record, RecordSet

ExportRow = tuple[str, int | None, str, str]
PAGE_RECORDSETS = 500


async def export_pages(session: AsyncSession, zone_id: str,
                       page_size: int | None = None) -> AsyncIterator[list[ExportRow]]:
    """Pages of (name, recordset ttl or None, type, data), whatever the records' state."""
    page_size = page_size or PAGE_RECORDSETS
    after: tuple[datetime, str] | None = None
    while True:
        ids, after = await _recordset_page(session, zone_id, after, page_size)
        if not ids:
            return
        query = (select(RecordSet.name, RecordSet.ttl, RecordSet.type, Record.data)
                 .join(Record, Record.recordset_id == RecordSet.id)
                 .where(RecordSet.id.in_(ids))
                 .order_by(RecordSet.created_at, RecordSet.id, Record.data))
        yield [tuple(row) for row in (await session.execute(query)).all()]  # type: ignore[misc]
        if len(ids) < page_size:
            return


async def _recordset_page(session: AsyncSession, zone_id: str,
                          after: tuple[datetime, str] | None, page_size: int
                          ) -> tuple[list[str], tuple[datetime, str] | None]:
    """The next ``page_size`` recordset ids after ``after``, and the new keyset position."""
    query = (select(RecordSet.created_at, RecordSet.id).where(RecordSet.zone_id == zone_id)
             .order_by(RecordSet.created_at, RecordSet.id).limit(page_size))
    if after is not None:
        query = query.where(or_(RecordSet.created_at > after[0],
                                and_(RecordSet.created_at == after[0], RecordSet.id > after[1])))
    rows = (await session.execute(query)).all()
    if not rows:
        return [], after
    return [row.id for row in rows], (rows[-1].created_at, rows[-1].id)
