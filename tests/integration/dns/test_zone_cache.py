"""mdns remembers which zone a name is (``mdns/zonecache.py``) but never serves a stale answer
because of it: in process with a counting source, and on the real server, where central's
change hook must clear the memory the moment a zone is created, changed or deleted.

The real server runs with ``zone_cache_ttl = 30``: were the hook not wired, a remembered "no
such zone" would outlive the worker's whole push (its poll timeout is 30 s) and the new zone
would not go ACTIVE, and a deleted zone would still be answered.
"""

from __future__ import annotations

import time

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import httpx
import pytest

from openkeel_designate.dnswire.zonedata import ZoneHead
from openkeel_designate.mdns.server import MdnsServer
from support.server import ServerProcess

from conftest import POOL, MemorySource  # type: ignore[import-not-found]


class CountingSource(MemorySource):
    def __init__(self) -> None:
        super().__init__()
        self.lookups: list[str] = []

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        self.lookups.append(name)
        return await super().find_zone(name, pool_id)


async def test_lookups_are_remembered_until_zones_change(ask) -> None:
    source = CountingSource()
    source.put("cached.example.", 1)
    async with MdnsServer(source, [("127.0.0.1", 0)], POOL, zone_cache_ttl=60) as mdns:
        host, port = mdns.bound[0]
        for _ in range(3):
            answer = await ask(host, port, "www.cached.example.", "A")
            assert answer.rcode() == dns.rcode.REFUSED  # no such record: mdns refuses
        assert source.lookups == ["www.cached.example.", "cached.example."]
        source.bump("cached.example.", 2)
        # The SOA is read per query, never remembered: a new serial is seen at once.
        soa = await ask(host, port, "cached.example.", "SOA")
        assert soa.answer[0][0].serial == 2
        source.delete("cached.example.")
        mdns.zones_changed()
        assert (await ask(host, port, "cached.example.", "SOA")).rcode() == dns.rcode.REFUSED
        source.put("cached.example.", 3)
        mdns.zones_changed()
        assert (await ask(host, port, "cached.example.", "SOA")).answer[0][0].serial == 3


def mdns_soa(server: ServerProcess, zone: str) -> dns.message.Message:
    query = dns.message.make_query(zone, "SOA")
    return dns.query.udp(query, "127.0.0.1", port=server.mdns_port, timeout=5)


def served_serial(answer: dns.message.Message) -> int | None:
    if answer.rcode() != dns.rcode.NOERROR:
        return None
    return next((rr[0].serial for rr in answer.answer if rr.rdtype == dns.rdatatype.SOA), None)


def wait_status(client: httpx.Client, url: str, wanted: str, timeout: float = 25.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(url).json()
        if body["status"] == wanted:
            return body
        assert body["status"] != "ERROR", body
        assert time.monotonic() < deadline, f"{url} still {body['status']}"
        time.sleep(0.05)


@pytest.mark.integration
def test_the_real_server_never_serves_a_stale_zone_or_serial() -> None:
    options = {"service:mdns": {"zone_cache_ttl": 30}}
    with ServerProcess(options=options, wait_dns=True) as server, \
            httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=30) as client:
        zone = "later.example."
        # mdns has looked the name up and found nothing: that answer is remembered.
        for _ in range(3):
            assert mdns_soa(server, zone).rcode() == dns.rcode.REFUSED
        created = client.post("/v2/zones", json={"name": zone, "email": "h@later.example"})
        assert created.status_code == 202, created.text
        url = f"/v2/zones/{created.json()['id']}"
        body = wait_status(client, url, "ACTIVE")  # the nameserver got it from mdns
        assert served_serial(mdns_soa(server, zone)) == body["serial"]
        for i in range(5):
            rs = client.post(f"{url}/recordsets",
                             json={"name": f"h{i}.{zone}", "type": "A", "records": ["192.0.2.1"]})
            assert rs.status_code == 202, rs.text
            body = wait_status(client, url, "ACTIVE")
            assert served_serial(mdns_soa(server, zone)) == body["serial"], i
        deleted = client.delete(url)
        assert deleted.status_code == 202, deleted.text
        assert mdns_soa(server, zone).rcode() == dns.rcode.REFUSED
