"""``/v2/zones/{zone_id}/tasks/{abandon,xfr,pool_move}``: answers with empty bodies.

Designate answers abandon with 204, pool_move with 202 and an empty body, xfr with 202 and the
JSON string ``""``; when the
zone is not in the state the call should have left it in, it answers an empty 500 (kept).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import zone as zone_schema
from openkeel_designate.central import zone_actions as central
from openkeel_designate.central import zones as central_zones
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

router = Routes()


@router.post("/v2/zones/{zone_id}/tasks/abandon")
async def abandon(zone_id: str, request: Request,
                  ctx: RequestContext) -> Response:
    gone = await central.abandon_zone(request.app.state.services, ctx,
                                      uuid_param("zone_id", zone_id))
    return Response(status_code=204 if gone else 500)


@router.get("/v2/zones/{zone_id}/tasks/abandon")
async def abandon_get(zone_id: str) -> Response:
    raise errors.MethodNotAllowed()


@router.post("/v2/zones/{zone_id}/tasks/xfr")
async def xfr(zone_id: str, request: Request,
              ctx: RequestContext) -> Response:
    svc = request.app.state.services
    # As Designate: the zone is read first (its get_zone rule: 404, or 403 for a caller who
    # may not read it), then the xfr rule and the type; the answer is the JSON string "".
    await central_zones.get_zone(svc, ctx, uuid_param("zone_id", zone_id))
    await central.xfr_zone(svc, ctx, zone_id)
    return render.json_response("", 202)


@router.post("/v2/zones/{zone_id}/tasks/pool_move")
async def pool_move(zone_id: str, request: Request,
                    ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    svc = request.app.state.services
    body = await read_json(request)
    current = render.zone(await central_zones.get_zone(svc, ctx, zone_id),
                          listing.base_url(request))
    values = zone_schema.UPDATE.parse(body, current, update=True)
    moved = await central.pool_move_zone(svc, ctx, zone_id, values.get("pool_id"))
    return Response(b"", 202 if moved.zone.status == "PENDING" else 500)
