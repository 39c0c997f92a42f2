"""Zone rules: create, read, list, update, delete — each one transaction (a create on
PostgreSQL: one statement, ``_create_alone``).

Every write leaves the zone ``PENDING`` with a bumped ``change_seq`` in the same transaction as
the change itself; the worker picks it up from the database (DESIGN.md decisions 1–3).
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import quotas, records
from openkeel_designate.central.notifications import Notifier, notifies
from openkeel_designate.central.scheduler import choose_pool
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ListResult, ZoneView, zone_etag
from openkeel_designate.domain import conditions, errors, names
from openkeel_designate.domain import masters as master_rules
from openkeel_designate.domain.conditions import Condition
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import zone_create as create_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Zone, new_id, utcnow

CATALOG_FORBIDDEN = "This operation is not allowed for catalog zones."


async def view(session: AsyncSession, zone: Zone, shared: bool | None = None) -> ZoneView:
    if shared is None:
        shared = bool(await zone_store.shared_ids(session, [zone.id]))
    return (await views(session, [(zone, shared)]))[0]


async def views(session: AsyncSession, rows: list[tuple[Zone, bool]]) -> list[ZoneView]:
    """(zone, shared) pairs with their attributes and masters, read in one round trip."""
    attrs, masters = await zone_store.extras(session, [zone.id for zone, _ in rows])
    return [ZoneView.of(zone, attrs.get(zone.id, {}), masters.get(zone.id, []), shared)
            for zone, shared in rows]


async def load_visible(session: AsyncSession, ctx: RequestContext, zone_id: str,
                       for_update: bool = False) -> Zone:
    """The zone if the caller may see it (own, shared with it, or all projects), else 404."""
    zone = await zone_store.get(session, zone_id, project_id=ctx.project_id,
                                all_tenants=ctx.all_tenants, for_update=for_update)
    if zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    return zone


def policy_target(zone: Zone, shared: bool = False) -> dict[str, Any]:
    return {"project_id": zone.tenant_id, "tenant_id": zone.tenant_id,
            "zone_type": zone.type, "zone_shared": shared}


def mark_pending(zone: Zone, action: str = "UPDATE", bump_serial: bool = True) -> None:
    """The zone has a change the nameservers do not serve yet.

    A zone changed before its creation reached the servers shows ``UPDATE`` (as Designate): the
    worker re-creates it on any target that answers it has no such zone.
    """
    zone.action = action
    zone.status = "PENDING"
    zone.change_seq += 1
    zone.version += 1
    zone.next_attempt_at = None
    zone.error_reason = None
    if zone.pending_since is None:  # propagation is timed from the first unserved write
        zone.pending_since = utcnow()
    if bump_serial and zone.type == "PRIMARY":
        zone.increment_serial = True


# --- create ---------------------------------------------------------------------------------------
@notifies("dns.zone.create", "dns.domain.create")
async def create_zone(svc: Services, ctx: RequestContext, values: dict[str, Any]) -> ZoneView:
    check_create_allowed(svc, ctx, values)

    async def work(session: AsyncSession) -> ZoneView:
        return await insert_zone(svc, session, ctx, values)

    try:
        result = await _create_alone(svc, ctx, values) if svc.db.writes_alone else None
        if result is None:
            result = await svc.db.transaction(work, plain=True)
    except errors.Duplicate as exc:
        # A create of the same name (in any case) committed between our checks and our insert:
        # the unique name_key constraint refused it, which is Designate's DuplicateZone.
        if type(exc) is not errors.Duplicate:
            raise
        raise errors.DuplicateZone("Duplicate Zone") from exc
    svc.wake_worker()
    return result


def check_create_allowed(svc: Services, ctx: RequestContext, values: dict[str, Any]) -> None:
    """The checks made before any transaction: policy, catalog guard, project id."""
    svc.policy.check("create_zone", ctx, {"project_id": ctx.project_id})
    if (values.get("type") or "PRIMARY") == "CATALOG":
        raise errors.Forbidden(CATALOG_FORBIDDEN)
    if not ctx.project_id:
        raise errors.MissingProjectID("A project ID must be specified")


async def insert_zone(svc: Services, session: AsyncSession, ctx: RequestContext,
                      values: dict[str, Any]) -> ZoneView:
    """Every create rule inside the caller's transaction (shared by create and import); the
    new zone's view (it has no shares yet, and its attributes and masters are the given ones).

    The rules read everything they look at first, in one statement (``storage/zone_create``),
    and apply in Designate's order: quota, name, TTL, ownership, pool, duplicate.
    """
    facts = await create_store.read_facts(session, ctx.project_id, values["name"],
                                          quotas.caps(svc))
    pool_id, pool_name = _pool_of(svc, ctx, values, facts)
    await require_pool_key(svc, session, pool_id, pool_name)
    new = _new_rows(svc, ctx, values, facts, pool_id)
    await create_store.insert_zone(session, new.row, new.attributes, new.masters, *new.managed)
    await _adopt_descendants(session, new.zone, facts.related)
    return ZoneView.of(new.zone, new.attributes, new.masters, False)


async def _create_alone(svc: Services, ctx: RequestContext,
                        values: dict[str, Any]) -> ZoneView | None:
    """``insert_zone`` without a transaction (PostgreSQL): the facts read, the same rules,
    the rows written by one statement that is its own transaction. None, with nothing
    written, when the create needs more than that (a pool other than the default one, whose
    key is read; zones below it to adopt; more rows than one statement takes): the caller
    then runs it in a transaction.

    The same create: in a READ COMMITTED transaction each statement sees the latest commit
    too, and nothing here is locked, so the transaction added only its BEGIN and COMMIT
    round trips (a zone POST: two instead of four)."""
    facts = await create_store.read_facts_alone(svc.db, ctx.project_id, values["name"],
                                                quotas.caps(svc))
    pool_id, _ = _pool_of(svc, ctx, values, facts)
    if pool_id != svc.conf["service:central"].default_pool_id:
        return None
    new = _new_rows(svc, ctx, values, facts, pool_id)
    if _below(new.zone, facts.related) or not await create_store.insert_zone_alone(
            svc.db, new.row, new.attributes, new.masters, *new.managed):
        return None
    return ZoneView.of(new.zone, new.attributes, new.masters, False)


def _pool_of(svc: Services, ctx: RequestContext, values: dict[str, Any],
             facts: create_store.CreateFacts) -> tuple[str, str]:
    """The create's rules up to its pool (quota, name, TTL, ownership), then the pool
    chosen: its id and name."""
    name = values["name"]
    quotas.check(quotas.overlaid(svc, facts.quota_overrides), zones=facts.zones_of_project + 1)
    _check_name(svc, ctx, name, facts.tlds, facts.blacklists)
    _check_ttl(svc, ctx, _ttl_of(svc, values))
    _check_ownership(ctx, name, facts.related)
    pool_id = choose_pool(svc, ctx, dict(values.get("attributes") or {}), facts.pools)
    if pool_id not in facts.pools.names:
        raise errors.NoValidPoolFound("There are no pools that matched your request")
    return pool_id, facts.pools.names[pool_id]


@dataclass(frozen=True)
class _NewZone:
    """What a create writes: the zone's row and frozen copy, its attributes and masters, and
    its managed recordsets and records (SOA and NS)."""

    row: dict
    zone: Any
    attributes: dict[str, str]
    masters: list[tuple[str, int]]
    managed: tuple[list[dict], list[dict]]


def _new_rows(svc: Services, ctx: RequestContext, values: dict[str, Any],
              facts: create_store.CreateFacts, pool_id: str) -> _NewZone:
    """The create's rules after its pool (the pool's nameservers, duplicate), then its rows."""
    name = values["name"]
    zone_type = values.get("type") or "PRIMARY"
    ns_hostnames = facts.pools.ns_hostnames.get(pool_id)
    if not ns_hostnames:
        raise errors.NoServersConfigured()
    same_pool = [z for z in facts.related if z.pool_id == pool_id]
    if any(names.same(z.name, name) for z in same_pool):
        raise errors.DuplicateZone("Duplicate Zone")
    row = _new_zone(svc, ctx, values, zone_type, _ttl_of(svc, values), pool_id)
    ancestors = [z for z in same_pool if names.is_below(name, z.name)]
    if ancestors:
        row["parent_zone_id"] = max(ancestors, key=lambda z: len(z.name)).id
    masters = _parse_masters(values["masters"]) if zone_type == "SECONDARY" else []
    row, zone = create_store.new_zone(row)
    return _NewZone(row, zone, dict(values.get("attributes") or {}), masters,
                    records.managed_rows(zone, ns_hostnames))


def _ttl_of(svc: Services, values: dict[str, Any]) -> int:
    ttl = values.get("ttl")
    return svc.conf.default_ttl if ttl is None else ttl


def _below(zone: Any, related: list[create_store.RelatedZone]) -> list[create_store.RelatedZone]:
    """The zones of the pool below the new zone (``_adopt_descendants`` looks at them)."""
    return [z for z in related if z.pool_id == zone.pool_id and names.is_below(z.name, zone.name)]


async def _adopt_descendants(session: AsyncSession, zone: Any,
                             related: list[create_store.RelatedZone]) -> None:
    """Zones of the pool below the new zone whose nearest ancestor it now is hang on it.

    Their current parents are related by name to the new zone, so were read with its facts;
    one that was not (no longer live) is looked up."""
    below = _below(zone, related)
    if not below:
        return
    known = {z.id: z.name for z in related}
    missing = sorted({z.parent_zone_id for z in below if z.parent_zone_id} - known.keys())
    known.update(await create_store.names_of(session, missing))
    await create_store.adopt(session, zone.id, [
        z.id for z in below
        if z.parent_zone_id not in known or len(known[z.parent_zone_id]) < len(zone.name)])


def _new_zone(svc: Services, ctx: RequestContext, values: dict[str, Any], zone_type: str,
              ttl: int, pool_id: str) -> dict[str, Any]:
    """The new zone's columns: the caller's values, the rest from configuration."""
    conf = svc.conf
    zone_id = new_id()
    secondary = zone_type == "SECONDARY"
    email = conf["service:central"].managed_resource_email if secondary else values["email"]
    return dict(
        id=zone_id, shard=int(zone_id[:3], 16), tenant_id=ctx.project_id, name=values["name"],
        email=email, ttl=ttl, description=values.get("description"), type=zone_type,
        refresh=values.get("refresh") or random.randint(conf.default_soa_refresh_min,
                                                        conf.default_soa_refresh_max),
        retry=values.get("retry") or conf.default_soa_retry,
        expire=values.get("expire") or conf.default_soa_expire,
        minimum=conf.default_soa_minimum,
        serial=1 if secondary else values.get("serial") or int(time.time()),
        status="PENDING", action="CREATE", pool_id=pool_id, reverse_name=values["name"][::-1],
        change_seq=1, version=1, deleted=zone_store.LIVE, pending_since=utcnow(),
    )


def _check_name(svc: Services, ctx: RequestContext, name: str, tlds: list[str],
                blacklists: list[str]) -> None:
    if len(name) > svc.conf["service:central"].max_zone_name_len:
        raise errors.InvalidZoneName("Name too long")
    labels = name.rstrip(".").split(".")
    if len(labels) < 2:
        raise errors.InvalidZoneName("More than one label is required")
    folded_tlds = {names.key(t) for t in tlds}
    if folded_tlds:
        # Case-insensitive (Designate's suffix test is not: it refuses ``x.COM.`` under ``com``).
        folded = names.key(name.rstrip(".")).split(".")
        if not any(".".join(folded[i:]) in folded_tlds for i in range(len(folded))):
            raise errors.InvalidZoneName("Invalid TLD")
        if ".".join(folded) in folded_tlds:
            raise errors.InvalidZoneName("Zone name cannot be the same as a TLD")
    if not svc.policy.allows("use_blacklisted_zone", ctx):
        for pattern in blacklists:
            if _blacklisted(pattern, name):
                raise errors.InvalidZoneName("Blacklisted zone name")


def _blacklisted(pattern: str, name: str) -> bool:
    """The name matches the blacklist pattern, without regard to case.

    Designate runs ``re.search`` as is, so ``^evil\\.com\\.$`` lets ``EVIL.com.`` through:
    a blacklist exists to keep a name out, and ``EVIL.com.`` is that name in DNS.
    """
    try:
        return re.search(pattern, name, re.IGNORECASE) is not None
    except re.error:
        return False


def _check_ttl(svc: Services, ctx: RequestContext, ttl: int) -> None:
    min_ttl = svc.conf["service:central"].min_ttl
    if min_ttl and ttl < min_ttl and not svc.policy.allows("use_low_ttl", ctx):
        raise errors.InvalidTTL(f"TTL is below the minimum: {min_ttl}")


def _check_ownership(ctx: RequestContext, name: str,
                     related: list[create_store.RelatedZone]) -> None:
    others = [z for z in related if z.tenant_id != ctx.project_id]
    if any(names.same(z.name, name) for z in others):
        raise errors.DuplicateZone("Zone already exists, owned by a different tenant")
    ancestors = [z for z in related if names.is_below(name, z.name)]
    if ancestors:
        nearest = max(ancestors, key=lambda z: len(z.name))
        if nearest.tenant_id != ctx.project_id:
            raise errors.IllegalChildZone("Unable to create subzone in another tenants zone")
    if any(names.is_below(z.name, name) for z in others):
        raise errors.IllegalParentZone(
            "Unable to create zone because another tenant owns a subzone of the zone")


def _parse_masters(masters: list) -> list[tuple[str, int]]:
    """(host, port) pairs: the API has already split them by Designate's rules."""
    return master_rules.parse(masters)


