"""The database unreachable: the webhook answers 503 (ExternalDNS retries it as a soft error on
its next sync) and ``/healthz`` 503, never a 4xx that would end ExternalDNS's run."""

from __future__ import annotations

import socket

import httpx

from openkeel_designate import config
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.externaldns.app import create_app, create_health_app
from openkeel_designate.storage.database import Database

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_unreachable_database_answers_503():
    conf = config.load([])
    conf.set_override("project_id", "p-xdns", group="service:externaldns")
    db = Database(f"postgresql://postgres@127.0.0.1:{closed_port()}/nothing", pool_timeout=2)
    services = Services(conf=conf, db=db, policy=Policy(conf))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)),
                                     base_url="http://webhook.test") as client:
            negotiated = await client.get("/", headers={"Accept": MEDIA_TYPE})
            listed = await client.get("/records", headers={"Accept": MEDIA_TYPE})
            applied = await client.post("/records", content=b'{"create":[{"dnsName":'
                                        b'"a.example.org","targets":["192.0.2.1"],'
                                        b'"recordType":"A"}]}\n',
                                        headers={"Content-Type": MEDIA_TYPE})
        async with httpx.AsyncClient(transport=httpx.ASGITransport(
                app=create_health_app(services)), base_url="http://health.test") as client:
            health = await client.get("/healthz")
    finally:
        await db.dispose()
    assert negotiated.status_code == 200 and negotiated.json() == {}  # needs no database
    for response in (listed, applied):
        assert response.status_code == 503, response.text
        body = response.json()
        assert (body["code"], body["type"]) == (503, "service_unavailable")
        assert response.headers["retry-after"]
    assert health.status_code == 503 and health.text.startswith("database: ")
