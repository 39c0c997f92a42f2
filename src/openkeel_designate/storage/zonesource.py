"""The DNS side's view of the database (``dnswire.zonedata.ZoneSource`` over SQL).

Zones being deleted are not served, so a nameserver re-checking its master learns the zone is
gone.  TTLs are resolved here: a recordset without TTL takes the zone's.  Besides the zones
table, this view serves each pool's catalog zone (generated from its members, see
``catalogzones``) and the IXFR history (``zonehistory``).
"""

from __future__ import annotations

from sqlalchemy import Select, func, select, union

from openkeel_designate.dnswire.catalog import catalog_records
from openkeel_designate.dnswire.coherence import coherent
from openkeel_designate.domain import names
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta, ZoneHead, ZoneSigning
from openkeel_designate.storage import catalogzones, dnssec, zonehistory
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import (
    PoolAlsoNotify,
    PoolNameserver,
    Record,
    RecordSet,
    Zone,
    ZoneMaster,
)


def served_query(zone_id: str, name: str | None = None, rtype: str | None = None) -> Select:
    """(name, type, ttl, data) of every served record of a zone: what an AXFR carries."""
    query = (select(RecordSet.name, RecordSet.type, func.coalesce(RecordSet.ttl, Zone.ttl),
                    Record.data)
             .join(Record, Record.recordset_id == RecordSet.id)
             .join(Zone, Zone.id == RecordSet.zone_id)
             .where(RecordSet.zone_id == zone_id, Record.action != "DELETE"))
    if name is not None:
        query = query.where(RecordSet.name_key == names.key(name))
    if rtype is not None:
        query = query.where(RecordSet.type == rtype)
    return query


def served_records(rows, zone: str) -> list[ServedRecord]:  # noqa: ANN001 - rows of served_query
    """The rows of ``served_query`` as the records served: coherent (``dnswire/coherence``)."""
    return coherent((ServedRecord(n, t, int(ttl), data) for n, t, ttl, data in rows), zone)


class SqlZoneSource:
    def __init__(self, db: Database):
        self.db = db

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        # Columns, not the ORM entity: mdns runs this for every label of every query it has
        # not remembered, and building ORM rows was a fifth of its time under a query flood.
        query = (select(Zone.id, Zone.name, Zone.pool_id, Zone.serial, Zone.ttl, Zone.type)
                 .where(Zone.name_key == names.key(name), Zone.deleted == zone_store.LIVE,
                        Zone.action != "DELETE"))
        if pool_id is not None:
            query = query.where(Zone.pool_id == pool_id)
        async with self.db.read() as session:
            zone = (await session.execute(query.limit(1))).one_or_none()
            if zone is None:
                return await self._catalog_head(session, name, pool_id)
            masters = []
            if zone.type == "SECONDARY":
                masters = (await session.execute(select(ZoneMaster.host, ZoneMaster.port)
                                                 .where(ZoneMaster.zone_id == zone.id))).all()
        return ZoneHead(id=zone.id, name=zone.name, pool_id=zone.pool_id, serial=zone.serial,
                        ttl=zone.ttl, type=zone.type, masters=tuple((h, p) for h, p in masters))

    async def peer_hosts(self) -> list[str]:
        """Hosts of every pool's nameservers and also-notifies and of the secondary zones'
        masters: the servers that talk to mdns (as configured; mdns keeps the IP addresses)."""
        query = union(select(PoolNameserver.host), select(PoolAlsoNotify.host),
                      select(ZoneMaster.host))
        async with self.db.read() as session:
            return sorted((await session.execute(query)).scalars())

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        if zone_id.startswith(catalogzones.ID_PREFIX):
            return await self._catalog_records(zone_id)
        return await self._records(zone_id)

    async def rrset(self, zone_id: str, name: str, rtype: str) -> list[ServedRecord]:
        if zone_id.startswith(catalogzones.ID_PREFIX):
            wanted = name.lower()
            return [r for r in await self._catalog_records(zone_id)
                    if r.name.lower() == wanted and r.type == rtype]
        return await self._records(zone_id, name, rtype)

    async def zone_changes(self, zone_id: str, since_serial: int) -> list[ZoneDelta] | None:
        if zone_id.startswith(catalogzones.ID_PREFIX):
            return None
        async with self.db.read() as session:
            return await zonehistory.changes_since(session, zone_id, since_serial)

    async def zone_signing(self, zone_id: str) -> ZoneSigning | None:
        if zone_id.startswith(catalogzones.ID_PREFIX):
            return None
        return await dnssec.signing(self.db, zone_id)

    async def _records(self, zone_id: str, name: str | None = None,
                       rtype: str | None = None) -> list[ServedRecord]:
        # Every type of the name, so that a CNAME beside other data is seen (dnswire/coherence).
        async with self.db.read() as session:  # Core rows: an AXFR reads the whole zone
            rows = (await (await session.connection()).execute(served_query(zone_id, name))).all()
        records = served_records(rows, zone_id)
        if rtype is not None:
            records = [r for r in records if r.type == rtype]
        records.sort(key=lambda r: r.type != "SOA")
        return records

    # --- catalog zones ------------------------------------------------------------------------
    async def _catalog(self, session, name: str, pool_id: str | None  # noqa: ANN001
                       ) -> catalogzones.Catalog | None:
        catalog = await catalogzones.find(session, name, pool_id)
        if catalog is not None and catalog.stale:
            serial = await self.db.transaction(lambda s: catalogzones.bump(s, catalog))
            catalog = catalogzones.Catalog(catalog.pool_id, catalog.fqdn, catalog.refresh,
                                           serial, catalog.members, catalog.digest,
                                           catalog.digest)
        return catalog

    async def _catalog_head(self, session, name: str, pool_id: str | None  # noqa: ANN001
                            ) -> ZoneHead | None:
        catalog = await self._catalog(session, name, pool_id)
        if catalog is None:
            return None
        return ZoneHead(id=catalog.zone_id, name=catalog.fqdn, pool_id=catalog.pool_id,
                        serial=catalog.serial, ttl=0, type="CATALOG")

    async def _catalog_records(self, zone_id: str) -> list[ServedRecord]:
        pool_id = zone_id[len(catalogzones.ID_PREFIX):]
        async with self.db.read() as session:
            fqdn = await catalogzones.fqdn_of(session, pool_id)
            catalog = await self._catalog(session, fqdn, pool_id) if fqdn else None
        if catalog is None:
            return []
        return catalog_records(catalog.fqdn, catalog.serial, catalog.refresh, catalog.members)
