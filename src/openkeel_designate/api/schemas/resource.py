"""Parsing a JSON body into a resource's values with Designate's adapter rules.

Order of checks (first failure wins, as Designate): keys unknown to the resource (all listed),
read-only keys whose value differs from the current one (the first only), then each field's
coercion in body order.  Writable fields may be sent; immutable ones only when unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openkeel_designate.domain import errors
from openkeel_designate.domain.fields import Field, FieldError


@dataclass(frozen=True)
class Resource:
    """A resource's wire fields: writable ones with their coercers, read-only names."""

    name: str
    writable: dict[str, Field]
    read_only: tuple[str, ...] = ()
    immutable: tuple[str, ...] = ()
    required: tuple[str, ...] = field(default=())

    def parse(self, body: dict[str, Any], current: dict[str, Any] | None = None,
              update: bool = False) -> dict[str, Any]:
        """The coerced values of ``body``; ``current`` is the stored object on updates."""
        known = set(self.writable) | set(self.read_only)
        unknown = [key for key in body if key not in known]
        if unknown:
            raise _schema_mismatch(self.name, unknown)
        current = current or {}
        for key in body:
            not_writable = key in self.read_only or (update and key in self.immutable)
            if not_writable and (not update or body[key] != current.get(key)):
                if key in self.immutable and update and current.get(key) in (None, ""):
                    continue
                raise _schema_mismatch(self.name, [key])
        values: dict[str, Any] = {}
        for key, raw in body.items():
            spec = self.writable.get(key)
            if spec is None:
                continue
            try:
                values[key] = spec.coerce(key, raw)
            except FieldError as exc:
                raise _invalid(exc) from exc
        for key in self.required:
            if key not in body:
                raise errors.InvalidObject(errors=[errors.required_error(key)])
        return values


def _schema_mismatch(resource: str, keys: list[str]) -> errors.InvalidObject:
    return errors.InvalidObject(
        f"Provided object does not match schema. Keys {keys!r} are not valid for {resource}"
    )


def _invalid(exc: FieldError) -> errors.InvalidObject:
    # Designate words two errors apart ("a TypeError", "an AttributeError") and every other
    # one as "a <Name> error", grammar included ("a IndexError error").
    if exc.kind == "TypeError":
        prefix = "Got a TypeError with message"
    elif exc.kind == "AttributeError":
        prefix = "Got an AttributeError with message"
    else:
        prefix = f"Got a {exc.kind} error with message"
    return errors.InvalidObject(f"Provided object is not valid. {prefix} {exc.detail}")
