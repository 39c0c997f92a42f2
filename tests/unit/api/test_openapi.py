"""``/openapi.json`` completion: every described body and list belongs to a real route.

Why: the descriptions live apart from the routes; a renamed route would otherwise leave its
body silently undocumented (and unfuzzed).
"""

from __future__ import annotations

from types import SimpleNamespace

from fastapi import FastAPI

from openkeel_designate import config
from openkeel_designate.api import openapi
from openkeel_designate.api.app import create_app


def _app() -> FastAPI:
    """The real app; building it touches no database (services are only used per request)."""
    return create_app(SimpleNamespace(conf=config.load([])))  # type: ignore[arg-type]


def test_every_described_body_and_list_is_a_route() -> None:
    paths = _app().openapi()["paths"]
    for method, path in openapi.BODIES:
        assert method in paths.get(path, {}), f"{method.upper()} {path} is not a route"
    for path in openapi.LISTS:
        assert "get" in paths.get(path, {}), f"GET {path} is not a route"


def test_document_carries_bodies_parameters_and_uuid_formats() -> None:
    paths = _app().openapi()["paths"]
    create = paths["/v2/zones"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert create["required"] == ["name"]
    names = [p["name"] for p in paths["/v2/zones"]["get"]["parameters"]]
    assert names[:4] == ["limit", "marker", "sort_key", "sort_dir"]
    assert "email" in names
    zone_id = paths["/v2/zones/{zone_id}"]["get"]["parameters"][0]["schema"]
    assert zone_id["format"] == "uuid"
    assert set(paths["/v2/zones/tasks/imports"]["post"]["requestBody"]["content"]) == {
        "text/dns", "application/json"}


def test_document_is_built_once() -> None:
    app = _app()
    assert app.openapi() is app.openapi()


def test_change_feed_and_conditional_headers_are_described() -> None:
    paths = _app().openapi()["paths"]
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
        app = create_app(SimpleNamespace(conf=conf))  # type: ignore[arg-type]
        paths = app.openapi()["paths"]
        post = paths["/v2/zones/{zone_id}/recordsets"]["post"]["requestBody"]["content"]
        batch = paths["/v2/zones/{zone_id}/changes"]["post"]["requestBody"]["content"]
        return (post["application/json"]["schema"]["properties"]["type"]["enum"],
                batch["application/json"]["schema"]["properties"]["changes"]["items"][
                    "properties"]["type"]["enum"])

    default_post, default_batch = types(None)
    assert "DS" not in default_post and "DS" not in default_batch and "A" in default_post
    assert types(["A", "AAAA", "DS"]) == (["A", "AAAA", "DS"],) * 2
