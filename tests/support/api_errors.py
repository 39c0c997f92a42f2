"""Designate's error body, asserted the same way by every test of a refusal.

Why one helper: a refusal is only Designate's when its ``type`` (and, where Designate's text is
fixed, its ``message``) match too; a status alone would pass for any 403 or 404 at all. Policy
denials carry no ``message`` key in Designate (``Forbidden`` is raised without text), so
``message=None`` asserts its absence.
"""

from __future__ import annotations

from typing import Any

ANY_MESSAGE = object()


def assert_error(response: Any, status: int, error_type: str,
                 message: str | None | object = ANY_MESSAGE) -> dict:
    """The JSON error body of ``response`` after checking status, ``code``, ``type`` and
    ``message`` (left unchecked with ANY_MESSAGE, absent with None)."""
    body = response.json()
    assert (response.status_code, body.get("code"), body.get("type")) == (
        status, status, error_type), response.text
    if message is None:
        assert "message" not in body, response.text
    elif message is not ANY_MESSAGE:
        assert body.get("message") == message, response.text
    return body


def assert_forbidden(response: Any) -> dict:
    """A policy denial: 403 ``forbidden`` with no message, as Designate raises it."""
    return assert_error(response, 403, "forbidden", None)
