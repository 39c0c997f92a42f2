"""Pools over the v2 API on every database engine: the deprecated update and delete."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error, assert_forbidden

ADMIN = project("pool-admin", "admin")
MEMBER = project("pool-member")
DEFAULT = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"


async def new_pool(client, name="extra"):
    body = {"name": name, "ns_records": [{"priority": 1, "hostname": "ns1.extra.example."}]}
    response = await client.post("/v2/pools", json=body, headers=ADMIN)
    assert response.status_code == 201, response.json()
    return response.json()


async def test_update_answers_202(client):
    pool = await new_pool(client)
    response = await client.patch(f"/v2/pools/{pool['id']}", json={
        "description": "changed", "attributes": {"tier": "gold"},
        "ns_records": [{"priority": 2, "hostname": "ns2.extra.example."}]}, headers=ADMIN)
    assert response.status_code == 202
    body = response.json()
    assert body["description"] == "changed" and body["attributes"] == {"tier": "gold"}
    assert body["ns_records"] == [{"priority": 2, "hostname": "ns2.extra.example."}]
    assert body["updated_at"] is not None


async def test_update_changes_the_ns_of_the_pool_zones(client):
    zone = (await client.post("/v2/zones", json={"name": "ns.example.", "email": "a@example.org"},
                              headers=MEMBER)).json()
    response = await client.patch(f"/v2/pools/{DEFAULT}", json={"ns_records": [
        {"priority": 1, "hostname": "ns1.example.net."},
        {"priority": 2, "hostname": "ns2.example.net."}]}, headers=ADMIN)
    assert response.status_code == 202
    listing = (await client.get(f"/v2/zones/{zone['id']}/recordsets?type=NS",
                                headers=MEMBER)).json()
    assert sorted(listing["recordsets"][0]["records"]) == ["ns1.example.net.", "ns2.example.net."]
    nameservers = (await client.get(f"/v2/zones/{zone['id']}/nameservers", headers=MEMBER)).json()
    assert len(nameservers["nameservers"]) == 2


async def test_update_errors(client):
    pool = await new_pool(client)
    other = await new_pool(client, "other")
    last = await client.patch(f"/v2/pools/{pool['id']}", json={"ns_records": []}, headers=ADMIN)
    assert last.status_code == 400 and last.json()["type"] == "last_server_delete_not_allowed"
    duplicate = await client.patch(f"/v2/pools/{other['id']}", json={"name": "extra"},
                                   headers=ADMIN)
    assert duplicate.status_code == 409 and duplicate.json()["type"] == "duplicate_pool"
    unknown = await client.patch(f"/v2/pools/{pool['id']}", json={"colour": 1}, headers=ADMIN)
    assert unknown.json()["message"] == ("Provided object does not match schema. Keys "
                                         "['colour'] are not valid for pool")
    bad_ns = await client.patch(f"/v2/pools/{pool['id']}", json={"ns_records": [{"x": 1}]},
                                headers=ADMIN)
    assert bad_ns.json()["message"] == ("Provided object does not match schema. Keys ['x'] are "
                                        "not valid for ns_record")
    bad_priority = await client.patch(f"/v2/pools/{pool['id']}", json={"ns_records": [
        {"priority": 0, "hostname": "ns.example."}]}, headers=ADMIN)
    assert bad_priority.json()["type"] == "invalid_object"
    not_list = await client.patch(f"/v2/pools/{pool['id']}", json={"ns_records": "ns."},
                                  headers=ADMIN)
    assert_error(not_list, 400, "invalid_object")
    assert_forbidden(await client.patch(f"/v2/pools/{pool['id']}", json={"description": "x"},
                                        headers=MEMBER))
    missing = await client.patch(f"/v2/pools/{MISSING}", json={"description": "x"}, headers=ADMIN)
    assert missing.status_code == 404 and missing.json()["type"] == "pool_not_found"


async def test_delete(client):
    pool = await new_pool(client)
    assert_forbidden(await client.delete(f"/v2/pools/{pool['id']}", headers=MEMBER))
    response = await client.delete(f"/v2/pools/{pool['id']}", headers=ADMIN)
    assert response.status_code == 204 and response.content == b""
    assert_error(await client.get(f"/v2/pools/{pool['id']}", headers=ADMIN), 404, "pool_not_found",
                 "Could not find Pool")
    again = await client.delete(f"/v2/pools/{pool['id']}", headers=ADMIN)
    assert again.json()["type"] == "pool_not_found"
    assert (await client.delete("/v2/pools/nope", headers=ADMIN)).json()["message"] == \
        "Invalid UUID pool_id: nope"


async def test_pool_with_zones_cannot_be_deleted(client):
    await client.post("/v2/zones", json={"name": "held.example.", "email": "a@example.org"},
                      headers=MEMBER)
    response = await client.delete(f"/v2/pools/{DEFAULT}", headers=ADMIN)
    assert response.status_code == 400
    assert response.json()["type"] == "invalid_operation"
    assert response.json()["message"] == "pool must not contain zones"