# --- read --------------------------------------------------------------------------------------
async def get_zone(svc: Services, ctx: RequestContext, zone_id: str) -> ZoneView:
    found = await zone_store.get_visible(svc.db, zone_id, project_id=ctx.project_id,
                                         all_tenants=ctx.all_tenants)
    if found is None:
        raise errors.ZoneNotFound("Could not find Zone")
    zone, shared, attrs, masters = found
    shared_with_caller = zone.tenant_id != ctx.project_id
    svc.policy.check("get_zone", ctx, policy_target(zone, shared_with_caller))
    return ZoneView.of(zone, attrs, masters, shared)


async def find_zones(svc: Services, ctx: RequestContext, page: Page) -> ListResult:
    target = {"project_id": ctx.project_id}
    if ctx.all_tenants:
        target["all_tenants"] = True
    svc.policy.check("find_zones", ctx, target)
    found, total = await zone_store.find(svc.db, page, project_id=ctx.project_id,
                                         all_tenants=ctx.all_tenants, hide_catalog=not ctx.is_admin)
    return ListResult([ZoneView.of(zone, attrs, masters, shared)
                       for zone, shared, attrs, masters in found], total)


async def get_nameservers(svc: Services, ctx: RequestContext, zone_id: str) -> list[tuple[int, str]]:
    async with svc.db.read() as session:
        zone = await load_visible(session, ctx, zone_id)
        svc.policy.check("get_zone_ns_records", ctx, policy_target(zone))
        ns = (await pool_store.ns_records(session, [zone.pool_id]))[zone.pool_id]
    return [(row.priority, row.hostname) for row in ns]


