"""Reading a JSON request body with Designate's rules (415 / 400 empty / 400 invalid JSON)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from openkeel_designate.domain import errors

JSON_TYPES = ("application/json", "application/json-patch+json")


class NotAnObject(Exception):
    """A body that is JSON but not an object: Designate answers 500 "unknown" for it."""


async def read_json(request: Request) -> dict[str, Any]:
    body = await read_json_value(request)
    if not isinstance(body, dict):
        raise NotAnObject(type(body).__name__)
    return body


async def read_json_value(request: Request) -> Any:
    """The decoded body, any JSON type: Designate's ``body_dict`` accepts a list or a string;
    only parsing it into an object fails later (500), so checks in between still win."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in JSON_TYPES:
        raise errors.UnsupportedContentType("Content-type must be application/json")
    if media_type == "application/json-patch+json":
        raise NotImplementedError("JSON patch bodies are not supported")
    raw = await request.body()
    if not raw.strip():
        raise errors.EmptyRequestBody("Request Body is empty")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.InvalidJson(str(exc)) from exc
    if body is None:
        raise errors.EmptyRequestBody("Request Body is empty")
    return body
