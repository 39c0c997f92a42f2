"""``/v2/zones/{zone_id}/shares`` (API v2.1 shared zones).

As in Designate, ``target_project_id`` is checked with Keystone before the body is parsed: a
project Keystone says does not exist is refused (400 ``invalid_project``).  With ``noauth``
there is no Keystone to ask and any project id is accepted.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.context import verify_project
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import share as schema
from openkeel_designate.central import shares as central
from openkeel_designate.domain.context import RequestContext

router = Routes()

LIST = listing.ListSpec(filters=("target_project_id",), sort_keys=("created_at", "updated_at"),
                        upper_case=())


def render_share(share: Any, base: str) -> dict[str, Any]:
    zone = f"{base}/v2/zones/{share.zone_id}"
    return {
        "id": share.id, "zone_id": share.zone_id, "project_id": share.project_id,
        "target_project_id": share.target_project_id,
        "created_at": render.timestamp(share.created_at),
        "updated_at": render.timestamp(share.updated_at),
        "links": {"self": f"{zone}/shares/{share.id}", "zone": zone},
    }


@router.get("/v2/zones/{zone_id}/shares")
async def list_shares(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    page = listing.parse(request, ctx, LIST)
    rows = await central.find_shares(request.app.state.services, ctx, zone_id, page)
    base = listing.base_url(request)
    items = [render_share(row, base) for row in rows]
    last_id = items[-1]["id"] if items else None
    return render.json_response({
        "shared_zones": items,
        "links": listing.links(request, f"/v2/zones/{zone_id}/shares", page, last_id,
                               len(items))})


@router.post("/v2/zones/{zone_id}/shares")
async def share_zone(zone_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    body = await read_json(request)
    target = body.get("target_project_id") if isinstance(body, dict) else None
    await verify_project(request, ctx, target)
    values = schema.CREATE.parse(body)
    share = await central.share_zone(request.app.state.services, ctx, zone_id, values)
    body = render_share(share, listing.base_url(request))
    return render.json_response(body, 201, {"Location": body["links"]["self"]})


@router.get("/v2/zones/{zone_id}/shares/{share_id}")
async def get_share(zone_id: str, share_id: str, request: Request,
                    ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("zone_share_id", share_id)
    share = await central.get_share(request.app.state.services, ctx, zone_id, share_id)
    return render.json_response(render_share(share, listing.base_url(request)))


@router.delete("/v2/zones/{zone_id}/shares/{share_id}")
async def unshare_zone(zone_id: str, share_id: str, request: Request,
                       ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("zone_share_id", share_id)
    await central.unshare_zone(request.app.state.services, ctx, zone_id, share_id)
    return Response(status_code=204)
