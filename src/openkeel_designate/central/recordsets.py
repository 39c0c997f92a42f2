"""Recordset rules: placement, CNAME exclusivity, managed records, quotas, record validation.

Each write marks the recordset's records PENDING (serial unset) and the zone PENDING in the
same transaction; the worker assigns the serial that first serves them.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import known_zones, quotas
from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ListResult, RecordSetView, recordset_etag
from openkeel_designate.central.zones import (
    CATALOG_FORBIDDEN,
    load_visible,
    policy_target,
)
from openkeel_designate.domain import errors, names, rrtypes
from openkeel_designate.domain.recordset_types import check_delegation_point, supported_type
from openkeel_designate.domain.conditions import Condition
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import rows
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import Record, RecordSet, Zone, utcnow


# --- validation (no I/O) -----------------------------------------------------------------------
def validate(conf_types: list[str], values: dict[str, Any], rtype_name: Any,
             name: str | None, *, stored: bool = False) -> list[str]:
    """The de-duplicated record strings, or InvalidObject with Designate's structured errors.

    ``stored``: the recordset exists, so its name, judged when it was created, is only read
    by the records' rules (SVCB of ``_dns`` names).
    """
    record_type = supported_type(conf_types, rtype_name)
    if name is not None and not stored and not record_type.is_valid_name(name):
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
        if not (isinstance(item, str) and record_type.is_valid_in(name, item)):
            problems.append({"path": ["records", index],
                             "message": f"'{item}' is not a '{record_type.name}' Record",
                             "validator": "format", "validator_value": [record_type.name]})
    if problems:
        raise errors.InvalidObject(errors=problems)
    if record_type.max_records is not None and len(unique) > record_type.max_records:
        raise errors.BadRequest(
            f"{record_type.name} recordsets may not have more than {record_type.max_records} record")
    return unique


def check_name_rule(record_type: rrtypes.RecordType, name: str) -> None:
    message = record_type.name_error(name)
    if message:
        raise errors.BadRequest(message)


# --- helpers -----------------------------------------------------------------------------------
def recordset_target(zone: Zone, ctx: RequestContext, recordset: RecordSet | None = None,
            shared: bool = False) -> dict[str, Any]:
    target = policy_target(zone, shared)
    if recordset is not None:
        target["recordset_project_id"] = recordset.tenant_id
    return target


async def _etag(session: AsyncSession, recordset: RecordSet) -> str:
    """The recordset's ETag now, read under the zone's lock (conditional writes only)."""
    return recordset_etag(recordset, (await rs_store.records_of(session, [recordset.id]))
                          [recordset.id])


async def zone_for_write(session: AsyncSession, ctx: RequestContext, zone_id: str) -> tuple[Zone, bool]:
    zone = await load_visible(session, ctx, zone_id, for_update=True)
    shared = zone.tenant_id != ctx.project_id and await zone_store.is_shared_with(
        session, zone.id, ctx.project_id)
    return zone, shared


async def locked_copy_for_write(session: AsyncSession, ctx: RequestContext,
                                zone_id: str) -> tuple[Zone, bool]:
    """``zone_for_write`` for a create, which only reads the zone and marks it pending: a frozen
    copy instead of an ORM row (the recordset POST's hot path, ``storage.zones._write_path``)."""
    zone = await zone_store.get_locked_copy(session, zone_id, project_id=ctx.project_id,
                                            all_tenants=ctx.all_tenants)
    if zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    # Without all_tenants the read only finds a foreign zone when it is shared with the caller.
    shared = zone.tenant_id != ctx.project_id and (
        not ctx.all_tenants or await zone_store.is_shared_with(session, zone.id, ctx.project_id))
    return zone, shared


def check_placement(zone: Zone, name: str, rtype: str, max_len: int, conf_types: list[str],
                    facts: rs_store.PlacementFacts) -> None:
    """Where a new recordset may go, with names compared as DNS compares them (any case).

    Designate's own containment and child-zone tests compare the strings as written while its
    database compares them case-insensitively; here every test is case-insensitive
    (``domain/names.py``): ``WWW.Example.org.`` belongs to ``example.org.``, and to its child
    zone ``Sub.example.org.`` when it is ``www.SUB.example.org.``.

    Extension (only once DS is in ``conf_types``): the NS and DS of a child zone's delegation
    may stand at the child's apex name in the parent — the chain of trust needs them there.

    ``facts``: what was read of the zone (``rs_store.placement_facts``).
    """
    record_type = rrtypes.rules(rtype)
    if len(name) > max_len:
        raise errors.InvalidRecordSetName("Name too long")
    if not names.is_within(name, zone.name):
        raise errors.InvalidRecordSetLocation("RecordSet is not contained within it's parent zone")
    cut_allowed = record_type.zone_cut and rrtypes.child_cuts_enabled(conf_types)
    for child in facts.child_zones:
        if names.is_within(name, child) and not (cut_allowed and names.same(name, child)):
            raise errors.InvalidRecordSetLocation(f"RecordSet belongs in a child zone: {child}")
    if record_type.exclusive and names.same(name, zone.name):
        raise errors.InvalidRecordSetLocation(
            f"{rtype} recordsets may not be created at the zone apex")
    alone = rrtypes.exclusive_among(rtype, facts.types_at_name)
    if alone is not None:
        raise errors.InvalidRecordSetLocation(
            f"{alone} recordsets may not share a name with any other records")
    if rtype in facts.types_at_name:
        raise errors.DuplicateRecordSet("Duplicate RecordSet")
    check_delegation_point(rtype, name, zone.name, facts.types_at_name)


async def check_delegation_kept(session: AsyncSession, zone: Zone, recordset: RecordSet) -> None:
    """The NS recordset of a delegation may not go (deleted, or emptied) while a DS recordset
    stands beside it: the DS would be left at a name that is no delegation point."""
    if recordset.type != "NS" or names.same(recordset.name, zone.name):
        return
    beside = await rs_store.names_in_zone(session, zone.id, recordset.name)
    kept = [rs.type for rs in beside if rrtypes.rules(rs.type).delegation_only]
    if kept:
        raise errors.BadRequest(
            f"The NS recordset of a delegation with a {kept[0]} recordset may not be removed: "
            f"delete the {kept[0]} recordset first")


def is_managed(view: RecordSetView, zone: Zone) -> bool:
    record_type = rrtypes.rules(view.recordset.type)
    return any(r.managed for r in view.records) or not record_type.api_writable or (
        record_type.apex_managed and names.same(view.recordset.name, zone.name))


# --- create ------------------------------------------------------------------------------------
@notifies("dns.recordset.create")
async def create_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                           values: dict[str, Any],
                           condition: Condition | None = None) -> RecordSetView:
    if "name" not in values:
        # Designate validates type and records first; only then the missing name (bare 400).
        validate(svc.conf.supported_record_type, values, values.get("type"), None)
        raise errors.InvalidObject()
    data = check_new(svc, values)

    async def work(session: AsyncSession) -> RecordSetView:
        zone, shared = await locked_copy_for_write(session, ctx, zone_id)
        if condition is not None:  # If-None-Match: * — the name and type (in any case) exist?
            existing = await rs_store.find_one(session, zone.id, values["name"],
                                               values["type"])
            condition.check(None if existing is None else await _etag(session, existing))
        recordset, created = await insert_recordset(svc, ctx, session, zone, shared, values, data,
                                                    mark_pending=True)
        return RecordSetView.of(recordset, created, zone.name)

    try:
        result = None
        if condition is None and ctx.project_id is not None and rs_store.writes_alone(svc.db, data):
            result = await _create_unlocked(svc, ctx, zone_id, values, data)
        if result is None:
            result = await svc.db.transaction(work, plain=True)
    except errors.Duplicate as exc:
        # A racing create of the same name (in any case) and type won: uq_recordsets_zone_name_key_type.
        if type(exc) is not errors.Duplicate:
            raise
        raise errors.DuplicateRecordSet("Duplicate RecordSet") from exc
    if result.records:
        svc.wake_worker()
    return result


