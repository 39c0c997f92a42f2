"""Recordset rules: placement, CNAME exclusivity, managed records, quotas, record validation.

Each write marks the recordset's records PENDING (serial unset) and the zone PENDING in the
same transaction; the worker assigns the serial that first serves them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import quotas
from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.records import new_record, new_recordset
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ListResult, RecordSetView
from openkeel_designate.central.zones import (
    CATALOG_FORBIDDEN,
    load_visible,
    mark_pending,
    policy_target,
)
from openkeel_designate.domain import errors, rrtypes
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.filters import Page
from openkeel_designate.storage.models import RecordSet, Zone, utcnow


# --- validation (no I/O) -----------------------------------------------------------------------
def validate(conf_types: list[str], values: dict[str, Any], rtype_name: Any,
             name: str | None) -> list[str]:
    """The de-duplicated record strings, or InvalidObject with Designate's structured errors."""
    record_type = _record_type(conf_types, rtype_name)
    if name is not None and not record_type.is_valid_name(name):
        raise errors.InvalidObject("name is invalid")
    raw = values.get("records", [])
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise errors.InvalidObject(errors=[{
            "path": ["records"], "message": f"'{raw}' is not a valid list of records",
            "validator": "type", "validator_value": ["list"]}])
    unique: list[Any] = []
    for item in raw:
        if item not in unique:
            unique.append(item)
    problems = []
    for index, item in enumerate(unique):
        if not (isinstance(item, str) and record_type.is_valid(item)):
            problems.append({"path": ["records", index],
                             "message": f"'{item}' is not a '{record_type.name}' Record",
                             "validator": "format", "validator_value": [record_type.name]})
    if problems:
        raise errors.InvalidObject(errors=problems)
    if record_type.max_records is not None and len(unique) > record_type.max_records:
        raise errors.BadRequest(
            f"{record_type.name} recordsets may not have more than {record_type.max_records} record")
    return unique


def _record_type(conf_types: list[str], name: Any) -> rrtypes.RecordType:
    record_type = rrtypes.get(name) if isinstance(name, str) else None
    if record_type is None:
        raise errors.InvalidObject(errors=[{
            "path": ["recordset", "type"], "message": f"'{name}' is not a valid record type",
            "validator": "value", "validator_value": [name]}])
    if name not in conf_types:
        raise errors.InvalidObject(errors=[{
            "path": ["recordset", "type"], "message": f"'{name}' is not a supported record type",
            "validator": "value", "validator_value": [name]}])
    return record_type


def _check_tlsa_name(rtype: str, name: str) -> None:
    record_type = rrtypes.get(rtype)
    name_error = getattr(record_type, "name_error", None)
    if name_error is not None:
        message = name_error(name)
        if message:
            raise errors.BadRequest(message)


# --- helpers -----------------------------------------------------------------------------------
async def _view(session: AsyncSession, recordset: RecordSet, zone_name: str) -> RecordSetView:
    records = (await rs_store.records_of(session, [recordset.id]))[recordset.id]
    return RecordSetView(recordset, records, zone_name)


def _target(zone: Zone, ctx: RequestContext, recordset: RecordSet | None = None,
            shared: bool = False) -> dict[str, Any]:
    target = policy_target(zone, shared)
    if recordset is not None:
        target["recordset_project_id"] = recordset.tenant_id
    return target


async def _zone_for_write(session: AsyncSession, ctx: RequestContext, zone_id: str) -> tuple[Zone, bool]:
    zone = await load_visible(session, ctx, zone_id, for_update=True)
    shared = zone.tenant_id != ctx.project_id and await zone_store.is_shared_with(
        session, zone.id, ctx.project_id)
    return zone, shared


async def _check_placement(session: AsyncSession, zone: Zone, name: str, rtype: str,
                           max_len: int) -> None:
    if len(name) > max_len:
        raise errors.InvalidRecordSetName("Name too long")
    zone_name = zone.name
    if name != zone_name and not name.endswith("." + zone_name):
        raise errors.InvalidRecordSetLocation("RecordSet is not contained within it's parent zone")
    for child in await zone_store.children(session, zone.id):
        if name == child.name or name.endswith("." + child.name):
            raise errors.InvalidRecordSetLocation(f"RecordSet belongs in a child zone: {child.name}")
    if rtype == "CNAME" and name == zone_name:
        raise errors.InvalidRecordSetLocation("CNAME recordsets may not be created at the zone apex")
    same_name = await rs_store.names_in_zone(session, zone.id, name)
    if any(rs.type == "CNAME" for rs in same_name) or (rtype == "CNAME" and same_name):
        raise errors.InvalidRecordSetLocation(
            "CNAME recordsets may not share a name with any other records")
    if any(rs.type == rtype for rs in same_name):
        raise errors.DuplicateRecordSet("Duplicate RecordSet")


