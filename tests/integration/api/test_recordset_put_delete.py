"""Recordset PUT and DELETE by prebuilt statements in a plain transaction
(``central.recordsets.change_recordset`` and ``remove_recordset``, ``storage.recordsets.
replace_records`` and ``remove``).

What they write is checked row by row, on every database: the records a PUT drops are gone,
those it keeps are PENDING again without a serial, the new ones are PENDING; the recordset
takes the new version, TTL and description; the zone is pending with a new change counter; a
write that leaves no record behind at the name makes the zone's next IXFR step a whole one. The
answer is the row as stored (a GET right after agrees), the worker then serves it, and on
SQLite and PostgreSQL none of it ran again in an ORM session. (On PostgreSQL these requests,
in the project's own zone, take the way without a transaction: test_unlocked_change.py.)
"""

from __future__ import annotations

from conftest import project, serve_pending
from support.unlocked import stored_recordset

OWNER = project("proj-put-delete")


async def _served_recordset(client, services, zone_name: str,  # noqa: ANN001
                            records: list[str]) -> tuple[str, str]:
    """A zone with an A recordset ``www`` of ``records``, both served (ACTIVE)."""
    zone = await client.post("/v2/zones", json={"name": zone_name, "email": "a@b.c"},
                             headers=OWNER)
    zone_id = zone.json()["id"]
    posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": f"www.{zone_name}", "type": "A", "records": records})
    assert posted.status_code == 202
    await serve_pending(services, "worker-1")
    return zone_id, posted.json()["id"]


async def test_a_put_replaces_records_and_marks_the_zone(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "put.example.",
                                             ["192.0.2.1", "192.0.2.2"])
    zone_before, rs_before, records_before = await stored_recordset(services, zone_id, rs_id)
    kept_id = records_before["192.0.2.2"].id
    put = await client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER, json={
        "records": ["192.0.2.2", "192.0.2.3"], "ttl": 900, "description": "replaced"})
    assert put.status_code == 202
    body = put.json()
    assert (body["status"], body["action"], body["ttl"], body["description"]) == (
        "PENDING", "UPDATE", 900, "replaced")
    assert sorted(body["records"]) == ["192.0.2.2", "192.0.2.3"]
    assert body["version"] == rs_before.version + 1

    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.2", "192.0.2.3"}  # 192.0.2.1 is gone
    kept, added = records["192.0.2.2"], records["192.0.2.3"]
    assert kept.id == kept_id
    assert (kept.status, kept.action, kept.serial) == ("PENDING", "UPDATE", None)
    assert (added.status, added.action, added.serial) == ("PENDING", "UPDATE", None)
    assert (recordset.version, recordset.ttl, recordset.description) == (
        rs_before.version + 1, 900, "replaced")
    assert (zone.status, zone.action, zone.increment_serial) == ("PENDING", "UPDATE", True)
    assert zone.change_seq == zone_before.change_seq + 1
    assert zone.version == zone_before.version + 1
    assert not zone.whole_step  # the name still has records not ACTIVE: they stand for it

    got = await client.get(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert {k: got.json()[k] for k in ("version", "ttl", "description", "updated_at")} == {
        k: body[k] for k in ("version", "ttl", "description", "updated_at")}
    assert got.headers["etag"] == put.headers["etag"]

    await serve_pending(services, "worker-1")
    zone, _, records = await stored_recordset(services, zone_id, rs_id)
    assert zone.status == "ACTIVE" and zone.serial > zone_before.serial
    assert {r.status for r in records.values()} == {"ACTIVE"}
    assert {r.serial for r in records.values()} == {zone.serial}
    assert services.db.plain_declined == 0


async def test_a_put_that_keeps_only_the_ttl_leaves_the_records(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "ttl.example.", ["192.0.2.1"])
    _, _, before = await stored_recordset(services, zone_id, rs_id)
    put = await client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER,
                           json={"ttl": 1200})
    assert put.status_code == 202
    _, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset.ttl == 1200 and recordset.description is None
    assert records["192.0.2.1"].id == before["192.0.2.1"].id
    assert records["192.0.2.1"].status == "PENDING"


async def test_a_put_that_empties_the_recordset_makes_the_next_step_whole(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "empty.example.", ["192.0.2.1"])
    put = await client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER,
                           json={"records": []})
    assert put.status_code == 200  # nothing left to serve: not pending
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert records == {} and recordset is not None
    assert zone.whole_step and zone.status == "PENDING"


async def test_a_put_over_the_records_quota_writes_nothing(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "quota.example.", ["192.0.2.1"])
    _, rs_before, _ = await stored_recordset(services, zone_id, rs_id)
    put = await client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER, json={
        "records": [f"192.0.2.{i}" for i in range(1, 25)]})  # recordset_records is 20
    assert put.status_code == 413
    assert put.json()["type"] == "over_quota"
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert set(records) == {"192.0.2.1"} and recordset.version == rs_before.version
    assert zone.status == "ACTIVE"


async def test_a_delete_removes_the_rows_and_answers_them_as_they_were(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "delete.example.",
                                             ["192.0.2.1", "192.0.2.2"])
    zone_before, _, _ = await stored_recordset(services, zone_id, rs_id)
    deleted = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert deleted.status_code == 202
    body = deleted.json()
    assert (body["status"], body["action"]) == ("PENDING", "DELETE")
    assert sorted(body["records"]) == ["192.0.2.1", "192.0.2.2"]
    zone, recordset, records = await stored_recordset(services, zone_id, rs_id)
    assert recordset is None and records == {}
    assert zone.whole_step and zone.status == "PENDING"
    assert zone.change_seq == zone_before.change_seq + 1
    gone = await client.get(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert gone.status_code == 404
    again = await client.delete(f"/v2/zones/{zone_id}/recordsets/{rs_id}", headers=OWNER)
    assert again.status_code == 404 and again.json()["type"] == "recordset_not_found"
    await serve_pending(services, "worker-1")
    zone, _, _ = await stored_recordset(services, zone_id, rs_id)
    assert zone.status == "ACTIVE" and not zone.whole_step
    assert services.db.plain_declined == 0


async def test_a_delete_of_another_zones_recordset_is_not_found(client, services):
    zone_id, rs_id = await _served_recordset(client, services, "one.example.", ["192.0.2.1"])
    other_id, _ = await _served_recordset(client, services, "two.example.", ["192.0.2.1"])
    wrong = await client.delete(f"/v2/zones/{other_id}/recordsets/{rs_id}", headers=OWNER)
    assert wrong.status_code == 404 and wrong.json()["type"] == "recordset_not_found"
    _, recordset, _ = await stored_recordset(services, zone_id, rs_id)
    assert recordset is not None