async def _create_unlocked(svc: Services, ctx: RequestContext, zone_id: str,
                           values: dict[str, Any], data: list[str]) -> RecordSetView | None:
    """A create in the project's own zone without a transaction (PostgreSQL): the zone and
    the facts read, the same rules, then one write that is made only if nothing was written
    to the zone in between (``rs_store.create_if_unchanged``). None when it could not be
    made so (a zone shared with the project, a racing write, the zone gone): the caller
    runs the create the locked way, which reads everything again.

    The same create, two round trips instead of five (no BEGIN, lock or COMMIT, and the
    zone read with the facts): the sequential POSTs of a tenant or a controller all take
    this way. After the first, one: the zone as this process's last create in it left it
    (``central.known_zones``) stands for the read."""
    known = svc.known_zones.take(zone_id, ctx.project_id)
    if known is not None:
        result = await _create_from_known(svc, ctx, known, values, data)
        if result is not None:
            return result
    zone, facts = await rs_store.read_for_create(svc.db, zone_id, ctx.project_id,
                                                 values["name"], quotas.caps(svc))
    if zone is None:
        return None
    limits = quotas.overlaid(svc, facts.quota_overrides)
    recordset, created = new_recordset_rows(svc, ctx, zone, False, values, data, facts, limits)
    if not await rs_store.create_if_unchanged(svc.db, zone, recordset, created, "UPDATE",
                                              bump_serial=zone.type == "PRIMARY"):
        return None
    return _created(svc, zone, facts, limits, recordset, created)