def _is_managed(view: RecordSetView, zone: Zone) -> bool:
    return any(r.managed for r in view.records) or view.recordset.type == "SOA" or (
        view.recordset.type == "NS" and view.recordset.name == zone.name)


# --- create ------------------------------------------------------------------------------------
@notifies("dns.recordset.create")
async def create_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                           values: dict[str, Any]) -> RecordSetView:
    if "name" not in values:
        raise errors.InvalidObject()
    name, rtype = values["name"], values.get("type")
    data = validate(svc.conf.supported_record_type, values, rtype, name)
    if rtype == "SOA":
        raise errors.BadRequest("Creating a SOA recordset is not allowed")
    _check_tlsa_name(rtype, name)

    async def work(session: AsyncSession) -> RecordSetView:
        zone, shared = await _zone_for_write(session, ctx, zone_id)
        svc.policy.check("create_recordset", ctx, _target(zone, ctx, shared=shared))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        _check_ttl(svc, ctx, values.get("ttl"))
        await _check_placement(session, zone, name, rtype,
                               svc.conf["service:central"].max_recordset_name_len)
        # Two checks as in Designate: the recordset count first, then the records.
        await quotas.enforce(svc, session, zone.tenant_id,
                             zone_recordsets=await rs_store.count_in_zone(session, zone.id) + 1)
        await quotas.enforce(
            svc, session, zone.tenant_id,
            zone_records=await rs_store.count_unmanaged_records(session, zone.id) + len(data),
            recordset_records=len(data))
        recordset = new_recordset(zone, name, rtype, values.get("ttl"), values.get("description"),
                                  tenant_id=ctx.project_id)
        session.add(recordset)
        await session.flush()  # the recordset row first: records reference it
        created = [new_record(zone, recordset, item) for item in data]
        session.add_all(created)
        if created:
            mark_pending(zone)
        await session.flush()
        return RecordSetView(recordset, created, zone.name)

    result = await svc.db.transaction(work)
    if result.records:
        svc.wake_worker()
    return result


def _check_ttl(svc: Services, ctx: RequestContext, ttl: int | None) -> None:
    min_ttl = svc.conf["service:central"].min_ttl
    if ttl is not None and min_ttl and ttl < min_ttl and not svc.policy.allows("use_low_ttl", ctx):
        raise errors.InvalidTTL(f"TTL is below the minimum: {min_ttl}")


# --- read --------------------------------------------------------------------------------------
async def get_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                        recordset_id: str) -> RecordSetView:
    async with svc.db.read() as session:
        zone = await load_visible(session, ctx, zone_id)
        svc.policy.check("get_recordset", ctx, _target(zone, ctx,
                                                       shared=zone.tenant_id != ctx.project_id))
        recordset = await rs_store.get(session, recordset_id)
        if recordset is None or recordset.zone_id != zone.id:
            raise errors.RecordSetNotFound("Could not find RecordSet")
        return await _view(session, recordset, zone.name)


async def find_recordsets(svc: Services, ctx: RequestContext, zone_id: str | None,
                          page: Page) -> ListResult:
    async with svc.db.read() as session:
        if zone_id is not None:
            zone = await load_visible(session, ctx, zone_id)
            target = _target(zone, ctx)
            if zone.tenant_id != ctx.project_id:
                target["project_id"] = ctx.project_id  # shared with the caller's project
            svc.policy.check("find_recordsets", ctx, target)
        else:
            svc.policy.check("find_recordsets", ctx, {"project_id": ctx.project_id})
        rows, total = await rs_store.find(session, page, zone_id=zone_id,
                                          project_id=ctx.project_id, all_tenants=ctx.all_tenants,
                                          count=not ctx.hide_counts)
        records = await rs_store.records_of(session, [r.id for r in rows])
        zone_names = await zone_store.names(session, {r.zone_id for r in rows})
    items = [RecordSetView(r, records.get(r.id, []), zone_names.get(r.zone_id, "")) for r in rows]
    return ListResult(items, total)


