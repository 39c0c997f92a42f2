"""A database that cannot be reached gives 503 in Designate's format, never a 500."""

from __future__ import annotations

import socket

import httpx

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage.database import Database


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_unreachable_database_answers_503(tmp_path):
    conf = config.load([])
    db = Database(f"postgresql://postgres@127.0.0.1:{closed_port()}/nothing", pool_timeout=2)
    app = create_app(Services(conf=conf, db=db, policy=Policy(conf)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as client:
        listing = await client.get("/v2/zones")
        one = await client.get("/v2/zones/4b4a4e4e-8a0c-4b2c-9d1e-5f6a7b8c9d0e")
        created = await client.post("/v2/zones", json={"name": "a.example.", "email": "a@b.c"})
    await db.dispose()
    for response in (listing, one, created):
        assert response.status_code == 503
        body = response.json()
        assert body["type"] == "service_unavailable" and body["code"] == 503
        assert response.headers["retry-after"]
