"""The DNS side's view of the database (``dnswire.zonedata.ZoneSource`` over SQL).

Zones being deleted are not served, so a nameserver re-checking its master learns the zone is
gone.  TTLs are resolved here: a recordset without TTL takes the zone's.
"""

from __future__ import annotations

from sqlalchemy import func, select

from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneHead
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Record, RecordSet, Zone, ZoneMaster


class SqlZoneSource:
    def __init__(self, db: Database):
        self.db = db

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        query = select(Zone).where(func.lower(Zone.name) == name.lower(),
                                   Zone.deleted == zone_store.LIVE, Zone.action != "DELETE")
        if pool_id is not None:
            query = query.where(Zone.pool_id == pool_id)
        async with self.db.read() as session:
            zone = (await session.execute(query.limit(1))).scalar_one_or_none()
            if zone is None:
                return None
            masters = (await session.execute(select(ZoneMaster.host, ZoneMaster.port)
                                             .where(ZoneMaster.zone_id == zone.id))).all()
        return ZoneHead(id=zone.id, name=zone.name, pool_id=zone.pool_id, serial=zone.serial,
                        ttl=zone.ttl, type=zone.type, masters=tuple((h, p) for h, p in masters))

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        return await self._records(zone_id)

    async def rrset(self, zone_id: str, name: str, rtype: str) -> list[ServedRecord]:
        return await self._records(zone_id, name, rtype)

    async def _records(self, zone_id: str, name: str | None = None,
                       rtype: str | None = None) -> list[ServedRecord]:
        query = (select(RecordSet.name, RecordSet.type, func.coalesce(RecordSet.ttl, Zone.ttl),
                        Record.data)
                 .join(Record, Record.recordset_id == RecordSet.id)
                 .join(Zone, Zone.id == RecordSet.zone_id)
                 .where(RecordSet.zone_id == zone_id, Record.action != "DELETE"))
        if name is not None:
            query = query.where(func.lower(RecordSet.name) == name.lower())
        if rtype is not None:
            query = query.where(RecordSet.type == rtype)
        async with self.db.read() as session:
            rows = (await session.execute(query)).all()
        records = [ServedRecord(n, t, int(ttl), data) for n, t, ttl, data in rows]
        records.sort(key=lambda r: r.type != "SOA")
        return records
