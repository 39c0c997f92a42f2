"""Zone files as Designate exports them (api.md §5), for ``/admin/zones/export/{id}`` and
``/v2/zones/tasks/exports/{id}/export``.

One line per record, recordsets in creation order, names absolute; a recordset without its own
TTL leaves the TTL column empty (hence two spaces before ``IN``); the file ends with an empty line.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import zones
from openkeel_designate.central.services import Services
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import zonefile as zonefile_store
from openkeel_designate.storage.models import Zone

MEDIA_TYPE = "text/dns"


def render(origin: str, ttl: int, rows: list[tuple[str, int | None, str, str]]) -> str:
    lines = [f"$ORIGIN {origin}", f"$TTL {ttl}", ""]
    lines += [f"{name} {'' if rttl is None else rttl} IN {rtype} {data}"
              for name, rttl, rtype, data in rows]
    return "\n".join(lines) + "\n\n"


async def zone_file(session: AsyncSession, zone: Zone) -> str:
    """The zone file of ``zone`` (no policy: the caller has checked it)."""
    return render(zone.name, zone.ttl, await zonefile_store.export_rows(session, zone.id))


async def export_zone(svc: Services, ctx: RequestContext, zone_id: str) -> str:
    """``zone_export`` with an empty target (admins only by default), then the visible zone."""
    svc.policy.check("zone_export", ctx, {"project_id": None, "tenant_id": None})
    async with svc.db.read() as session:
        zone = await zones.load_visible(session, ctx, zone_id)
        svc.policy.check("get_zone", ctx, zones.policy_target(zone))
        return await zone_file(session, zone)