async def _create_from_known(svc: Services, ctx: RequestContext, known: known_zones.KnownZone,
                             values: dict[str, Any], data: list[str]) -> RecordSetView | None:
    """``_create_unlocked`` without its read: judged on what ``known`` holds (no recordset at
    the new name, which the write checks), written only if the zone is still so. None when
    a rule refused it or the name is taken (judged again on a read, which answers; what is
    known still holds) or the zone changed (it no longer does)."""
    limits = quotas.overlaid(svc, known.stored_quotas)
    facts = known.facts(limits)
    if facts is None:
        return None
    zone = known.zone
    try:
        recordset, created = new_recordset_rows(svc, ctx, zone, False, values, data, facts,
                                                limits)
    except errors.DesignateError:
        svc.known_zones.keep(known)
        return None
    written = await rs_store.create_if_assumed(svc.db, zone, facts, recordset, created,
                                               "UPDATE", bump_serial=zone.type == "PRIMARY")
    if written is None:
        svc.known_zones.keep(known)
    elif not written:
        svc.known_zones.missed(zone.id)
    return _created(svc, zone, facts, limits, recordset, created) if written else None


def _created(svc: Services, zone: Zone, facts: rs_store.PlacementFacts, limits: dict[str, int],
             recordset: dict, created: list[dict]) -> RecordSetView:
    """The answer of a create written without a transaction (judged on ``facts`` against
    ``limits``); what it leaves known of the zone is kept for the next."""
    svc.known_zones.keep(known_zones.after_create(zone, facts, limits, len(created)))
    return RecordSetView.of(rows.frozen_from(RecordSet, recordset),
                            [rows.frozen_from(Record, record) for record in created], zone.name)


def check_new(svc: Services, values: dict[str, Any]) -> list[str]:
    """The rules a new recordset's body must pass before any zone is read (as Designate)."""
    name, rtype = values["name"], values.get("type")
    data = validate(svc.conf.supported_record_type, values, rtype, name)
    record_type = rrtypes.rules(rtype)
    if not record_type.api_writable:
        raise errors.BadRequest(f"Creating a {rtype} recordset is not allowed")
    check_name_rule(record_type, name)
    return data


async def insert_recordset(svc: Services, ctx: RequestContext, session: AsyncSession, zone: Zone,
                           shared: bool, values: dict[str, Any], data: list[str], *,
                           mark_pending: bool = False) -> tuple[RecordSet, list[Record]]:
    """Policy, placement and quotas, then the rows; ``mark_pending``: the zone marked pending
    in the same write (a single create), else the caller marks it.

    Shared with change batches, which apply many of these under one zone lock and one serial.
    """
    facts = await rs_store.placement_facts(session, zone.id, values["name"], zone.tenant_id,
                                           quotas.caps(svc))
    recordset, created = new_recordset_rows(svc, ctx, zone, shared, values, data, facts,
                                            quotas.overlaid(svc, facts.quota_overrides))
    if mark_pending:
        await rs_store.insert_marking_pending(session, recordset, created, "UPDATE",
                                              bump_serial=zone.type == "PRIMARY")
    else:
        await rs_store.insert_rows(session, [recordset], created)
    return (rows.frozen_from(RecordSet, recordset),
            [rows.frozen_from(Record, record) for record in created])


