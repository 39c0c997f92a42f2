"""A zone file imported over HTTP is served by the built-in nameserver, also when the server
was down while the import waited (the PENDING task row is resumed at start-up).
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime

import httpx
import pytest
import sqlalchemy as sa

from openkeel_designate.storage.database import sync_url
from support.server import ServerProcess, builtin_pool
from support.zone_invariants import assert_zone_valid
from test_end_to_end import ask, wait_status

pytestmark = pytest.mark.integration

ZONEFILE = """$ORIGIN {name}
$TTL 300
@ IN SOA ns1.example.org. hostmaster.example.org. 2024010101 3600 600 86400 300
@ IN NS ns1.example.org.
www IN A 192.0.2.10
@ IN MX 10 mail
"""


def check_served(server: ServerProcess, client: httpx.Client, task_url: str, name: str) -> None:
    task = wait_status(client, task_url, "COMPLETE")
    assert task["message"] == f"{name} imported"
    wait_status(client, f"/v2/zones/{task['zone_id']}", "ACTIVE")
    assert_zone_valid(client, task["zone_id"], server.mdns_port)
    assert [r.address for r in ask(server, f"www.{name}", "A").answer[0]] == ["192.0.2.10"]
    assert ask(server, name, "MX").answer[0][0].exchange.to_text() == f"mail.{name}"


def test_imported_zone_resolves() -> None:
    with ServerProcess() as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        name = "imported.e2e.example."
        response = client.post("/v2/zones/tasks/imports", content=ZONEFILE.format(name=name),
                               headers={"Content-Type": "text/dns"})
        assert response.status_code == 202
        check_served(server, client, response.json()["links"]["self"], name)


def test_import_pending_across_a_restart_is_resumed() -> None:
    with ServerProcess(database="postgresql", pools=builtin_pool) as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        server.terminate()
        name = "resumed.e2e.example."
        task_id = str(uuid.uuid4())
        payload = {"zonefile": ZONEFILE.format(name=name), "attributes": {},
                   "context": {"user_id": "u", "project_id": server.project, "roles": ["admin"]}}
        engine = sa.create_engine(sync_url(server.database_url))
        with engine.begin() as connection:
            connection.execute(sa.text(
                "INSERT INTO zone_tasks (id, version, tenant_id, task_type, status, payload, "
                "created_at) VALUES (:id, 1, :tenant, 'IMPORT', 'PENDING', :payload, :now)"),
                {"id": task_id, "tenant": server.project, "payload": json.dumps(payload),
                 "now": datetime.utcnow()})
        engine.dispose()
        server.restart()
        started = time.monotonic()
        check_served(server, client, f"/v2/zones/tasks/imports/{task_id}", name)
        assert time.monotonic() - started < 20