# --- update ------------------------------------------------------------------------------------
@notifies("dns.zone.update", "dns.domain.update")
async def update_zone(svc: Services, ctx: RequestContext, zone_id: str,
                      values: dict[str, Any], condition: Condition | None = None) -> ZoneView:
    async def work(session: AsyncSession) -> ZoneView:
        zone = await load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("update_zone", ctx, policy_target(zone))
        conditions.check(condition, zone_etag(zone))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        if "ttl" in values and values["ttl"] is not None:
            _check_ttl(svc, ctx, values["ttl"])
            if values["ttl"] != zone.ttl:
                # every recordset without a TTL of its own is served at the new one, and no
                # record row says so: the next IXFR step compares the whole zone
                zone.whole_step = True
        for key in ("email", "ttl", "description", "pool_id"):
            if key in values and (values[key] is not None or key == "description"):
                setattr(zone, key, values[key])
        if "attributes" in values and values["attributes"] is not None:
            await zone_store.replace_attributes(session, zone.id, values["attributes"])
        if "masters" in values and values["masters"] is not None and zone.type == "SECONDARY":
            await zone_store.replace_masters(session, zone.id, _parse_masters(values["masters"]))
        zone.updated_at = utcnow()
        mark_pending(zone, "UPDATE", bump_serial=True)
        return await view(session, zone)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


