"""A secondary zone's masters as Designate reads them from a request body.

Designate splits each entry once, at its first colon: what follows is the port when it is a
number, otherwise the whole entry is the host and the port is 53 (so ``192.0.2.1:abc`` and
``[2001:db8::1]:53`` are accepted as host names). Ports outside 1-65535 and a master listed
twice (same host and port) are refused. A body that is not a list of strings fails the way
Designate's parser fails on it: a string is read one master per character (and so nearly
always repeats one), a number or an object has no ``split``, ``null`` is not iterable; the
``kind`` of ``MastersError`` names that Python error, which Designate's message shows.
"""

from __future__ import annotations

from typing import Any

DEFAULT_PORT = 53


class MastersError(ValueError):
    """An entry that cannot be a master; ``kind`` is the Python error Designate reports."""

    def __init__(self, detail: str, kind: str = "ValueError"):
        super().__init__(detail)
        self.detail = detail
        self.kind = kind


class DuplicateMaster(ValueError):
    """The same (host, port) twice: Designate answers 409 ``duplicate_zone_attribute``."""


def split(entry: Any) -> tuple[str, int]:
    """(host, port) of one entry, by Designate's first-colon rule."""
    if isinstance(entry, tuple):
        return entry
    if not isinstance(entry, str):
        raise MastersError(f"'{type(entry).__name__}' object has no attribute 'split'",
                           "AttributeError")
    host, sep, port_text = entry.partition(":")
    try:
        port = int(port_text) if sep else DEFAULT_PORT
    except ValueError:
        return entry, DEFAULT_PORT
    if not sep:
        return entry, DEFAULT_PORT
    if port < 1:
        raise MastersError("Value must be >= 1 for field port")
    if port > 65535:
        raise MastersError("Value too high for port")
    return host, port


def parse(entries: Any) -> list[tuple[str, int]]:
    """Every entry split, in order; duplicates refused."""
    try:
        items = list(entries)
    except TypeError:
        raise MastersError(f"'{type(entries).__name__}' object is not iterable", "TypeError") from None
    parsed = [split(entry) for entry in items]
    if len(set(parsed)) != len(parsed):
        raise DuplicateMaster("Duplicate ZoneMaster")
    return parsed

