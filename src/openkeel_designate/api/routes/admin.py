"""``/admin``: Designate's admin API extensions — quotas, reports and zone export.

The whole prefix is off unless ``[service:api] enable_api_admin`` (the edge middleware answers
an empty 404); each extension also has to be listed in ``enabled_extensions_admin``, otherwise
its paths are unknown routes.  Links point at ``api_base_uri`` + ``/v2/...`` as Designate's admin
views build them.  There is no validation middleware here, so structured errors are shown raw.
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import negotiation, render, render_admin
from openkeel_designate.api.body import read_json
from openkeel_designate.api.context import remaining_query, truthy
from openkeel_designate.api.errors import error_body, request_id
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Guard, Routes
from openkeel_designate.api.schemas.admin import admin_quota_values
from openkeel_designate.central import limits, reports, zonefile
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

router = Routes()


def _extension(name: str) -> Guard:
    def enabled(request: Request) -> None:
        api = request.app.state.services.conf["service:api"]
        if name not in [e.strip() for e in api.enabled_extensions_admin]:
            raise StarletteHTTPException(404)
    return enabled


def _all_tenants(svc: Services, ctx: RequestContext) -> RequestContext:
    """Admin quota calls act across projects, as Designate's controller sets all_tenants."""
    ctx.all_tenants = True
    svc.policy.check("all_tenants", ctx)
    return ctx


def _admin_base(request: Request) -> str:
    return request.app.state.services.conf["service:api"].api_base_uri.rstrip("/")


# --- quotas ------------------------------------------------------------------------------------
@router.get("/admin/quotas/{tenant_id}", guard=_extension("quotas"))
async def get_quotas(tenant_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    svc = request.app.state.services
    values = await limits.get_quotas(svc, _all_tenants(svc, ctx), tenant_id)
    return render.json_response(render_admin.admin_quota(values))


@router.patch("/admin/quotas/{tenant_id}", guard=_extension("quotas"))
async def set_quotas(tenant_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    svc = request.app.state.services
    ctx = _all_tenants(svc, ctx)  # the admin rule first: a non-admin gets 403 whatever the body
    try:
        values = admin_quota_values(await read_json(request))
    except errors.InvalidObject as exc:
        if exc.errors is None:
            raise
        return render.json_response(error_body(400, exc.type, exc.message, exc.errors,
                                               request_id(request)), 400)
    result = await limits.set_quotas(svc, ctx, tenant_id, values)
    return render.json_response(render_admin.admin_quota(result))


@router.delete("/admin/quotas/{tenant_id}", guard=_extension("quotas"))
async def reset_quotas(tenant_id: str, request: Request,
                       ctx: RequestContext) -> Response:
    svc = request.app.state.services
    await limits.reset_quotas(svc, _all_tenants(svc, ctx), tenant_id)
    return Response(status_code=204)


# --- reports -----------------------------------------------------------------------------------
@router.get("/admin/reports/counts", guard=_extension("reports"))
async def all_counts(request: Request, ctx: RequestContext) -> Response:
    counts = await reports.counts(request.app.state.services, ctx,
                                  ("zones", "records", "tenants"))
    return render.json_response({"counts": [counts]})


@router.get("/admin/reports/counts/{name}", guard=_extension("reports"))
async def one_count(name: str, request: Request,
                    ctx: RequestContext) -> Response:
    counts = await reports.counts(request.app.state.services, ctx, (name,))
    return render.json_response({"counts": [counts]})


@router.get("/admin/reports/tenants", guard=_extension("reports"))
async def list_tenants(request: Request, ctx: RequestContext) -> Response:
    api = request.app.state.services.conf["service:api"]
    limit = _admin_limit(request.query_params.get("limit"), api.default_limit_admin,
                         api.max_limit_admin)
    detail = truthy(request.query_params.get("detail"))
    tenants = await reports.find_tenants(request.app.state.services, ctx, detail)
    base = _admin_base(request)
    items = [render_admin.tenant(t, base, detail) for t in tenants]
    collection = f"{base}/v2/reports/tenants"
    query = remaining_query(request)
    links = {"self": collection + (f"?{urlencode(query)}" if query else "")}
    if items and len(items) == limit:
        next_query = [(k, v) for k, v in query if k != "marker"] + [("marker", items[-1]["id"])]
        links["next"] = f"{collection}?{urlencode(next_query)}"
    return render.json_response({"links": links, "metadata": {}, "tenants": items})


@router.get("/admin/reports/tenants/{tenant_id}", guard=_extension("reports"))
async def get_tenant(tenant_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    tenant = await reports.get_tenant(request.app.state.services, ctx, tenant_id)
    return render.json_response(render_admin.tenant(tenant, _admin_base(request), True))


def _admin_limit(raw: str | None, default: int, maximum: int) -> int:
    if raw is None:
        return default
    if raw.lower() == "max":
        return maximum
    try:
        return int(raw)
    except ValueError as exc:
        raise errors.ValueErrorBadRequest("'limit' should be an integer or 'max'") from exc


# --- zones -------------------------------------------------------------------------------------
@router.get("/admin/zones/export/{zone_id}", guard=_extension("zones"))
async def export_zone(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    accept = request.headers.get("accept")
    if not negotiation.zone_file_acceptable(accept):
        return negotiation.not_acceptable(accept)  # before any lookup, as pecan
    text = await zonefile.export_zone(request.app.state.services, ctx,
                                      uuid_param("zone_id", zone_id))
    return Response(text.encode(), 200, headers={"content-type": zonefile.MEDIA_TYPE})
