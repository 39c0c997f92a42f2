"""Reverse DNS of floating IPs: PTR records set by the project that owns the address in Neutron.

Ownership is Neutron's current answer, asked with the caller's token on every call.  The PTR
lives in ``<3 octets reversed>.in-addr.arpa.``, a zone owned by ``[service:central]
managed_resource_tenant_id`` and created through the normal zone rules (quota, ownership): a
zone of that name owned by any other project is never written to (409 ``duplicate_zone``).
A PTR left by a project that no longer owns the address is removed on the next read.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import quotas
from openkeel_designate.central import zones as central_zones
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.network import neutron
from openkeel_designate.network.neutron import FloatingIP
from openkeel_designate.storage import floatingips as fip_store
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.floatingips import PTR_RESOURCE
from openkeel_designate.storage.models import Record, RecordSet, Zone, utcnow
from openkeel_designate.storage.zones import LIVE

KEY_RE = re.compile(r"^(?P<region>[A-Za-z0-9\.\-_]{1,100}):(?P<id>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-"
                    r"[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")
#: Not one of Designate's named defaults, so oslo.policy applies ``default`` (admin, or member
#: of the caller's project) unless the operator's policy.yaml names it.
SET_POLICY = "set_floatingip_reverse"


@dataclass(frozen=True)
class FloatingIPView:
    """A floating IP with its PTR, as the API shows it (no PTR: nulls, NONE, INACTIVE)."""

    fip: FloatingIP
    ptrdname: str | None = None
    description: str | None = None
    ttl: int | None = None
    action: str = "NONE"
    status: str = "INACTIVE"


def parse_key(key: str) -> tuple[str, str]:
    """``<region>:<uuid>`` from the URL, or 400 in Designate's words."""
    match = KEY_RE.match(key)
    if match is None:
        raise errors.BadRequest(f"Floating IP {key} is not in the format of <region>:<uuid>")
    return match["region"], match["id"]


def reverse_names(address: str) -> tuple[str, str]:
    """``(record name, zone name)``: the /24 zone holds one PTR per address."""
    ip = ipaddress.ip_address(address)
    if ip.version != 4:
        raise errors.BadRequest(f"Reverse DNS is only supported for IPv4 floating IPs: {address}")
    octets = address.split(".")
    zone = ".".join(reversed(octets[:3])) + ".in-addr.arpa."
    return f"{octets[3]}.{zone}", zone


def _not_associated(fip_id: str, region: str, ctx: RequestContext) -> errors.NotFound:
    return errors.NotFound(
        f'FloatingIP {fip_id} in {region} is not associated for project "{ctx.project_id}"')


# --- read --------------------------------------------------------------------------------------
async def list_floatingips(svc: Services, ctx: RequestContext) -> list[FloatingIPView]:
    fips = await neutron.list_floatingips(svc.conf, ctx)
    return await _with_ptrs(svc, ctx, fips)


async def get_floatingip(svc: Services, ctx: RequestContext, region: str,
                         fip_id: str) -> FloatingIPView:
    fips = await neutron.list_floatingips(svc.conf, ctx, region)
    if (region, fip_id) not in fips:
        raise _not_associated(fip_id, region, ctx)
    views = await _with_ptrs(svc, ctx, {(region, fip_id): fips[(region, fip_id)]})
    return views[0]


async def _with_ptrs(svc: Services, ctx: RequestContext,
                     fips: dict[tuple[str, str], FloatingIP]) -> list[FloatingIPView]:
    """Each floating IP with the caller's PTR; PTRs of former owners are deleted on the way."""
    async with svc.db.read() as session:
        mine, stale = _split(await fip_store.ptr_records(session, _ids(fips)), fips, ctx)
        if not stale:
            return await _views(session, fips, mine)

    async def work(session: AsyncSession) -> list[FloatingIPView]:
        mine, stale = _split(await fip_store.ptr_records(session, _ids(fips)), fips, ctx)
        for record in stale:
            await _remove_ptr(session, record)
        return await _views(session, fips, mine)

    views = await svc.db.transaction(work)
    svc.wake_worker()
    return views


def _ids(fips: dict[tuple[str, str], FloatingIP]) -> list[str]:
    return [fip_id for _, fip_id in fips]


def _split(records: list[Record], fips: dict[tuple[str, str], FloatingIP],
           ctx: RequestContext) -> tuple[dict[tuple[str, str], Record], list[Record]]:
    """The caller's PTRs by floating IP, and those left by projects that lost the address."""
    mine: dict[tuple[str, str], Record] = {}
    stale = []
    for record in records:
        key = (record.managed_resource_region, record.managed_resource_id)
        if key not in fips:
            continue
        if record.managed_tenant_id == ctx.project_id:
            mine[key] = record
        else:
            stale.append(record)
    return mine, stale


async def _views(session: AsyncSession, fips: dict[tuple[str, str], FloatingIP],
                 records: dict[tuple[str, str], Record]) -> list[FloatingIPView]:
    recordsets = {}
    for record in records.values():
        recordsets[record.recordset_id] = await rs_store.get(session, record.recordset_id)
    ttls = await fip_store.zone_ttls(session, {r.zone_id for r in records.values()})
    views = []
    for key, fip in fips.items():
        record = records.get(key)
        if record is None:
            views.append(FloatingIPView(fip))
            continue
        recordset = recordsets[record.recordset_id]
        views.append(_view(fip, record, recordset, ttls.get(record.zone_id)))
    return views


