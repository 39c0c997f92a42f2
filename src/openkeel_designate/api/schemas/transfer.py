"""Zone transfer requests and accepts on the wire: body fields and their rules."""

from __future__ import annotations

from typing import Any

from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.domain import fields as f

_REQUEST_READ_ONLY = ("id", "project_id", "key", "status", "created_at", "updated_at", "links")
_project = f.string(36)  # the stored column's width: longer ids could never match a project


def _key(name: str, value: Any) -> str:
    """The accept key is not nullable: ``null`` fails coercion, an absent key is "required"."""
    if value is None:
        raise f.FieldError(f"Field `{name}' cannot be None")
    return f.string(160)(name, value)


REQUEST_CREATE = Resource(
    name="transfer_request",
    writable={
        "target_project_id": f.Field(_project),
        "description": f.Field(f.string(160)),
        # immutable fields may be given while still empty; the zone comes from the path
        "zone_id": f.Field(f.uuid_string),
        "zone_name": f.Field(f.string(255)),
    },
    read_only=_REQUEST_READ_ONLY,
)

REQUEST_UPDATE = Resource(
    name="transfer_request",
    writable={
        "target_project_id": f.Field(_project),
        "description": f.Field(f.string(160)),
    },
    read_only=_REQUEST_READ_ONLY + ("zone_id", "zone_name"),
    immutable=("target_project_id",),
)

ACCEPT_CREATE = Resource(
    name="transfer_accept",
    writable={
        "key": f.Field(_key, nullable=False),
        "zone_transfer_request_id": f.Field(f.uuid_string),
    },
    read_only=("id", "project_id", "status", "zone_id", "created_at", "updated_at", "links"),
    required=("key",),
)
