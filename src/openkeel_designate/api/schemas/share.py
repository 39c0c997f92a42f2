"""The shared_zone resource on the wire (API v2.1)."""

from __future__ import annotations

from typing import Any

from openkeel_designate.api.schemas.resource import Resource
from openkeel_designate.domain import fields as f


def _target_project(name: str, value: Any) -> str:
    """Not nullable: a share always names the project it is for."""
    if value is None:
        raise f.FieldError(f"Field `{name}' cannot be None")
    return f.string(36)(name, value)


CREATE = Resource(
    name="shared_zone",
    writable={"target_project_id": f.Field(_target_project, nullable=False)},
    read_only=("id", "zone_id", "project_id", "created_at", "updated_at", "links"),
)
# No required key: Designate parses ``{}`` into an empty share, looks the zone up (404), checks
# the rules, and only then fails on the missing project with a bare 500 (central/shares.py).
