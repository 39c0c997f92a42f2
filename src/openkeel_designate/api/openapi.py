"""The ``/openapi.json`` document: the routes' paths, with what a route cannot tell by itself.

Why: routes read their bodies and query strings by hand (Designate's adapter rules, its error
texts and its key order cannot be expressed as schema models, ``api/routing.py``), so a route
knows only its path, its methods and its path parameters. Clients, docs and the fuzz test need
the request bodies and the list parameters; they are described here, once, from the v2 API
reference, and added to each route's operation without touching a route.
"""

from __future__ import annotations

import json
import re
from copy import deepcopy
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from openkeel_designate.domain import rrtypes

Schema = dict[str, Any]

UUID: Schema = {"type": "string", "format": "uuid"}
FQDN: Schema = {"type": "string", "maxLength": 255,
                "pattern": r"^([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)+$"}
TTL: Schema = {"type": "integer", "minimum": 0, "maximum": 2147483647}
DESCRIPTION: Schema = {"type": ["string", "null"], "maxLength": 160}
STRING_MAP: Schema = {"type": "object", "additionalProperties": {"type": "string", "maxLength": 50}}
QUOTA_RESOURCES = ("zones", "zone_recordsets", "zone_records", "recordset_records",
                   "api_export_size")
TSIG_ALGORITHMS = ("hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384",
                   "hmac-sha512")


