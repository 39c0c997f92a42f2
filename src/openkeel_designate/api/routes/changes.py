"""``/v2/zones/{zone_id}/changes`` (extension): a batch of recordset changes, then its status."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json_value
from openkeel_designate.api.context import build_context
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.schemas import changes as change_schema
from openkeel_designate.central import changes as central
from openkeel_designate.central.changes import ChangeBatchView
from openkeel_designate.domain.context import RequestContext

router = APIRouter()


def _body(view: ChangeBatchView, base: str) -> dict[str, Any]:
    return {
        "id": view.id, "zone_id": view.zone_id, "status": view.status, "changes": view.changes,
        "created_at": render.timestamp(view.created_at), "message": view.message,
        "links": {"self": f"{base}/v2/zones/{view.zone_id}/changes/{view.id}"},
    }


@router.post("/v2/zones/{zone_id}/changes")
async def apply_changes(zone_id: str, request: Request,
                        ctx: RequestContext = Depends(build_context)) -> Response:
    uuid_param("zone_id", zone_id)
    changes = change_schema.parse(await read_json_value(request))
    view = await central.apply_changes(request.app.state.services, ctx, zone_id, changes)
    body = _body(view, listing.base_url(request))
    return render.json_response(body, 202, {"Location": body["links"]["self"]})


@router.get("/v2/zones/{zone_id}/changes/{change_id}")
async def get_change(zone_id: str, change_id: str, request: Request,
                     ctx: RequestContext = Depends(build_context)) -> Response:
    uuid_param("zone_id", zone_id)
    uuid_param("change_id", change_id)
    view = await central.get_change(request.app.state.services, ctx, zone_id, change_id)
    return render.json_response(_body(view, listing.base_url(request)), 200)
