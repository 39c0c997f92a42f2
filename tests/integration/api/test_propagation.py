"""``/v2/zones/{id}/propagation`` and ``/history`` in-process: visibility, the refresh of stale
answers (here, a nameserver that does not answer), and the rules that classify an answer.
The end-to-end test (tests/integration/test_observability_e2e.py) sees IN_SYNC on a real server."""

from __future__ import annotations

import dns.rcode
import pytest

from openkeel_designate.central.propagation import nameserver_status
from openkeel_designate.dnswire.client import SoaResult, SoaStatus
from support.server import free_port


@pytest.fixture(params=["sqlite"])
def database_url(request, tmp_path):
    from openkeel_designate.storage import migrate

    url = f"sqlite:///{tmp_path / 'propagation.sqlite'}"
    migrate.upgrade(url)
    return url


@pytest.fixture
def conf(conf):
    conf.set_override("listen", [f"127.0.0.1:{free_port(dns=True)}"], "service:nameserver")
    conf.set_override("dns_timeout", 0.3, "service:worker")
    return conf


OWNER = {"X-Auth-Project-ID": "owner", "X-Roles": "member,reader"}


async def test_unanswered_nameserver_is_unreachable_and_other_projects_get_404(client):
    created = await client.post("/v2/zones", headers=OWNER,
                                json={"name": "prop.example.org.", "email": "a@example.org"})
    zone = created.json()
    response = await client.get(f"/v2/zones/{zone['id']}/propagation", headers=OWNER)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["wanted_serial"] == zone["serial"] and body["status"] == "PENDING"
    assert body["served_by"] == "none" and body["pending_since"]
    [server] = body["nameservers"]
    assert server["status"] == "UNREACHABLE" and server["serial"] is None
    assert server["last_error"] and server["since"] and server["checked_at"]
    assert body["targets"] == []
    again = (await client.get(f"/v2/zones/{zone['id']}/propagation", headers=OWNER)).json()
    assert again["nameservers"][0]["checked_at"] == server["checked_at"]  # within the bound
    other = {"X-Auth-Project-ID": "other", "X-Roles": "member,reader"}
    for path in ("propagation", "history"):
        denied = await client.get(f"/v2/zones/{zone['id']}/{path}", headers=other)
        assert denied.status_code == 404 and denied.json()["type"] == "zone_not_found"
    bad = await client.get("/v2/zones/not-a-uuid/propagation", headers=OWNER)
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_uuid"


async def test_history_of_a_zone_without_served_changes_is_empty(client):
    zone = (await client.post("/v2/zones", headers=OWNER,
                              json={"name": "hist.example.org.", "email": "a@example.org"}))
    body = (await client.get(f"/v2/zones/{zone.json()['id']}/history", headers=OWNER)).json()
    assert body["changes"] == [] and body["zone_name"] == "hist.example.org."


def test_nameserver_status_rules():
    served = SoaResult(SoaStatus.SUCCESS, serial=10)
    assert nameserver_status(served, 10, delete=False) == ("IN_SYNC", None)
    assert nameserver_status(served, 11, delete=False) == (
        "BEHIND", "serves serial 10, wanted 11")
    assert nameserver_status(SoaResult(SoaStatus.NO_ZONE, rcode=dns.rcode.REFUSED), 5,
                             delete=False) == ("BEHIND", "has no such zone")
    assert nameserver_status(SoaResult(SoaStatus.NO_ZONE), 5, delete=True) == ("IN_SYNC", None)
    assert nameserver_status(served, 5, delete=True)[0] == "BEHIND"
    assert nameserver_status(SoaResult(SoaStatus.ERROR), 5, delete=False)[0] == "UNREACHABLE"
    # RFC 1982: a serial that wrapped past 2**32 is newer
    assert nameserver_status(SoaResult(SoaStatus.SUCCESS, serial=3), 2**32 - 5,
                             delete=False)[0] == "IN_SYNC"


async def test_operators_name_zones_in_any_case(services, client):
    from openkeel_designate.central.propagation import resolve_zone
    from openkeel_designate.domain import errors
    from openkeel_designate.zone_status import render

    zone = (await client.post("/v2/zones", headers=OWNER,
                              json={"name": "named.example.org.", "email": "a@example.org"}))
    zone_id = zone.json()["id"]
    assert await resolve_zone(services, "Named.Example.ORG") == zone_id
    assert await resolve_zone(services, zone_id) == zone_id
    with pytest.raises(errors.ZoneNotFound):
        await resolve_zone(services, "nowhere.example.")
    view = (await client.get(f"/v2/zones/{zone_id}/propagation", headers=OWNER)).json()
    text = render(view).splitlines()
    assert text[0] == text[2] and text[0].startswith("+-") and text[1].startswith("| Field ")
    assert any(line.startswith("| 127.0.0.1 ") and "| UNREACHABLE |" in line for line in text)


async def test_backlog_gauges_count_unserved_writes(services, client):
    from openkeel_designate.central.health import refresh_gauges
    from openkeel_designate.observability import metrics

    await client.post("/v2/zones", headers=OWNER,
                      json={"name": "backlog.example.org.", "email": "a@example.org"})
    await refresh_gauges(services.db)
    sample = metrics.REGISTRY.get_sample_value
    assert sample("designate_worker_pending_zones") == 1  # no worker runs in these tests
    assert sample("designate_zones", {"status": "PENDING"}) == 1
    assert sample("designate_zones", {"status": "ACTIVE"}) == 0
    assert 0 < sample("designate_worker_oldest_pending_seconds") < 60
    assert sample("designate_db_pool_connections", {"state": "checked_out"}) == 0
    # the zone create ran plain (or, on MariaDB, in a session from the start): nothing rerun
    assert sample("designate_db_plain_transactions_rerun") == 0
    services.db.plain_declined = 2
    await refresh_gauges(services.db)
    assert sample("designate_db_plain_transactions_rerun") == 2
