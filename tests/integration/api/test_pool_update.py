"""pools.yaml updates (``manage pool update``): zones follow the pool's NS records."""

from __future__ import annotations

from openkeel_designate.central import pools
from openkeel_designate.central.pools import default_pool_definition

from conftest import project

A = project("proj-pools")


async def ns_of(client, zone_id: str) -> list[str]:
    body = (await client.get(f"/v2/zones/{zone_id}/recordsets?type=NS", headers=A)).json()
    return sorted(body["recordsets"][0]["records"])


async def test_zones_follow_new_ns_records(client, services):
    zone = (await client.post("/v2/zones", json={"name": "follow.example.",
                                                 "email": "h@follow.example"}, headers=A)).json()
    assert await ns_of(client, zone["id"]) == ["ns1.example.net."]
    definition = default_pool_definition(services)
    definition["ns_records"] = [{"hostname": "ns2.example.net.", "priority": 1},
                                {"hostname": "ns3.example.net.", "priority": 2}]
    await pools.update_from_definitions(services, [definition])
    assert await ns_of(client, zone["id"]) == ["ns2.example.net.", "ns3.example.net."]
    listed = (await client.get(f"/v2/zones/{zone['id']}/nameservers", headers=A)).json()
    assert [ns["hostname"] for ns in listed["nameservers"]] == ["ns2.example.net.",
                                                                "ns3.example.net."]
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=A)).json()["status"] == "PENDING"


async def test_zone_in_a_non_default_pool_needs_a_pool_key(client, services):
    second = {"name": "second", "attributes": {"tier": "gold"},
              "ns_records": [{"hostname": "ns9.example.net.", "priority": 1}]}
    services.conf.set_override("scheduler_filters", ["attribute", "fallback"],
                               group="service:central")
    await pools.update_from_definitions(services, [default_pool_definition(services), second])
    body = {"name": "gold.example.", "email": "h@gold.example", "attributes": {"tier": "gold"}}
    refused = await client.post("/v2/zones", json=body, headers=A)
    assert refused.status_code == 400 and "scope POOL" in refused.json()["message"]
    pool_id = [p for p in (await client.get("/v2/pools", headers=project("x", "admin"))
                           ).json()["pools"] if p["name"] == "second"][0]["id"]
    key = await client.post("/v2/tsigkeys", headers=project("x", "admin"), json={
        "name": "gold", "algorithm": "hmac-sha256", "secret": "c2VjcmV0", "scope": "POOL",
        "resource_id": pool_id})
    assert key.status_code == 201
    created = await client.post("/v2/zones", json=body, headers=A)
    assert created.status_code == 202 and created.json()["pool_id"] == pool_id
