"""Zone exports: a task row whose file is rendered on every download.

As in Designate with ``[service:worker] export_synchronous`` (the default), an export only
records that the zone may be downloaded (``location = designate://...``); the text itself is
rendered from storage at each ``GET .../export``, so it always shows the current records.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import quotas, zone_tasks, zonefile
from openkeel_designate.central.notifications import emit, notifies
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ZoneTaskView
from openkeel_designate.central.zones import load_visible, policy_target
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.models import ZoneTask

LOCATION_PREFIX = "designate://"


def location(task_id: str) -> str:
    return f"{LOCATION_PREFIX}v2/zones/tasks/exports/{task_id}/export"


# --- requests ----------------------------------------------------------------------------------
@notifies("dns.zone_export.create")
async def create_zone_export(svc: Services, ctx: RequestContext,
                             zone_id: str) -> ZoneTaskView:
    async def work(session: AsyncSession) -> ZoneTaskView:
        zone = await load_visible(session, ctx, zone_id)
        svc.policy.check("create_zone_export", ctx, policy_target(zone))
        if not ctx.project_id:
            raise errors.MissingProjectID("A project ID must be specified")
        limits = await quotas.effective(svc, session, ctx.project_id)
        size = await rs_store.count_in_zone(session, zone.id, limits["api_export_size"])
        quotas.check(limits, api_export_size=size)
        task = await task_store.insert(session, task_store.EXPORT, ctx.project_id,
                                       zone_id=zone.id)
        return ZoneTaskView.of(task)

    task = await svc.db.transaction(work)
    svc.start_task(task.id)
    return task


async def export_file(svc: Services, ctx: RequestContext, task_id: str) -> str:
    """The zone file of a finished export (the zone as it is now)."""
    # Designate's order: the download rule, then the export as GET .../exports/{id} reads it
    # (its rule on the caller's own project first: 403 before 404), then the zone as GET
    # /v2/zones/{id} reads it.
    svc.policy.check("zone_export", ctx, {"project_id": ctx.project_id})
    task = await zone_tasks.get(svc, ctx, zone_tasks.EXPORTS, task_id)
    if not (task.location or "").startswith(LOCATION_PREFIX):
        raise errors.BadRequest("Zone can not be exported synchronously")
    async with svc.db.read() as session:
        zone = await load_visible(session, ctx, task.zone_id or "")
        svc.policy.check("get_zone", ctx, policy_target(zone))
        return await zonefile.zone_file(session, zone)


# --- the export itself -------------------------------------------------------------------------
async def run_export(svc: Services, task_id: str) -> None:
    """Check the size again and make the export downloadable (or say why not)."""
    async def work(session: AsyncSession) -> ZoneTask | None:
        task = await task_store.lock_pending(session, task_id)
        if task is None:
            return None
        zone = await zone_store.get(session, task.zone_id or "")
        if zone is None:
            task_store.finish(task, "ERROR", "Could not find Zone")
            return task
        limits = await quotas.effective(svc, session, task.tenant_id)
        size = await rs_store.count_in_zone(session, zone.id, limits["api_export_size"])
        if 0 <= limits["api_export_size"] < size:
            task_store.finish(task, "ERROR", "Zone is too large to export")
        elif svc.conf["service:worker"].export_synchronous:
            task_store.finish(task, "COMPLETE", None, location=location(task.id))
        else:
            task_store.finish(task, "ERROR", "No suitable method for export")
        return task

    emit(svc, await svc.db.transaction(work), "dns.zone_export.update")
