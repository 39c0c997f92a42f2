"""A zone and its records created over HTTP are served by the built-in nameserver.

Real parts only: the server process, its SQLite (or PostgreSQL) database, mdns, the built-in
nameserver, and dnspython as the resolver's stand-in.
"""

from __future__ import annotations

import time

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import httpx
import pytest

from support.server import ServerProcess, builtin_pool, wait_status
from support.zone_invariants import assert_zone_valid

pytestmark = pytest.mark.integration


def ask(server: ServerProcess, name: str, rtype: str) -> dns.message.Message:
    query = dns.message.make_query(name, rtype)
    return dns.query.udp(query, "127.0.0.1", port=server.ns_port, timeout=2)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_zone_and_records_resolve(database: str) -> None:
    pools = None if database == "sqlite" else builtin_pool
    with ServerProcess(database=database, pools=pools) as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        zone = client.post("/v2/zones", json={"name": "e2e.example.", "email": "h@e2e.example",
                                              "ttl": 300}).json()
        zone_url = f"/v2/zones/{zone['id']}"
        active = wait_status(client, zone_url, "ACTIVE")
        soa = ask(server, "e2e.example.", "SOA")
        assert soa.flags & dns.flags.AA
        assert soa.answer[0][0].serial == active["serial"]

        www = client.post(f"{zone_url}/recordsets", json={
            "name": "www.e2e.example.", "type": "A", "records": ["192.0.2.10", "192.0.2.11"]}).json()
        mx = client.post(f"{zone_url}/recordsets", json={
            "name": "e2e.example.", "type": "MX", "records": ["10 mail.e2e.example."]}).json()
        for rs in (www, mx):
            wait_status(client, f"{zone_url}/recordsets/{rs['id']}", "ACTIVE")
        answer = ask(server, "www.e2e.example.", "A")
        assert sorted(r.address for r in answer.answer[0]) == ["192.0.2.10", "192.0.2.11"]
        assert answer.answer[0].ttl == 300  # recordset without TTL takes the zone's
        assert ask(server, "e2e.example.", "MX").answer[0][0].exchange.to_text() == "mail.e2e.example."
        wait_status(client, zone_url, "ACTIVE")
        assert_zone_valid(client, zone["id"], server.mdns_port)
        missing = ask(server, "nope.e2e.example.", "A")
        assert missing.rcode() == dns.rcode.NXDOMAIN
        assert missing.authority[0].rdtype == dns.rdatatype.SOA

        client.put(f"{zone_url}/recordsets/{www['id']}", json={"records": ["192.0.2.99"]})
        wait_status(client, f"{zone_url}/recordsets/{www['id']}", "ACTIVE")
        assert [r.address for r in ask(server, "www.e2e.example.", "A").answer[0]] == ["192.0.2.99"]
        wait_status(client, zone_url, "ACTIVE")
        assert_zone_valid(client, zone["id"], server.mdns_port)

        assert client.delete(zone_url).status_code == 202
        deadline = time.monotonic() + 20
        while client.get(zone_url).status_code != 404:
            assert time.monotonic() < deadline, "zone never went away"
            time.sleep(0.02)
        assert ask(server, "e2e.example.", "SOA").rcode() == dns.rcode.REFUSED


def test_delete_right_after_create_does_not_wait_for_the_create() -> None:
    """A newer change supersedes a push in flight: the delete is done in seconds, not after the
    create's poll timeout (30 s)."""
    with ServerProcess() as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        started = time.monotonic()
        zone = client.post("/v2/zones", json={"name": "brief.example.",
                                              "email": "h@brief.example"}).json()
        assert client.delete(f"/v2/zones/{zone['id']}").status_code == 202
        while client.get(f"/v2/zones/{zone['id']}").status_code != 404:
            assert time.monotonic() - started < 15, "the delete waited for the create's timeout"
            time.sleep(0.05)
