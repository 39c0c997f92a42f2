"""A zone's changes (extension): ``GET /v2/zones/{zone_id}/changes`` as a list and as a feed
(``since_serial``), the status of a change per nameserver, and the cleanup of old batches."""

from __future__ import annotations

import pytest

from conftest import project
from openkeel_designate.storage import changes as change_store
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage import workqueue
from openkeel_designate.storage.models import Zone

A = project("proj-feed")
B = project("proj-feed-other")
HOST = "http://api.test"


async def _claim(services) -> list:
    return await workqueue.claim(services.db, "test", 60, 10)


async def _seen(services, zone_id: str, serial: int) -> None:
    """What the worker records after a push: every pool nameserver seen serving ``serial``."""
    async with services.db.read() as session:
        zone = await session.get(Zone, zone_id)
        detail = await pool_store.detail(session, zone.pool_id)
    assert detail.nameservers, "the default pool has nameservers"
    seen = [propagation_store.Seen(propagation_store.NAMESERVER, ns.host, ns.port, "IN_SYNC",
                                   serial) for ns in detail.nameservers]
    await services.db.transaction(lambda s: propagation_store.record(s, zone_id, seen))


async def _serve(services) -> list:
    """The worker's whole push: claim (new serial), complete, record what it saw."""
    claimed = await _claim(services)
    for zone in claimed:
        assert await workqueue.complete(services.db, zone, "test", zone.serial)
        await _seen(services, zone.id, zone.serial)
    return claimed


@pytest.fixture
async def zone_id(client, services) -> str:
    response = await client.post("/v2/zones", json={"name": "feed.example.",
                                                    "email": "h@feed.example"}, headers=A)
    await _serve(services)
    return response.json()["id"]


def change(action, name, rtype="A", **extra):
    return {"action": action, "name": name, "type": rtype, **extra}


async def batch(client, zone_id, *changes) -> dict:
    response = await client.post(f"/v2/zones/{zone_id}/changes",
                                 json={"changes": list(changes)}, headers=A)
    assert response.status_code == 202, response.json()
    return response.json()


async def show(client, body: dict, headers=A) -> dict:
    return (await client.get(body["links"]["self"].replace(HOST, ""), headers=headers)).json()


async def listing(client, zone_id, query="", headers=A):
    return await client.get(f"/v2/zones/{zone_id}/changes{query}", headers=headers)


async def test_a_served_batch_stays_active_while_a_later_write_is_pending_or_failed(
        client, services, zone_id):
    first = await batch(client, zone_id, change("CREATE", "a.feed.example.",
                                                records=["192.0.2.1"]))
    served = await _serve(services)
    assert (await show(client, first))["status"] == "ACTIVE"
    assert (await show(client, first))["serial"] == served[0].serial
    second = await batch(client, zone_id, change("CREATE", "b.feed.example.",
                                                 records=["192.0.2.2"]))
    assert (await show(client, first))["status"] == "ACTIVE"  # the zone is PENDING now
    assert (await show(client, second))["status"] == "PENDING"
    claimed = await _claim(services)
    assert await workqueue.fail(services.db, claimed[0], "test", "ns1 refused", 60)
    zone = (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()
    assert zone["status"] == "ERROR"
    assert (await show(client, first))["status"] == "ACTIVE"
    failed = await show(client, second)
    assert (failed["status"], failed["message"], failed["serial"]) == (
        "ERROR", "ns1 refused", claimed[0].serial)


async def test_a_nameserver_behind_keeps_the_batch_pending(client, services, zone_id):
    body = await batch(client, zone_id, change("CREATE", "a.feed.example.",
                                               records=["192.0.2.1"]))
    claimed = await _claim(services)
    await _seen(services, zone_id, claimed[0].serial - 1)
    assert (await show(client, body))["status"] == "PENDING"
    await _seen(services, zone_id, claimed[0].serial)
    assert (await show(client, body))["status"] == "ACTIVE"  # before the push completes


async def test_an_invalid_batch_carries_designates_message_and_every_error(client, zone_id):
    response = await client.post(f"/v2/zones/{zone_id}/changes", json={"changes": [
        change("CREATE", "a.feed.example.", records=["nope"]), {"action": "RENAME"}]},
        headers=A)
    body = response.json()
    assert response.status_code == 400
    assert (body["type"], body["message"]) == ("invalid_object",
                                               "Provided object does not match schema")
    assert [e["path"][:2] for e in body["errors"]["errors"]][:1] == [["changes", 1]]
    assert body["request_id"]


async def test_every_route_appears_newest_first_with_serials(client, services, zone_id):
    made = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=A, json={
        "name": "www.feed.example.", "type": "A", "records": ["192.0.2.10"], "ttl": 600})
    first = (await _serve(services))[0].serial
    rs_url = f"/v2/zones/{zone_id}/recordsets/{made.json()['id']}"
    await client.put(rs_url, json={"records": ["192.0.2.11"]}, headers=A)
    second = (await _serve(services))[0].serial
    done = await batch(client, zone_id, change("ADD_RECORDS", "t.feed.example.", "TXT",
                                               records=['"one"']))
    await client.delete(rs_url, headers=A)
    third = (await _serve(services))[0].serial
    body = (await listing(client, zone_id)).json()
    entries = [(e["origin"], e["serial"]) for e in body["changes"]]
    assert entries == [("SERIAL", third), ("BATCH", third), ("SERIAL", second),
                       ("SERIAL", first)]
    assert body["metadata"]["total_count"] == 4
    by_serial = {e["serial"]: e for e in body["changes"] if e["origin"] == "SERIAL"}
    assert by_serial[first]["changes"] == [{"action": "ADD_RECORDS", "name": "www.feed.example.",
                                            "type": "A", "ttl": 600, "records": ["192.0.2.10"]}]
    assert by_serial[second]["changes"] == [
        {"action": "REMOVE_RECORDS", "name": "www.feed.example.", "type": "A",
         "records": ["192.0.2.10"]},
        {"action": "ADD_RECORDS", "name": "www.feed.example.", "type": "A", "ttl": 600,
         "records": ["192.0.2.11"]}]
    assert [c["action"] for c in by_serial[third]["changes"]] == ["REMOVE_RECORDS",
                                                                 "ADD_RECORDS"]
    assert all(e["status"] == "ACTIVE" for e in body["changes"])
    assert body["changes"][1]["id"] == done["id"]
    one = await show(client, by_serial[second])  # a serial step is found by its id too
    assert (one["id"], one["origin"], one["serial"]) == (by_serial[second]["id"], "SERIAL",
                                                         second)
    assert (await listing(client, zone_id, "?origin=serial")).json()["metadata"][
        "total_count"] == 3


