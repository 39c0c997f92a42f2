"""dns.* notifications reach the real RabbitMQ in oslo.messaging's format."""

from __future__ import annotations

import json
import secrets
import tempfile
import time

import httpx
import kombu
import oslo_messaging
import pytest

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.central import pools
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import Database

pytestmark = pytest.mark.integration
BROKER = "amqp://guest:guest@127.0.0.1:5672//"


def drain(queue_name: str, wanted: int, timeout: float = 10.0) -> list[dict]:
    events = []
    deadline = time.monotonic() + timeout
    with kombu.Connection(BROKER) as connection:
        queue = connection.SimpleQueue(kombu.Queue(queue_name, no_declare=True))
        try:
            while len(events) < wanted and time.monotonic() < deadline:
                try:
                    message = queue.get(block=True, timeout=0.5)
                except queue.Empty:
                    continue
                body = message.payload
                if isinstance(body, (str, bytes)):
                    body = json.loads(body)
                events.append(json.loads(body["oslo.message"]) if "oslo.message" in body else body)
                message.ack()
        finally:
            queue.close()
    return events


async def test_zone_and_recordset_events(tmp_path):
    topic = f"okd_notify_{secrets.token_hex(4)}"
    conf = config.load([])
    conf.set_override("quota_zones", 100)
    url = f"sqlite:///{tempfile.mkdtemp()}/designate.sqlite"
    migrate.upgrade(url)
    db = Database(url)
    oslo_messaging.get_notification_transport(conf)  # registers its options on conf
    conf.set_override("transport_url", "rabbit://guest:guest@127.0.0.1:5672/")
    conf.set_override("driver", ["messagingv2"], group="oslo_messaging_notifications")
    conf.set_override("topics", [topic], group="oslo_messaging_notifications")
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    await pools.ensure_default_pool(svc)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(svc)),
                                 base_url="http://api.test") as client:
        zone = (await client.post("/v2/zones", json={"name": "events.example.",
                                                     "email": "h@events.example"},
                                  headers={"X-Auth-Project-ID": "p1"})).json()
        await client.post(f"/v2/zones/{zone['id']}/recordsets", json={
            "name": "www.events.example.", "type": "A", "records": ["192.0.2.1"]},
            headers={"X-Auth-Project-ID": "p1"})
    svc.notifier.close()
    await db.dispose()
    events = drain(f"{topic}.info", wanted=3)
    kinds = [e["event_type"] for e in events]
    assert kinds[:3] == ["dns.zone.create", "dns.domain.create", "dns.recordset.create"]
    assert events[0]["publisher_id"].startswith("central.")
    assert events[0]["priority"] == "INFO"
    assert events[0]["payload"]["name"] == "events.example."
    assert events[0]["payload"]["project_id"] == "p1"
    assert events[2]["payload"]["records"] == ["192.0.2.1"]
