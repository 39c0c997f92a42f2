"""``/v2/limits`` and ``/v2/quotas`` (read)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from openkeel_designate.api import render
from openkeel_designate.api.context import build_context
from openkeel_designate.central import limits as central
from openkeel_designate.domain.context import RequestContext

router = APIRouter()


@router.get("/v2/limits")
async def get_limits(request: Request, ctx: RequestContext = Depends(build_context)) -> Response:
    return render.json_response(await central.get_limits(request.app.state.services, ctx))


@router.get("/v2/quotas")
async def get_own_quotas(request: Request,
                         ctx: RequestContext = Depends(build_context)) -> Response:
    return render.json_response(await central.get_quotas(request.app.state.services, ctx, None))


@router.get("/v2/quotas/{project_id}")
async def get_quotas(project_id: str, request: Request,
                     ctx: RequestContext = Depends(build_context)) -> Response:
    return render.json_response(
        await central.get_quotas(request.app.state.services, ctx, project_id))
