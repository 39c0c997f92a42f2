"""Change batches (extension): the rows that keep applied batches retrievable by id, and the
reads of a zone's change feed (its batches and its served serial steps, ``zonehistory``).

Cleanup rule: a zone keeps its newest ``KEEP`` batches (older ones are deleted when a new one is
written, in the same transaction), and all of them go with the zone when it is purged (foreign
key ``ON DELETE CASCADE``).  Storage per zone is bounded without a periodic task; a client
polling a batch more than ``KEEP`` batches old gets a 404, as for any unknown id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import ChangeBatch, Zone, ZoneChange
from openkeel_designate.storage import zonehistory
from openkeel_designate.storage.database import bounded, execute

KEEP = 100
BATCH, SERIAL = "BATCH", "SERIAL"


async def insert(session: AsyncSession, zone: Zone, tenant_id: str | None,
                 changes: list[dict[str, Any]]) -> ChangeBatch:
    """Written in the batch's own transaction, after its writes bumped ``zone.change_seq``.

    A batch that wrote nothing on a zone already served is served by the zone's serial now;
    any other gets its serial at the next claim (``stamp_serial``).
    """
    served = zone.status == "ACTIVE"
    batch = ChangeBatch(zone_id=zone.id, tenant_id=tenant_id, change_seq=zone.change_seq,
                        changes=json.dumps(changes), serial=zone.serial if served else None)
    session.add(batch)
    await session.flush()
    await _prune(session, zone.id)
    return batch


async def _prune(session: AsyncSession, zone_id: str) -> None:
    """Keep the newest ``KEEP`` batches of the zone (the zone row is locked by the writer)."""
    oldest_kept = (await session.execute(
        select(ChangeBatch.created_at, ChangeBatch.id).where(ChangeBatch.zone_id == zone_id)
        .order_by(ChangeBatch.created_at.desc(), ChangeBatch.id.desc())
        .offset(KEEP - 1).limit(1))).first()
    if oldest_kept is not None:
        await session.execute(delete(ChangeBatch).where(
            ChangeBatch.zone_id == zone_id, ChangeBatch.created_at < oldest_kept.created_at))


# (bounded: a zone's batches are few, ``KEEP``)
_STAMP = bounded(update(ChangeBatch.__table__).where(
    ChangeBatch.__table__.c.zone_id == bindparam("b_zone_id"),
    ChangeBatch.__table__.c.serial.is_(None)).values(serial=bindparam("b_serial")))


def unstamped(zone_id: ColumnElement[str]) -> ColumnElement[bool]:
    """Whether the zone has batches waiting for their serial: a column of the claim's read of
    the zone, so that ``stamp_serial`` runs only then (most zones never see a batch). The
    writer of a batch holds the zone's row, which the claim has taken: none can appear
    between that read and the stamp."""
    cb = ChangeBatch.__table__
    return exists().where(cb.c.zone_id == zone_id, cb.c.serial.is_(None)).label("unstamped")


async def stamp_serial(session: AsyncSession, zone_id: str, serial: int) -> None:
    """At a claim: the batches not yet given a serial are first served by ``serial``.
    (Prebuilt and run as Core: it is on every claim's path, ``workqueue._write_statements``.)"""
    await execute(session, _STAMP, {"b_zone_id": zone_id, "b_serial": serial})


async def get(session: AsyncSession, batch_id: str) -> ChangeBatch | None:
    return await session.get(ChangeBatch, batch_id)


def changes_of(batch: ChangeBatch) -> list[dict[str, Any]]:
    return json.loads(batch.changes)


# --- the change feed: batches and served serial steps of one zone ------------------------------
@dataclass(frozen=True)
class Heading:
    """What sorting and paging a zone's changes needs, without their (large) content."""

    key: str  # the batch id, or the serial step's history row id
    origin: str  # BATCH or SERIAL
    serial: int | None
    from_serial: int | None
    change_seq: int | None
    created_at: datetime


async def headings(session: AsyncSession, zone_id: str) -> list[Heading]:
    """Every batch kept and every history step of the zone (both bounded per zone)."""
    batches = (await session.execute(
        select(ChangeBatch.id, ChangeBatch.serial, ChangeBatch.change_seq, ChangeBatch.created_at)
        .where(ChangeBatch.zone_id == zone_id))).all()
    steps = (await session.execute(
        select(ZoneChange.id, ZoneChange.serial, ZoneChange.from_serial, ZoneChange.created_at)
        .where(ZoneChange.zone_id == zone_id).order_by(ZoneChange.id))).all()
    return ([Heading(r.id, BATCH, r.serial, None, r.change_seq, r.created_at) for r in batches]
            + [Heading(str(r.id), SERIAL, r.serial, r.from_serial, None, r.created_at)
               for r in steps])


async def contents(session: AsyncSession, wanted: list[Heading]) -> dict[str, Any]:
    """Heading key → the batch's changes as submitted, or the step's (removed, added) rows."""
    batch_ids = [h.key for h in wanted if h.origin == BATCH]
    step_ids = [int(h.key) for h in wanted if h.origin == SERIAL]
    out: dict[str, Any] = {}
    if batch_ids:
        rows = await session.execute(select(ChangeBatch.id, ChangeBatch.changes)
                                     .where(ChangeBatch.id.in_(batch_ids)))
        out.update({r.id: json.loads(r.changes) for r in rows})
    if step_ids:
        rows = await session.execute(select(ZoneChange.id, ZoneChange.removed, ZoneChange.added)
                                     .where(ZoneChange.id.in_(step_ids)))
        out.update({str(r.id): (zonehistory.content_rows(r.removed),
                                zonehistory.content_rows(r.added)) for r in rows})
    return out
