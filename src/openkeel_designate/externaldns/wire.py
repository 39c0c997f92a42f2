"""ExternalDNS's JSON, read as its Go decoder reads it and written as its encoder writes it.

The shapes are ExternalDNS's own (``endpoint/endpoint.go``, ``plan/plan.go``,
``endpoint/domain_filter.go``).  Go's ``encoding/json`` matches object keys without regard to
case and ignores unknown keys: that is how ExternalDNS's own webhook server reads a plan, and
why both spellings ExternalDNS has sent (``Create``/``UpdateOld``… before v0.17, ``create``/
``updateOld``… since) are accepted here.  What Go would refuse (a string where a list is due, a
TTL with a fraction) is refused, with every problem listed in Designate's error entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"

#: the plan's lists, by the lower-case key Go's case-insensitive match reduces them to
SECTIONS = {"create": "create", "updateold": "updateOld", "updatenew": "updateNew",
            "delete": "delete"}


@dataclass
class Endpoint:
    """One ExternalDNS endpoint: a name and type with all its values (a whole recordset)."""

    dns_name: str
    record_type: str
    targets: list[str] = field(default_factory=list)
    ttl: int = 0  # 0: not configured (ExternalDNS's TTL.IsConfigured is ttl > 0)
    set_identifier: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    provider_specific: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Changes:
    create: list[Endpoint] = field(default_factory=list)
    updateOld: list[Endpoint] = field(default_factory=list)
    updateNew: list[Endpoint] = field(default_factory=list)
    delete: list[Endpoint] = field(default_factory=list)


class WireError(ValueError):
    """The body is not what ExternalDNS sends; ``problems`` are Designate's error entries."""

    def __init__(self, problems: list[dict[str, Any]]):
        super().__init__("; ".join(f"{p['path']}: {p['message']}" for p in problems))
        self.problems = problems


def problem(path: list[Any], message: str, validator: str = "type") -> dict[str, Any]:
    return {"path": path, "message": message, "validator": validator, "validator_value": None}


def read_changes(body: Any) -> Changes:
    """A ``POST /records`` body; JSON ``null`` is an empty plan, as Go decodes it."""
    if body is None:
        return Changes()
    if not isinstance(body, dict):
        raise WireError([problem([], "the body must be a JSON object of create, updateOld, "
                                     "updateNew and delete lists")])
    changes, problems = Changes(), []
    for key, value in body.items():
        section = SECTIONS.get(key.lower())
        if section is not None:
            setattr(changes, section, _endpoints(value, [section], problems))
    if problems:
        raise WireError(problems)
    return changes


def read_endpoints(body: Any) -> list[Endpoint]:
    """A ``POST /adjustendpoints`` body: a list of endpoints (``null``: none)."""
    problems: list[dict[str, Any]] = []
    endpoints = _endpoints(body, [], problems)
    if problems:
        raise WireError(problems)
    return endpoints


def _endpoints(value: Any, path: list[Any], problems: list[dict[str, Any]]) -> list[Endpoint]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(problem(path, "must be a list of endpoints"))
        return []
    found = [_endpoint(item, [*path, index], problems) for index, item in enumerate(value)]
    return [endpoint for endpoint in found if endpoint is not None]


_FIELDS = {"dnsname": "dnsName", "targets": "targets", "recordtype": "recordType",
           "setidentifier": "setIdentifier", "recordttl": "recordTTL", "labels": "labels",
           "providerspecific": "providerSpecific"}


def _endpoint(raw: Any, path: list[Any], problems: list[dict[str, Any]]) -> Endpoint | None:
    if not isinstance(raw, dict):
        problems.append(problem(path, "an endpoint must be an object"))
        return None
    values = {_FIELDS[key.lower()]: value for key, value in raw.items()
              if key.lower() in _FIELDS}
    before = len(problems)
    endpoint = Endpoint(
        dns_name=_string(values, "dnsName", path, problems),
        record_type=_string(values, "recordType", path, problems),
        targets=_strings(values.get("targets"), [*path, "targets"], problems),
        ttl=_ttl(values.get("recordTTL"), [*path, "recordTTL"], problems),
        set_identifier=_string(values, "setIdentifier", path, problems),
        labels=_labels(values.get("labels"), [*path, "labels"], problems),
        provider_specific=_properties(values.get("providerSpecific"),
                                      [*path, "providerSpecific"], problems))
    for key in ("dnsName", "recordType"):
        if not values.get(key) and len(problems) == before:
            problems.append(problem([*path, key], f"'{key}' is required", "required"))
    return endpoint if len(problems) == before else None


def _string(values: dict[str, Any], key: str, path: list[Any],
            problems: list[dict[str, Any]]) -> str:
    value = values.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(problem([*path, key], f"'{key}' must be a string"))
        return ""
    return value


def _strings(value: Any, path: list[Any], problems: list[dict[str, Any]]) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(problem(path, "targets must be a list of strings"))
        return []
    return list(value)


def _ttl(value: Any, path: list[Any], problems: list[dict[str, Any]]) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
        problems.append(problem(path, "recordTTL must be an integer from 0 to 2147483647"))
        return 0
    return value


def _labels(value: Any, path: list[Any], problems: list[dict[str, Any]]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        problems.append(problem(path, "labels must be an object of strings"))
        return {}
    return dict(value)


def _properties(value: Any, path: list[Any],
                problems: list[dict[str, Any]]) -> list[dict[str, str]]:
    if value is None:
        return []
    ok = isinstance(value, list) and all(
        isinstance(item, dict) and all(isinstance(item.get(k, ""), str) for k in ("name", "value"))
        for item in value)
    if not ok:
        problems.append(problem(path, "providerSpecific must be a list of {name, value}"))
        return []
    return [{"name": item.get("name", ""), "value": item.get("value", "")} for item in value]


def write_endpoint(endpoint: Endpoint) -> dict[str, Any]:
    """Go's field order and ``omitempty``: empty fields are left out, as ExternalDNS writes."""
    body: dict[str, Any] = {"dnsName": endpoint.dns_name}
    if endpoint.targets:
        body["targets"] = list(endpoint.targets)
    body["recordType"] = endpoint.record_type
    if endpoint.set_identifier:
        body["setIdentifier"] = endpoint.set_identifier
    if endpoint.ttl:
        body["recordTTL"] = endpoint.ttl
    if endpoint.labels:
        body["labels"] = dict(sorted(endpoint.labels.items()))
    if endpoint.provider_specific:
        body["providerSpecific"] = endpoint.provider_specific
    return body


def domain_filter(filters: list[str]) -> dict[str, Any]:
    """The negotiation answer: ExternalDNS's DomainFilter as it marshals one (sorted, no dots
    at the end; no filter is ``{}``, which matches every name)."""
    include = sorted({name.strip().lower().rstrip(".") for name in filters} - {""})
    return {"include": include} if include else {}
