"""Managed records: the SOA and apex NS that central keeps in step with the zone and pool."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Record, RecordSet, Zone, new_id, utcnow
from openkeel_designate.storage.recordsets import record_hash


def rname(email: str) -> str:
    """``host.master@example.com`` → ``host\\.master.example.com.`` (RFC 1035 mailbox)."""
    local, _, domain = email.partition("@")
    return local.replace(".", "\\.") + "." + domain.rstrip(".") + "."


def soa_data(zone: Zone, mname: str) -> str:
    return (f"{mname} {rname(zone.email)} {zone.serial} {zone.refresh} {zone.retry} "
            f"{zone.expire} {zone.minimum}")


def new_recordset(zone: Zone, name: str, rtype: str, ttl: int | None = None,
                  description: str | None = None, tenant_id: str | None = None) -> RecordSet:
    return RecordSet(
        id=new_id(), zone_id=zone.id, zone_shard=zone.shard, tenant_id=tenant_id or zone.tenant_id,
        name=name, type=rtype, ttl=ttl, description=description, reverse_name=name[::-1],
        version=1, created_at=utcnow(),
    )


def new_record(zone: Zone, recordset: RecordSet, data: str, *, managed: bool = False,
               action: str = "CREATE") -> Record:
    return Record(
        id=new_id(), zone_id=zone.id, zone_shard=zone.shard, tenant_id=recordset.tenant_id,
        recordset_id=recordset.id, data=data, hash=record_hash(recordset.id, data),
        managed=managed, status="PENDING", action=action, serial=None, version=1,
        created_at=utcnow(),
    )


async def create_managed(session: AsyncSession, zone: Zone, ns_hostnames: list[str]) -> None:
    """SOA (every zone) and apex NS (PRIMARY zones) created with the zone."""
    soa = new_recordset(zone, zone.name, "SOA")
    ns = new_recordset(zone, zone.name, "NS") if zone.type == "PRIMARY" else None
    session.add_all([rs for rs in (soa, ns) if rs is not None])
    await session.flush()  # recordset rows first: records reference them
    session.add(new_record(zone, soa, soa_data(zone, ns_hostnames[0]), managed=True))
    if ns is not None:
        session.add_all(new_record(zone, ns, host, managed=True) for host in ns_hostnames)
