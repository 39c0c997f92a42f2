"""Conditional requests (extension): the ``If-Match`` / ``If-None-Match`` headers in, the
``ETag`` header out; the comparison itself is central's (``domain/conditions.py``)."""

from __future__ import annotations

from starlette.requests import Request

from openkeel_designate.domain.conditions import Condition, parse_tags


def condition(request: Request) -> Condition | None:
    """None without either header: the request is then exactly Designate's."""
    if_match = parse_tags(request.headers.get("if-match"))
    if_none_match = parse_tags(request.headers.get("if-none-match"))
    if if_match is None and if_none_match is None:
        return None
    return Condition(if_match, if_none_match)


def with_etag(headers: dict[str, str] | None, etag: str) -> dict[str, str]:
    return {**(headers or {}), "ETag": etag}