def new_recordset_rows(svc: Services, ctx: RequestContext, zone: Zone, shared: bool,
                       values: dict[str, Any], data: list[str], facts: rs_store.PlacementFacts,
                       limits: dict[str, int]) -> tuple[dict, list[dict]]:
    """Policy, placement and quotas of a new recordset in ``zone``, given what was read of it
    (``facts``: the counts read as far as the quotas can tell, the owner's stored quotas) and
    the quotas that apply (``limits``: ``quotas.overlaid`` of those stored ones, computed once
    by the caller, which keeps them for what the create leaves known); the rows to write: the
    recordset's and its records'."""
    name, rtype = values["name"], values["type"]
    svc.policy.check("create_recordset", ctx, recordset_target(zone, ctx, shared=shared))
    _check_zone_writable(zone)
    check_ttl(svc, ctx, values.get("ttl"))
    check_placement(zone, name, rtype, svc.conf["service:central"].max_recordset_name_len,
                    svc.conf.supported_record_type, facts)
    # Two checks as in Designate: the recordset count first, then the records.
    quotas.check(limits, zone_recordsets=facts.recordsets + 1)
    quotas.check(limits, zone_records=facts.unmanaged_records + len(data),
                 recordset_records=len(data))
    recordset = rs_store.recordset_row(zone, name, rtype, values.get("ttl"),
                                       values.get("description"), tenant_id=ctx.project_id)
    created = [rs_store.record_row(zone, recordset["id"], recordset["tenant_id"], item)
               for item in data]
    return recordset, created


def _check_zone_writable(zone: Zone) -> None:
    if zone.type == "CATALOG":
        raise errors.Forbidden(CATALOG_FORBIDDEN)
    if zone.action == "DELETE":
        raise errors.BadRequest("Can not update a deleting zone")


def check_ttl(svc: Services, ctx: RequestContext, ttl: int | None) -> None:
    min_ttl = svc.conf["service:central"].min_ttl
    if ttl is not None and min_ttl and ttl < min_ttl and not svc.policy.allows("use_low_ttl", ctx):
        raise errors.InvalidTTL(f"TTL is below the minimum: {min_ttl}")


# --- read --------------------------------------------------------------------------------------
async def get_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                        recordset_id: str) -> RecordSetView:
    found = await rs_store.get_visible(svc.db, zone_id, recordset_id, project_id=ctx.project_id,
                                       all_tenants=ctx.all_tenants)
    # Designate finds the recordset (by id and zone id) before the zone: an unknown zone
    # answers recordset_not_found, not zone_not_found.
    if found.recordset is None:
        raise errors.RecordSetNotFound("Could not find RecordSet")
    if found.zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    zone = found.zone
    svc.policy.check("get_recordset", ctx, recordset_target(zone, ctx,
                                                   shared=zone.tenant_id != ctx.project_id))
    return RecordSetView.of(found.recordset, found.records, zone.name)


async def find_recordsets(svc: Services, ctx: RequestContext, zone_id: str | None,
                          page: Page) -> ListResult:
    if zone_id is not None:
        first = await rs_store.zone_page(svc.db, zone_id, page, project_id=ctx.project_id,
                                         all_tenants=ctx.all_tenants, count=not ctx.hide_counts)
        if first is not None:  # the usual list: one zone's first page, no filter
            if first.zone is None:
                raise errors.ZoneNotFound("Could not find Zone")
            _check_find_in_zone(svc, ctx, first.zone)
            return ListResult([RecordSetView.of(r, first.records.get(r.id, []), first.zone.name)
                               for r in first.recordsets], first.total)
    async with svc.db.read() as session:
        if zone_id is not None:
            _check_find_in_zone(svc, ctx, await load_visible(session, ctx, zone_id))
        else:
            svc.policy.check("find_recordsets", ctx, {"project_id": ctx.project_id})
        rows, total = await rs_store.find(session, page, zone_id=zone_id,
                                          project_id=ctx.project_id, all_tenants=ctx.all_tenants,
                                          count=not ctx.hide_counts)
        records = await rs_store.records_of(session, [r.id for r in rows])
        zone_names = await zone_store.names(session, {r.zone_id for r in rows})
    items = [RecordSetView.of(r, records.get(r.id, []), zone_names.get(r.zone_id, ""))
             for r in rows]
    return ListResult(items, total)


