"""The zone resource on the wire: body fields and their rules."""

from __future__ import annotations

from openkeel_designate.api.schemas import fields as f
from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.domain import errors

_READ_ONLY = ("id", "pool_id", "project_id", "serial", "shared", "status", "action", "version",
              "created_at", "updated_at", "transferred_at", "links")

CREATE = Resource(
    name="zone",
    writable={
        "name": f.Field(f.domain, nullable=False),
        "email": f.Field(f.email),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
        "type": f.Field(f.enum("PRIMARY", "SECONDARY", "CATALOG")),
        "masters": f.Field(f.string_list),
        "attributes": f.Field(f.string_map()),
    },
    read_only=_READ_ONLY,
    required=("name",),
)

UPDATE = Resource(
    name="zone",
    writable={
        "email": f.Field(f.email),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
        "masters": f.Field(f.string_list),
        "attributes": f.Field(f.string_map()),
        "pool_id": f.Field(f.uuid_string),
    },
    read_only=tuple(k for k in _READ_ONLY if k != "pool_id") + ("name", "type"),
    immutable=("name", "type"),
)


def check_type_rules(values: dict) -> None:
    """Rules that depend on the zone type, with Designate's structured errors."""
    zone_type = values.get("type") or "PRIMARY"
    masters = values.get("masters") or []
    if zone_type == "PRIMARY":
        if masters:
            raise errors.InvalidObject(errors=[{
                "path": ["type"], "message": "'masters' has more items than allowed",
                "validator": "maxItems", "validator_value": ["masters"]}])
        if values.get("email") is None:
            raise errors.InvalidObject(errors=[{
                "path": ["type", "email"], "message": "'email' is a required property",
                "validator": "required", "validator_value": "email"}])
    elif zone_type == "SECONDARY":
        if not masters:
            raise errors.InvalidObject(errors=[{
                "path": ["type", "masters"], "message": "'masters' is a required property",
                "validator": "required", "validator_value": ["masters"]}])
        for field_name in ("email", "ttl"):
            if values.get(field_name) is not None:
                raise errors.InvalidObject(errors=[{
                    "path": ["type"],
                    "message": f"'{field_name}' can't be specified when type is SECONDARY",
                    "validator": "not_allowed", "validator_value": field_name}])
