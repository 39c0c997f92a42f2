"""The ``/admin/reports`` figures: counts over every project, and per-project zone summaries."""

from __future__ import annotations

from dataclasses import dataclass

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import reports as report_store

COUNTS = ("zones", "records", "tenants", "zones_delayed_notify")
_RULES = {"zones": "count_zones", "records": "count_records", "tenants": "count_tenants",
          "zones_delayed_notify": "count_zones_pending_notify"}
_QUERIES = {"zones": report_store.count_zones, "records": report_store.count_records,
            "tenants": report_store.count_tenants,
            "zones_delayed_notify": report_store.count_zones_delayed_notify}


@dataclass
class Tenant:
    id: str
    zone_count: int
    zones: list[str] | None = None


async def counts(svc: Services, ctx: RequestContext, names: tuple[str, ...]) -> dict[str, int]:
    """``names`` among ``COUNTS`` (404 ``report_not_found`` for any other)."""
    unknown = [n for n in names if n not in COUNTS]
    if unknown:
        raise errors.ReportNotFound()  # Designate's 404 carries no message
    for name in names:
        svc.policy.check(_RULES[name], ctx)
    async with svc.db.read() as session:
        return {name: await _QUERIES[name](session) for name in names}


async def find_tenants(svc: Services, ctx: RequestContext, detail: bool) -> list[Tenant]:
    svc.policy.check("find_tenants", ctx)
    async with svc.db.read() as session:
        tenants = [Tenant(tid, count) for tid, count in await report_store.tenants(session)]
        if detail:
            for tenant in tenants:
                tenant.zones = await report_store.tenant_zone_names(session, tenant.id)
    return tenants


async def get_tenant(svc: Services, ctx: RequestContext, project_id: str) -> Tenant:
    svc.policy.check("get_tenant", ctx)
    async with svc.db.read() as session:
        zones = await report_store.tenant_zone_names(session, project_id)
    return Tenant(project_id, len(zones), zones)