def _check_find_in_zone(svc: Services, ctx: RequestContext, zone: Zone) -> None:
    """The policy of listing one zone's recordsets, for both ways of reading the page."""
    target = recordset_target(zone, ctx)
    if zone.tenant_id != ctx.project_id:
        target["project_id"] = ctx.project_id  # shared with the caller's project
    svc.policy.check("find_recordsets", ctx, target)


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
    """Refuse updates of managed recordsets, of types users may not write, of the apex
    recordset Designate keeps (NS) and of names the type's API rule refuses (TLSA).

    Designate's API runs these checks on the fetched recordset *before* parsing the body, so
    a body that would not parse (e.g. tempest's SOA update with another ``name``) still
    answers 400 ``bad_request``; the route calls this first, central again under its lock.
    """
    rs = view.recordset
    record_type = rrtypes.rules(rs.type)
    at_managed_apex = record_type.apex_managed and names.same(rs.name, view.zone_name)
    managed = (any(r.managed for r in view.records) or not record_type.api_writable
               or at_managed_apex)
    if managed and not ctx.edit_managed_records:
        raise errors.BadRequest("Managed records may not be updated")
    if not record_type.api_writable:
        raise errors.BadRequest(f"Updating {rs.type} recordsets is not allowed")
    if at_managed_apex:
        raise errors.BadRequest(f"Updating a root zone {rs.type} record is not allowed")
    check_name_rule(record_type, rs.name)


def _may_write_alone(svc: Services, ctx: RequestContext) -> bool:
    """Whether a PUT or DELETE may try the way without a transaction: a project's request
    (its own zone, checked by the read), on a database that writes so (PostgreSQL)."""
    return ctx.project_id is not None and svc.db.writes_alone


@dataclasses.dataclass(frozen=True)
class Fetched:
    """A recordset read for a PUT: the ``view`` the route checks and merges the body into, and
    on PostgreSQL the ``read`` the PUT's unlocked way writes from. None where that way does not
    apply (another database, a shared zone, a recordset without records): the PUT then goes
    the locked way without reading for the other again."""

    view: RecordSetView
    read: rs_store.ChangeRead | None


async def fetch_for_update(svc: Services, ctx: RequestContext, zone_id: str,
                           recordset_id: str) -> Fetched:
    """``get_recordset`` for the PUT's route, which checks the recordset before it parses the
    body (as Designate). In the project's own zone on PostgreSQL it is the unlocked way's read
    (``rs_store.read_for_change_alone``), handed on to ``update_recordset``: the PUT reads
    once, not twice. Elsewhere, and when that read finds nothing, ``get_recordset`` answers
    (and raises what it raises)."""
    if _may_write_alone(svc, ctx):
        read = await rs_store.read_for_change_alone(svc.db, zone_id, recordset_id,
                                                    ctx.project_id, quotas.caps(svc))
        if read is not None:
            svc.policy.check("get_recordset", ctx, recordset_target(read.zone, ctx))
            return Fetched(RecordSetView.of(read.recordset, read.records, read.zone.name), read)
    return Fetched(await get_recordset(svc, ctx, zone_id, recordset_id), None)


@notifies("dns.recordset.update")
async def update_recordset(svc: Services, ctx: RequestContext, zone_id: str, recordset_id: str,
                           values: dict[str, Any], condition: Condition | None = None,
                           fetched: Fetched | None = None) -> RecordSetView:
    """``fetched``: this request's ``fetch_for_update``, if any: the unlocked way writes from
    its read, and is not tried when it has none."""
    async def work(session: AsyncSession) -> RecordSetView:
        zone, shared = await locked_copy_for_write(session, ctx, zone_id)
        recordset, records = await rs_store.read_for_change(session, recordset_id)
        if recordset is None or recordset.zone_id != zone.id:
            raise errors.RecordSetNotFound("Could not find RecordSet")
        if condition is not None:
            condition.check(recordset_etag(recordset, records))
        view = await change_recordset(svc, ctx, session, zone, shared, recordset, records,
                                      values)
        await zone_store.mark_pending(session, zone.id, "UPDATE", zone.type == "PRIMARY")
        return view

    svc.known_zones.forget(zone_id)
    result = None
    read = None if fetched is None else fetched.read
    if condition is None and _may_write_alone(svc, ctx) and (fetched is None or read is not None):
        result = await _update_unlocked(svc, ctx, zone_id, recordset_id, values, read)
    if result is None:
        result = await svc.db.transaction(work, plain=True)
    svc.wake_worker()
    return result


