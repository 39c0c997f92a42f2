"""``GET /``: the version discovery document (no auth, no context)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api.listing import base_url
from openkeel_designate.api.render import json_response
from openkeel_designate.api.routing import Routes

router = Routes()

_VERSIONS = (
    ("v2", "SUPPORTED", "2022-06-29T00:00:00Z"),
    ("v2.0", "SUPPORTED", "2022-06-29T00:00:00Z"),
    ("v2.1", "SUPPORTED", "2023-01-25T00:00:00Z"),
    ("v2.2", "SUPPORTED", "2025-08-25T00:00:00Z"),
    ("v2.3", "SUPPORTED", "2026-04-06T00:00:00Z"),
    ("v2.4", "CURRENT", "2026-04-13T00:00:00Z"),
)


@router.get("/")
async def versions(request: Request) -> Response:
    root = base_url(request)
    return json_response({"versions": [
        {"id": vid, "status": status, "updated": updated,
         "links": [{"href": f"{root}/v2", "rel": "self"},
                   {"href": "https://docs.openstack.org/api-ref/dns", "rel": "help"}]}
        for vid, status, updated in _VERSIONS
    ]})
