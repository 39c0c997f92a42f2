"""Designate's error rendering at the API edge."""

from __future__ import annotations

from conftest import project

A = project("proj-err")


async def test_versions_document(client):
    body = (await client.get("/")).json()
    assert [v["id"] for v in body["versions"]] == ["v2", "v2.0", "v2.1", "v2.2", "v2.3", "v2.4"]
    assert body["versions"][-1]["status"] == "CURRENT"


async def test_body_errors(client):
    bad = await client.post("/v2/zones", content=b'{"name": ', headers={
        **A, "Content-Type": "application/json"})
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_json"
    empty = await client.post("/v2/zones", content=b"", headers={
        **A, "Content-Type": "application/json"})
    assert empty.json()["message"] == "Request Body is empty"
    text = await client.post("/v2/zones", content=b"{}", headers={**A, "Content-Type": "text/plain"})
    assert text.status_code == 415
    assert text.json()["message"] == "Content-type must be application/json"


async def test_routing_errors(client):
    unknown = await client.get("/v2/nonexistent", headers=A)
    assert unknown.status_code == 404 and unknown.json()["message"] == "resource not found"
    assert "x-openstack-request-id" in unknown.headers
    wrong = await client.put("/v2/zones", json={}, headers=A)
    assert wrong.status_code == 405 and wrong.json()["type"] == "method_not_allowed"
    bad_uuid = await client.get("/v2/zones/not-a-uuid", headers=A)
    assert bad_uuid.json()["message"] == "Invalid UUID zone_id: not-a-uuid"
    slash = await client.get("/v2/zones/", headers=A)
    assert slash.status_code == 200 and slash.json()["links"]["self"].endswith("/v2/zones")


async def test_policy_denials_have_no_message(client):
    reader = await client.post("/v2/zones", json={"name": "r.example.", "email": "a@b.c"},
                               headers=project("p", "reader"))
    assert reader.status_code == 403 and set(reader.json()) == {"code", "type", "request_id"}


async def test_limits(client):
    body = (await client.get("/v2/limits", headers=A)).json()
    assert body["max_zones"] == 1000 and body["max_page_limit"] == 1000
