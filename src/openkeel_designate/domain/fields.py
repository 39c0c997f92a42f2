"""Field coercion with Designate's exact error texts.

Designate parses a request body into versioned objects; a value that cannot be coerced becomes
``400 invalid_object`` "Provided object is not valid. Got a ValueError error with message …".
Each coercer here returns the stored value or raises ``FieldError`` carrying that detail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ZONE_NAME_RE = re.compile(r"^(?!.{255,})(?:(?!\-)[A-Za-z0-9_\-]{1,63}(?<!\-)\.)+\Z")
HOST_NAME_RE = re.compile(r"^(?!.{255,})(?:(?:^\*|(?!\-)[A-Za-z0-9_\-]{1,63})(?<!\-)\.)+\Z")
MAX_INT = 2147483647


class FieldError(ValueError):
    """A value that does not fit its field; ``kind`` names the Python error Designate shows."""

    def __init__(self, detail: str, kind: str = "ValueError"):
        super().__init__(detail)
        self.detail = detail
        self.kind = kind


Coercer = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Field:
    """One body field of a resource: how to coerce it and whether it may be null."""

    coerce: Coercer
    nullable: bool = True


def _not_none(name: str, value: Any) -> None:
    if value is None:
        raise FieldError(f"Field `{name}' cannot be None")


def _text(name: str, value: Any) -> str:
    """``value`` as a string field takes it (oslo.versionedobjects): text, or a number (a JSON
    boolean too) written out; a list or an object is refused."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    raise FieldError(f"A string is required in field {name}, not a {type(value).__name__}")


def string(max_length: int) -> Coercer:
    def coerce(name: str, value: Any) -> str | None:
        if value is None:
            return None
        text = _text(name, value)
        if len(text) > max_length:
            raise FieldError(f"Value too long for {name}")
        return text
    return coerce


def integer(minimum: int = 0, maximum: int = MAX_INT) -> Coercer:
    def coerce(name: str, value: Any) -> int | None:
        if value is None:
            return None
        try:
            number = int(value)
        except TypeError as exc:
            raise FieldError(str(exc), "TypeError") from exc
        except ValueError as exc:
            raise FieldError(str(exc)) from exc
        if number < minimum:
            raise FieldError(f"Value must be >= {minimum} for field {name}")
        if number > maximum:
            raise FieldError(f"Value too high for {name}")
        return number
    return coerce


def enum(*allowed: str) -> Coercer:
    def coerce(name: str, value: Any) -> str | None:
        if value is None:
            return None
        if value not in allowed:
            raise FieldError(f"Field value {value} is invalid")
        return value
    return coerce


def domain(name: str, value: Any) -> str:
    """A zone name: 255 at most, labels of 63 at most, absolute (checked in that order)."""
    _not_none(name, value)
    text = _text(name, value)
    _check_lengths(name, text)
    if not text.endswith("."):
        raise FieldError(f"Domain {text} does not end with a dot")
    if not ZONE_NAME_RE.match(text):
        raise FieldError(f"Domain {text} is invalid")
    return text


def hostname(name: str, value: Any) -> str:
    """A recordset name: like a domain, but a leading ``*`` label is allowed."""
    _not_none(name, value)
    text = _text(name, value)
    _check_lengths(name, text)
    if not text.endswith("."):
        raise FieldError(f"Host name {text} does not end with a dot")
    if not HOST_NAME_RE.match(text):
        raise FieldError(f"Host name {text} is invalid")
    return text


def _check_lengths(name: str, text: str) -> None:
    """The whole name, then each label (the last too, when there is no final dot)."""
    if len(text) > 255:
        raise FieldError(f"Value too long for {name}")
    for label in text.split("."):
        if len(label) > 63:
            raise FieldError(f"Host {label} is too long")


def email(name: str, value: Any) -> str | None:
    """An address: 255 at most, one ``@``, and as a name (``@`` read as a dot) a valid domain."""
    if value is None:
        return None
    text = _text(name, value)
    if len(text) > 255:
        raise FieldError(f"Value too long for {name}")
    if text.count("@") != 1:
        raise FieldError(f"{text} is not an email")
    if not ZONE_NAME_RE.match(text.replace("@", ".") + "."):
        raise FieldError(f"Email {text} is invalid")
    return text


def string_map(max_length: int = 50) -> Coercer:
    """``attributes``: an object of short strings (a non-object fails as Designate's does).

    Designate makes each pair an attribute object with a ``key`` and a ``value`` string field,
    both required, so its errors name those fields, the key's first.
    """
    member = string(max_length)

    def coerce(name: str, value: Any) -> dict[str, str] | None:
        if value is None:
            return None
        if not hasattr(value, "items"):
            raise FieldError(f"'{type(value).__name__}' object has no attribute 'items'",
                             "AttributeError")
        result = {}
        for key, item in value.items():
            key_text = member("key", key)
            _not_none("value", item)
            result[key_text] = member("value", item)
        return result
    return coerce


def uuid_string(name: str, value: Any) -> str | None:
    """A UUID in hex, dashes optional; anything else fails with Python's ``uuid`` wording."""
    if value is None:
        return None
    text = str(value)
    if not re.fullmatch(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                        r"[0-9a-fA-F]{12}", text):
        raise FieldError("badly formed hexadecimal UUID string")
    return text
