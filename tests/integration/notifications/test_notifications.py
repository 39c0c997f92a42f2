"""dns.* notifications reach the real RabbitMQ in oslo.messaging's format."""

from __future__ import annotations

import contextlib

import httpx
import oslo_messaging
import pytest

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.central import pools
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import Database
from openkeel_designate.worker import tasks
from support.broker import TRANSPORT_URL, drain, queue_exists
from support.databases import empty_database_url

pytestmark = pytest.mark.integration
P1 = {"X-Auth-Project-ID": "p1"}
ADMIN = {"X-Auth-Project-ID": "p1", "X-Roles": "admin"}
ZONEFILE = """$ORIGIN imported.example.
$TTL 3600
imported.example. IN SOA ns1.example.org. host.example.org. 1 7200 600 86400 3600
imported.example. IN NS ns1.example.org.
www IN A 192.0.2.10
"""


@contextlib.asynccontextmanager
async def notifying_api(topic: str, **defaults):
    """The API in-process over a fresh SQLite, sending dns.* events to ``topic`` on RabbitMQ;
    yields the client and the zone-task runner."""
    conf = config.load([])
    conf.set_override("quota_zones", 100)
    for name, value in defaults.items():
        conf.set_override(name, value)
    with empty_database_url("sqlite", prefix="okd-notify-") as url:
        async with _serving(conf, url, topic) as served:
            yield served


@contextlib.asynccontextmanager
async def _serving(conf, url: str, topic: str):
    """``notifying_api`` on the database at ``url``, which the caller removes after."""
    migrate.upgrade(url)
    db = Database(url)
    oslo_messaging.get_notification_transport(conf)  # registers its options on conf
    conf.set_override("transport_url", TRANSPORT_URL)
    conf.set_override("driver", ["messagingv2"], group="oslo_messaging_notifications")
    conf.set_override("topics", [topic], group="oslo_messaging_notifications")
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    task_runner = tasks.attach(svc)
    await pools.ensure_default_pool(svc)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(svc)),
                                     base_url="http://api.test") as client:
            yield client, task_runner
            await task_runner.drain()
    finally:
        svc.notifier.close()
        await db.dispose()


async def test_zone_and_recordset_events(topic):
    async with notifying_api(topic) as (client, _tasks):
        zone = (await client.post("/v2/zones", json={"name": "events.example.",
                                                     "email": "h@events.example"},
                                  headers=P1)).json()
        await client.post(f"/v2/zones/{zone['id']}/recordsets", json={
            "name": "www.events.example.", "type": "A", "records": ["192.0.2.1"]},
            headers=P1)
    events = drain(f"{topic}.info", wanted=3)
    kinds = [e["event_type"] for e in events]
    assert kinds[:3] == ["dns.zone.create", "dns.domain.create", "dns.recordset.create"]
    assert events[0]["publisher_id"].startswith("central.")
    assert events[0]["priority"] == "INFO"
    assert events[0]["payload"]["name"] == "events.example."
    assert events[0]["payload"]["project_id"] == "p1"
    assert events[2]["payload"]["records"] == ["192.0.2.1"]


