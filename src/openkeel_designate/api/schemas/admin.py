"""The wire format of the administrative resources: TLDs, TSIG keys, blacklists, quotas.

Coercers carry Designate's exact ValueError texts (``<x> is not a TLD``, ``Field value <x> is
invalid``, ``badly formed hexadecimal UUID string``, ``Value too high for hard_limit`` …).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from openkeel_designate.api.schemas.resource import Resource, _invalid
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields as f
from openkeel_designate.domain.fields import Coercer, Field, FieldError

TLD_RE = re.compile(r"^(?!.{255,})(?:(?!\-)[A-Za-z0-9_\-]{1,63}(?<!\-))"
                    r"(?:\.(?:(?!\-)[A-Za-z0-9_\-]{1,63}(?<!\-)))*\Z")
TSIG_ALGORITHMS = ("hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384",
                   "hmac-sha512")
QUOTA_RESOURCES = ("zones", "zone_recordsets", "zone_records", "recordset_records",
                   "api_export_size")
_READ_ONLY = ("id", "created_at", "updated_at", "links")


def required(coerce: Coercer) -> Coercer:
    """A non-nullable field: ``null`` fails as oslo.versionedobjects words it."""
    def check(name: str, value: Any) -> Any:
        if value is None:
            raise FieldError(f"Field `{name}' cannot be None")
        return coerce(name, value)
    return check


def tld_name(name: str, value: Any) -> str:
    text = f.string(255)(name, value)
    if not TLD_RE.match(text):
        raise FieldError(f"{text} is not a TLD")
    return text


def regex(max_length: int) -> Coercer:
    """Blacklist fields: a non-empty Python regular expression (description included)."""
    def coerce(name: str, value: Any) -> str | None:
        text = f.string(max_length)(name, value)
        if text is None:
            return None
        try:
            if not text:
                raise re.error("empty")
            re.compile(text)
        except re.error as exc:
            raise FieldError(f"{text} is not a valid regular expression") from exc
        return text
    return coerce


def uuid_field(name: str, value: Any) -> str:
    text = str(value)
    try:
        uuid.UUID(text)
    except ValueError as exc:
        raise FieldError(str(exc)) from exc
    return text


def _resource(name: str, writable: dict[str, Field], required_keys: tuple[str, ...],
              create: bool) -> Resource:
    return Resource(name=name, writable=writable, read_only=_READ_ONLY,
                    required=required_keys if create else ())


_TLD = {"name": Field(required(tld_name), nullable=False), "description": Field(f.string(160))}
TLD_CREATE = _resource("tld", _TLD, ("name",), True)
TLD_UPDATE = _resource("tld", _TLD, (), False)

_BLACKLIST = {"pattern": Field(required(regex(255)), nullable=False),
              "description": Field(regex(160))}
BLACKLIST_CREATE = _resource("blacklist", _BLACKLIST, ("pattern",), True)
BLACKLIST_UPDATE = _resource("blacklist", _BLACKLIST, (), False)

_TSIGKEY = {
    "name": Field(required(f.string(160)), nullable=False),
    "algorithm": Field(required(f.enum(*TSIG_ALGORITHMS)), nullable=False),
    "secret": Field(required(f.string(160)), nullable=False),
    "scope": Field(required(f.enum("POOL", "ZONE")), nullable=False),
    "resource_id": Field(required(uuid_field), nullable=False),
}
TSIGKEY_CREATE = _resource("tsigkey", _TSIGKEY, tuple(_TSIGKEY), True)
TSIGKEY_UPDATE = _resource("tsigkey", _TSIGKEY, (), False)


def check_tsig_secret(values: dict[str, Any], allow_empty: bool) -> None:
    """``[service:api] allow_empty_secrets_for_tsig = false`` refuses an empty secret."""
    if not allow_empty and values.get("secret") == "":
        raise errors.InvalidObject(errors=[{
            "path": ["type"], "message": "'secret' should not be empty",
            "validator": "value", "validator_value": ["secret"]}])


def quota_values(body: dict[str, Any]) -> dict[str, int]:
    """``PATCH /v2/quotas/{project}``: a flat ``resource: limit`` object, −1 meaning unlimited."""
    limit = required(f.integer(-1, f.MAX_INT))
    values = {}
    for resource, raw in body.items():
        try:
            f.enum(*QUOTA_RESOURCES)("resource", resource)
            if raw is None:
                raise errors.DesignateError()  # Designate stores it and fails: a bare 500
            if isinstance(raw, (list, dict)):
                raise FieldError("int() argument must be a string, a bytes-like object or a "
                                 f"real number, not '{type(raw).__name__}'", "TypeError")
            values[resource] = limit("hard_limit", raw)
        except FieldError as exc:
            raise _invalid(exc) from exc
    return values


def admin_quota_values(body: dict[str, Any]) -> dict[str, int]:
    """``PATCH /admin/quotas/{tenant}``: ``{"quota": {resource: 0..2147483647}}``.

    Designate validates it with a JSON schema whose errors are listed raw (``/admin`` has no
    validation middleware): unexpected keys first, grouped in one error per object as
    jsonschema words them, then each resource's value.
    """
    problems = []
    extra = _unexpected(body, ("quota",))
    if extra:
        problems.append(_schema_error("", extra, "additionalProperties"))
    quota = body.get("quota")
    if "quota" not in body:
        problems.append(_schema_error("", "'quota' is a required property", "required"))
    elif not isinstance(quota, dict):
        problems.append(_schema_error("quota", f"{quota!r} is not of type 'object'", "type"))
    else:
        extra = _unexpected(quota, QUOTA_RESOURCES)
        if extra:
            problems.append(_schema_error("quota", extra, "additionalProperties"))
        for key, value in quota.items():
            if key not in QUOTA_RESOURCES:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                problems.append(_schema_error(f"quota.{key}", f"{value!r} is not of type "
                                              "'integer'", "type"))
            elif value < 0:
                problems.append(_schema_error(f"quota.{key}", f"{value} is less than the "
                                              "minimum of 0", "minimum"))
            elif value > f.MAX_INT:
                problems.append(_schema_error(f"quota.{key}", f"{value} is greater than the "
                                              f"maximum of {f.MAX_INT}", "maximum"))
    if problems:
        raise errors.InvalidObject("Provided object does not match schema", errors=problems)
    return dict(quota)


def _unexpected(obj: dict[str, Any], allowed: tuple[str, ...]) -> str | None:
    """jsonschema's additionalProperties text for the keys of ``obj`` not in ``allowed``."""
    extra = [key for key in obj if key not in allowed]
    if not extra:
        return None
    verb = "was" if len(extra) == 1 else "were"
    listed = ", ".join(map(repr, extra))
    return f"Additional properties are not allowed ({listed} {verb} unexpected)"


def _schema_error(path: str, message: str, validator: str) -> dict[str, str]:
    return {"path": path, "message": message, "validator": validator}