def _object(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_ZONE_UPDATE = {"email": {"type": "string", "format": "email", "maxLength": 255}, "ttl": TTL,
                "description": DESCRIPTION, "masters": {"type": "array", "items": {"type": "string"}},
                "attributes": STRING_MAP}
_RECORDSET_UPDATE = {"records": {"type": "array", "items": {"type": "string"}},
                     "ttl": {"type": ["integer", "null"], "minimum": 0, "maximum": 2147483647},
                     "description": DESCRIPTION}
_POOL = {"name": {"type": "string", "maxLength": 50}, "description": DESCRIPTION,
         "attributes": STRING_MAP,
         "ns_records": {"type": "array", "items": _object(
             {"priority": {"type": "integer", "minimum": 1, "maximum": 10000}, "hostname": FQDN},
             ("priority", "hostname"))}}
_QUOTAS = _object({name: {"type": "integer", "minimum": -1, "maximum": 2147483647}
                   for name in QUOTA_RESOURCES})
_TSIGKEY = {"name": {"type": "string", "maxLength": 160},
            "algorithm": {"enum": list(TSIG_ALGORITHMS)},
            "secret": {"type": "string", "maxLength": 160}, "scope": {"enum": ["POOL", "ZONE"]},
            "resource_id": UUID}
_TLD = {"name": {"type": "string", "maxLength": 255,
                 "pattern": r"^[A-Za-z0-9_]{1,63}(\.[A-Za-z0-9_]{1,63})*$"},
        "description": DESCRIPTION}
_BLACKLIST = {"pattern": {"type": "string", "minLength": 1, "maxLength": 255},
              "description": DESCRIPTION}
_TRANSFER = {"target_project_id": {"type": ["string", "null"], "maxLength": 36},
             "description": DESCRIPTION}
_CHANGE = _object({"action": {"enum": ["CREATE", "UPSERT", "DELETE", "ADD_RECORDS",
                                        "REMOVE_RECORDS"]},
                   "name": FQDN, "type": {"enum": rrtypes.default_supported()},
                   **_RECORDSET_UPDATE}, ("action", "name", "type"))

#: request bodies, by (method, path template)
BODIES: dict[tuple[str, str], Schema] = {
    ("post", "/v2/zones"): _object({"name": FQDN, "type": {"enum": ["PRIMARY", "SECONDARY"]},
                                    **_ZONE_UPDATE}, ("name",)),
    ("patch", "/v2/zones/{zone_id}"): _object({**_ZONE_UPDATE, "pool_id": UUID}),
    ("post", "/v2/zones/{zone_id}/recordsets"): _object(
        {"name": FQDN, "type": {"enum": rrtypes.default_supported()}, **_RECORDSET_UPDATE},
        ("name", "type", "records")),
    ("put", "/v2/zones/{zone_id}/recordsets/{recordset_id}"): _object(_RECORDSET_UPDATE),
    # extension: a batch of recordset changes, applied all or nothing
    ("post", "/v2/zones/{zone_id}/changes"): _object(
        {"changes": {"type": "array", "minItems": 1, "maxItems": 1000, "items": _CHANGE}},
        ("changes",)),
    ("post", "/v2/zones/{zone_id}/tasks/pool_move"): _object({"pool_id": UUID}),
    ("post", "/v2/pools"): _object(_POOL, ("name",)),
    ("patch", "/v2/pools/{pool_id}"): _object(_POOL),
    ("patch", "/v2/quotas/{project_id}"): _QUOTAS,
    ("patch", "/admin/quotas/{tenant_id}"): _object({"quota": _QUOTAS}, ("quota",)),
    ("post", "/v2/tlds"): _object(_TLD, ("name",)),
    ("patch", "/v2/tlds/{row_id}"): _object(_TLD),
    ("post", "/v2/tsigkeys"): _object(_TSIGKEY, tuple(_TSIGKEY)),
    ("patch", "/v2/tsigkeys/{row_id}"): _object(_TSIGKEY),
    ("post", "/v2/blacklists"): _object(_BLACKLIST, ("pattern",)),
    ("patch", "/v2/blacklists/{row_id}"): _object(_BLACKLIST),
    ("post", "/v2/zones/{zone_id}/tasks/transfer_requests"): _object(_TRANSFER),
    ("patch", "/v2/zones/tasks/transfer_requests/{request_id}"): _object(_TRANSFER),
    ("post", "/v2/zones/tasks/transfer_accepts"): _object(
        {"key": {"type": "string", "maxLength": 160}, "zone_transfer_request_id": UUID},
        ("key", "zone_transfer_request_id")),
    ("post", "/v2/zones/{zone_id}/shares"): _object(
        {"target_project_id": {"type": "string", "minLength": 1, "maxLength": 36}},
        ("target_project_id",)),
    ("patch", "/v2/reverse/floatingips/{key}"): _object(
        {"ptrdname": {"oneOf": [FQDN, {"type": "null"}]}, "ttl": TTL, "description": DESCRIPTION}),
}

#: a zone file import accepts two media types
IMPORT_BODY: Schema = {
    "text/dns": {"schema": {"type": "string"}},
    "application/json": {"schema": _object({"zonefile": {"type": "string"},
                                            "attributes": STRING_MAP}, ("zonefile",))},
}

#: list endpoints: (filters, sort keys)
LISTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "/v2/zones": (("name", "type", "email", "status", "description", "ttl"),
                  ("created_at", "id", "updated_at", "name", "tenant_id", "serial", "ttl", "status")),
    "/v2/zones/{zone_id}/recordsets": (
        ("name", "type", "ttl", "data", "status", "description"),
        ("created_at", "id", "updated_at", "zone_id", "tenant_id", "name", "type", "ttl", "records")),
    "/v2/recordsets": (("name", "type", "ttl", "data", "status", "description"),
                       ("created_at", "updated_at", "zone_id", "tenant_id", "name", "type", "ttl")),
    "/v2/zones/{zone_id}/shares": (("target_project_id",), ("created_at", "updated_at")),
    "/v2/zones/tasks/transfer_requests": (("status",), ("created_at", "id", "updated_at")),
    "/v2/zones/tasks/transfer_accepts": (("status",), ("created_at", "id", "updated_at")),
    "/v2/zones/tasks/imports": (("status", "message", "zone_id"), ("created_at", "id", "updated_at")),
    "/v2/zones/tasks/exports": (("status", "message", "zone_id"), ("created_at", "id", "updated_at")),
    "/v2/tlds": (("name",), ("created_at", "id", "updated_at", "name")),
    "/v2/tsigkeys": (("name", "algorithm", "scope"), ("created_at", "id", "updated_at", "name")),
    "/v2/blacklists": (("pattern",), ("created_at", "id", "updated_at", "pattern")),
    "/v2/pools": (("name",), ("created_at", "id", "updated_at", "name")),
    "/v2/service_statuses": (("hostname", "service_name", "status"),
                             ("created_at", "id", "updated_at", "hostname", "service_name",
                              "status")),
    "/v2/service_status": (("hostname", "service_name", "status"),
                           ("created_at", "id", "updated_at", "hostname", "service_name", "status")),
    # extension: a zone's changes (batches and served serial steps), a feed with since_serial
    "/v2/zones/{zone_id}/changes": (("since_serial", "origin"), ("created_at",)),
}
#: list filters that are not free strings
_FILTER_SCHEMAS: dict[str, Schema] = {
    "since_serial": {"type": "integer", "minimum": 0, "maximum": 4294967295},
    "origin": {"enum": ["BATCH", "SERIAL"]},
}

#: conditional writes (extension): which operations read which request header
CONDITIONS: dict[tuple[str, str], tuple[str, ...]] = {
    ("patch", "/v2/zones/{zone_id}"): ("If-Match", "If-None-Match"),
    ("delete", "/v2/zones/{zone_id}"): ("If-Match", "If-None-Match"),
    ("post", "/v2/zones/{zone_id}/recordsets"): ("If-None-Match",),
    ("put", "/v2/zones/{zone_id}/recordsets/{recordset_id}"): ("If-Match", "If-None-Match"),
    ("delete", "/v2/zones/{zone_id}/recordsets/{recordset_id}"): ("If-Match", "If-None-Match"),
    ("post", "/v2/zones/{zone_id}/changes"): ("If-Match", "If-None-Match"),
}

