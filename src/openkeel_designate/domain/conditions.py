"""Conditional writes (extension): strong ETags and ``If-Match`` / ``If-None-Match`` (RFC 9110
§8.8.3, §13.1), as Azure DNS offers them and Designate does not.

Why the condition is checked by central, not by the API: the comparison must see the row as the
write will change it, under the zone's row lock, or two clients holding the same ETag could
both pass.  The API only parses the headers; without them nothing is checked.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from openkeel_designate.domain import errors

ANY = "*"


def strong_etag(*parts: Any) -> str:
    """A quoted strong entity tag for the given row values (same values, same tag)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:32]
    return f'"{digest}"'


def parse_tags(header: str | None) -> tuple[str, ...] | None:
    """``*`` or the comma-separated entity tags of an ``If-Match`` / ``If-None-Match`` value."""
    if header is None:
        return None
    tags = tuple(tag.strip() for tag in header.split(",") if tag.strip())
    return (ANY,) if ANY in tags else tags


@dataclass(frozen=True)
class Condition:
    """What the request's conditional headers ask; ``None`` for a header not sent."""

    if_match: tuple[str, ...] | None = None
    if_none_match: tuple[str, ...] | None = None

    def check(self, current: str | None) -> None:
        """412 unless met; ``current`` is the resource's ETag now, None when it does not exist.

        ``If-Match`` compares strongly (a weak ``W/`` tag never matches), ``If-None-Match``
        weakly, as RFC 9110 says.
        """
        if self.if_match is not None:
            if current is None or (self.if_match != (ANY,) and current not in self.if_match):
                raise errors.PreconditionFailed(
                    "If-Match: the resource changed since that ETag was read" if current
                    else "If-Match: the resource does not exist")
        if self.if_none_match is not None and current is not None:
            weak = {tag.removeprefix("W/") for tag in self.if_none_match}
            if self.if_none_match == (ANY,) or current in weak:
                raise errors.PreconditionFailed("If-None-Match: the resource exists")


def check(condition: Condition | None, current: str | None) -> None:
    """No condition (no header sent): nothing is checked, the write goes on as Designate's."""
    if condition is not None:
        condition.check(current)
