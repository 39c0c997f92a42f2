"""``/v2/pools`` (read; create, update and delete are deprecated but answered)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.paths import uuid_param
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.central import pools as central
from openkeel_designate.domain import fields as f
from openkeel_designate.domain.context import RequestContext

router = Routes()

_NS_RECORD = Resource(
    name="ns_record",
    writable={"priority": f.Field(f.integer(1, 10000), nullable=False),
              "hostname": f.Field(f.domain, nullable=False)},
    required=("priority", "hostname"),
)


def ns_records(name: str, value: Any) -> list[dict[str, Any]] | None:
    """A list of ``{priority, hostname}`` objects, each parsed with the adapter rules."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise f.FieldError(f"An object of type {type(value).__name__} is not a list")
    parsed = []
    for item in value:
        if not isinstance(item, dict):
            raise f.FieldError(f"'{type(item).__name__}' object has no attribute 'items'",
                               "AttributeError")
        parsed.append(_NS_RECORD.parse(item))
    return parsed


LIST = listing.ListSpec(filters=("name",), sort_keys=("created_at", "id", "updated_at", "name"))
CREATE = Resource(
    name="pool",
    writable={"name": f.Field(f.string(50), nullable=False), "description": f.Field(f.string(160)),
              "attributes": f.Field(f.string_map()), "ns_records": f.Field(ns_records),
              # Designate's adapter: project_id is immutable, not read-only — a create may
              # name the owning project (the plugin's test_create_pool sends "1").
              "project_id": f.Field(f.string(36))},
    read_only=("id", "created_at", "updated_at", "links"),
    immutable=("project_id",),
    required=("name",),
)
UPDATE = Resource(name="pool", writable=CREATE.writable, read_only=CREATE.read_only,
                  immutable=CREATE.immutable)


@router.get("/v2/pools")
async def list_pools(request: Request, ctx: RequestContext) -> Response:
    page = listing.parse(request, ctx, LIST)
    views = await central.find_pools(request.app.state.services, ctx, page)
    base = listing.base_url(request)
    items = [render.pool(v, base) for v in views]
    body = listing.envelope(request, "pools", "/v2/pools", page, items, None)
    body.pop("metadata")
    return render.json_response(body)


@router.post("/v2/pools")
async def create_pool(request: Request, ctx: RequestContext) -> Response:
    values = CREATE.parse(await read_json(request))
    view = await central.create_pool(request.app.state.services, ctx, values)
    body = render.pool(view, listing.base_url(request))
    return render.json_response(body, 201, {"Location": body["links"]["self"]})


@router.get("/v2/pools/{pool_id}")
async def get_pool(pool_id: str, request: Request,
                   ctx: RequestContext) -> Response:
    view = await central.get_pool(request.app.state.services, ctx, uuid_param("pool_id", pool_id))
    return render.json_response(render.pool(view, listing.base_url(request)))


@router.patch("/v2/pools/{pool_id}")
async def update_pool(pool_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    svc = request.app.state.services
    uuid_param("pool_id", pool_id)
    body = await read_json(request)
    base = listing.base_url(request)
    current = render.pool(await central.get_pool(svc, ctx, pool_id), base)
    values = UPDATE.parse(body, current, update=True)
    view = await central.update_pool(svc, ctx, pool_id, values)
    return render.json_response(render.pool(view, base), 202)


@router.delete("/v2/pools/{pool_id}")
async def delete_pool(pool_id: str, request: Request,
                      ctx: RequestContext) -> Response:
    await central.delete_pool(request.app.state.services, ctx, uuid_param("pool_id", pool_id))
    return Response(status_code=204)
