"""Managed records: the SOA and apex NS that central keeps in step with the zone and pool."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.rrtypes.soa import soa_data
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage.models import Zone


async def create_managed(session: AsyncSession, zone: Zone, ns_hostnames: list[str]) -> None:
    """SOA (every zone) and apex NS (PRIMARY zones) created with the zone."""
    soa = rs_store.new_recordset(zone, zone.name, "SOA")
    ns = rs_store.new_recordset(zone, zone.name, "NS") if zone.type == "PRIMARY" else None
    await rs_store.insert(session, [rs for rs in (soa, ns) if rs is not None])
    records = [rs_store.new_record(zone, soa, soa_data(zone, ns_hostnames[0]), managed=True)]
    if ns is not None:
        records += [rs_store.new_record(zone, ns, host, managed=True) for host in ns_hostnames]
    rs_store.add_records(session, records)
