"""Managed records: the SOA and apex NS that central keeps in step with the zone and pool."""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.soa import soa_data
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage.models import Zone


def managed_rows(zone: Zone, ns_hostnames: list[str]) -> tuple[list[dict], list[dict]]:
    """The recordsets and records of the SOA (every zone) and apex NS (PRIMARY zones) that
    are created with the zone (``storage/zone_create.insert_zone`` writes them with it)."""
    soa = rs_store.recordset_row(zone, zone.name, "SOA")
    recordsets = [soa]
    records = [rs_store.record_row(zone, soa["id"], soa["tenant_id"],
                                   soa_data(zone, ns_hostnames[0]), managed=True)]
    if zone.type == "PRIMARY":
        ns = rs_store.recordset_row(zone, zone.name, "NS")
        recordsets.append(ns)
        records += [rs_store.record_row(zone, ns["id"], ns["tenant_id"], host, managed=True)
                    for host in ns_hostnames]
    return recordsets, records
