"""``/v2/service_statuses`` (and the ``/v2/service_status`` alias)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.central import service_statuses as central
from openkeel_designate.domain.context import RequestContext

router = Routes()

LIST = listing.ListSpec(
    filters=("hostname", "service_name", "status"),
    sort_keys=("created_at", "id", "updated_at", "hostname", "service_name", "status"),
    upper_case=(),
)


async def _list(collection: str, request: Request, ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    rows = await central.find(request.app.state.services, ctx, page)
    base = listing.base_url(request)
    items = [render.service_status(r, base, collection) for r in rows]
    body = listing.envelope(request, "service_statuses", f"/v2/{collection}", page, items, None)
    body.pop("metadata")
    if collection != "service_statuses":
        # Designate cuts the self link after the collection name, absent from the alias path.
        body["links"]["self"] = listing.base_url(request)
    return render.json_response(body)


async def _get(collection: str, status_id: str, request: Request,
               ctx: RequestContext) -> Response:
    row = await central.get(request.app.state.services, ctx, uuid_param("service_id", status_id))
    return render.json_response(render.service_status(row, listing.base_url(request), collection))


@router.get("/v2/service_statuses")
async def list_statuses(request: Request, ctx: RequestContext) -> Response:
    return await _list("service_statuses", request, ctx)


@router.get("/v2/service_status")
async def list_statuses_alias(request: Request,
                              ctx: RequestContext) -> Response:
    return await _list("service_status", request, ctx)


@router.get("/v2/service_statuses/{status_id}")
async def get_status(status_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    return await _get("service_statuses", status_id, request, ctx)


@router.get("/v2/service_status/{status_id}")
async def get_status_alias(status_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    return await _get("service_status", status_id, request, ctx)
