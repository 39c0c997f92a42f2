"""``/v2/reverse/floatingips``: PTR records of the caller's Neutron floating IPs.

Without ``[network_api:neutron] endpoints`` and without a Keystone service catalog, Designate
answers 500 ``configuration_error`` ("No service_catalog and no configured endpoints"); the
Neutron client raises exactly that.  The list has no paging and ignores unknown parameters.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api import listing, render
from openkeel_designate.api.body import read_json
from openkeel_designate.api.context import remaining_query
from openkeel_designate.api.routing import Routes
from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.central import floatingips as central
from openkeel_designate.domain import fields as f
from openkeel_designate.domain.context import RequestContext

router = Routes()
COLLECTION = "/v2/reverse/floatingips"


def _ptrdname(name: str, value: Any) -> str | None:
    """A fully qualified name, or null to unset the PTR."""
    return None if value is None else f.domain(name, value)


# Designate parses the body onto an empty floating IP: read-only keys pass only when null.
UPDATE = Resource(
    name="floatingip",
    writable={
        "ptrdname": f.Field(_ptrdname),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
    },
    read_only=("id", "address", "action", "status", "links"),
    required=("ptrdname",),
)


def _self_link(request: Request) -> str:
    """The request's own URL (flags removed); never a ``next``: Neutron's list is not paged."""
    query = remaining_query(request)
    return listing.base_url(request) + COLLECTION + (f"?{urlencode(query)}" if query else "")


@router.get(COLLECTION)
async def list_floatingips(request: Request,
                           ctx: RequestContext) -> Response:
    views = await central.list_floatingips(request.app.state.services, ctx)
    base = listing.base_url(request)
    return render.json_response({
        "floatingips": [render.floatingip(view, base) for view in views],
        "links": {"self": _self_link(request)},
    })


@router.get(COLLECTION + "/{key}")
async def get_floatingip(key: str, request: Request,
                         ctx: RequestContext) -> Response:
    region, fip_id = central.parse_key(key)
    view = await central.get_floatingip(request.app.state.services, ctx, region, fip_id)
    return render.json_response(render.floatingip(view, listing.base_url(request)))


@router.patch(COLLECTION + "/{key}")
async def set_floatingip(key: str, request: Request,
                         ctx: RequestContext) -> Response:
    region, fip_id = central.parse_key(key)
    values = UPDATE.parse(await read_json(request))
    view = await central.update_floatingip(request.app.state.services, ctx, region, fip_id,
                                           values)
    if view is None:
        return render.json_response(None, 202)
    return render.json_response(render.floatingip(view, listing.base_url(request)), 202)
