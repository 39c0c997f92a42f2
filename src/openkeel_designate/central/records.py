"""Managed records: the SOA and apex NS that central keeps in step with the zone and pool."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.rrtypes.soa import soa_data
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage.models import Zone


async def create_managed(session: AsyncSession, zone: Zone, ns_hostnames: list[str]) -> None:
    """SOA (every zone) and apex NS (PRIMARY zones) created with the zone."""
    soa = rs_store.recordset_row(zone, zone.name, "SOA")
    recordsets = [soa]
    records = [rs_store.record_row(zone, soa["id"], soa["tenant_id"],
                                   soa_data(zone, ns_hostnames[0]), managed=True)]
    if zone.type == "PRIMARY":
        ns = rs_store.recordset_row(zone, zone.name, "NS")
        recordsets.append(ns)
        records += [rs_store.record_row(zone, ns["id"], ns["tenant_id"], host, managed=True)
                    for host in ns_hostnames]
    await rs_store.insert_rows(session, recordsets, records)
