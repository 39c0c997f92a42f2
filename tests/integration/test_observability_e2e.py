"""What an operator scrapes from a real ``serve``: metrics of a write that propagated, DNS
counters of mdns and the built-in nameserver, the probes of every role, JSON request logs.

One server for the module (a few seconds), one worker-only process for the probes of a role
without API.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from support.server import ServerProcess, server_command

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server():
    with ServerProcess(options={"DEFAULT": {"use_json": True}}, wait_dns=True) as srv:
        yield srv


def scrape(srv: ServerProcess) -> dict[tuple[str, frozenset], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{srv.metrics_port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples, name: str, **labels: str) -> float:
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def wait_active(srv: ServerProcess, zone_id: str, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        zone = httpx.get(f"{srv.api_url}/v2/zones/{zone_id}", headers=srv.headers()).json()
        if zone["status"] == "ACTIVE" or time.monotonic() > deadline:
            return zone
        time.sleep(0.05)


def create_zone(srv: ServerProcess, name: str) -> dict:
    response = httpx.post(f"{srv.api_url}/v2/zones", headers=srv.headers(),
                          json={"name": name, "email": "admin@example.org"})
    assert response.status_code == 202, response.text
    return response.json()


def test_a_propagated_write_shows_in_the_metrics(server):
    before = scrape(server)
    zone = create_zone(server, "metrics-e2e.example.org.")
    assert wait_active(server, zone["id"])["status"] == "ACTIVE"
    after = scrape(server)
    observed = value(after, "designate_propagation_seconds_count", action="CREATE")
    assert observed == value(before, "designate_propagation_seconds_count", action="CREATE") + 1
    assert 0 < value(after, "designate_propagation_seconds_sum", action="CREATE") < 20
    assert value(after, "designate_zones", status="ACTIVE") >= 1
    assert value(after, "designate_worker_pending_zones") == 0
    assert value(after, "designate_worker_oldest_pending_seconds") == 0
    # the worker polled the built-in nameserver, which transferred the zone from mdns
    assert value(after, "designate_dns_queries_total", server="nameserver", qtype="SOA") >= 1
    assert value(after, "designate_dns_transfers_total", server="mdns") >= 1
    assert value(after, "designate_dns_transfer_bytes_total", server="mdns") > 0
    assert value(after, "designate_api_requests_total", method="POST", route="/v2/zones",
                 status="202") >= 1
    assert value(after, "designate_db_pool_connections", state="checked_out") >= 0
    assert ("designate_event_loop_lag_seconds", frozenset()) in after
    assert not any(zone["id"] in dict(labels).values() or "metrics-e2e" in str(labels)
                   for _, labels in after)


def test_probes_and_json_request_log(server):
    base = f"http://127.0.0.1:{server.metrics_port}"
    for path in ("/livez", "/readyz"):
        with urllib.request.urlopen(base + path, timeout=10) as response:
            assert response.status == 200
    answer = httpx.get(f"{server.api_url}/healthcheck")
    assert (answer.status_code, answer.text) == (200, "OK")
    request_id = answer.headers["x-openstack-request-id"]
    deadline = time.monotonic() + 5
    while request_id not in server.log_path.read_text():
        assert time.monotonic() < deadline, "request line not logged"
        time.sleep(0.05)
    lines = [json.loads(line) for line in server.log_path.read_text().splitlines()
             if request_id in line]
    assert lines[0]["context"]["request_id"] == request_id
    assert "status: 200" in lines[0]["message"]


def test_a_worker_only_process_has_its_own_probes():
    with ServerProcess(roles="worker") as worker:
        base = f"http://127.0.0.1:{worker.metrics_port}"
        with urllib.request.urlopen(base + "/readyz", timeout=10) as response:
            assert response.status == 200 and b"[+]database ok" in response.read()
        samples = scrape(worker)
        assert value(samples, "designate_up", roles="worker") == 1


def test_propagation_and_history_of_a_served_zone(server):
    zone = create_zone(server, "served-e2e.example.org.")
    active = wait_active(server, zone["id"])
    assert active["status"] == "ACTIVE"
    response = httpx.post(f"{server.api_url}/v2/zones/{zone['id']}/recordsets",
                          headers=server.headers(),
                          json={"name": "www.served-e2e.example.org.", "type": "A",
                                "records": ["192.0.2.7"]})
    assert response.status_code == 202, response.text
    active = wait_active(server, zone["id"])
    body = httpx.get(f"{server.api_url}/v2/zones/{zone['id']}/propagation",
                     headers=server.headers()).json()
    assert body["served_by"] == "all" and body["wanted_serial"] == active["serial"]
    [nameserver] = body["nameservers"]
    assert (nameserver["port"], nameserver["status"]) == (server.ns_port, "IN_SYNC")
    assert nameserver["serial"] == active["serial"] and nameserver["since"]
    assert [t["status"] for t in body["targets"]] == ["OK"]
    assert body["targets"][0]["type"] == "builtin"
    history = httpx.get(f"{server.api_url}/v2/zones/{zone['id']}/history",
                        headers=server.headers()).json()
    newest = history["changes"][0]
    assert newest["serial"] == active["serial"]
    assert {"name": "www.served-e2e.example.org.", "type": "A", "ttl": 3600,
            "data": "192.0.2.7"} in newest["added"]


def test_manage_zone_status_prints_openstack_tables(server):
    zone = create_zone(server, "status-e2e.example.org.")
    assert wait_active(server, zone["id"])["status"] == "ACTIVE"
    done = subprocess.run([*server_command(), "manage", "--config-file",
                           str(server.config_path), "zone", "status", "Status-E2E.example.org"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("+-") and "| Field " in lines[1]
    assert any(line.startswith(f"| 127.0.0.1 | {server.ns_port} ") and "IN_SYNC" in line
               for line in lines), done.stdout
    assert any("| served_by " in line and "all" in line for line in lines)
