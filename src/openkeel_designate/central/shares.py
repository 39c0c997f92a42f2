"""Zone shares (API v2.1): the owner lets other projects see a zone and add recordsets to it.

What a share grants is decided elsewhere: zone visibility in ``storage/zones.py`` and the
``zone_shared`` / ``recordset_project_id`` policy targets in ``central/recordsets.py``.  Here
live the share rows themselves: who may create, see and remove them, and why a share cannot be
removed while the guest project still owns recordsets or sub-zones under it.

``target_project_id`` is checked with Keystone by the API before this runs (``api/routes/shares``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.services import Services
from openkeel_designate.central.zones import CATALOG_FORBIDDEN, load_visible, policy_target
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import shares as store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import SharedZone
from openkeel_designate.storage.rows import snapshot


def _sharer(share: SharedZone) -> dict[str, Any]:
    return {"project_id": share.project_id, "tenant_id": share.project_id}


@notifies("dns.zone.share")
async def share_zone(svc: Services, ctx: RequestContext, zone_id: str,
                     values: dict[str, Any]) -> SharedZone:
    async def work(session: AsyncSession) -> SharedZone:
        zone = await load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("share_zone", ctx, policy_target(zone))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if not ctx.project_id:
            raise errors.MissingProjectID("A project ID must be specified")
        target = values.get("target_project_id")
        if target is None:
            raise errors.DesignateError()  # Designate's 500 ``unknown`` for a body without it
        if zone.tenant_id == target:
            raise errors.BadRequest("Cannot share the zone with the zone owner.")
        return snapshot(await store.add(session, zone.id, ctx.project_id, target))

    return await svc.db.transaction(work)


async def find_shares(svc: Services, ctx: RequestContext, zone_id: str,
                      page: Page) -> list[SharedZone]:
    """No zone lookup: the shares of an unknown zone are simply none (Designate answers 200)."""
    svc.policy.check("find_zone_shares", ctx)
    # Designate's criteria always hold the zone id, so this rule applies to every listing
    # without all-projects (a reader without the member role is refused, 403).
    if not ctx.all_tenants:
        project = page.criteria.get("target_project_id", ctx.project_id)
        svc.policy.check("find_project_zone_share", ctx,
                         {"project_id": project, "tenant_id": project})
    async with svc.db.read() as session:
        shares = await store.find(session, zone_id, page, project_id=ctx.project_id,
                                  all_tenants=ctx.all_tenants)
    return [snapshot(share) for share in shares]


async def _get(svc: Services, session: AsyncSession, ctx: RequestContext, zone_id: str,
               share_id: str) -> SharedZone:
    share = await store.get(session, zone_id, share_id, project_id=ctx.project_id,
                            all_tenants=ctx.all_tenants)
    if share is None:
        raise errors.SharedZoneNotFound("Could not find SharedZone")
    svc.policy.check("get_zone_share", ctx, _sharer(share))
    return share


async def get_share(svc: Services, ctx: RequestContext, zone_id: str,
                    share_id: str) -> SharedZone:
    async with svc.db.read() as session:
        return snapshot(await _get(svc, session, ctx, zone_id, share_id))


@notifies("dns.zone.unshare")
async def unshare_zone(svc: Services, ctx: RequestContext, zone_id: str,
                       share_id: str) -> SharedZone:
    async def work(session: AsyncSession) -> SharedZone:
        # The zone row lock orders this against a guest creating a recordset at the same time.
        await zone_store.get(session, zone_id, for_update=True)
        share = await _get(svc, session, ctx, zone_id, share_id)
        svc.policy.check("unshare_zone", ctx, _sharer(share))
        guest = share.target_project_id
        if await store.count_sub_zones_of(session, zone_id, guest):
            raise errors.SharedZoneHasSubZone(
                f"Please delete all subzones owned by project {guest} before unsharing this zone")
        if await store.count_recordsets_of(session, zone_id, guest):
            raise errors.SharedZoneHasRecordSets(
                f"Please delete all recordsets owned by project {guest} before unsharing this "
                "zone.")
        await store.remove(session, share.id)
        return snapshot(share)

    return await svc.db.transaction(work)