# --- delete ------------------------------------------------------------------------------------
async def require_pool_key(svc: Services, session: AsyncSession, pool_id: str,
                           pool_name: str) -> None:
    """A zone outside the default pool is only served by mdns to TSIG queries signed with a
    POOL-scoped key of its pool (unsigned queries see the default pool): without one, that
    pool's nameservers could never transfer the zone, so it is refused up front."""
    if pool_id == svc.conf["service:central"].default_pool_id:
        return
    if not await pool_store.has_pool_tsigkey(session, pool_id):
        raise errors.BadRequest(
            f"Zones in pool {pool_name} ({pool_id}) need a TSIG key with scope POOL and "
            f"resource_id {pool_id}: its nameservers transfer them from mdns with that key")


async def load_deletable(session: AsyncSession, svc: Services, ctx: RequestContext,
                         zone_id: str, rule: str) -> Zone:
    """The zone, locked, once every rule of delete and abandon allows it (shares removed with
    ``X-Designate-Delete-Shares``)."""
    zone = await load_visible(session, ctx, zone_id, for_update=True)
    svc.policy.check(rule, ctx, policy_target(zone))
    if zone.type == "CATALOG":
        raise errors.Forbidden(CATALOG_FORBIDDEN)
    shared = await zone_store.shared_ids(session, [zone.id])
    if shared and not ctx.delete_shares:
        raise errors.ZoneShared(
            "This zone is shared with other projects, please remove these shares before "
            "deletion or use the delete-shares modifier to override this warning.")
    if await zone_store.children(session, zone.id):
        raise errors.ZoneHasSubZone("Please delete any subzones before deleting this zone")
    if shared:
        await zone_store.delete_shares(session, zone.id)
    return zone


