"""A change batch on the wire (extension): ``{"changes": [{action, name, type, ...}, ...]}``.

Every malformed change is listed, each with its index, before anything is read from the
database: one 400 a client can fix in one go (as octoDNS' validators report).
"""

from __future__ import annotations

from typing import Any

from openkeel_designate.central.changes import ACTIONS
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields as f

MAX_CHANGES = 1000
_FIELDS: dict[str, f.Coercer] = {
    "name": f.hostname,
    "ttl": f.integer(),
    "description": f.string(160),
}
_KEYS = {"action", "name", "type", "ttl", "records", "description"}


def parse(body: Any) -> list[dict[str, Any]]:
    """The coerced changes, or InvalidChanges listing every problem as ``["changes", i, key]``.

    Any JSON body is taken: an extension has no Designate quirk (a 500 for a list) to keep.
    """
    if not isinstance(body, dict):
        body = {"changes": None}
    changes = body.get("changes")
    extra = [key for key in body if key != "changes"]
    if extra or not isinstance(changes, list) or not changes or len(changes) > MAX_CHANGES:
        raise errors.InvalidChanges([_problem(
            ["changes"], f"'changes' must be a list of 1 to {MAX_CHANGES} changes"
            + (f"; unknown keys {extra!r}" if extra else ""), "type")])
    problems: list[dict[str, Any]] = []
    parsed = [_change(index, raw, problems) for index, raw in enumerate(changes)]
    if problems:
        raise errors.InvalidChanges(problems)
    return parsed


def _change(index: int, raw: Any, problems: list[dict[str, Any]]) -> dict[str, Any]:
    path: list[Any] = ["changes", index]
    if not isinstance(raw, dict):
        problems.append(_problem(path, "a change must be an object", "type"))
        return {}
    for key in sorted(set(raw) - _KEYS):
        problems.append(_problem(path + [key], f"'{key}' is not a valid change key", "additional"))
    for key in ("action", "name", "type"):
        if key not in raw:
            problems.append(_problem(path + [key], f"'{key}' is a required property", "required"))
    if "action" in raw and raw["action"] not in ACTIONS:
        problems.append(_problem(path + ["action"],
                                 f"'{raw['action']}' is not one of {list(ACTIONS)}", "enum"))
    if "type" in raw and not isinstance(raw["type"], str):
        problems.append(_problem(path + ["type"], "type must be a string", "type"))
    values = {key: raw[key] for key in _KEYS & set(raw)}
    for key, coerce in _FIELDS.items():
        if key in raw:
            try:
                values[key] = coerce(key, raw[key])
            except f.FieldError as exc:
                problems.append(_problem(path + [key], exc.detail, "format"))
    return values


def _problem(path: list[Any], message: str, validator: str) -> dict[str, Any]:
    return {"path": path, "message": message, "validator": validator, "validator_value": None}
