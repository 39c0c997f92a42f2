"""``/openapi.json`` completion: every described body and list belongs to a real route.

Why: the descriptions live apart from the routes; a renamed route would otherwise leave its
body silently undocumented (and unfuzzed).
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from openkeel_designate import config
from openkeel_designate.api import openapi
from openkeel_designate.api.app import create_app


def _app(conf: Any = None) -> Starlette:
    """The real app; building it touches no database (services are only used per request)."""
    return create_app(SimpleNamespace(conf=conf or config.load([])))  # type: ignore[arg-type]


def _served(app: Starlette) -> bytes:
    """The body ``GET /openapi.json`` answers, from the route itself (no middleware)."""
    route = next(r for r in app.routes if isinstance(r, Route) and r.path == "/openapi.json")
    response = asyncio.run(route.endpoint(None))  # type: ignore[arg-type]
    return bytes(response.body)


def _paths(app: Starlette) -> dict[str, Any]:
    return json.loads(_served(app))["paths"]


def test_every_described_body_and_list_is_a_route() -> None:
    paths = _paths(_app())
    for method, path in openapi.BODIES:
        assert method in paths.get(path, {}), f"{method.upper()} {path} is not a route"
    for path in openapi.LISTS:
        assert "get" in paths.get(path, {}), f"GET {path} is not a route"


def test_document_carries_bodies_parameters_and_uuid_formats() -> None:
    paths = _paths(_app())
    create = paths["/v2/zones"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert create["required"] == ["name"]
    names = [p["name"] for p in paths["/v2/zones"]["get"]["parameters"]]
    assert names[:4] == ["limit", "marker", "sort_key", "sort_dir"]
    assert "email" in names
    zone_id = paths["/v2/zones/{zone_id}"]["get"]["parameters"][0]["schema"]
    assert zone_id["format"] == "uuid"
    assert set(paths["/v2/zones/tasks/imports"]["post"]["requestBody"]["content"]) == {
        "text/dns", "application/json"}


def test_document_is_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built = []
    real = openapi.document
    monkeypatch.setattr(openapi, "document", lambda *args: built.append(1) or real(*args))
    app = _app()
    assert _served(app) == _served(app)
    assert len(built) == 1


def test_every_route_is_documented_with_its_path_parameters() -> None:
    """Each documented route, each of its methods but HEAD, and its path parameters in order;
    the console, the health check and the document itself are left out."""
    paths = _paths(_app())
    routes = [r for r in _app().routes if isinstance(r, Route) and r.include_in_schema]
    assert {r.path for r in routes} == set(paths)
    for route in routes:
        for method in route.methods or ():
            if method == "HEAD":
                continue
            operation = paths[route.path][method.lower()]
            names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
            assert names == list(route.param_convertors), (method, route.path)
    assert not {"/console", "/healthcheck", "/openapi.json"} & set(paths)
    ids = [op["operationId"] for item in paths.values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_change_feed_and_conditional_headers_are_described() -> None:
    paths = _paths(_app())
    params = {p["name"]: p for p in paths["/v2/zones/{zone_id}/changes"]["get"]["parameters"]}
    assert params["since_serial"]["schema"]["type"] == "integer"
    assert params["origin"]["schema"]["enum"] == ["BATCH", "SERIAL"]
    for method, path in openapi.CONDITIONS:
        assert method in paths[path], f"{method.upper()} {path} is not a route"
    put = paths["/v2/zones/{zone_id}/recordsets/{recordset_id}"]["put"]["parameters"]
    assert {"name": "If-Match", "in": "header"}.items() <= next(
        p for p in put if p["name"] == "If-Match").items()


def test_recordset_types_follow_the_deployment() -> None:
    """DS is opt-in: documented only where ``supported_record_type`` lists it."""
    def types(supported: list[str] | None) -> tuple[list[str], list[str]]:
        conf = config.load([])
        if supported is not None:
            conf.set_override("supported_record_type", supported)
        paths = _paths(_app(conf))
        post = paths["/v2/zones/{zone_id}/recordsets"]["post"]["requestBody"]["content"]
        batch = paths["/v2/zones/{zone_id}/changes"]["post"]["requestBody"]["content"]
        return (post["application/json"]["schema"]["properties"]["type"]["enum"],
                batch["application/json"]["schema"]["properties"]["changes"]["items"][
                    "properties"]["type"]["enum"])

    default_post, default_batch = types(None)
    assert "DS" not in default_post and "DS" not in default_batch and "A" in default_post
    assert types(["A", "AAAA", "DS"]) == (["A", "AAAA", "DS"],) * 2
