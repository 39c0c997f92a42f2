"""A floating IP's PTR set over HTTP is served by the built-in nameserver.

Real parts: the server process with its SQLite, worker, mdns and built-in nameserver; Neutron is
the HTTP double of ``support.neutron`` on a loopback port, asked by the server with our token.
"""

from __future__ import annotations

import time

import dns.message
import dns.query
import dns.rcode
import dns.reversename
import httpx
import pytest
from support.neutron import NeutronDouble
from support.server import ServerProcess

pytestmark = pytest.mark.integration


def ask_ptr(server: ServerProcess, address: str) -> dns.message.Message:
    query = dns.message.make_query(dns.reversename.from_address(address), "PTR")
    return dns.query.udp(query, "127.0.0.1", port=server.ns_port, timeout=2)


def wait_for(predicate, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"{what} never happened")


def test_floating_ip_ptr_resolves_and_goes_away() -> None:
    with NeutronDouble() as neutron:
        neutron.add_token("tok-e2e", "okd-test")
        fip = neutron.assign("okd-test", "192.0.2.10")
        options = {"network_api:neutron": {"endpoints": [f"RegionOne|{neutron.url}"]}}
        with ServerProcess(options=options) as server, httpx.Client(
                base_url=server.api_url, timeout=10,
                headers={**server.headers(roles="member,reader"),
                         "X-Auth-Token": "tok-e2e"}) as client:
            url = f"/v2/reverse/floatingips/RegionOne:{fip}"
            response = client.patch(url, json={"ptrdname": "web.example.org.", "ttl": 300})
            assert response.status_code == 202, response.text
            assert response.json()["status"] == "PENDING"

            wait_for(lambda: client.get(url).json()["status"] == "ACTIVE", "PTR ACTIVE")
            answer = ask_ptr(server, "192.0.2.10")
            assert answer.rcode() == dns.rcode.NOERROR
            assert [r.target.to_text() for r in answer.answer[0]] == ["web.example.org."]
            assert answer.answer[0].ttl == 300
            assert neutron.requests and all(r["token"] == "tok-e2e" for r in neutron.requests)

            unset = client.patch(url, json={"ptrdname": None})
            assert (unset.status_code, unset.text) == (202, "null")
            wait_for(lambda: ask_ptr(server, "192.0.2.10").rcode() == dns.rcode.NXDOMAIN,
                     "PTR removed from DNS")