@notifies("dns.zone.delete", "dns.domain.delete")
async def delete_zone(svc: Services, ctx: RequestContext, zone_id: str,
                      condition: Condition | None = None) -> ZoneView:
    async def work(session: AsyncSession) -> ZoneView:
        # The answer shows the zone as it was asked for: still shared when the
        # delete-shares modifier removed its shares (Designate's answer does too).
        was_shared = bool(await zone_store.shared_ids(session, [zone_id]))
        zone = await load_deletable(session, svc, ctx, zone_id, "delete_zone")
        conditions.check(condition, zone_etag(zone))
        zone.hard_delete = ctx.hard_delete
        zone.updated_at = utcnow()
        mark_pending(zone, "DELETE", bump_serial=False)
        zone.action = "DELETE"
        return await view(session, zone, was_shared)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


async def announce_status(db: Database, notifier: Notifier | None, zone_id: str) -> None:
    """``dns.zone.update`` + ``dns.domain.update`` after the worker changed a zone's status.

    Designate's ``update_status`` sends these when a push ends (ACTIVE, ERROR, or DELETED once a
    delete is done), so consumers see the zone settle, not only the API call that started it.
    """
    if notifier is None or not notifier.enabled:
        return
    async with db.read() as session:
        zone = await zone_store.by_id(session, zone_id)
        result = await view(session, zone) if zone is not None else None
    notifier.emit(result, "dns.zone.update", "dns.domain.update")
