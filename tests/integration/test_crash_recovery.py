"""``kill -9`` at any moment loses nothing: every accepted change still ends ACTIVE.

The server is killed right after a burst of accepted writes, before the worker can have
finished them all; after a restart every zone and recordset must become ACTIVE and be served.
On SQLite and on PostgreSQL, where a recordset POST is one statement committed on its own
(``central.recordsets._create_unlocked``).
"""

from __future__ import annotations

import time

import dns.message
import dns.query
import httpx
import pytest

from support.server import ServerProcess

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_kill_during_burst_then_restart_converges(database: str) -> None:
    with ServerProcess(database=database) as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
        zones = []
        for i in range(10):
            response = client.post("/v2/zones", json={"name": f"crash{i}.example.",
                                                      "email": "h@crash.example"})
            assert response.status_code == 202
            zones.append(response.json())
        recordsets = []
        for zone in zones:
            response = client.post(f"/v2/zones/{zone['id']}/recordsets", json={
                "name": f"www.{zone['name']}", "type": "A", "records": ["192.0.2.7"]})
            assert response.status_code == 202
            recordsets.append(response.json())
        server.kill()
        server.restart()
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
        deadline = time.monotonic() + 60
        pending = {f"/v2/zones/{rs['zone_id']}/recordsets/{rs['id']}" for rs in recordsets}
        pending |= {f"/v2/zones/{z['id']}" for z in zones}
        while pending and time.monotonic() < deadline:
            pending = {url for url in pending if client.get(url).json()["status"] != "ACTIVE"}
            time.sleep(0.1)
        assert not pending, f"still not ACTIVE after restart: {sorted(pending)}"
        for zone in zones:
            query = dns.message.make_query(f"www.{zone['name']}", "A")
            answer = dns.query.udp(query, "127.0.0.1", port=server.ns_port, timeout=2)
            assert answer.answer and answer.answer[0][0].address == "192.0.2.7"
