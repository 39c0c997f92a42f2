"""``kill -9`` of one process of a split deployment (API and worker apart, on one PostgreSQL).

* The worker dies while it pushes a burst: its leases die with it, a new worker takes the
  zones over and every accepted change ends ACTIVE within the lease time plus a margin.
* The API dies in the middle of a large zone import and a burst of zone creations: whatever a
  restarted API shows is whole (each zone has its SOA and NS, an imported zone all its
  recordsets or none) and converges to ACTIVE; every 202 given before the kill is kept.

``test_crash_recovery.py`` covers a single all-roles process; these cover the split roles.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import dns.message
import dns.query
import httpx
import pytest
from faultkit import (
    WorkerProcess,
    api_only_server,
    assert_zone_whole,
    db_query,
    list_recordsets,
    server_db_url,
    wait_terminal,
)
from support.server import ServerProcess

pytestmark = pytest.mark.integration

LEASE_SECONDS = 5
MARGIN_SECONDS = 20  # a fresh process needs seconds to start on a busy 2-core CI machine
QUOTAS = {"quota_zones": 1000, "quota_zone_recordsets": 5000, "quota_zone_records": 5000}
OPTIONS = {"DEFAULT": QUOTAS, "service:worker": {"lease_seconds": LEASE_SECONDS}}


def _post_all(client: httpx.Client, requests: list[tuple[str, dict]], threads: int = 8) -> list:
    """POST concurrently (a burst, not a trickle); returns each response or transport error."""
    def post(item: tuple[str, dict]) -> httpx.Response | Exception:
        try:
            return client.post(item[0], json=item[1])
        except httpx.HTTPError as exc:
            return exc

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(post, requests))


def test_sigkill_worker_mid_push_then_a_new_worker_finishes() -> None:
    with api_only_server(OPTIONS) as api:
        worker = WorkerProcess(api).start()
        successor: WorkerProcess | None = None
        try:
            client = httpx.Client(base_url=api.api_url, headers=api.headers(), timeout=20)
            zones = [r.json() for r in _post_all(client, [
                ("/v2/zones", {"name": f"k{i}.killworker.example.", "email": "h@kw.example"})
                for i in range(5)])]
            assert not wait_terminal(client, [f"/v2/zones/{z['id']}" for z in zones], 30)

            burst = _post_all(client, [
                (f"/v2/zones/{zone['id']}/recordsets",
                 {"name": f"r{i}.{zone['name']}", "type": "A", "records": [f"192.0.2.{i + 1}"]})
                for zone in zones for i in range(10)])
            worker.kill()
            assert all(isinstance(r, httpx.Response) and r.status_code == 202 for r in burst), burst
            recordsets = [r.json() for r in burst]

            successor = WorkerProcess(api).start()
            urls = [f"/v2/zones/{rs['zone_id']}/recordsets/{rs['id']}" for rs in recordsets]
            urls += [f"/v2/zones/{z['id']}" for z in zones]
            not_active = wait_terminal(client, urls, LEASE_SECONDS + MARGIN_SECONDS)
            assert not not_active, f"not ACTIVE after the worker's death: {list(not_active)[:5]}"

            for rs in recordsets:
                query = dns.message.make_query(rs["name"], "A")
                answer = dns.query.udp(query, "127.0.0.1", port=api.ns_port, timeout=2)
                assert [a.address for a in answer.answer[0]] == rs["records"], rs["name"]
            _assert_one_record_each(api, [z["id"] for z in zones], expected=50)
            for zone in zones:
                assert_zone_whole(server_db_url(api), zone["id"], a_records=10)
        finally:
            worker.kill()
            if successor is not None:
                successor.stop()


def _assert_one_record_each(api: ServerProcess, zone_ids: list[str], expected: int) -> None:
    """No change applied twice: each A recordset has exactly its one record, ACTIVE."""
    assert api.database_url
    marks = ",".join("?" for _ in zone_ids)
    rows = db_query(api.database_url,
                    "SELECT rs.id, COUNT(r.id), MIN(r.status) FROM recordsets rs "
                    "JOIN records r ON r.recordset_id = rs.id "
                    f"WHERE rs.zone_id IN ({marks}) AND rs.type = 'A' GROUP BY rs.id",
                    tuple(zone_ids))
    assert len(rows) == expected
    assert all(count == 1 and status == "ACTIVE" for _, count, status in rows), rows[:5]
    leased = db_query(api.database_url,
                      f"SELECT COUNT(*) FROM zones WHERE id IN ({marks}) AND status <> 'ACTIVE'",
                      tuple(zone_ids))
    assert leased == [(0,)]


def _zonefile(name: str, count: int) -> str:
    lines = [f"$ORIGIN {name}", "$TTL 300",
             "@ IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300",
             "@ IN NS ns1.example.org."]
    lines += [f"h{i} IN A 198.51.{i // 250}.{i % 250 + 1}" for i in range(count)]
    return "\n".join(lines) + "\n"


IMPORT_RECORDS = 3000


def test_sigkill_api_mid_import_and_burst_leaves_nothing_half_written() -> None:
    with api_only_server(OPTIONS) as api:
        worker = WorkerProcess(api).start()
        try:
            client = httpx.Client(base_url=api.api_url, headers=api.headers(), timeout=20)
            imported = client.post("/v2/zones/tasks/imports",
                                   content=_zonefile("big.killapi.example.", IMPORT_RECORDS),
                                   headers={"Content-Type": "text/dns"})
            assert imported.status_code == 202
            with ThreadPoolExecutor(1) as pool:
                burst = pool.submit(_post_all, client, [
                    ("/v2/zones", {"name": f"z{i}.killapi.example.", "email": "h@ka.example"})
                    for i in range(40)], 4)
                time.sleep(0.4)
                api.kill()
                answers = burst.result(timeout=60)
            api.restart()
            client = httpx.Client(base_url=api.api_url, headers=api.headers(), timeout=20)

            accepted = {r.json()["name"] for r in answers
                        if isinstance(r, httpx.Response) and r.status_code == 202}
            assert all(isinstance(r, Exception) or r.status_code == 202 for r in answers), answers
            task = _wait_task(client, imported.json()["links"]["self"], 60)
            assert task["status"] == "COMPLETE", task

            zones = client.get("/v2/zones?limit=1000").json()["zones"]
            names = {z["name"] for z in zones}
            assert accepted <= names, f"accepted before the kill, gone after: {accepted - names}"
            assert "big.killapi.example." in names
            not_active = wait_terminal(client, [f"/v2/zones/{z['id']}" for z in zones], 60)
            assert not not_active, list(not_active.items())[:3]
            for zone in zones:
                types = [rs["type"] for rs in list_recordsets(client, zone["id"])]
                assert types.count("SOA") == 1 and types.count("NS") == 1, (zone["name"], types)
                big = zone["name"] == "big.killapi.example."
                assert_zone_whole(server_db_url(api), zone["id"], IMPORT_RECORDS if big else 0)
            hidden = db_query(server_db_url(api), "SELECT COUNT(*) FROM zones WHERE deleted = '0'")
            assert hidden == [(len(zones),)], "a zone in the database that the API does not show"
        finally:
            worker.stop()


def _wait_task(client: httpx.Client, url: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body.get("status") in ("COMPLETE", "ERROR"):
            return body
        time.sleep(0.2)
    return body
