"""``/v2/limits`` and ``/v2/quotas`` (read, set per resource, reset)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.context import verify_project
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas.admin import quota_values
from openkeel_designate.central import limits as central
from openkeel_designate.domain.context import RequestContext

router = Routes()


@router.get("/v2/limits")
async def get_limits(request: Request, ctx: RequestContext) -> Response:
    return render.json_response(await central.get_limits(request.app.state.services, ctx))


@router.get("/v2/quotas")
async def get_own_quotas(request: Request,
                         ctx: RequestContext) -> Response:
    return render.json_response(await central.get_quotas(request.app.state.services, ctx, None))


@router.get("/v2/quotas/{project_id}")
async def get_quotas(project_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    return render.json_response(
        await central.get_quotas(request.app.state.services, ctx, project_id))


@router.patch("/v2/quotas/{project_id}")
async def set_quotas(project_id: str, request: Request,
                     ctx: RequestContext) -> Response:
    body = await read_json(request)
    if request.app.state.services.conf["service:api"].quotas_verify_project_id:
        await verify_project(request, ctx, project_id)
    values = quota_values(body)
    return render.json_response(
        await central.set_quotas(request.app.state.services, ctx, project_id, values))


@router.delete("/v2/quotas/{project_id}")
async def reset_quotas(project_id: str, request: Request,
                       ctx: RequestContext) -> Response:
    await central.reset_quotas(request.app.state.services, ctx, project_id)
    return Response(status_code=204)
