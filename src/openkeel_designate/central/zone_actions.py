"""Zone tasks that act on the zone itself: abandon, xfr and pool move (lifecycle.md §5, §9, §10).

Abandon forgets a zone without telling any nameserver (the operator takes it over by hand);
pool move re-homes a zone and its apex NS on another pool; xfr asks for a fresh transfer of a
SECONDARY zone from its masters.
"""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.notifications import emit, notifies
from openkeel_designate.central.scheduler import choose_pool
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ZoneView
from openkeel_designate.central.zones import (
    load_deletable,
    require_pool_key,
    load_visible,
    mark_pending,
    policy_target,
    view,
)
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.models import Zone, utcnow


# --- abandon -----------------------------------------------------------------------------------
async def abandon_zone(svc: Services, ctx: RequestContext, zone_id: str) -> bool:
    """Soft-delete at once, backends untouched; True when the zone is gone (else a 500).

    Consumers hear of it as of any delete (``dns.zone.delete``), as Designate's abandon is a
    delete that skips the nameservers.
    """
    # Designate checks the rule once with an empty target before it even looks the zone up:
    # a non-admin is refused (403) whether or not the zone exists.
    svc.policy.check("abandon_zone", ctx, {})

    async def work(session: AsyncSession) -> ZoneView | None:
        zone = await load_deletable(session, svc, ctx, zone_id, "abandon_zone")
        zone.change_seq += 1  # a push in flight must not report this zone ACTIVE again
        await flush(session)
        if not await zone_store.mark_deleted(session, zone.id, None):
            return None
        await zone_store.reload(session, zone)
        return await view(session, zone)

    gone = await svc.db.transaction(work)
    if gone is not None:
        # No backend work is queued, but mdns must stop serving the zone at once: the hook
        # makes every in-process listener forget what it remembered of it.
        svc.wake_worker()
    emit(svc, gone, "dns.zone.delete", "dns.domain.delete")
    return gone is not None


# --- xfr ---------------------------------------------------------------------------------------
async def xfr_zone(svc: Services, ctx: RequestContext, zone_id: str) -> None:
    """Only SECONDARY zones; the zone is queued for the worker to refresh from its masters."""
    async def work(session: AsyncSession) -> None:
        zone = await load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("xfr_zone", ctx, policy_target(zone))
        if zone.type != "SECONDARY":
            raise errors.BadRequest("Can't XFR a non Secondary zone.")
        if zone.action == "DELETE":
            return
        zone.updated_at = utcnow()
        mark_pending(zone, "UPDATE", bump_serial=False)

    await svc.db.transaction(work)
    svc.wake_worker()


# --- pool move ---------------------------------------------------------------------------------
@notifies("dns.zone.update", "dns.domain.update")
async def pool_move_zone(svc: Services, ctx: RequestContext, zone_id: str,
                         target_pool_id: str | None) -> ZoneView:
    """Move to ``target_pool_id`` (or the scheduler's choice); the zone is PENDING afterwards."""
    async def work(session: AsyncSession) -> ZoneView:
        zone = await load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("pool_move_zone", ctx, policy_target(zone))
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not move a deleting zone")
        target = await _target_pool(svc, session, ctx, zone, target_pool_id)
        pool = await pool_store.get(session, target)
        await require_pool_key(svc, session, pool.id, pool.name)
        ns = (await pool_store.ns_records(session, [target]))[target]
        if not ns:
            raise errors.NoServersConfigured()
        await _replace_apex_ns(session, zone, [row.hostname for row in ns])
        zone.pool_id = target
        conf = svc.conf
        zone.refresh = random.randint(conf.default_soa_refresh_min, conf.default_soa_refresh_max)
        zone.updated_at = utcnow()
        # A new serial (unlike Designate) so the new pool's nameservers transfer the zone.
        mark_pending(zone, "UPDATE", bump_serial=True)
        return await view(session, zone)

    moved = await svc.db.transaction(work)
    svc.wake_worker()
    return moved


async def _target_pool(svc: Services, session: AsyncSession, ctx: RequestContext, zone: Zone,
                       requested: str | None) -> str:
    if requested:
        if requested == zone.pool_id:
            raise errors.BadRequest("Target pool must be different for zone pool move")
        if await pool_store.get(session, requested) is None:
            raise errors.BadRequest("Target pool does not exist")
        return requested
    attributes: dict[str, Any] = (await zone_store.extras(session, [zone.id]))[0][zone.id]
    chosen = choose_pool(svc, ctx, attributes, await pool_store.placement(session))
    if chosen == zone.pool_id:
        raise errors.BadRequest("No valid pool selected")
    return chosen


async def _replace_apex_ns(session: AsyncSession, zone: Zone, hostnames: list[str]) -> None:
    """The apex NS becomes the new pool's hostnames: removed ones go, added ones come."""
    if zone.type != "PRIMARY":
        return
    recordset = await rs_store.find_one(session, zone.id, zone.name, "NS")
    if recordset is None:
        recordset = rs_store.new_recordset(zone, zone.name, "NS")
        await rs_store.insert(session, [recordset])
    current = (await rs_store.records_of(session, [recordset.id]))[recordset.id]
    await rs_store.delete_records(session, [r.id for r in current if r.data not in hostnames])
    kept = {r.data for r in current}
    rs_store.add_records(session, (
        rs_store.new_record(zone, recordset, host, managed=True, action="UPDATE")
        for host in hostnames if host not in kept))
    recordset.updated_at = utcnow()