async def _update_unlocked(svc: Services, ctx: RequestContext, zone_id: str, recordset_id: str,
                           values: dict[str, Any],
                           read: rs_store.ChangeRead | None) -> RecordSetView | None:
    """A PUT in the project's own zone without a transaction (PostgreSQL), as
    ``_create_unlocked``: one read (``rs_store.read_for_change_alone``), the same rules, one
    write made only if nothing was written to the zone in between. None when it could not be
    made so (a shared zone, a recordset without records or left without any, many records, a
    racing write): the caller runs the PUT the locked way, which reads everything again.

    Two round trips where the locked PUT takes about twelve; one with the route's ``read``."""
    if read is None:
        read = await rs_store.read_for_change_alone(svc.db, zone_id, recordset_id,
                                                    ctx.project_id, quotas.caps(svc))
    if read is None:
        return None
    data = _data_after(svc, ctx, read.zone, False, read.recordset, read.records, values)
    if not data:  # the delegation rule reads more: the locked way
        return None
    change = _planned_change(svc, ctx, read.zone, read.recordset, read.records, values, data,
                             quotas.overlaid(svc, read.stored_quotas), read.others)
    if not rs_store.writes_change_alone(svc.db, change.dropped, change.kept, change.added):
        return None
    if not await rs_store.replace_if_unchanged(
            svc.db, read.zone, change.view.recordset, change.dropped, change.kept, change.added,
            change.now, bump_serial=read.zone.type == "PRIMARY"):
        return None
    return change.view


@dataclasses.dataclass(frozen=True)
class _Change:
    """A PUT's writes, planned: the answer (``view``), the ids of the records ``dropped`` and
    ``kept``, the rows ``added`` (``rs_store.record_row``), at ``now``."""

    view: RecordSetView
    dropped: list[str]
    kept: list[str]
    added: list[dict]
    now: datetime


async def change_recordset(svc: Services, ctx: RequestContext, session: AsyncSession, zone: Zone,
                           shared: bool, recordset: Any, records: list[Any],
                           values: dict[str, Any]) -> RecordSetView:
    """The update's rules and writes, by prebuilt statements (``rs_store.replace_records``);
    ``recordset`` and ``records``: frozen copies read under the zone's lock
    (``rs_store.read_for_change``). The caller marks the zone pending (batches do it once)."""
    data = _data_after(svc, ctx, zone, shared, recordset, records, values)
    if not data:
        await check_delegation_kept(session, zone, recordset)
    limits = await quotas.effective(svc, session, zone.tenant_id)
    others = await rs_store.count_unmanaged_records(session, zone.id, recordset.id,
                                                    limits["zone_records"])
    change = _planned_change(svc, ctx, zone, recordset, records, values, data, limits, others)
    await rs_store.replace_records(session, change.view.recordset, change.dropped, change.kept,
                                   change.added, change.now)
    return change.view


def _data_after(svc: Services, ctx: RequestContext, zone: Zone, shared: bool, recordset: Any,
                records: list[Any], values: dict[str, Any]) -> list[str]:
    """The update's first rules (policy, the zone and the recordset writable, the body's
    records valid); the records' data the recordset is to hold."""
    svc.policy.check("update_recordset", ctx, recordset_target(zone, ctx, recordset, shared))
    _check_zone_writable(zone)
    check_updatable(ctx, RecordSetView(recordset, tuple(records), zone.name))
    if "records" in values:
        return validate(svc.conf.supported_record_type, values, recordset.type,
                        recordset.name, stored=True)
    return [r.data for r in records]


def _planned_change(svc: Services, ctx: RequestContext, zone: Zone, recordset: Any,
                    records: list[Any], values: dict[str, Any], data: list[str],
                    limits: dict[str, int], others: int) -> _Change:
    """The update's last rules (TTL, quotas: ``others`` records of the zone besides the
    recordset's, read as far as ``limits`` can tell) and its writes."""
    if "ttl" in values:
        check_ttl(svc, ctx, values["ttl"])
    quotas.check(limits, zone_records=others + len(data), recordset_records=len(data))
    now = utcnow()
    kept = [dataclasses.replace(r, status="PENDING", action="UPDATE", serial=None, updated_at=now)
            for r in records if r.data in data]
    kept_data = {r.data for r in kept}
    added = [rs_store.record_row(zone, recordset.id, recordset.tenant_id, item, action="UPDATE")
             for item in data if item not in kept_data]
    changed = dataclasses.replace(recordset, ttl=values.get("ttl", recordset.ttl),
                                  description=values.get("description", recordset.description),
                                  version=recordset.version + 1, updated_at=now)
    view = RecordSetView(changed, (*kept, *(rows.frozen_from(Record, a) for a in added)),
                         zone.name)
    return _Change(view, [r.id for r in records if r.data not in data], [r.id for r in kept],
                   added, now)


