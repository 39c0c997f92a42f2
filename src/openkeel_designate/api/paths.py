"""Path parameter checks (Designate answers 400 invalid_uuid naming the parameter)."""

from __future__ import annotations

import re

from openkeel_designate.domain import errors

_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                   r"[0-9a-fA-F]{12}$")


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value))


def uuid_param(name: str, value: str) -> str:
    if not is_uuid(value):
        raise errors.InvalidUUID(f"Invalid UUID {name}: {value}")
    return value
