"""Seed scenario 4 on production-like pools: a SECONDARY zone whose external master is a real
BIND 9, served by a pool of real PowerDNS — and by a pool of real BIND 9 — nameservers.

The master NOTIFYs mdns when its zone changes; mdns accepts it only from a listed master; the
worker transfers from the master and the pool's servers transfer from mdns.
"""

from __future__ import annotations

import time

import httpx
import pytest

from support import bind9
from support.bind9 import Bind9Server
from support.server import ServerProcess

from conftest import ask

pytestmark = pytest.mark.integration
ZONE = "secondary.scenario.example."


def zone_file(serial: int, address: str) -> str:
    return (f"$ORIGIN {ZONE}\n$TTL 300\n"
            f"@ IN SOA ns.master.example. admin.master.example. {serial} 60 30 600 60\n"
            f"@ IN NS ns.master.example.\nwww IN A {address}\n")


def serve_from(master: Bind9Server, path, mdns_port: int) -> None:
    path.write_text(zone_file(10, "198.51.100.1"))
    added = master.rndc("addzone", ZONE, (
        f'{{ type primary; file "{path}"; notify explicit; '
        f'also-notify {{ 127.0.0.1 port {mdns_port}; }}; allow-transfer {{ any; }}; }};'))
    assert added.returncode == 0, added.stderr


def answered(port: int, address: str) -> bool:
    reply = ask(port, f"www.{ZONE}", "A")
    return bool(reply.answer) and reply.answer[0][0].address == address


def run_scenario(server: ServerProcess, master: Bind9Server, pool_dns_port: int) -> None:
    path = master.dir / "scenario.zone"
    serve_from(master, path, server.mdns_port)
    client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
    created = client.post("/v2/zones", json={"name": ZONE, "type": "SECONDARY",
                                             "masters": [f"127.0.0.1:{master.dns_port}"]})
    assert created.status_code == 202, created.text
    url = f"/v2/zones/{created.json()['id']}"
    deadline = time.monotonic() + 40
    while client.get(url).json()["status"] != "ACTIVE":
        assert time.monotonic() < deadline, client.get(url).json()
        time.sleep(0.05)
    assert answered(pool_dns_port, "198.51.100.1")
    path.write_text(zone_file(11, "198.51.100.2"))
    assert master.rndc("reload", ZONE).returncode == 0
    deadline = time.monotonic() + 40
    while not answered(pool_dns_port, "198.51.100.2"):
        assert time.monotonic() < deadline, "the pool never served the master's change"
        time.sleep(0.1)
    assert client.get(url).json()["serial"] == 11


@pytest.mark.skipif(not bind9.available(), reason="BIND 9 (named, rndc) not installed")
def test_secondary_on_a_powerdns_pool(pdns_server, make_pool_yaml) -> None:
    options = {"api_endpoint": pdns_server.api_url, "api_token": pdns_server.api_key,
               "host": "127.0.0.1", "port": pdns_server.dns_port, "axfr_retrieve": True}
    with Bind9Server() as master, ServerProcess(
            pools=lambda s: make_pool_yaml(s, "pdns4", options, pdns_server.dns_port)) as server:
        run_scenario(server, master, pdns_server.dns_port)


@pytest.mark.skipif(not bind9.available(), reason="BIND 9 (named, rndc) not installed")
def test_secondary_on_a_bind9_pool(bind9_server, make_pool_yaml) -> None:
    options = {"rndc_host": "127.0.0.1", "rndc_port": bind9_server.rndc_port,
               "rndc_config_file": str(bind9_server.rndc_conf), "rndc_timeout": 10,
               "host": "127.0.0.1", "port": bind9_server.dns_port}
    with Bind9Server() as master, ServerProcess(
            pools=lambda s: make_pool_yaml(s, "bind9", options, bind9_server.dns_port)) as server:
        run_scenario(server, master, bind9_server.dns_port)
