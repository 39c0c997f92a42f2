"""Zone exports: ``POST /v2/zones/{zone_id}/tasks/export`` and ``/v2/zones/tasks/exports``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, negotiation, render
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.central import zone_exports as central
from openkeel_designate.central import zone_tasks
from openkeel_designate.central.views import ZoneTaskView
from openkeel_designate.domain.context import RequestContext

router = Routes()
COLLECTION = "/v2/zones/tasks/exports"
LIST = listing.ListSpec(filters=("status", "message", "zone_id"),
                        sort_keys=("created_at", "id", "updated_at"))


def render_export(task: ZoneTaskView, base: str) -> dict[str, Any]:
    links = {"self": f"{base}{COLLECTION}/{task.id}"}
    if (task.location or "").startswith(central.LOCATION_PREFIX):
        links["export"] = f"{base}{COLLECTION}/{task.id}/export"
    return {
        "id": task.id, "status": task.status, "message": task.message,
        "location": task.location, "zone_id": task.zone_id, "project_id": task.tenant_id,
        "created_at": render.timestamp(task.created_at),
        "updated_at": render.timestamp(task.updated_at), "version": task.version,
        "links": links,
    }


@router.post("/v2/zones/{zone_id}/tasks/export")
async def create_export(zone_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    task = await central.create_zone_export(request.app.state.services, ctx,
                                            uuid_param("zone_id", zone_id))
    body = render_export(task, listing.base_url(request))
    return render.json_response(body, 202, {"Location": body["links"]["self"]})


@router.get(COLLECTION)
async def list_exports(request: Request, ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    result = await zone_tasks.find(request.app.state.services, ctx, zone_tasks.EXPORTS, page)
    base = listing.base_url(request)
    items = [render_export(t, base) for t in result.items]
    return render.json_response(
        listing.envelope(request, "exports", COLLECTION, page, items, result.total))


@router.get(COLLECTION + "/{export_id}")
async def get_export(export_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    task = await zone_tasks.get(request.app.state.services, ctx, zone_tasks.EXPORTS,
                                uuid_param("zone_export_id", export_id))
    return render.json_response(render_export(task, listing.base_url(request)))


@router.delete(COLLECTION + "/{export_id}")
async def delete_export(export_id: str, request: Request,
                        ctx: RequestContext) -> Response:
    await zone_tasks.delete(request.app.state.services, ctx, zone_tasks.EXPORTS,
                            uuid_param("zone_export_id", export_id))
    return Response(status_code=204)


@router.get(COLLECTION + "/{export_id}/export")
async def download(export_id: str, request: Request,
                   ctx: RequestContext) -> Response:
    accept = request.headers.get("accept")
    if not negotiation.zone_file_acceptable(accept):
        return negotiation.not_acceptable(accept)  # before any lookup, as pecan
    text = await central.export_file(request.app.state.services, ctx,
                                     uuid_param("zone_export_id", export_id))
    return Response(text, 200, media_type="text/dns")
