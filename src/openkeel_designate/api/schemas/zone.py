"""The zone resource on the wire: body fields and their rules."""

from __future__ import annotations

from typing import Any

from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields as f
from openkeel_designate.domain import masters as master_rules



def _masters(name: str, value: Any) -> list[tuple[str, int]]:
    """(host, port) pairs by Designate's rules (domain/masters.py): null is refused too."""
    try:
        return master_rules.parse(value)
    except master_rules.MastersError as exc:
        raise f.FieldError(exc.detail, exc.kind) from exc
    except master_rules.DuplicateMaster as exc:
        raise errors.DuplicateZoneAttribute(str(exc)) from exc


def _email(name: str, value: Any) -> str | None:
    """Designate counts the ``@`` of whatever it gets: ``null`` fails on that, as there."""
    if value is None:
        raise f.FieldError("'NoneType' object has no attribute 'count'", "AttributeError")
    return f.email(name, value)


_READ_ONLY = ("id", "pool_id", "project_id", "serial", "shared", "status", "action", "version",
              "created_at", "updated_at", "transferred_at", "links")

CREATE = Resource(
    name="zone",
    writable={
        "name": f.Field(f.domain, nullable=False),
        "email": f.Field(_email),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
        "type": f.Field(f.enum("PRIMARY", "SECONDARY", "CATALOG")),
        "masters": f.Field(_masters),
        "attributes": f.Field(f.string_map()),
    },
    read_only=_READ_ONLY,
)  # "name" is required too, but after the type rules (check_type_rules), as in Designate

UPDATE = Resource(
    name="zone",
    writable={
        "email": f.Field(_email),
        "ttl": f.Field(f.integer()),
        "description": f.Field(f.string(160)),
        "masters": f.Field(_masters),
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
        _check_secondary(values, masters_required=True)
    if "name" not in values:
        raise errors.InvalidObject(errors=[errors.required_error("name")])


def check_update_rules(zone_type: str, values: dict) -> None:
    """What a PATCH may change for the zone's type: a primary zone has no masters; a
    secondary zone keeps at least one and takes email and TTL from its master's SOA."""
    if zone_type == "PRIMARY" and values.get("masters"):
        raise errors.InvalidObject(errors=[{
            "path": ["type"], "message": "'masters' has more items than allowed",
            "validator": "maxItems", "validator_value": ["masters"]}])
    if zone_type == "SECONDARY":
        _check_secondary(values, masters_required="masters" in values)


def _check_secondary(values: dict, masters_required: bool) -> None:
    """Every broken rule at once, as Designate's schema lists them: masters, email, ttl."""
    found = []
    if masters_required and not values.get("masters"):
        found.append({"path": ["type", "masters"], "message": "'masters' is a required property",
                      "validator": "required", "validator_value": ["masters"]})
    for field_name in ("email", "ttl"):
        if field_name in values:  # present at all, even null
            found.append({"path": ["type"],
                          "message": f"'{field_name}' can't be specified when type is SECONDARY",
                          "validator": "not_allowed", "validator_value": field_name})
    if found:
        raise errors.InvalidObject(errors=found)