async def locate_recordset(svc: Services, ctx: RequestContext, recordset_id: str) -> str:
    """The zone id of a recordset the caller can see (for the 301 of /v2/recordsets/{id})."""
    async with svc.db.read() as session:
        recordset = await rs_store.get(session, recordset_id)
        if recordset is None:
            raise errors.RecordSetNotFound("Could not find RecordSet")
        zone = await zone_store.get(session, recordset.zone_id, project_id=ctx.project_id,
                                    all_tenants=ctx.all_tenants)
        if zone is None:
            raise errors.RecordSetNotFound("Could not find RecordSet")
    return recordset.zone_id


# --- update ------------------------------------------------------------------------------------
def check_updatable(ctx: RequestContext, view: RecordSetView) -> None:
    """Refuse updates of managed, SOA and apex NS recordsets (and misnamed TLSA).

    Designate's API runs these checks on the fetched recordset *before* parsing the body, so
    a body that would not parse (e.g. tempest's SOA update with another ``name``) still
    answers 400 ``bad_request``; the route calls this first, central again under its lock.
    """
    rs = view.recordset
    root_ns = rs.type == "NS" and rs.name == view.zone_name
    managed = any(r.managed for r in view.records) or rs.type == "SOA" or root_ns
    if managed and not ctx.edit_managed_records:
        raise errors.BadRequest("Managed records may not be updated")
    if rs.type == "SOA":
        raise errors.BadRequest("Updating SOA recordsets is not allowed")
    if root_ns:
        raise errors.BadRequest("Updating a root zone NS record is not allowed")
    _check_tlsa_name(rs.type, rs.name)


@notifies("dns.recordset.update")
async def update_recordset(svc: Services, ctx: RequestContext, zone_id: str, recordset_id: str,
                           values: dict[str, Any]) -> RecordSetView:
    async def work(session: AsyncSession) -> RecordSetView:
        zone, shared = await _zone_for_write(session, ctx, zone_id)
        recordset = await rs_store.get(session, recordset_id)
        if recordset is None or recordset.zone_id != zone.id:
            raise errors.RecordSetNotFound("Could not find RecordSet")
        current = await _view(session, recordset, zone.name)
        svc.policy.check("update_recordset", ctx, _target(zone, ctx, recordset, shared))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        check_updatable(ctx, current)
        if "records" in values:
            data = validate(svc.conf.supported_record_type, values, recordset.type, None)
        else:
            data = [r.data for r in current.records]
        if "ttl" in values:
            _check_ttl(svc, ctx, values["ttl"])
            recordset.ttl = values["ttl"]
        if "description" in values:
            recordset.description = values["description"]
        await quotas.enforce(
            svc, session, zone.tenant_id,
            zone_records=await rs_store.count_unmanaged_records(session, zone.id, recordset.id)
            + len(data),
            recordset_records=len(data))
        kept = [r for r in current.records if r.data in data]
        await rs_store.delete_records(session, [r.id for r in current.records if r.data not in data])
        for record in kept:
            record.status, record.action, record.serial = "PENDING", "UPDATE", None
            record.updated_at = utcnow()
        kept_data = {r.data for r in kept}
        added = [new_record(zone, recordset, item, action="UPDATE")
                 for item in data if item not in kept_data]
        session.add_all(added)
        recordset.version += 1
        recordset.updated_at = utcnow()
        mark_pending(zone)
        await session.flush()
        return RecordSetView(recordset, kept + added, zone.name)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


# --- delete ------------------------------------------------------------------------------------
@notifies("dns.recordset.delete")
async def delete_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                           recordset_id: str) -> RecordSetView:
    async def work(session: AsyncSession) -> RecordSetView:
        zone, shared = await _zone_for_write(session, ctx, zone_id)
        recordset = await rs_store.get(session, recordset_id)
        if recordset is None or recordset.zone_id != zone.id:
            raise errors.RecordSetNotFound("Could not find RecordSet")
        current = await _view(session, recordset, zone.name)
        svc.policy.check("delete_recordset", ctx, _target(zone, ctx, recordset, shared))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        if recordset.type == "SOA":
            raise errors.BadRequest("Deleting a SOA recordset is not allowed")
        if _is_managed(current, zone) and not ctx.edit_managed_records:
            raise errors.BadRequest("Managed records may not be deleted")
        for record in current.records:
            record.action, record.status = "DELETE", "PENDING"
        recordset.updated_at = utcnow()
        await rs_store.delete_recordset(session, recordset.id)
        if current.records:
            mark_pending(zone)
        return current

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result