# --- delete ------------------------------------------------------------------------------------
@notifies("dns.recordset.delete")
async def delete_recordset(svc: Services, ctx: RequestContext, zone_id: str,
                           recordset_id: str,
                           condition: Condition | None = None) -> RecordSetView:
    async def work(session: AsyncSession) -> RecordSetView:
        if await rs_store.zone_of(session, recordset_id) != zone_id:  # first, as get
            raise errors.RecordSetNotFound("Could not find RecordSet")
        zone, shared = await locked_copy_for_write(session, ctx, zone_id)
        recordset, records = await rs_store.read_for_change(session, recordset_id)
        if recordset is None:  # deleted by a write that came before the lock
            raise errors.RecordSetNotFound("Could not find RecordSet")
        if condition is not None:
            condition.check(recordset_etag(recordset, records))
        gone = await remove_recordset(svc, ctx, session, zone, shared, recordset, records)
        if gone.records:
            await zone_store.mark_pending(session, zone.id, "UPDATE", zone.type == "PRIMARY")
        return gone

    svc.known_zones.forget(zone_id)
    result = None
    if condition is None and _may_write_alone(svc, ctx):
        result = await _delete_unlocked(svc, ctx, zone_id, recordset_id)
    if result is None:
        result = await svc.db.transaction(work, plain=True)
    svc.wake_worker()
    return result


async def _delete_unlocked(svc: Services, ctx: RequestContext, zone_id: str,
                           recordset_id: str) -> RecordSetView | None:
    """A DELETE in the project's own zone without a transaction (PostgreSQL), as
    ``_update_unlocked``; None (the locked way) for an NS recordset, whose delegation rule
    reads more, and where ``_update_unlocked`` would."""
    read = await rs_store.read_for_change_alone(svc.db, zone_id, recordset_id, ctx.project_id,
                                                None)
    if read is None or read.recordset.type == "NS":
        return None
    _check_removable(svc, ctx, read.zone, False, read.recordset, read.records)
    gone = _gone(read.zone, read.recordset, read.records)
    if not await rs_store.remove_if_unchanged(svc.db, read.zone, recordset_id,
                                              bump_serial=read.zone.type == "PRIMARY"):
        return None
    return gone


async def remove_recordset(svc: Services, ctx: RequestContext, session: AsyncSession, zone: Zone,
                           shared: bool, recordset: Any, records: list[Any]) -> RecordSetView:
    """The delete's rules and writes (``rs_store.remove``); ``recordset`` and ``records`` as
    for ``change_recordset``. Answers the recordset as it was, its records marked for
    deletion (the caller marks the zone pending)."""
    _check_removable(svc, ctx, zone, shared, recordset, records)
    await check_delegation_kept(session, zone, recordset)
    gone = _gone(zone, recordset, records)
    await rs_store.remove(session, zone.id, recordset.id, len(records))
    return gone


def _check_removable(svc: Services, ctx: RequestContext, zone: Zone, shared: bool,
                     recordset: Any, records: list[Any]) -> None:
    """The delete's rules but the delegation's (``check_delegation_kept``), which reads."""
    svc.policy.check("delete_recordset", ctx, recordset_target(zone, ctx, recordset, shared))
    _check_zone_writable(zone)
    if not rrtypes.rules(recordset.type).api_writable:
        raise errors.BadRequest(f"Deleting a {recordset.type} recordset is not allowed")
    if is_managed(RecordSetView(recordset, tuple(records), zone.name), zone) \
            and not ctx.edit_managed_records:
        raise errors.BadRequest("Managed records may not be deleted")


def _gone(zone: Zone, recordset: Any, records: list[Any]) -> RecordSetView:
    """The delete's answer: the recordset as it was, its records marked for deletion."""
    now = utcnow()
    return RecordSetView(dataclasses.replace(recordset, updated_at=now), tuple(
        dataclasses.replace(r, action="DELETE", status="PENDING", updated_at=now)
        for r in records), zone.name)
