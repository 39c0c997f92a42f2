"""Recordset PUT and DELETE without a transaction on PostgreSQL
(``central.recordsets._update_unlocked`` and ``_delete_unlocked``).

As the unlocked create (test_unlocked_create.py): one read of the zone, the recordset, its
records and the quota facts, the same rules, then one statement made only if no write reached
the zone in between (``rs_store.replace_if_unchanged``, ``remove_if_unchanged``). These tests
put a write exactly in between and check that the PUT or DELETE then goes the locked way and
ends as if the two had been serialized, never half written; that plain ones do take the
unlocked way and write what the locked way writes; and that what the unlocked way leaves to
the locked one (an emptied or empty recordset, an NS recordset, many records) still works.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from openkeel_designate.storage import merged
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage.models import Record
from support.databases import empty_database_url
from support.unlocked import between, spy, stored_recordset

from conftest import project, serve_pending  # type: ignore[import-not-found]

OWNER = project("unlocked-change-p")
ADMIN_ALL = {**project("unlocked-change-admin", "admin"), "X-Auth-All-Projects": "true"}
ZONE = "change.example."


@pytest.fixture
def database_url():  # noqa: ANN201 - overrides the conftest's three engines
    with empty_database_url("postgresql", prefix="okd-unlocked-change-") as url:
        yield url


@pytest.fixture
async def zone_id(client) -> str:  # noqa: ANN001 - fixture
    created = await client.post("/v2/zones", json={"name": ZONE, "email": "h@change.example"},
                                headers=OWNER)
    assert created.status_code == 202
    return created.json()["id"]


async def _recordset(client, services, zone_id: str, name: str, *records: str,  # noqa: ANN001
                     rtype: str = "A") -> str:
    """A served recordset ``name`` of ``records`` (all ACTIVE)."""
    posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": name, "type": rtype, "records": list(records)})
    assert posted.status_code == 202, posted.text
    await serve_pending(services, "worker-1")
    return posted.json()["id"]


def _spy(monkeypatch, name: str) -> list[bool]:  # noqa: ANN001 - fixture
    return spy(monkeypatch, rs_store, name)


def _between(monkeypatch, write) -> None:  # noqa: ANN001 - fixture, coroutine function
    """Run ``write()`` once, right after the next PUT's or DELETE's unlocked read."""
    between(monkeypatch, rs_store, "read_for_change_alone", write)


def _calls(monkeypatch, *names: str) -> list[str]:  # noqa: ANN001 - fixture
    """The names of the calls of these ``rs_store`` functions from now on, in order."""
    calls: list[str] = []

    def counted(name: str, real):  # noqa: ANN001, ANN202 - a coroutine function
        async def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
            calls.append(name)
            return await real(*args, **kwargs)
        return call

    for name in names:
        monkeypatch.setattr(rs_store, name, counted(name, getattr(rs_store, name)))
    return calls


def _put(client, zone_id: str, rs_id: str, **body):  # noqa: ANN001, ANN003, ANN202
    return client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER, json=body)


async def test_a_plain_put_is_written_unlocked(client, services, zone_id, monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "www.change.example.",
                             "192.0.2.1", "192.0.2.2")
    zone_before, rs_before, records_before = await stored_recordset(services, zone_id, rs_id)
    answers = _spy(monkeypatch, "replace_if_unchanged")
    reads = _calls(monkeypatch, "read_for_change_alone", "get_visible")
    put = await _put(client, zone_id, rs_id, records=["192.0.2.2", "192.0.2.3"], ttl=900,
                     description="replaced")
    assert put.status_code == 202, put.text
    assert answers == [True]
    assert reads == ["read_for_change_alone"]  # the route's read, handed on: one read in all
    body = put.json()
    assert (body["status"], body["action"], body["ttl"], body["description"], body["version"]) == (
        "PENDING", "UPDATE", 900, "replaced", rs_before.version + 1)
    assert sorted(body["records"]) == ["192.0.2.2", "192.0.2.3"]

    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.2", "192.0.2.3"}
    kept, added = records["192.0.2.2"], records["192.0.2.3"]
    assert kept.id == records_before["192.0.2.2"].id
    assert (kept.status, kept.action, kept.serial) == ("PENDING", "UPDATE", None)
    assert (added.status, added.action, added.serial) == ("PENDING", "UPDATE", None)
    assert (recordset.version, recordset.ttl, recordset.description) == (
        rs_before.version + 1, 900, "replaced")
    assert (zone.status, zone.action, zone.increment_serial, zone.whole_step) == (
        "PENDING", "UPDATE", True, False)
    assert zone.change_seq == zone_before.change_seq + 1

    # (test_recordset_put_delete.py, which takes this way on PostgreSQL too, checks the GET)
    await serve_pending(services, "worker-1")
    zone, _, records = await stored_recordset(services, zone_id, rs_id)
    assert zone.status == "ACTIVE" and {r.serial for r in records.values()} == {zone.serial}


async def test_a_plain_delete_is_written_unlocked(client, services, zone_id, monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "gone.change.example.", "192.0.2.1")
    zone_before, _, _ = await stored_recordset(services, zone_id, rs_id)
    answers = _spy(monkeypatch, "remove_if_unchanged")
    deleted = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert deleted.status_code == 202, deleted.text
    assert answers == [True]
    body = deleted.json()
    assert (body["status"], body["action"], body["records"]) == ("PENDING", "DELETE",
                                                                  ["192.0.2.1"])
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset is None and records == {}
    assert (zone.status, zone.whole_step, zone.change_seq) == (
        "PENDING", True, zone_before.change_seq + 1)
    again = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert again.status_code == 404 and again.json()["type"] == "recordset_not_found"


async def test_a_put_in_between_sends_the_put_the_locked_way(client, services, zone_id,
                                                             monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "both.change.example.", "192.0.2.1")
    zone_before, rs_before, _ = await stored_recordset(services, zone_id, rs_id)
    answers = _spy(monkeypatch, "replace_if_unchanged")

    async def other_put() -> None:
        assert (await _put(client, zone_id, rs_id, records=["192.0.2.2"])).status_code == 202

    _between(monkeypatch, other_put)
    mine = await _put(client, zone_id, rs_id, records=["192.0.2.3"], description="mine")
    assert mine.status_code == 202, mine.text
    assert answers == [True, False]  # the other PUT's, then this one found the zone changed
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.3"} and recordset.description == "mine"
    assert recordset.version == rs_before.version + 2 == mine.json()["version"]
    assert zone.change_seq == zone_before.change_seq + 2


async def test_a_delete_in_between_leaves_the_put_nothing(client, services, zone_id,
                                                          monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "late.change.example.", "192.0.2.1")
    answers = _spy(monkeypatch, "remove_if_unchanged")

    async def delete_it() -> None:
        deleted = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
        assert deleted.status_code == 202

    _between(monkeypatch, delete_it)
    put = await _put(client, zone_id, rs_id, records=["192.0.2.7"])
    assert put.status_code == 404, put.text
    assert put.json()["type"] == "recordset_not_found"
    assert answers == [True]
    _, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset is None and records == {}  # no record of the PUT's was left behind


async def test_a_put_in_between_a_delete_is_deleted_too(client, services, zone_id,
                                                        monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "then.change.example.", "192.0.2.1")
    answers = _spy(monkeypatch, "remove_if_unchanged")

    async def put_it() -> None:
        assert (await _put(client, zone_id, rs_id, records=["192.0.2.8"])).status_code == 202

    _between(monkeypatch, put_it)
    deleted = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert deleted.status_code == 202, deleted.text
    assert answers == [False]  # the locked way deleted what the PUT left
    assert deleted.json()["records"] == ["192.0.2.8"]
    _, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset is None and records == {}


async def test_a_quota_used_up_in_between_is_enforced(client, services, zone_id,
                                                      monkeypatch):  # noqa: ANN001
    rs_id = await _recordset(client, services, zone_id, "q.change.example.", "192.0.2.1")
    async with services.db.read() as session:
        used = len((await session.execute(select(Record.id).where(
            Record.zone_id == zone_id, Record.managed.is_(False)))).all())
    limited = await client.patch("/v2/quotas/unlocked-change-p",
                                 json={"zone_records": used + 2}, headers=ADMIN_ALL)
    assert limited.status_code == 200
    answers = _spy(monkeypatch, "replace_if_unchanged")

    async def take_the_room() -> None:
        posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
            "name": "room.change.example.", "type": "A", "records": ["192.0.2.50"]})
        assert posted.status_code == 202

    _between(monkeypatch, take_the_room)
    # room for this PUT's two records when read, one too many once the POST made its own
    over = await _put(client, zone_id, rs_id, records=["192.0.2.1", "192.0.2.2", "192.0.2.3"])
    assert over.status_code == 413, over.text
    assert answers == [False]
    _, _, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.1"}


async def test_racing_puts_end_serialized(client, services, zone_id, monkeypatch):  # noqa: ANN001
    """Twenty PUTs of one recordset at once: all made, one after the other; the recordset
    holds one PUT's records, and its version and the zone's counter count all twenty."""
    rs_id = await _recordset(client, services, zone_id, "race.change.example.", "192.0.2.1")
    zone_before, rs_before, _ = await stored_recordset(services, zone_id, rs_id)
    answers = _spy(monkeypatch, "replace_if_unchanged")
    puts = await asyncio.gather(*(_put(client, zone_id, rs_id,
                                       records=[f"198.51.100.{i}", f"203.0.113.{i}"])
                                  for i in range(1, 21)))
    assert [p.status_code for p in puts] == [202] * 20
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset.version == rs_before.version + 20
    assert zone.change_seq == zone_before.change_seq + 20
    assert len(records) == 2 and any(sorted(records) == sorted(p.json()["records"]) for p in puts)
    assert sorted(p.json()["version"] for p in puts) == list(
        range(rs_before.version + 1, rs_before.version + 21))
    assert True in answers


async def test_what_the_unlocked_way_leaves_is_written_locked(client, services, zone_id,
                                                              monkeypatch):  # noqa: ANN001
    """An emptied recordset, an empty one, an NS recordset and many records go the locked
    way; each answers as before."""
    replaced = _spy(monkeypatch, "replace_if_unchanged")
    removed = _spy(monkeypatch, "remove_if_unchanged")
    rs_id = await _recordset(client, services, zone_id, "e.change.example.", "192.0.2.1")
    emptied = await _put(client, zone_id, rs_id, records=[])
    assert emptied.status_code == 200, emptied.text
    again = await _put(client, zone_id, rs_id, records=["192.0.2.4"])  # was empty
    assert again.status_code == 202 and again.json()["records"] == ["192.0.2.4"]
    many = [f"192.0.2.{i}" for i in range(10, 11 + merged.MERGED_ROWS)]
    wide = await _put(client, zone_id, rs_id, records=many)
    assert wide.status_code == 202 and sorted(wide.json()["records"]) == sorted(many)
    ns_id = await _recordset(client, services, zone_id, "sub.change.example.",
                             "ns1.elsewhere.example.", rtype="NS")
    gone = await client.delete(f"/v2/zones/{zone_id}/recordsets/{ns_id}", headers=OWNER)
    assert gone.status_code == 202, gone.text
    assert replaced == [] and removed == []
    _, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert sorted(records) == sorted(many) and recordset.version == 4


async def test_rules_are_the_locked_ways(client, services, zone_id, monkeypatch):  # noqa: ANN001
    """Refusals on the unlocked way answer as the locked way does and write nothing."""
    replaced = _spy(monkeypatch, "replace_if_unchanged")
    rs_id = await _recordset(client, services, zone_id, "r.change.example.", "192.0.2.1")
    too_many = await _put(client, zone_id, rs_id, records=[f"192.0.2.{i}" for i in range(1, 25)])
    assert too_many.status_code == 413 and too_many.json()["type"] == "over_quota"
    bad = await _put(client, zone_id, rs_id, records=["not-an-address"])
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_object"
    other = await client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", json={"ttl": 600},
                             headers=project("someone-else"))
    assert other.status_code == 404
    apex = await client.get(f"/v2/zones/{zone_id}/recordsets?type=SOA", headers=OWNER)
    soa_id = apex.json()["recordsets"][0]["id"]
    soa = await client.delete(f"/v2/zones/{zone_id}/recordsets/{soa_id}", headers=OWNER)
    assert soa.status_code == 400
    assert replaced == []
    _, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.1"} and recordset.ttl is None
