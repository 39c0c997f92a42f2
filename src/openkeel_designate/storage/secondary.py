"""SQL for secondary zones: finding them by name, replacing their content after a transfer,
and listing the ones due for a refresh."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import names
from openkeel_designate.storage.models import Record, RecordSet, Zone, ZoneMaster, new_id, utcnow
from openkeel_designate.storage.keys import record_hash
from openkeel_designate.storage.zones import LIVE


async def by_name(session: AsyncSession, name: str) -> list[tuple[Zone, list[tuple[str, int]]]]:
    """Live SECONDARY zones called ``name`` (any pool), with their masters."""
    zones = list((await session.execute(select(Zone).where(
        Zone.name_key == names.key(name), Zone.deleted == LIVE, Zone.type == "SECONDARY",
        Zone.action != "DELETE"))).scalars())
    result = []
    for zone in zones:
        masters = (await session.execute(select(ZoneMaster.host, ZoneMaster.port).where(
            ZoneMaster.zone_id == zone.id))).all()
        result.append((zone, [(h, p) for h, p in masters]))
    return result


async def masters_of(session: AsyncSession, zone_id: str) -> list[tuple[str, int]]:
    rows = await session.execute(select(ZoneMaster.host, ZoneMaster.port)
                                 .where(ZoneMaster.zone_id == zone_id))
    return [(h, p) for h, p in rows]


async def due_for_refresh(session: AsyncSession, now: datetime, limit: int) -> list[Zone]:
    """Transferred secondaries whose SOA refresh interval has passed."""
    zones = (await session.execute(select(Zone).where(
        Zone.deleted == LIVE, Zone.type == "SECONDARY", Zone.status == "ACTIVE",
        Zone.transferred_at.is_not(None)).limit(limit * 10))).scalars()
    return [z for z in zones if z.transferred_at + timedelta(seconds=z.refresh) <= now][:limit]


async def replace_content(session: AsyncSession, zone_id: str, soa: dict,
                          rrsets: list[tuple[str, str, int | None, list[str]]]) -> None:
    """The zone becomes exactly what the master served: SOA fields, then every rrset.

    Records are stamped with the master's serial so completion marks them ACTIVE once the
    pool's nameservers serve that serial.
    """
    zone = (await session.execute(select(Zone).where(Zone.id == zone_id))).scalar_one()
    zone.serial, zone.refresh, zone.retry = soa["serial"], soa["refresh"], soa["retry"]
    zone.expire, zone.minimum, zone.ttl = soa["expire"], soa["minimum"], soa["ttl"]
    zone.transferred_at = utcnow()
    await session.execute(delete(Record).where(Record.zone_id == zone_id))
    await session.execute(delete(RecordSet).where(RecordSet.zone_id == zone_id))
    now = utcnow()
    sets, records = [], []
    for name, rtype, ttl, datas in rrsets:
        recordset_id = new_id()
        sets.append({"id": recordset_id, "zone_id": zone_id, "zone_shard": zone.shard,
                     "tenant_id": zone.tenant_id, "zone_tenant_id": zone.tenant_id,
                     "name": name, "type": rtype, "ttl": ttl,
                     "description": None, "reverse_name": name[::-1], "version": 1,
                     "created_at": now})
        for data in datas:
            records.append({"id": new_id(), "zone_id": zone_id, "zone_shard": zone.shard,
                            "tenant_id": zone.tenant_id, "recordset_id": recordset_id,
                            "data": data, "hash": record_hash(recordset_id, data),
                            "managed": rtype == "SOA", "status": "PENDING", "action": "UPDATE",
                            "serial": soa["serial"], "version": 1, "created_at": now})
    if sets:
        await session.execute(RecordSet.__table__.insert(), sets)
    if records:
        await session.execute(Record.__table__.insert(), records)


async def mark_refresh(session: AsyncSession, zone_id: str) -> None:
    """Ask the worker to check the masters again (no change of our own to serialise)."""
    await session.execute(update(Zone).where(Zone.id == zone_id, Zone.deleted == LIVE).values(
        status="PENDING", action="UPDATE", change_seq=Zone.change_seq + 1,
        next_attempt_at=None))
