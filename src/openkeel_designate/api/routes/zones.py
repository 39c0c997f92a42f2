"""``/v2/zones``: receive, check the wire format, hand to central, render."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.conditional import condition, with_etag
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import zone as zone_schema
from openkeel_designate.central import zones as central
from openkeel_designate.domain.context import RequestContext

router = Routes()

LIST = listing.ListSpec(
    filters=("name", "type", "email", "status", "description", "ttl"),
    sort_keys=("created_at", "id", "updated_at", "name", "tenant_id", "serial", "ttl", "status"),
    columns={"type": None},
)


def _zone_response(request: Request, view, status: int) -> Response:
    body = render.zone(view, listing.base_url(request))
    headers = {"Location": body["links"]["self"]} if status in (201, 202) and \
        request.method == "POST" else None
    return render.json_response(body, status, with_etag(headers, view.etag))


@router.get("/v2/zones")
async def list_zones(request: Request, ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    zone_type = request.query_params.get("type")
    if zone_type is not None and ctx.is_admin:
        # Designate replaces a non-admin's type filter by "not CATALOG" (so it is ignored);
        # an admin's is applied, case-insensitively as on its MariaDB.
        page.criteria["type"] = zone_type.upper()
    result = await central.find_zones(request.app.state.services, ctx, page)
    base = listing.base_url(request)
    items = [render.zone(v, base) for v in result.items]
    return render.json_response(
        listing.envelope(request, "zones", "/v2/zones", page, items, result.total))


@router.post("/v2/zones")
async def create_zone(request: Request, ctx: RequestContext) -> Response:
    body = await read_json(request)
    values = zone_schema.CREATE.parse(body)
    zone_schema.check_type_rules(values)
    view = await central.create_zone(request.app.state.services, ctx, values)
    return _zone_response(request, view, 202)


@router.get("/v2/zones/{zone_id}")
async def get_zone(zone_id: str, request: Request,
                   ctx: RequestContext) -> Response:
    view = await central.get_zone(request.app.state.services, ctx, uuid_param("zone_id", zone_id))
    return _zone_response(request, view, 200)


@router.patch("/v2/zones/{zone_id}")
async def update_zone(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    body = await read_json(request)
    current = render.zone(await central.get_zone(request.app.state.services, ctx, zone_id),
                          listing.base_url(request))
    values = zone_schema.UPDATE.parse(body, current, update=True)
    zone_schema.check_update_rules(current["type"], values)
    view = await central.update_zone(request.app.state.services, ctx, zone_id, values,
                                     condition(request))
    return _zone_response(request, view, 202 if view.zone.status == "PENDING" else 200)


@router.delete("/v2/zones/{zone_id}")
async def delete_zone(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    view = await central.delete_zone(request.app.state.services, ctx,
                                     uuid_param("zone_id", zone_id), condition(request))
    return _zone_response(request, view, 202)


@router.get("/v2/zones/{zone_id}/nameservers")
async def nameservers(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    rows = await central.get_nameservers(request.app.state.services, ctx,
                                         uuid_param("zone_id", zone_id))
    return render.json_response(
        {"nameservers": [{"hostname": host, "priority": prio} for prio, host in rows]})
