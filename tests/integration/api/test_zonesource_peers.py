"""The hosts mdns never rate limits, read by ``SqlZoneSource.peer_hosts`` on each engine: the
pools' nameservers and also-notifies and the secondary zones' masters, as they change."""

from __future__ import annotations

from openkeel_designate.central import pools
from openkeel_designate.storage.zonesource import SqlZoneSource

from conftest import project  # type: ignore[import-not-found]

ADMIN = project("peers-admin", "admin")


async def test_peer_hosts_follow_the_pools_and_the_secondary_zones(services, client) -> None:
    source = SqlZoneSource(services.db)
    assert await source.peer_hosts() == ["127.0.0.1"]  # the default pool's nameserver
    created = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "peers.example.", "type": "SECONDARY",
        "masters": ["192.0.2.53", "192.0.2.54:5300"]})
    assert created.status_code == 202, created.text
    assert await source.peer_hosts() == ["127.0.0.1", "192.0.2.53", "192.0.2.54"]
    definition = pools.default_pool_definition(services)
    definition["nameservers"] = [{"host": "198.51.100.7", "port": 53},
                                 {"host": "ns2.example.net", "port": 53}]
    definition["also_notifies"] = [{"host": "198.51.100.8", "port": 53}]
    await pools.update_from_definitions(services, [definition])
    assert await source.peer_hosts() == ["192.0.2.53", "192.0.2.54", "198.51.100.7",
                                         "198.51.100.8", "ns2.example.net"]
