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