def _view(fip: FloatingIP, record: Record, recordset: RecordSet,
          zone_ttl: int | None) -> FloatingIPView:
    ttl = recordset.ttl if recordset.ttl is not None else zone_ttl
    return FloatingIPView(fip, record.data, recordset.description, ttl, record.action,
                          record.status)


async def _remove_ptr(session: AsyncSession, record: Record) -> None:
    """The record goes; its recordset too once empty; the zone republishes."""
    zone = await zone_store.by_id(session, record.zone_id, lock=True)
    siblings = (await rs_store.records_of(session, [record.recordset_id]))[record.recordset_id]
    if all(r.id == record.id for r in siblings):
        await rs_store.delete_recordset(session, record.recordset_id)
    else:
        await rs_store.delete_records(session, [record.id])
    if zone is not None:
        zone.updated_at = utcnow()
        central_zones.mark_pending(zone)


# --- write -------------------------------------------------------------------------------------
async def update_floatingip(svc: Services, ctx: RequestContext, region: str, fip_id: str,
                            values: dict[str, Any]) -> FloatingIPView | None:
    """Set (``ptrdname`` a name) or unset (``ptrdname`` null) the PTR of a floating IP the
    caller's project owns in Neutron right now; unset answers None."""
    svc.policy.check(SET_POLICY, ctx, {"project_id": ctx.project_id})
    fips = await neutron.list_floatingips(svc.conf, ctx, region)
    fip = fips.get((region, fip_id))
    if fip is None:
        raise _not_associated(fip_id, region, ctx)
    if values["ptrdname"] is None:
        await _unset(svc, ctx, fip)
        return None
    return await _set(svc, ctx, fip, values)


async def _unset(svc: Services, ctx: RequestContext, fip: FloatingIP) -> None:
    async def work(session: AsyncSession) -> None:
        record = await fip_store.ptr_record(session, fip.region, fip.id, ctx.project_id)
        if record is None:
            raise errors.NotFound(f"No such FloatingIP {fip.region}:{fip.id}")
        await _remove_ptr(session, record)

    await svc.db.transaction(work)
    svc.wake_worker()


async def _set(svc: Services, ctx: RequestContext, fip: FloatingIP,
               values: dict[str, Any]) -> FloatingIPView:
    record_name, zone_name = reverse_names(fip.address)
    zone_id = await _reverse_zone(svc, ctx, zone_name)

    async def work(session: AsyncSession) -> FloatingIPView:
        zone = await zone_store.by_id(session, zone_id, lock=True)
        if zone is None or zone.deleted != LIVE or zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        recordset = await rs_store.find_one(session, zone.id, record_name, "PTR")
        if recordset is None:
            limits = await quotas.effective(svc, session, zone.tenant_id)
            count = await rs_store.count_in_zone(session, zone.id, limits["zone_recordsets"])
            quotas.check(limits, zone_recordsets=count + 1)
            recordset = rs_store.new_recordset(zone, record_name, "PTR", tenant_id=ctx.project_id)
            await rs_store.insert(session, [recordset])
        else:
            old = (await rs_store.records_of(session, [recordset.id]))[recordset.id]
            await rs_store.delete_records(session, [r.id for r in old])
            recordset.tenant_id = ctx.project_id
            recordset.version += 1
            recordset.updated_at = utcnow()
            await flush(session)  # the old rows go first: the new one may hash the same
        recordset.ttl = values.get("ttl")
        recordset.description = values.get("description")
        record = _ptr_record(zone, recordset, values["ptrdname"], fip, ctx,
                             "CREATE" if recordset.version == 1 else "UPDATE")
        rs_store.add_records(session, [record])
        central_zones.mark_pending(zone)
        await flush(session)
        return _view(fip, record, recordset, zone.ttl)

    view = await svc.db.transaction(work)
    svc.wake_worker()
    return view


def _ptr_record(zone: Zone, recordset: RecordSet, ptrdname: str, fip: FloatingIP,
                ctx: RequestContext, action: str) -> Record:
    record = rs_store.new_record(zone, recordset, ptrdname, managed=True, action=action)
    record.managed_resource_type = PTR_RESOURCE
    record.managed_resource_id = fip.id
    record.managed_resource_region = fip.region
    record.managed_extra = fip.address
    record.managed_tenant_id = ctx.project_id
    return record


async def _reverse_zone(svc: Services, ctx: RequestContext, zone_name: str) -> str:
    """The managed tenant's zone of that name, created when missing.

    Creation goes through ``create_zone`` as the managed tenant, so a zone of that name owned by
    another project ends in 409 ``duplicate_zone`` instead of being borrowed.
    """
    managed = svc.conf["service:central"].managed_resource_tenant_id
    async with svc.db.read() as session:
        zone = await fip_store.zone_named(session, zone_name, managed)
    if zone is not None:
        return zone.id
    owner = RequestContext(user_id=ctx.user_id, project_id=managed, roles=["admin"],
                           request_id=ctx.request_id, all_tenants=True,
                           edit_managed_records=True)
    email = svc.conf["service:central"].managed_resource_email
    try:
        created = await central_zones.create_zone(svc, owner, {"name": zone_name, "email": email})
    except errors.DuplicateZone:
        async with svc.db.read() as session:  # a concurrent set created it first
            zone = await fip_store.zone_named(session, zone_name, managed)
        if zone is None:
            raise
        return zone.id
    return created.zone.id
