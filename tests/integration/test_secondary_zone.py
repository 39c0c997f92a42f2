"""Seed scenario 4: a SECONDARY zone pulled from an external master (a real BIND 9), served by
the pool, refreshed when the master NOTIFYs mdns; NOTIFY from a non-master is refused."""

from __future__ import annotations

import time

import dns.message
import dns.opcode
import dns.query
import dns.rcode
import httpx
import pytest

from support import bind9
from support.bind9 import Bind9Server
from support.server import ServerProcess

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not bind9.available(), reason="BIND 9 (named, rndc) not installed")]

ZONE = "sec.example."


def zone_file(serial: int, address: str) -> str:
    return (f"$ORIGIN {ZONE}\n$TTL 300\n"
            f"@ IN SOA ns.master.example. admin.master.example. {serial} 60 30 600 60\n"
            f"@ IN NS ns.master.example.\nwww IN A {address}\n")


def answer(port: int, name: str, rtype: str) -> dns.message.Message:
    return dns.query.udp(dns.message.make_query(name, rtype), "127.0.0.1", port=port, timeout=2)


def wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_secondary_zone_follows_its_master() -> None:
    with ServerProcess() as server, Bind9Server() as master:
        path = master.dir / "sec.example.zone"
        path.write_text(zone_file(100, "192.0.2.1"))
        added = master.rndc("addzone", ZONE, (
            f'{{ type primary; file "{path}"; notify explicit; '
            f'also-notify {{ 127.0.0.1 port {server.mdns_port}; }}; allow-transfer {{ any; }}; }};'))
        assert added.returncode == 0, added.stderr

        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
        created = client.post("/v2/zones", json={"name": ZONE, "type": "SECONDARY",
                                                 "masters": [f"127.0.0.1:{master.dns_port}"]})
        assert created.status_code == 202, created.text
        zone_url = f"/v2/zones/{created.json()['id']}"
        wait(lambda: client.get(zone_url).json()["status"] == "ACTIVE", 20, "never ACTIVE")
        zone = client.get(zone_url).json()
        assert zone["serial"] == 100 and zone["transferred_at"] is not None
        assert zone["masters"] == [f"127.0.0.1:{master.dns_port}"]
        assert answer(server.ns_port, f"www.{ZONE}", "A").answer[0][0].address == "192.0.2.1"

        path.write_text(zone_file(101, "192.0.2.2"))
        assert master.rndc("reload", ZONE).returncode == 0
        wait(lambda: (answer(server.ns_port, f"www.{ZONE}", "A").answer or [[None]])[0][0]
             is not None and answer(server.ns_port, f"www.{ZONE}", "A").answer[0][0].address
             == "192.0.2.2", 20, "the master's NOTIFY never led to a new transfer")
        assert client.get(zone_url).json()["serial"] == 101

        stranger = dns.message.make_query(ZONE, "SOA")
        stranger.set_opcode(dns.opcode.NOTIFY)
        reply = dns.query.udp(stranger, "127.0.0.1", port=server.mdns_port, timeout=2,
                              source="127.0.0.2")
        assert reply.rcode() == dns.rcode.REFUSED
