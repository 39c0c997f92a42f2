"""A pool nameserver that is slow, then silent, then back.

The pool's only nameserver (and its NOTIFY target) is a proxy in front of the built-in
nameserver. Slow (300 ms per message): changes still become ACTIVE, only later. Silent: the zone
goes ERROR within ``poll_timeout`` with a reason naming the nameserver. Answering again: the
worker's retries make the zone and its records ACTIVE by themselves.

``test_nameserver_outage.py`` covers a nameserver whose port is closed (instant failure); this
covers the harder cases of an answer that comes late or never.
"""

from __future__ import annotations

import subprocess
import time

import dns.message
import dns.query
import httpx
import pytest
from dnsproxy import SlowDnsProxy
from faultkit import assert_zone_whole, server_db_url, wait_terminal
from support.server import ServerProcess, server_command

pytestmark = pytest.mark.integration

POLL_TIMEOUT = 3
DELAY = 0.3


def proxied_pool(proxy: SlowDnsProxy):
    """pools.yaml whose nameserver and NOTIFY target are the proxy, fed by the server's ports."""
    def render(server: ServerProcess) -> str:
        proxy.upstream_port = server.ns_port
        return f"""---
- name: default
  description: built-in nameserver behind a slow proxy
  attributes: {{}}
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {proxy.port}
  targets:
    - type: builtin
      description: built-in nameserver behind a slow proxy
      masters:
        - host: 127.0.0.1
          port: {server.mdns_port}
      options:
        host: 127.0.0.1
        port: {proxy.port}
"""
    return render


def test_slow_then_silent_nameserver() -> None:
    options = {"service:worker": {"poll_timeout": POLL_TIMEOUT}}
    with SlowDnsProxy(delay=DELAY) as proxy, \
            ServerProcess(options=options, pools=proxied_pool(proxy)) as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=20)

        started = time.monotonic()
        zone = client.post("/v2/zones", json={"name": "slow.example.", "email": "h@slow.example"}).json()
        zone_url = f"/v2/zones/{zone['id']}"
        assert not wait_terminal(client, [zone_url], 30), "a slow nameserver kept the zone PENDING"
        assert time.monotonic() - started >= 2 * DELAY  # NOTIFY and SOA poll both waited
        assert proxy.forwarded >= 2

        rs = client.post(f"{zone_url}/recordsets", json={
            "name": "www.slow.example.", "type": "A", "records": ["192.0.2.80"]}).json()
        assert not wait_terminal(client, [f"{zone_url}/recordsets/{rs['id']}"], 30)

        proxy.silent = True
        silent_rs = client.post(f"{zone_url}/recordsets", json={
            "name": "mute.slow.example.", "type": "A", "records": ["192.0.2.81"]}).json()
        silent_url = f"{zone_url}/recordsets/{silent_rs['id']}"
        assert not wait_terminal(client, [zone_url], POLL_TIMEOUT + 15, want=("ERROR",))
        assert client.get(silent_url).json()["status"] == "ERROR"
        report = subprocess.run(
            [*server_command(), "manage", "--config-file", str(server.config_path), "zone",
             "errors"], capture_output=True, text=True, timeout=60, check=False)
        assert "slow.example." in report.stdout, report.stdout + report.stderr
        assert f"127.0.0.1:{proxy.port}" in report.stdout, report.stdout

        proxy.silent = False
        assert not wait_terminal(client, [zone_url, silent_url], 45), "no recovery after silence"
        answer = dns.query.udp(dns.message.make_query("mute.slow.example.", "A"), "127.0.0.1",
                               port=server.ns_port, timeout=2)
        assert [a.address for a in answer.answer[0]] == ["192.0.2.81"]
        assert server.is_running()
        assert_zone_whole(server_db_url(server), zone["id"], a_records=2)


def test_silent_nameserver_fails_a_signed_zone_within_poll_timeout() -> None:
    """A signed zone may wait past ``poll_timeout`` (``[dnssec] confirm_timeout``, 600 s by
    default) only for nameservers that keep answering: a silent one still makes it ERROR
    within ``poll_timeout``, and the zone recovers when it answers again."""
    options = {"service:worker": {"poll_timeout": POLL_TIMEOUT}}
    with SlowDnsProxy(delay=0) as proxy, \
            ServerProcess(options=options, pools=proxied_pool(proxy)) as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=20)
        zone = client.post("/v2/zones", json={"name": "mute-signed.example.",
                                              "email": "h@mute-signed.example"}).json()
        zone_url = f"/v2/zones/{zone['id']}"
        assert not wait_terminal(client, [zone_url], 30)
        assert client.put(f"{zone_url}/dnssec", json={"enabled": True}).status_code == 202
        assert not wait_terminal(client, [zone_url, f"{zone_url}/dnssec"], 60)

        proxy.silent = True
        rs = client.post(f"{zone_url}/recordsets", json={
            "name": "www.mute-signed.example.", "type": "A", "records": ["192.0.2.82"]}).json()
        assert not wait_terminal(client, [zone_url], POLL_TIMEOUT + 15, want=("ERROR",))
        reason = subprocess.run(
            [*server_command(), "manage", "--config-file", str(server.config_path), "zone",
             "errors"], capture_output=True, text=True, timeout=60, check=False).stdout
        assert f"not confirmed within {POLL_TIMEOUT} s" in reason, reason

        proxy.silent = False
        assert not wait_terminal(client, [zone_url, f"{zone_url}/recordsets/{rs['id']}"], 45)
