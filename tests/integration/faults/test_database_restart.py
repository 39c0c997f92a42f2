"""The database goes away for a few seconds under write load, then comes back.

What an operator must get: while the database is down every write answers 503 with Designate's
JSON and ``Retry-After`` (never a 500, never a dropped connection); the API answers again by
itself once the database is back; and every write that was accepted (202) ends ACTIVE without
anyone restarting the server — no change lost, none applied twice.

The database is a private server of this test (``support.private_db``): the machine's shared
PostgreSQL and MariaDB are never restarted.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from faultkit import (
    WriteLoad,
    assert_zone_whole,
    db_query,
    list_recordsets,
    wait_api,
    wait_terminal,
)
from support.private_db import PrivateServer, missing_binaries, private_server
from support.server import ServerProcess

from openkeel_designate.storage import migrate

pytestmark = pytest.mark.integration

LOAD_SECONDS = 15.0
OUTAGE_AT = 4.0
OUTAGE_SECONDS = 3.0


@pytest.fixture(params=["postgresql", "mysql"])
def private_db(request: pytest.FixtureRequest) -> Iterator[PrivateServer]:
    missing = missing_binaries(request.param)
    if missing:
        pytest.skip(f"no private {request.param} server possible here: {missing} not installed")
    with private_server(request.param) as server:
        yield server


def test_writes_survive_a_database_restart(private_db: PrivateServer) -> None:
    url = private_db.create_database("okd")
    migrate.upgrade(url)  # in-process: a `manage database sync` process costs seconds on CI
    # a fast machine writes more than the default 500 recordsets per zone within the load
    quotas = {"DEFAULT": {"quota_zone_recordsets": 1_000_000, "quota_zone_records": 1_000_000}}
    with ServerProcess(database=url, options=quotas) as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=20)
        zone = client.post("/v2/zones", json={"name": "restart.example.",
                                              "email": "h@restart.example"}).json()
        assert not wait_terminal(client, [f"/v2/zones/{zone['id']}"], 30)

        load = WriteLoad(server.api_url, server.headers(), zone["id"], zone["name"],
                         duration=LOAD_SECONDS).start()
        time.sleep(OUTAGE_AT)
        before_outage = len(load.attempts)
        private_db.restart(downtime=OUTAGE_SECONDS)
        load.join()

        codes = load.codes()
        assert set(codes) <= {201, 202, 503}, f"unexpected answers: {codes}"
        assert codes[503] > 0, f"the outage was never observed by a client: {codes}"
        assert before_outage > 0 and load.attempts[-1].status in (201, 202), \
            f"writes did not resume after the restart: {codes}"
        for attempt in load.attempts:
            if attempt.status == 503:
                assert attempt.body["code"] == 503, attempt.body
                assert attempt.body["type"] == "service_unavailable", attempt.body
                assert attempt.body["_retry_after"], "503 without Retry-After"

        wait_api(client, 30)
        assert server.is_running()
        accepted = {a.name: a.body["id"] for a in load.accepted()}
        urls = [f"/v2/zones/{zone['id']}/recordsets/{rs_id}" for rs_id in accepted.values()]
        not_active = wait_terminal(client, urls, 60)
        assert not not_active, f"{len(not_active)} accepted recordsets never ACTIVE: " \
                               f"{list(not_active.items())[:3]}"
        assert not wait_terminal(client, [f"/v2/zones/{zone['id']}"], 30)

        _assert_accounted(client, url, zone, accepted, {a.name for a in load.attempts})


def _assert_accounted(client: httpx.Client, url: str, zone: dict, accepted: dict[str, str],
                      attempted: set[str]) -> None:
    """Every accepted write is stored once with its one record; anything else stored comes from
    a write whose answer was a 503 (committed just as the connection broke) and is ACTIVE too."""
    listed = [rs for rs in list_recordsets(client, zone["id"]) if rs["type"] == "A"]
    names = [rs["name"] for rs in listed]
    assert len(names) == len(set(names)), "a recordset was listed twice"
    assert set(accepted) <= set(names), f"accepted but lost: {sorted(set(accepted) - set(names))[:5]}"
    assert set(names) <= attempted, f"stored but never sent: {sorted(set(names) - attempted)[:5]}"
    assert all(rs["status"] == "ACTIVE" for rs in listed), \
        [rs for rs in listed if rs["status"] != "ACTIVE"][:3]
    for rs in listed:
        if rs["name"] in accepted:
            assert rs["id"] == accepted[rs["name"]]

    rows = db_query(url, "SELECT rs.name, COUNT(r.id), MIN(r.status), MAX(r.status) "
                         "FROM recordsets rs JOIN records r ON r.recordset_id = rs.id "
                         "WHERE rs.zone_id = ? AND rs.type = 'A' GROUP BY rs.name", (zone["id"],))
    assert sorted(row[0] for row in rows) == sorted(names)
    assert all(row[1] == 1 for row in rows), [row for row in rows if row[1] != 1][:5]
    assert all(row[2] == row[3] == "ACTIVE" for row in rows), \
        [row for row in rows if row[2] != "ACTIVE"][:5]
    assert_zone_whole(url, zone["id"], a_records=len(names))
