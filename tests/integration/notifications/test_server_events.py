"""Events that only a running server emits: the worker's status changes and the producer's
periodic ``exists`` audit, received from the real RabbitMQ."""

from __future__ import annotations

import time

import httpx
import pytest

from support.broker import TRANSPORT_URL, drain
from support.server import ServerProcess

pytestmark = pytest.mark.integration


def wait_for(what: str, check, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_worker_announces_status_and_producer_audits_zones(topic: str) -> None:
    options = {
        "DEFAULT": {"transport_url": TRANSPORT_URL},
        "oslo_messaging_notifications": {"driver": ["messagingv2"], "topics": [topic]},
        "producer_task:periodic_exists": {"interval": 2, "per_page": 1},
    }
    with ServerProcess(options=options) as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        ids = []
        for name in ("audit-one.example.", "audit-two.example."):
            response = client.post("/v2/zones", json={"name": name, "email": "h@audit.example"})
            assert response.status_code == 202, response.text
            ids.append(response.json()["id"])
        for zone_id in ids:
            wait_for("zone ACTIVE", lambda: client.get(f"/v2/zones/{zone_id}").json()[
                "status"] == "ACTIVE")
        time.sleep(2.5)  # one audit interval with both zones live
        assert client.delete(f"/v2/zones/{ids[1]}").status_code == 202
        wait_for("zone deleted", lambda: client.get(f"/v2/zones/{ids[1]}").status_code == 404)
        events = drain(f"{topic}.info", wanted=40, timeout=8.0)

    updates = [(e["payload"]["id"], e["payload"]["status"], e["payload"]["action"])
               for e in events if e["event_type"] == "dns.zone.update"
               and e["publisher_id"].startswith("central.")]
    assert (ids[0], "ACTIVE", "NONE") in updates
    assert (ids[1], "DELETED", "NONE") in updates
    domain_updates = [e for e in events if e["event_type"] == "dns.domain.update"]
    assert len(domain_updates) == len(updates)

    exists = [e for e in events if e["event_type"] == "dns.zone.exists"]
    assert exists, [e["event_type"] for e in events]
    assert all(e["publisher_id"].startswith("producer.") for e in exists)
    runs: dict[str, set[str]] = {}
    for event in exists:
        payload = event["payload"]
        runs.setdefault(payload["audit_period_ending"], set()).add(payload["id"])
    # per_page = 1: a run that saw both zones walked past its first page.
    assert any(set(ids) <= audited for audited in runs.values()), runs
    first = exists[0]["payload"]
    assert first["audit_period_beginning"] < first["audit_period_ending"]
    assert {"name", "email", "serial", "pool_id", "attributes"} <= set(first)
    assert len([e for e in events if e["event_type"] == "dns.domain.exists"]) == len(exists)
