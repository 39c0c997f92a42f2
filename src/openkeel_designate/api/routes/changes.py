"""``/v2/zones/{zone_id}/changes`` (extension): a batch of recordset changes, its status, and
the zone's changes as a list or a feed (``since_serial``); see ``central/change_feed.py``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json_value
from openkeel_designate.api.conditional import condition
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas import changes as change_schema
from openkeel_designate.central import change_feed
from openkeel_designate.central import changes as central
from openkeel_designate.central.changes import ChangeView
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

router = Routes()
LIST = listing.ListSpec(filters=("since_serial", "origin"), sort_keys=("created_at",),
                        upper_case=("origin",))


def _body(view: ChangeView, base: str) -> dict[str, Any]:
    return {
        "id": view.id, "zone_id": view.zone_id, "origin": view.origin, "status": view.status,
        "serial": view.serial, "changes": view.changes,
        "created_at": render.timestamp(view.created_at), "message": view.message,
        "links": {"self": f"{base}/v2/zones/{view.zone_id}/changes/{view.id}"},
    }


@router.post("/v2/zones/{zone_id}/changes")
async def apply_changes(zone_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    changes = change_schema.parse(await read_json_value(request))
    view = await central.apply_changes(request.app.state.services, ctx, zone_id, changes,
                                       condition(request))
    body = _body(view, listing.base_url(request))
    return render.json_response(body, 202, {"Location": body["links"]["self"]})


@router.get("/v2/zones/{zone_id}/changes")
async def list_changes(zone_id: str, request: Request,
                       ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    page = listing.parse(request, ctx, LIST)
    query = change_feed.ChangeQuery(
        limit=page.limit or 20, marker=page.marker,
        since_serial=_since_serial(page.criteria.get("since_serial")),
        origin=_origin(page.criteria.get("origin")),
        newest_first=request.query_params.get("sort_dir", "desc") == "desc")
    result = await change_feed.list_changes(request.app.state.services, ctx, zone_id, query)
    base = listing.base_url(request)
    body = listing.envelope(request, "changes", f"/v2/zones/{zone_id}/changes", page,
                            [_body(view, base) for view in result.changes], result.total)
    if query.since_serial is not None:
        body["metadata"]["complete"] = result.complete
    return render.json_response(body)


@router.get("/v2/zones/{zone_id}/changes/{change_id}")
async def get_change(zone_id: str, change_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("change_id", change_id)
    view = await change_feed.get_change(request.app.state.services, ctx, zone_id, change_id)
    return render.json_response(_body(view, listing.base_url(request)), 200)


def _since_serial(raw: str | None) -> int | None:
    if raw is None:
        return None
    digits = raw.isascii() and raw.isdigit() and len(raw) <= 10
    if not digits or int(raw) > change_feed.MAX_SERIAL:
        raise errors.BadRequest(
            f"since_serial must be an integer between 0 and {change_feed.MAX_SERIAL}")
    return int(raw)


def _origin(raw: str | None) -> str | None:
    if raw is not None and raw not in change_feed.ORIGINS:
        raise errors.BadRequest(f"origin must be one of {', '.join(change_feed.ORIGINS)}")
    return raw
