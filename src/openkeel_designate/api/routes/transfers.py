"""``/v2/zones/{zone_id}/tasks/transfer_requests`` and ``/v2/zones/tasks/transfer_*``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import transfer as schema
from openkeel_designate.central import transfers as central
from openkeel_designate.central.transfers import AcceptView, RequestView
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

router = Routes()

REQUESTS = "/v2/zones/tasks/transfer_requests"
ACCEPTS = "/v2/zones/tasks/transfer_accepts"
LIST = listing.ListSpec(filters=("status",), sort_keys=("created_at", "id", "updated_at"))
_HIDDEN = ("project_id", "target_project_id", "key", "created_at", "updated_at")


def render_request(view: RequestView, base: str, detailed: bool | None = None) -> dict[str, Any]:
    """Callers without ``get_zone_transfer_request_detailed`` do not see ids, key and times."""
    r = view.request
    body = {
        "id": r.id, "zone_id": r.zone_id, "project_id": r.tenant_id,
        "target_project_id": r.target_tenant_id, "description": r.description, "key": r.key,
        "status": r.status, "zone_name": view.zone_name,
        "created_at": render.timestamp(r.created_at), "updated_at": render.timestamp(r.updated_at),
        "links": {"self": f"{base}{REQUESTS}/{r.id}"},
    }
    if not (view.detailed if detailed is None else detailed):
        for key in _HIDDEN:
            del body[key]
    return body


def render_accept(view: AcceptView, base: str) -> dict[str, Any]:
    a = view.accept
    return {
        "id": a.id, "zone_transfer_request_id": a.zone_transfer_request_id,
        "project_id": a.tenant_id, "key": a.key if view.show_key else None, "status": a.status,
        "zone_id": a.zone_id, "created_at": render.timestamp(a.created_at),
        "updated_at": render.timestamp(a.updated_at),
        "links": {"self": f"{base}{ACCEPTS}/{a.id}", "zone": f"{base}/v2/zones/{a.zone_id}"},
    }


async def _optional_json(request: Request) -> dict[str, Any]:
    """Creating a transfer request needs no body at all; a body present follows the rules.

    A JSON ``null`` counts as no body: Designate catches its EmptyRequestBody here (tempest's
    test_create_transfer_request_empty_body posts ``null``).
    """
    if not (await request.body()).strip():
        return {}
    try:
        return await read_json(request)
    except errors.EmptyRequestBody:
        return {}


# --- requests ----------------------------------------------------------------------------------
@router.post("/v2/zones/{zone_id}/tasks/transfer_requests")
async def create_request(zone_id: str, request: Request,
                         ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    values = schema.REQUEST_CREATE.parse(await _optional_json(request))
    view = await central.create_request(request.app.state.services, ctx, zone_id, values)
    body = render_request(view, listing.base_url(request))
    return render.json_response(body, 201, {"Location": body["links"]["self"]})


@router.get(REQUESTS)
async def list_requests(request: Request,
                        ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    views = await central.find_requests(request.app.state.services, ctx, page)
    base = listing.base_url(request)
    items = [render_request(v, base) for v in views]
    last_id = items[-1]["id"] if items else None
    return render.json_response({
        "transfer_requests": items,
        "links": listing.links(request, REQUESTS, page, last_id, len(items))})


@router.get(REQUESTS + "/{request_id}")
async def get_request(request_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    uuid_param("zone_transfer_request_id", request_id)
    view = await central.get_request(request.app.state.services, ctx, request_id)
    return render.json_response(render_request(view, listing.base_url(request)))


@router.patch(REQUESTS + "/{request_id}")
async def update_request(request_id: str, request: Request,
                         ctx: RequestContext) -> Response:
    uuid_param("zone_transfer_request_id", request_id)
    body = await read_json(request)
    svc, base = request.app.state.services, listing.base_url(request)
    current = render_request(await central.get_request(svc, ctx, request_id), base, True)
    values = schema.REQUEST_UPDATE.parse(body, current, update=True)
    view = await central.update_request(svc, ctx, request_id, values)
    return render.json_response(render_request(view, base))


@router.delete(REQUESTS + "/{request_id}")
async def delete_request(request_id: str, request: Request,
                         ctx: RequestContext) -> Response:
    uuid_param("zone_transfer_request_id", request_id)
    await central.delete_request(request.app.state.services, ctx, request_id)
    return Response(status_code=204)


# --- accepts -----------------------------------------------------------------------------------
@router.post(ACCEPTS)
async def create_accept(request: Request,
                        ctx: RequestContext) -> Response:
    values = schema.ACCEPT_CREATE.parse(await read_json(request))
    view = await central.create_accept(request.app.state.services, ctx, values)
    body = render_accept(view, listing.base_url(request))
    return render.json_response(body, 201, {"Location": body["links"]["self"]})


@router.get(ACCEPTS)
async def list_accepts(request: Request,
                       ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    result = await central.find_accepts(request.app.state.services, ctx, page)
    base = listing.base_url(request)
    items = [render_accept(v, base) for v in result.items]
    return render.json_response(
        listing.envelope(request, "transfer_accepts", ACCEPTS, page, items, result.total))


@router.get(ACCEPTS + "/{accept_id}")
async def get_accept(accept_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    uuid_param("zone_transfer_accept_id", accept_id)
    view = await central.get_accept(request.app.state.services, ctx, accept_id)
    return render.json_response(render_accept(view, listing.base_url(request)))