#: path parameters that are not UUIDs
_FREE_PATH_PARAMS = {"project_id", "tenant_id", "name"}
#: a floating IP is addressed as ``<region>:<floatingip uuid>``
_FLOATINGIP_KEY: Schema = {
    "type": "string",
    "pattern": r"^[A-Za-z0-9_.-]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}


TITLE = "OpenKeel Designate"
VERSION = "2.4"


def install(routes: list[BaseRoute], record_types: list[str] | None = None) -> Route:
    """The route serving the document of ``routes`` from ``/openapi.json``, built on its first
    request and then kept. ``record_types``: the deployment's ``supported_record_type``, so an
    opt-in type (DS) is documented where it is accepted and a type turned off is not."""
    built: list[bytes] = []

    async def openapi_json(request: Request) -> Response:
        if not built:
            built.append(json.dumps(document(routes, record_types)).encode())
        return Response(built[0], media_type="application/json")

    return Route("/openapi.json", openapi_json, methods=["GET"], include_in_schema=False)


def document(routes: list[BaseRoute], record_types: list[str] | None = None) -> dict[str, Any]:
    """OpenAPI 3.1 for ``routes``: their paths and path parameters, with bodies, list
    parameters and UUID path formats; recordset types as ``record_types`` (the default
    supported types when None)."""
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        if not isinstance(route, Route) or not route.include_in_schema:
            continue
        for method in sorted(route.methods or ()):
            if method != "HEAD":
                paths.setdefault(route.path, {})[method.lower()] = _operation(
                    route, method.lower(), record_types)
    return {"openapi": "3.1.0", "info": {"title": TITLE, "version": VERSION}, "paths": paths}


def _operation(route: Route, method: str, record_types: list[str] | None) -> dict[str, Any]:
    path = route.path
    operation: dict[str, Any] = {
        "summary": route.name.replace("_", " ").capitalize(),
        "operationId": re.sub(r"\W", "_", f"{route.name}{path}") + f"_{method}",
        "responses": {"default": {"description": "the resource (JSON), or Designate's JSON "
                                                 "error body"}},
    }
    parameters = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                  for name in route.param_convertors]
    if parameters:
        operation["parameters"] = parameters
    _path_formats(operation)
    body = BODIES.get((method, path))
    if body is not None and record_types is not None:
        body = _with_record_types(body, record_types)
    if body is not None:
        operation["requestBody"] = {
            "required": True, "content": {"application/json": {"schema": body}}}
    if (method, path) == ("post", "/v2/zones/tasks/imports"):
        operation["requestBody"] = {"required": True, "content": deepcopy(IMPORT_BODY)}
    if method == "get" and path in LISTS:
        operation.setdefault("parameters", []).extend(_list_parameters(*LISTS[path]))
    for header in CONDITIONS.get((method, path), ()):
        operation.setdefault("parameters", []).append({
            "name": header, "in": "header", "required": False,
            "schema": {"type": "string"},
            "description": "`*` or entity tags (ETag of the resource); 412 when not met"})
    return operation


def _with_record_types(body: Schema, record_types: list[str]) -> Schema:
    """``body`` with every recordset ``type`` enum (a recordset's, a change's) replaced."""
    body = deepcopy(body)
    default = rrtypes.default_supported()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("enum") == default:
                node["enum"] = list(record_types)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(body)
    return body


def _path_formats(operation: dict[str, Any]) -> None:
    for param in operation.get("parameters", []):
        if param.get("in") != "path" or param["name"] in _FREE_PATH_PARAMS:
            continue
        extra = _FLOATINGIP_KEY if param["name"] == "key" else UUID
        param["schema"] = {**param.get("schema", {}), **extra}


def _list_parameters(filters: tuple[str, ...], sort_keys: tuple[str, ...]) -> list[Schema]:
    """Designate's pagination and sorting parameters, then the endpoint's filters."""
    def query(name: str, schema: Schema, text: str) -> Schema:
        return {"name": name, "in": "query", "required": False, "schema": schema,
                "description": text}

    params = [
        query("limit", {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 1000},
                                  {"enum": ["max"]}]}, "page size (default 20; `max`)"),
        query("marker", UUID, "id of the last item of the previous page"),
        query("sort_key", {"enum": list(sort_keys)}, "sort column"),
        query("sort_dir", {"enum": ["asc", "desc"]}, "sort direction"),
    ]
    params += [query(name, _FILTER_SCHEMAS.get(name, {"type": "string"}),
                     "exact match; `*` is a wildcard") for name in filters]
    return params
