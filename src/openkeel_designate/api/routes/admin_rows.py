"""One router shape for ``/v2/tlds``, ``/v2/tsigkeys`` and ``/v2/blacklists``.

The three collections behave alike in Designate: list without ``metadata``, 201 + Location on
create, PATCH parsed against the current object (read-only keys allowed when unchanged),
204 on delete.  Each resource module states what differs (schemas, renderer, extra checks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.central import crud
from openkeel_designate.domain.context import RequestContext


@dataclass(frozen=True)
class RowApi:
    collection: str                          # "tlds"
    param: str                               # "tld_id" (named in invalid_uuid messages)
    kind: crud.Kind
    create: Resource
    update: Resource
    render: Callable[[Any, str], dict[str, Any]]
    spec: listing.ListSpec
    # (request, values, is_update) -> check run in the write transaction, or None
    checks: Callable[[Request, dict[str, Any], bool], crud.Check | None] = \
        lambda request, values, is_update: None


def build(api: RowApi) -> Routes:
    router = Routes()
    path = f"/v2/{api.collection}"

    @router.get(path)
    async def list_rows(request: Request, ctx: RequestContext) -> Response:
        page = listing.parse(request, ctx, api.spec)
        rows = await crud.find(request.app.state.services, ctx, api.kind, page)
        base = listing.base_url(request)
        body = listing.envelope(request, api.collection, path, page,
                                [api.render(r, base) for r in rows], None)
        body.pop("metadata")
        return render.json_response(body)

    @router.post(path)
    async def create_row(request: Request,
                         ctx: RequestContext) -> Response:
        values = api.create.parse(await read_json(request))
        check = api.checks(request, values, False)
        row = await crud.create(request.app.state.services, ctx, api.kind, values, check)
        body = api.render(row, listing.base_url(request))
        return render.json_response(body, 201, {"Location": body["links"]["self"]})

    @router.get(path + "/{row_id}")
    async def get_row(row_id: str, request: Request,
                      ctx: RequestContext) -> Response:
        row = await crud.get(request.app.state.services, ctx, api.kind,
                             uuid_param(api.param, row_id))
        return render.json_response(api.render(row, listing.base_url(request)))

    @router.patch(path + "/{row_id}")
    async def update_row(row_id: str, request: Request,
                         ctx: RequestContext) -> Response:
        svc = request.app.state.services
        uuid_param(api.param, row_id)
        base = listing.base_url(request)
        body = await read_json(request)
        current = api.render(await crud.get(svc, ctx, api.kind, row_id), base)
        values = api.update.parse(body, current, update=True)
        check = api.checks(request, values, True)
        row = await crud.update(svc, ctx, api.kind, row_id, values, check)
        return render.json_response(api.render(row, base))

    @router.delete(path + "/{row_id}")
    async def delete_row(row_id: str, request: Request,
                         ctx: RequestContext) -> Response:
        await crud.delete(request.app.state.services, ctx, api.kind,
                          uuid_param(api.param, row_id))
        return Response(status_code=204)

    return router
