"""``/v2/zones/{zone_id}/dnssec`` (extension): a zone's DNSSEC signing, its keys and DS.

A separate resource, so the zone's own v2 body stays exactly Designate's."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json_value
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import dnssec as dnssec_schema
from openkeel_designate.central import dnssec as central
from openkeel_designate.central.dnssec import DnssecView
from openkeel_designate.domain.context import RequestContext

router = Routes()


def _body(view: DnssecView, request: Request) -> dict:
    base = listing.base_url(request)
    return {"enabled": view.enabled, "status": view.status, "algorithm": view.algorithm,
            "nsec": view.nsec, "state": view.state, "ds": view.ds,
            "keys": [{**key, "retire_at": render.timestamp(key["retire_at"])}
                     for key in view.keys],
            "links": {"self": f"{base}/v2/zones/{view.zone_id}/dnssec",
                      "zone": f"{base}/v2/zones/{view.zone_id}"}}


@router.get("/v2/zones/{zone_id}/dnssec")
async def show_dnssec(zone_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    view = await central.show(request.app.state.services, ctx, uuid_param("zone_id", zone_id))
    return render.json_response(_body(view, request))


@router.put("/v2/zones/{zone_id}/dnssec")
async def update_dnssec(zone_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    values = dnssec_schema.parse(await read_json_value(request))
    view = await central.update(request.app.state.services, ctx, zone_id, values)
    return render.json_response(_body(view, request), 202)


@router.post("/v2/zones/{zone_id}/dnssec/rollover")
async def rollover_dnssec(zone_id: str, request: Request,
                          ctx: RequestContext) -> Response:
    """Rolls the zone's ZSK (no body, or ``{"key": "ZSK"}``), starts a KSK rollover
    (``{"key": "KSK"}``) or completes it (``{"key": "KSK", "action": "complete"}``)."""
    uuid_param("zone_id", zone_id)
    body = await read_json_value(request) if (await request.body()).strip() else {}
    values = dnssec_schema.parse_rollover(body)
    view = await central.rollover(request.app.state.services, ctx, zone_id, values)
    return render.json_response(_body(view, request), 202)
