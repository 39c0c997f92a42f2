"""Extensions of ours under a zone: ``/propagation`` (per-nameserver status) and ``/history``
(the served changes). Both read-only, under the zone's own ``get_zone`` rule."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.central import propagation as central
from openkeel_designate.domain.context import RequestContext

router = Routes()


@router.get("/v2/zones/{zone_id}/propagation")
async def show_propagation(zone_id: str, request: Request,
                           ctx: RequestContext) -> Response:
    body = await central.show(request.app.state.services, ctx, uuid_param("zone_id", zone_id))
    body["links"] = {"self": f"{listing.base_url(request)}/v2/zones/{zone_id}/propagation",
                     "zone": f"{listing.base_url(request)}/v2/zones/{zone_id}"}
    return render.json_response(body)


@router.get("/v2/zones/{zone_id}/history")
async def show_history(zone_id: str, request: Request,
                       ctx: RequestContext) -> Response:
    body = await central.history(request.app.state.services, ctx,
                                 uuid_param("zone_id", zone_id))
    body["links"] = {"self": f"{listing.base_url(request)}/v2/zones/{zone_id}/history",
                     "zone": f"{listing.base_url(request)}/v2/zones/{zone_id}"}
    return render.json_response(body)
