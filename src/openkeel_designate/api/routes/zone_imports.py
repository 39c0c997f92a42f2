"""``/v2/zones/tasks/imports``: zone files in, import tasks out (the zone follows shortly)."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.central import zone_imports as central
from openkeel_designate.central import zone_tasks
from openkeel_designate.central.views import ZoneTaskView
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields
from openkeel_designate.domain.context import RequestContext

router = Routes()
COLLECTION = "/v2/zones/tasks/imports"
LIST = listing.ListSpec(filters=("status", "message", "zone_id"),
                        sort_keys=("created_at", "id", "updated_at"))


def render_import(task: ZoneTaskView, base: str) -> dict[str, Any]:
    links = {"self": f"{base}{COLLECTION}/{task.id}"}
    if task.zone_id:
        links["zone"] = f"{base}/v2/zones/{task.zone_id}"
    return {
        "id": task.id, "status": task.status, "message": task.message, "zone_id": task.zone_id,
        "project_id": task.tenant_id, "created_at": render.timestamp(task.created_at),
        "updated_at": render.timestamp(task.updated_at), "version": task.version,
        "links": links,
    }


async def _read_zonefile(request: Request) -> tuple[str, dict[str, str] | None]:
    """The zone file and attributes of either accepted body form (API v2.4 added JSON)."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if media_type == "text/dns":
        try:  # refused rather than replaced: a stored record must be what the file said
            return raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            raise errors.BadRequest("The zonefile is not valid UTF-8") from exc
    if media_type != "application/json":
        raise errors.UnsupportedContentType("Content-type must be text/dns or application/json")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.BadRequest("Invalid JSON body") from exc
    if not isinstance(body, dict) or not isinstance(body.get("zonefile"), str):
        raise errors.BadRequest(
            'The "zonefile" field is required when using application/json content type')
    try:
        attributes = fields.string_map()("attributes", body.get("attributes"))
    except fields.FieldError as exc:
        raise errors.InvalidObject(
            f"Provided object is not valid. Got a ValueError error with message {exc.detail}"
        ) from exc
    return body["zonefile"], attributes


@router.post(COLLECTION)
async def create_import(request: Request,
                        ctx: RequestContext) -> Response:
    text, attributes = await _read_zonefile(request)
    task = await central.create_zone_import(request.app.state.services, ctx, text, attributes)
    body = render_import(task, listing.base_url(request))
    return render.json_response(body, 202, {"Location": body["links"]["self"]})


@router.get(COLLECTION)
async def list_imports(request: Request, ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    result = await zone_tasks.find(request.app.state.services, ctx, zone_tasks.IMPORTS, page)
    base = listing.base_url(request)
    items = [render_import(t, base) for t in result.items]
    return render.json_response(
        listing.envelope(request, "imports", COLLECTION, page, items, result.total))


@router.get(COLLECTION + "/{import_id}")
async def get_import(import_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    task = await zone_tasks.get(request.app.state.services, ctx, zone_tasks.IMPORTS,
                                uuid_param("zone_import_id", import_id))
    return render.json_response(render_import(task, listing.base_url(request)))


@router.delete(COLLECTION + "/{import_id}")
async def delete_import(import_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    await zone_tasks.delete(request.app.state.services, ctx, zone_tasks.IMPORTS,
                            uuid_param("zone_import_id", import_id))
    return Response(status_code=204)
