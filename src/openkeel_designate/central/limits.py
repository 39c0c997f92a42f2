"""``/v2/limits`` and ``/v2/quotas``: the caller's effective quotas and fixed limits."""

from __future__ import annotations

from openkeel_designate.central import quotas
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import quotas as quota_store


async def get_limits(svc: Services, ctx: RequestContext) -> dict[str, int]:
    async with svc.db.read() as session:
        q = await quotas.effective(svc, session, ctx.project_id)
    central = svc.conf["service:central"]
    return {
        "max_zones": q["zones"],
        "max_zone_recordsets": q["zone_recordsets"],
        "max_zone_records": q["zone_records"],
        "max_recordset_records": q["recordset_records"],
        "min_ttl": central.min_ttl,
        "max_zone_name_length": central.max_zone_name_len,
        "max_recordset_name_length": central.max_recordset_name_len,
        "max_page_limit": svc.conf["service:api"].max_limit_v2,
    }


async def get_quotas(svc: Services, ctx: RequestContext, project_id: str | None) -> dict[str, int]:
    project_id = project_id or ctx.project_id
    if project_id != ctx.project_id and not ctx.all_tenants:
        raise errors.Forbidden()
    target = {"project_id": project_id}
    if ctx.all_tenants:
        target["all_tenants"] = True
    svc.policy.check("get_quotas", ctx, target)
    async with svc.db.read() as session:
        return await quotas.effective(svc, session, project_id)


def _check_project(svc: Services, ctx: RequestContext, rule: str, project_id: str) -> None:
    """Policy first, then Designate's own rule: another project needs all_projects."""
    target: dict = {"project_id": project_id}
    if ctx.all_tenants:
        target["all_tenants"] = True
    svc.policy.check(rule, ctx, target)
    if project_id != ctx.project_id and not ctx.all_tenants:
        raise errors.Forbidden()


async def set_quotas(svc: Services, ctx: RequestContext, project_id: str,
                     values: dict[str, int]) -> dict[str, int]:
    """Store each ``resource: limit`` override, then answer the project's full quota set."""
    if not ctx.project_id and not ctx.all_tenants:
        raise errors.MissingProjectID("A project ID must be specified")
    if values:
        _check_project(svc, ctx, "set_quota", project_id)

        async def work(session) -> None:
            for resource, limit in values.items():
                await quota_store.set_limit(session, project_id, resource, limit)

        await svc.db.transaction(work)
    return await get_quotas(svc, ctx, project_id)


async def reset_quotas(svc: Services, ctx: RequestContext, project_id: str) -> None:
    """Forget the project's overrides: the configured defaults apply again.

    Policy only: unlike get/set, Designate's ``reset_quotas`` has no all-projects rule, so an
    admin resets another project's quotas without the header (tempest's cleanups rely on it).
    """
    svc.policy.check("reset_quotas", ctx, {"project_id": project_id})

    async def work(session) -> None:
        await quota_store.reset(session, project_id)

    await svc.db.transaction(work)
