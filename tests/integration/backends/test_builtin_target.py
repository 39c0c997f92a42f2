"""A pools.yaml ``builtin`` target without options means this configuration's own nameserver
(issue 10): before, it NOTIFYed 127.0.0.1:53 and the zone never reached the nameserver."""

from __future__ import annotations

import time

import dns.message
import dns.query
import httpx
import pytest

from openkeel_designate.backends.builtin import target_options
from openkeel_designate.config import load
from support.server import ServerProcess

pytestmark = pytest.mark.integration


def conf_listening_on(listen: str):
    conf = load([])
    conf.set_override("listen", [listen], "service:nameserver")
    return conf


@pytest.mark.parametrize(("listen", "expected"), [
    ("127.0.0.2:5399", {"host": "127.0.0.2", "port": 5399}),
    ("0.0.0.0:5301", {"host": "127.0.0.1", "port": 5301}),
    ("[::]:5302", {"host": "::1", "port": 5302}),
])
def test_missing_options_come_from_the_nameserver_listen(listen, expected) -> None:
    conf = conf_listening_on(listen)
    assert target_options({}, conf) == expected
    assert target_options({"port": 53}, conf) == {**expected, "port": 53}  # given wins
    given = {"host": "192.0.2.1", "port": 53, "timeout": 3}
    assert target_options(given, conf) == given


def pool_without_options(server: ServerProcess) -> str:
    return f"""---
- name: default
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {server.ns_port}
  targets:
    - type: builtin
      masters:
        - host: 127.0.0.1
          port: {server.mdns_port}
"""


def test_builtin_target_without_options_reaches_our_nameserver() -> None:
    with ServerProcess(pools=pool_without_options,
                       options={"service:worker": {"poll_timeout": 10}}) as server, \
            httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as http:
        zone = http.post("/v2/zones", json={"name": "plain-builtin.example.",
                                             "email": "h@plain-builtin.example"}).json()
        deadline = time.monotonic() + 10
        while (body := http.get(f"/v2/zones/{zone['id']}").json())["status"] != "ACTIVE":
            assert body["status"] == "PENDING" and time.monotonic() < deadline, body
            time.sleep(0.05)
        soa = dns.query.udp(dns.message.make_query("plain-builtin.example.", "SOA"),
                            "127.0.0.1", port=server.ns_port, timeout=2)
        assert soa.answer[0][0].serial == body["serial"]
