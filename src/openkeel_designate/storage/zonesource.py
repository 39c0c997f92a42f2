"""The DNS side's view of the database (``dnswire.zonedata.ZoneSource`` over SQL).

Zones being deleted are not served, so a nameserver re-checking its master learns the zone is
gone.  TTLs are resolved here: a recordset without TTL takes the zone's.  Besides the zones
table, this view serves each pool's catalog zone (generated from its members, see
``catalogzones``) and the IXFR history (``zonehistory``).
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Select, bindparam, func, select, union

from openkeel_designate import slices
from openkeel_designate.dnswire.catalog import catalog_records
from openkeel_designate.dnswire.coherence import coherent_steps
from openkeel_designate.domain import names
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta, ZoneHead, ZoneSigning
from openkeel_designate.storage import catalogzones, dnssec, zonehistory
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.slices import Work
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import (
    PoolAlsoNotify,
    PoolNameserver,
    Record,
    RecordSet,
    Zone,
    ZoneMaster,
)


def served_query(zones: ColumnElement[bool]) -> Select:
    """(name, type, ttl, data) of every served record of the zones ``zones`` picks: what an
    AXFR carries, and what the worker's history compares."""
    return (select(RecordSet.name, RecordSet.type, func.coalesce(RecordSet.ttl, Zone.ttl),
                   Record.data)
            .join(Record, Record.recordset_id == RecordSet.id)
            .join(Zone, Zone.id == RecordSet.zone_id)
            .where(zones, Record.action != "DELETE"))


# built once, of zone ``b_zone_id``: AXFR reads the whole zone with it, and the history
SERVED = served_query(RecordSet.zone_id == bindparam("b_zone_id"))


def served_records(rows, zone: str) -> list[ServedRecord]:  # noqa: ANN001 - rows of SERVED
    """The rows of ``SERVED`` (or of one name of it) as the records served: coherent
    (``dnswire/coherence``)."""
    return slices.run(served_records_steps([rows], zone))


def served_records_steps(parts, zone: str) -> Work[list[ServedRecord]]:  # noqa: ANN001
    """``served_records`` over partitions of the rows (``Result.partitions``), as ``slices``
    work: the worker's claim reads a whole zone with it on the shared loop."""
    records: list[ServedRecord] = []
    for part in parts:
        records.extend(ServedRecord(n, t, int(ttl), data) for n, t, ttl, data in part)
        yield
    return (yield from coherent_steps(records, zone))


def _read_statements():  # noqa: ANN202 - prebuilt statements
    """What mdns reads for every query it answers, built once.

    Every change a tenant makes ends with each nameserver of the pool asking for the zone's
    SOA and then an IXFR; built per call (and run through a session) these statements cost
    more CPU than answering (bench/mdns_inprocess.py). All of them read a bounded handful of
    rows by an index, so they go as point reads (``Database.point_reads``)."""
    z, zm = Zone.__table__, ZoneMaster.__table__
    heads = select(z.c.id, z.c.name, z.c.pool_id, z.c.serial, z.c.ttl, z.c.type).where(
        z.c.name_key == bindparam("b_name_key"), z.c.deleted == zone_store.LIVE,
        z.c.action != "DELETE")
    zone_named = heads.limit(1)
    zone_named_in_pool = heads.where(z.c.pool_id == bindparam("b_pool_id")).limit(1)
    masters = select(zm.c.host, zm.c.port).where(zm.c.zone_id == bindparam("b_zone_id"))
    # every type of the name, so that a CNAME beside other data is seen (dnswire/coherence)
    served_at_name = SERVED.where(
        RecordSet.name_key == bindparam("b_name_key"))
    return zone_named, zone_named_in_pool, masters, served_at_name


_ZONE_NAMED, _ZONE_NAMED_IN_POOL, _MASTERS, _SERVED_AT_NAME = _read_statements()


class SqlZoneSource:
    def __init__(self, db: Database):
        self.db = db

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        # mdns runs this for every label of every query it has not remembered.
        key = names.key(name)
        if pool_id is None:
            zone_query = (_ZONE_NAMED, {"b_name_key": key})
        else:
            zone_query = (_ZONE_NAMED_IN_POOL, {"b_name_key": key, "b_pool_id": pool_id})
        [found] = await self.db.point_reads([zone_query])
        if not found:
            if not await self._catalog_named(name, pool_id):
                return None
            async with self.db.read() as session:
                return await self._catalog_head(session, name, pool_id)
        zone = found[0]
        masters: list = []
        if zone.type == "SECONDARY":
            [masters] = await self.db.point_reads([(_MASTERS, {"b_zone_id": zone.id})])
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
        return await zonehistory.changes_since(self.db, zone_id, since_serial)

    async def zone_signing(self, zone_id: str) -> ZoneSigning | None:
        if zone_id.startswith(catalogzones.ID_PREFIX):
            return None
        return await dnssec.signing(self.db, zone_id)

    async def _records(self, zone_id: str, name: str | None = None,
                       rtype: str | None = None) -> list[ServedRecord]:
        if name is None:
            # The whole zone (AXFR), as a point read too: on SQLite a zone of a few hundred
            # records is read within the step budget on the loop's thread (a new zone's
            # transfer, the most frequent, saves its crossing); a larger one, up to 100,000s of
            # rows, goes over the budget and is read on the driver's thread.
            query = (SERVED, {"b_zone_id": zone_id})
        else:
            query = (_SERVED_AT_NAME, {"b_zone_id": zone_id, "b_name_key": names.key(name)})
        [rows] = await self.db.point_reads([query])
        records = served_records(rows, zone_id)
        if rtype is not None:
            records = [r for r in records if r.type == rtype]
        records.sort(key=lambda r: r.type != "SOA")
        return records

    # --- catalog zones ------------------------------------------------------------------------
    async def _catalog_named(self, name: str, pool_id: str | None) -> bool:
        """Whether a catalog zone has this name: a point read, since every name mdns does not
        know as a zone is asked here (the catalog itself is then read in a session)."""
        [found] = await self.db.point_reads([catalogzones.named(name, pool_id)])
        return bool(found)

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
