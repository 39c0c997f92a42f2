"""Real DNS servers (PowerDNS, BIND 9, Knot) on free loopback ports, one per test module, and
the helpers the backend tests share: a pools.yaml aimed at such a server, and the HTTP steps of a
full propagation through ``openkeel-designate serve``."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

import dns.message
import dns.query
import dns.rcode
import httpx
import pytest

from support import bind9, knot, pdns
from support.server import ServerProcess


@pytest.fixture(scope="module")
def pdns_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pdns.PdnsServer]:
    if not pdns.available():
        pytest.skip("pdns_server with the gsqlite3 backend is not installed")
    with pdns.PdnsServer(tmp_path_factory.mktemp("pdns")) as server:
        yield server


@pytest.fixture(scope="module")
def bind9_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[bind9.Bind9Server]:
    if not bind9.available():
        pytest.skip("named / rndc are not installed")
    with bind9.Bind9Server(tmp_path_factory.mktemp("bind9")) as server:
        yield server


@pytest.fixture(scope="module")
def knot_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[knot.KnotServer]:
    if not knot.available():
        pytest.skip("knotd / knotc are not installed")
    with knot.KnotServer(tmp_path_factory.mktemp("knot")) as server:
        yield server


def pool_yaml(server: ServerProcess, target_type: str, options: Mapping[str, object],
              ns_port: int) -> str:
    """The default pool with one target of ``target_type`` whose nameserver is the real server."""
    option_lines = "".join(f"        {key}: {value!r}\n" for key, value in options.items())
    return f"""---
- name: default
  description: {target_type} test pool
  attributes: {{}}
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {ns_port}
  targets:
    - type: {target_type}
      description: real {target_type} server
      masters:
        - host: 127.0.0.1
          port: {server.mdns_port}
      options:
{option_lines}"""


def ask(port: int, name: str, rtype: str) -> dns.message.Message:
    """One UDP query to the real server under test."""
    return dns.query.udp(dns.message.make_query(name, rtype), "127.0.0.1", port=port, timeout=2)


def wait_status(client: httpx.Client, url: str, status: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body.get("status") == status:
            return body
        time.sleep(0.005)
    raise AssertionError(f"{url} never reached {status}: {body}")


def wait_gone(client: httpx.Client, url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while client.get(url).status_code != 404:
        assert time.monotonic() < deadline, f"{url} never went away"
        time.sleep(0.01)


def propagate_and_delete(server: ServerProcess, dns_port: int, zone_name: str) -> float:
    """Create a zone and an A recordset over HTTP, check the real server answers both, delete
    the zone and check the real server dropped it.  Returns seconds from zone POST to ACTIVE."""
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        started = time.monotonic()
        created = client.post("/v2/zones", json={"name": zone_name, "email": f"h@{zone_name[:-1]}",
                                                 "ttl": 300})
        assert created.status_code == 202, created.text
        zone_url = f"/v2/zones/{created.json()['id']}"
        active = wait_status(client, zone_url, "ACTIVE")
        took = time.monotonic() - started
        soa = ask(dns_port, zone_name, "SOA")
        assert soa.rcode() == dns.rcode.NOERROR and soa.answer[0][0].serial == active["serial"]

        rs = client.post(f"{zone_url}/recordsets", json={
            "name": f"www.{zone_name}", "type": "A", "records": ["192.0.2.10", "192.0.2.11"]})
        assert rs.status_code == 202, rs.text
        wait_status(client, f"{zone_url}/recordsets/{rs.json()['id']}", "ACTIVE")
        answer = ask(dns_port, f"www.{zone_name}", "A")
        assert sorted(r.address for r in answer.answer[0]) == ["192.0.2.10", "192.0.2.11"]

        assert client.delete(zone_url).status_code == 202
        wait_gone(client, zone_url)
        assert ask(dns_port, zone_name, "SOA").rcode() != dns.rcode.NOERROR
        return took


@pytest.fixture
def make_pool_yaml():
    """``make_pool_yaml(server, type, options, ns_port)``: pools.yaml text for ServerProcess."""
    return pool_yaml


@pytest.fixture
def propagate():
    """``propagate(server, dns_port, zone_name)``: the HTTP → real server round trip; seconds
    from zone POST to ACTIVE."""
    return propagate_and_delete
