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


def string(max_length: int) -> Coercer:
    def coerce(name: str, value: Any) -> str | None:
        if value is None:
            return None
        text = value if isinstance(value, str) else str(value)
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
        except (TypeError, ValueError) as exc:
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
    """A zone name: absolute, 255 at most, labels of 63 at most."""
    _not_none(name, value)
    text = str(value)
    if not text.endswith("."):
        raise FieldError(f"Domain {text} does not end with a dot")
    _check_lengths(name, text)
    if not ZONE_NAME_RE.match(text):
        raise FieldError(f"Domain {text} is invalid")
    return text


def hostname(name: str, value: Any) -> str:
    """A recordset name: like a domain, but a leading ``*`` label is allowed."""
    _not_none(name, value)
    text = str(value)
    if not text.endswith("."):
        raise FieldError(f"Host name {text} does not end with a dot")
    _check_lengths(name, text)
    if not HOST_NAME_RE.match(text):
        raise FieldError(f"Host name {text} is invalid")
    return text


def _check_lengths(name: str, text: str) -> None:
    if len(text) > 255:
        raise FieldError(f"Value too long for {name}")
    for label in text.split(".")[:-1]:
        if len(label) > 63:
            raise FieldError(f"Host {label} is too long")


def email(name: str, value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    if text.count("@") != 1 or not ZONE_NAME_RE.match(text.replace("@", ".") + "."):
        raise FieldError(f"{text} is not an email")
    if len(text) > 255:
        raise FieldError(f"Value too long for {name}")
    return text


def string_map(max_length: int = 50) -> Coercer:
    """``attributes``: an object of short strings (a non-object fails as Designate's does)."""
    def coerce(name: str, value: Any) -> dict[str, str] | None:
        if value is None:
            return None
        if not hasattr(value, "items"):
            raise FieldError(f"'{type(value).__name__}' object has no attribute 'items'",
                             "AttributeError")
        result = {}
        for key, item in value.items():
            key_text, item_text = str(key), str(item)
            if len(key_text) > max_length or len(item_text) > max_length:
                raise FieldError(f"Value too long for {name}")
            result[key_text] = item_text
        return result
    return coerce


def string_list(name: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise FieldError(f"An object of type {type(value).__name__} is not a list")
    return [str(item) for item in value]


def uuid_string(name: str, value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    if not re.fullmatch(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                        r"[0-9a-fA-F]{12}", text):
        raise FieldError(f"{text} is not a valid UUID")
    return text