async def test_events_of_operations_that_answer_no_content(topic):
    """Deletes and task results are announced with the object they removed or finished."""
    async with notifying_api(topic) as (client, task_runner):
        zone = (await client.post("/v2/zones", json={"name": "nocontent.example.",
                                                     "email": "h@nocontent.example"},
                                  headers=P1)).json()
        share = (await client.post(f"/v2/zones/{zone['id']}/shares",
                                   json={"target_project_id": "p2"}, headers=P1)).json()
        gone = await client.delete(f"/v2/zones/{zone['id']}/shares/{share['id']}", headers=P1)
        assert gone.status_code == 204
        request = (await client.post(f"/v2/zones/{zone['id']}/tasks/transfer_requests",
                                     json={}, headers=P1)).json()
        gone = await client.delete(f"/v2/zones/tasks/transfer_requests/{request['id']}",
                                   headers=P1)
        assert gone.status_code == 204
        export = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=P1)).json()
        await task_runner.drain()
        assert (await client.delete(f"/v2/zones/tasks/exports/{export['id']}",
                                    headers=P1)).status_code == 204
        imported = (await client.post("/v2/zones/tasks/imports", content=ZONEFILE.encode(),
                                      headers={**P1, "Content-Type": "text/dns"})).json()
        await task_runner.drain()
        assert (await client.delete(f"/v2/zones/tasks/imports/{imported['id']}",
                                    headers=P1)).status_code == 204
        pool = (await client.post("/v2/pools", headers=ADMIN, json={
            "name": "spare", "ns_records": [{"hostname": "ns2.example.net.", "priority": 1}]})
        ).json()
        assert (await client.delete(f"/v2/pools/{pool['id']}", headers=ADMIN)).status_code == 204
        abandoned = await client.post(f"/v2/zones/{zone['id']}/tasks/abandon", headers=ADMIN)
        assert abandoned.status_code == 204
    events = drain(f"{topic}.info", wanted=18)
    by_kind = {}
    for event in events:
        by_kind.setdefault(event["event_type"], []).append(event["payload"])
    assert by_kind["dns.zone.unshare"][0]["id"] == share["id"]
    assert by_kind["dns.zone.unshare"][0]["target_project_id"] == "p2"
    assert by_kind["dns.zone_transfer_request.delete"][0]["id"] == request["id"]
    assert by_kind["dns.zone_export.update"][0]["status"] == "COMPLETE"
    assert by_kind["dns.zone_export.delete"][0]["id"] == export["id"]
    assert by_kind["dns.zone_import.update"][0]["status"] == "COMPLETE", by_kind["dns.zone_import.update"][0]["message"]
    assert by_kind["dns.zone_import.delete"][0]["id"] == imported["id"]
    assert [z["name"] for z in by_kind["dns.zone.create"]] == ["nocontent.example.",
                                                              "imported.example."]
    assert [z["name"] for z in by_kind["dns.domain.create"]] == ["nocontent.example.",
                                                                "imported.example."]
    assert by_kind["dns.pool.delete"][0]["id"] == pool["id"]
    for kind in ("dns.zone.delete", "dns.domain.delete"):
        assert by_kind[kind][0]["id"] == zone["id"]
        assert by_kind[kind][0]["status"] == "DELETED"


async def test_pool_move_is_a_zone_update(topic):
    async with notifying_api(topic) as (client, _tasks):
        pool = (await client.post("/v2/pools", headers=ADMIN, json={
            "name": "second", "ns_records": [{"hostname": "ns2.example.net.", "priority": 1}]})
        ).json()
        key = await client.post("/v2/tsigkeys", headers=ADMIN, json={
            "name": "second-pool", "algorithm": "hmac-sha256", "secret": "c2VjcmV0",
            "scope": "POOL", "resource_id": pool["id"]})
        assert key.status_code == 201, key.text
        zone = (await client.post("/v2/zones", json={"name": "moving.example.",
                                                     "email": "h@moving.example"},
                                  headers=P1)).json()
        moved = await client.post(f"/v2/zones/{zone['id']}/tasks/pool_move", headers=ADMIN,
                                  json={"pool_id": pool["id"]})
        assert moved.status_code == 202, moved.text
    events = drain(f"{topic}.info", wanted=6)
    updates = [e for e in events if e["event_type"] in ("dns.zone.update", "dns.domain.update")]
    assert [e["event_type"] for e in updates] == ["dns.zone.update", "dns.domain.update"]
    assert updates[0]["payload"]["pool_id"] == pool["id"]
    assert updates[0]["payload"]["status"] == "PENDING"


async def test_api_faults_are_announced_when_asked(topic):
    missing = "0f0e0d0c-0b0a-4908-8706-050403020100"
    async with notifying_api(topic, notify_api_faults=True) as (client, _tasks):
        response = await client.get(f"/v2/zones/{missing}", headers=P1)
        assert response.status_code == 404
    events = drain(f"{topic}.error", wanted=1)
    assert len(events) == 1
    fault = events[0]
    assert fault["event_type"] == "dns.api.fault" and fault["priority"] == "ERROR"
    assert fault["publisher_id"].startswith("api.")
    assert fault["payload"] == {"url": f"http://api.test/v2/zones/{missing}",
                                "exception": "Could not find Zone", "status": 404}


async def test_api_faults_stay_quiet_by_default(topic):
    async with notifying_api(topic) as (client, _tasks):
        response = await client.get("/v2/zones/0f0e0d0c-0b0a-4908-8706-050403020100",
                                    headers=P1)
        assert response.status_code == 404
        created = await client.post("/v2/zones", json={"name": "quiet.example.",
                                                       "email": "h@quiet.example"}, headers=P1)
        assert created.status_code == 202
    assert not queue_exists(f"{topic}.error")  # oslo.messaging declares it on first send
    assert [e["event_type"] for e in drain(f"{topic}.info", wanted=2)] == [
        "dns.zone.create", "dns.domain.create"]