async def test_since_serial_reads_the_history_as_a_feed(client, services, zone_id):
    base = (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()["serial"]
    serials = []
    for n in range(3):
        await client.post(f"/v2/zones/{zone_id}/recordsets", headers=A, json={
            "name": f"n{n}.feed.example.", "type": "A", "records": [f"192.0.2.{n + 1}"]})
        serials.append((await _serve(services))[0].serial)
    pending = await batch(client, zone_id, change("CREATE", "p.feed.example.",
                                                  records=["192.0.2.9"]))
    body = (await listing(client, zone_id, f"?since_serial={serials[0]}")).json()
    assert [e["serial"] for e in body["changes"]] == [serials[2], serials[1]]
    assert pending["id"] not in [e["id"] for e in body["changes"]]  # no serial yet
    assert body["metadata"] == {"total_count": 2, "complete": True}
    oldest_first = (await listing(client, zone_id,
                                  f"?since_serial={base}&sort_dir=asc")).json()
    assert [e["serial"] for e in oldest_first["changes"]] == serials
    assert oldest_first["metadata"]["complete"] is True
    assert (await listing(client, zone_id, "?since_serial=1")).json()["metadata"][
        "complete"] is False  # older than the history: read the whole zone instead
    latest = (await listing(client, zone_id, f"?since_serial={serials[2]}")).json()
    assert latest["changes"] == [] and latest["metadata"]["complete"] is True


async def test_pages_follow_links_next(client, services, zone_id):
    ids = [(await batch(client, zone_id, change("CREATE", f"x{n}.feed.example.",
                                                records=["192.0.2.1"])))["id"]
           for n in range(5)]
    seen: list[str] = []
    url = f"/v2/zones/{zone_id}/changes?limit=2"
    while url:
        body = (await client.get(url, headers=A)).json()
        assert body["metadata"]["total_count"] == 5
        seen += [e["id"] for e in body["changes"]]
        url = body["links"].get("next", "").replace(HOST, "")
    assert seen == ids[::-1]


@pytest.mark.parametrize("query", ["?since_serial=x", "?since_serial=-1",
                                   "?since_serial=4294967296", "?origin=other",
                                   "?marker=nope", "?limit=0", "?status=ACTIVE",
                                   "?marker=00000000-0000-0000-0000-000000000000"])
async def test_bad_queries_are_400_in_designate_format(client, zone_id, query):
    response = await listing(client, zone_id, query)
    body = response.json()
    assert response.status_code == 400, body
    assert body["code"] == 400 and body["type"] and body["request_id"]


async def test_other_project_gets_zone_not_found(client, zone_id):
    await batch(client, zone_id, change("CREATE", "a.feed.example.", records=["192.0.2.1"]))
    response = await listing(client, zone_id, headers=B)
    assert (response.status_code, response.json()["type"]) == (404, "zone_not_found")
    unknown = await listing(client, "00000000-0000-0000-0000-000000000000")
    assert (unknown.status_code, unknown.json()["type"]) == (404, "zone_not_found")


async def test_old_batches_are_cleaned_up_per_zone(client, zone_id, monkeypatch):
    monkeypatch.setattr(change_store, "KEEP", 3)
    made = [await batch(client, zone_id, change("CREATE", f"c{n}.feed.example.",
                                                records=["192.0.2.1"])) for n in range(5)]
    statuses = [(await client.get(b["links"]["self"].replace(HOST, ""), headers=A)).status_code
                for b in made]
    assert statuses == [404, 404, 200, 200, 200]
    body = (await listing(client, zone_id, "?origin=BATCH")).json()
    assert body["metadata"]["total_count"] == 3
