"""Abandon, xfr and pool move over the v2 API on every database engine."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error, assert_forbidden

A = project("act-a")
ADMIN = project("act-a", "admin")
SECONDARY = {"name": "sec.example.", "type": "SECONDARY", "masters": ["192.0.2.53"]}


async def create(client, name: str, **extra) -> dict:
    body = {"name": name, "email": "hostmaster@example.org", **extra}
    if extra.get("type") == "SECONDARY":
        body.pop("email")
    response = await client.post("/v2/zones", json=body, headers=A)
    assert response.status_code == 202, response.text
    return response.json()


async def test_abandon_forgets_the_zone_at_once(client):
    zone = await create(client, "abandon.example.")
    url = f"/v2/zones/{zone['id']}/tasks/abandon"
    assert_forbidden(await client.post(url, headers=A))
    not_allowed = await client.get(url, headers=ADMIN)
    assert not_allowed.status_code == 405 and not_allowed.json()["type"] == "method_not_allowed"
    response = await client.post(url, headers=ADMIN)
    assert response.status_code == 204 and response.content == b""
    assert_error(await client.get(f"/v2/zones/{zone['id']}", headers=A), 404, "zone_not_found",
                 "Could not find Zone")
    again = await client.post(url, headers=ADMIN)
    assert again.status_code == 404 and again.json()["type"] == "zone_not_found"
    assert (await create(client, "abandon.example."))["name"] == "abandon.example."


async def test_abandon_refuses_a_zone_with_children(client):
    parent = await create(client, "parent.example.")
    await create(client, "child.parent.example.")
    response = await client.post(f"/v2/zones/{parent['id']}/tasks/abandon", headers=ADMIN)
    assert response.status_code == 400 and response.json()["type"] == "zone_has_sub_zone"


async def test_xfr_only_for_secondary_zones(client):
    primary = await create(client, "primary.example.")
    response = await client.post(f"/v2/zones/{primary['id']}/tasks/xfr", headers=A)
    assert response.status_code == 400
    assert response.json()["message"] == "Can't XFR a non Secondary zone."
    secondary = await create(client, **SECONDARY)
    response = await client.post(f"/v2/zones/{secondary['id']}/tasks/xfr", headers=A)
    assert response.status_code == 202 and response.content == b'""'  # Designate's JSON ""
    assert response.headers["content-type"] == "application/json"
    zone = (await client.get(f"/v2/zones/{secondary['id']}", headers=A)).json()
    assert zone["status"] == "PENDING"
    bad = await client.post("/v2/zones/nope/tasks/xfr", headers=A)
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_uuid"


async def test_pool_move_rules(client):
    zone = await create(client, "move.example.")
    url = f"/v2/zones/{zone['id']}/tasks/pool_move"
    assert_forbidden(await client.post(url, json={}, headers=A))
    cases = [
        ({"pool_id": zone["pool_id"]}, "Target pool must be different for zone pool move"),
        ({"pool_id": "0f0e0d0c-0b0a-4908-8706-050403020100"}, "Target pool does not exist"),
        ({}, "No valid pool selected"),
    ]
    for body, message in cases:
        response = await client.post(url, json=body, headers=ADMIN)
        assert response.status_code == 400 and response.json()["message"] == message
    unknown = await client.post(url, json={"colour": "red"}, headers=ADMIN)
    assert unknown.status_code == 400 and unknown.json()["type"] == "invalid_object"
    assert_error(await client.post(url, headers=ADMIN), 415, "unsupported_content_type",
                 "Content-type must be application/json")


async def test_pool_move_rehomes_zone_and_apex_ns(client):
    pool = await client.post("/v2/pools", headers=ADMIN, json={
        "name": "second", "ns_records": [{"hostname": "ns2.example.net.", "priority": 1}]})
    assert pool.status_code == 201, pool.text
    zone = await create(client, "moved.example.")
    url = f"/v2/zones/{zone['id']}/tasks/pool_move"
    keyless = await client.post(url, headers=ADMIN, json={"pool_id": pool.json()["id"]})
    assert keyless.status_code == 400 and "scope POOL" in keyless.json()["message"]
    key = await client.post("/v2/tsigkeys", headers=ADMIN, json={
        "name": "second-pool", "algorithm": "hmac-sha256", "secret": "c2VjcmV0",
        "scope": "POOL", "resource_id": pool.json()["id"]})
    assert key.status_code == 201, key.text
    response = await client.post(url, headers=ADMIN, json={"pool_id": pool.json()["id"]})
    assert response.status_code == 202 and response.content == b""
    moved = (await client.get(f"/v2/zones/{zone['id']}", headers=A)).json()
    assert moved["pool_id"] == pool.json()["id"] and moved["status"] == "PENDING"
    ns = (await client.get(f"/v2/zones/{zone['id']}/recordsets?type=NS", headers=A)).json()
    assert ns["recordsets"][0]["records"] == ["ns2.example.net."]
    nameservers = (await client.get(f"/v2/zones/{zone['id']}/nameservers", headers=A)).json()
    assert nameservers["nameservers"] == [{"hostname": "ns2.example.net.", "priority": 1}]


UNKNOWN = "7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f"
MEMBER_ONLY = project("act-a", "member")  # noauth: no implied reader role


async def test_xfr_reads_the_zone_first(client):
    """Found by the differential harness: Designate reads the zone (get_zone rule) before xfr."""
    secondary = await create(client, **SECONDARY)
    refused = await client.post(f"/v2/zones/{secondary['id']}/tasks/xfr", headers=MEMBER_ONLY)
    assert refused.status_code == 403 and refused.json()["type"] == "forbidden"
    missing = await client.post(f"/v2/zones/{UNKNOWN}/tasks/xfr", headers=MEMBER_ONLY)
    assert missing.status_code == 404 and missing.json()["type"] == "zone_not_found"


async def test_abandon_rule_before_the_lookup(client):
    """Found by the differential harness: a non-admin gets 403 even for an unknown zone."""
    for headers in (A, project("act-a", "reader")):
        response = await client.post(f"/v2/zones/{UNKNOWN}/tasks/abandon", headers=headers)
        assert response.status_code == 403 and response.json()["type"] == "forbidden"
    missing = await client.post(f"/v2/zones/{UNKNOWN}/tasks/abandon", headers=ADMIN)
    assert_error(missing, 404, "zone_not_found", "Could not find Zone")
