"""``/v2/zones/{zone_id}/recordsets`` and the cross-zone ``/v2/recordsets`` view."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import NotAnObject, read_json, read_json_value
from openkeel_designate.api.conditional import condition, with_etag
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import recordset as rs_schema
from openkeel_designate.central import recordsets as central
from openkeel_designate.domain.context import RequestContext

router = Routes()

_FILTERS = ("name", "type", "ttl", "data", "status", "description")
ZONE_LIST = listing.ListSpec(
    filters=_FILTERS,
    sort_keys=("created_at", "id", "updated_at", "zone_id", "tenant_id", "name", "type", "ttl",
               "records"),
    unsortable=("records",),
)
ALL_LIST = listing.ListSpec(
    filters=_FILTERS + ("zone_id",),
    sort_keys=("created_at", "updated_at", "zone_id", "tenant_id", "name", "type", "ttl"),
)


class ZoneIdFilterUnsupported(Exception):
    """Designate 23.0.0 answers ``GET /v2/recordsets?zone_id=`` with a 500; so do we."""


def _response(request: Request, view, status: int) -> Response:
    body = render.recordset(view, listing.base_url(request))
    headers = {"Location": body["links"]["self"]} if request.method == "POST" else None
    return render.json_response(body, status, with_etag(headers, view.etag))


@router.get("/v2/zones/{zone_id}/recordsets")
async def list_recordsets(zone_id: str, request: Request,
                          ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    page = listing.parse(request, ctx, ZONE_LIST)
    result = await central.find_recordsets(request.app.state.services, ctx, zone_id, page)
    base = listing.base_url(request)
    items = [render.recordset(v, base) for v in result.items]
    return render.json_response(listing.envelope(
        request, "recordsets", f"/v2/zones/{zone_id}/recordsets", page, items, result.total))


@router.post("/v2/zones/{zone_id}/recordsets")
async def create_recordset(zone_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    values = rs_schema.CREATE.parse(await read_json(request))
    view = await central.create_recordset(request.app.state.services, ctx, zone_id, values,
                                          condition(request))
    return _response(request, view, 202 if view.records else 201)


@router.get("/v2/zones/{zone_id}/recordsets/{recordset_id}")
async def get_recordset(zone_id: str, recordset_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("recordset_id", recordset_id)
    view = await central.get_recordset(request.app.state.services, ctx, zone_id, recordset_id)
    return _response(request, view, 200)


@router.put("/v2/zones/{zone_id}/recordsets/{recordset_id}")
async def update_recordset(zone_id: str, recordset_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("recordset_id", recordset_id)
    body = await read_json_value(request)
    svc = request.app.state.services
    fetched = await central.fetch_for_update(svc, ctx, zone_id, recordset_id)
    central.check_updatable(ctx, fetched.view)  # before the body is parsed, as Designate
    if not isinstance(body, dict):
        raise NotAnObject(type(body).__name__)
    current = render.recordset(fetched.view, listing.base_url(request))
    values = rs_schema.UPDATE.parse(body, current, update=True)
    view = await central.update_recordset(svc, ctx, zone_id, recordset_id, values,
                                          condition(request), fetched)
    return _response(request, view, 202 if view.status == "PENDING" else 200)


@router.delete("/v2/zones/{zone_id}/recordsets/{recordset_id}")
async def delete_recordset(zone_id: str, recordset_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("recordset_id", recordset_id)
    view = await central.delete_recordset(request.app.state.services, ctx, zone_id, recordset_id,
                                          condition(request))
    return _response(request, view, 202)


@router.get("/v2/recordsets")
async def list_all_recordsets(request: Request,
                              ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, ALL_LIST)
    if "zone_id" in page.criteria:
        raise ZoneIdFilterUnsupported()
    result = await central.find_recordsets(request.app.state.services, ctx, None, page)
    base = listing.base_url(request)
    items = [render.recordset(v, base) for v in result.items]
    return render.json_response(
        listing.envelope(request, "recordsets", "/v2/recordsets", page, items, result.total))


@router.get("/v2/recordsets/{recordset_id}")
async def locate_recordset(recordset_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    uuid_param("recordset_id", recordset_id)
    zone_id = await central.locate_recordset(request.app.state.services, ctx, recordset_id)
    location = f"{request.url.scheme}://{request.url.netloc}/v2/zones/{zone_id}/recordsets/" \
               f"{recordset_id}"
    return render.json_response({"code": 301, "title": "Moved Permanently", "description": None},
                                301, {"Location": location})
