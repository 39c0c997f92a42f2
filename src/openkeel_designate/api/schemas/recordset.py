"""The recordset resource on the wire: body fields and their rules."""

from __future__ import annotations

from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.domain import fields as f

_READ_ONLY = ("id", "zone_id", "project_id", "zone_name", "status", "action", "version",
              "created_at", "updated_at", "links")


def _records(name: str, value: object) -> object:
    """Kept raw: per-record validation happens later, with structured errors."""
    return value


def _record_type(name: str, value: object) -> object:
    return value


CREATE = Resource(
    name="recordset",
    writable={
        "name": f.Field(f.hostname, nullable=False),
        "type": f.Field(_record_type),
        "records": f.Field(_records),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
    },
    read_only=_READ_ONLY,
)

UPDATE = Resource(
    name="recordset",
    writable={
        "records": f.Field(_records),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
    },
    read_only=_READ_ONLY + ("name", "type"),
)
