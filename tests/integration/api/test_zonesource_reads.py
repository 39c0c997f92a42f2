"""What mdns reads of a zone per query (``SqlZoneSource``: point reads of prebuilt statements)
on each engine: which zone a name is, within a pool; the masters of a secondary; an rrset
whatever the case of its name; the IXFR history from a serial; a zone being deleted is gone."""

from __future__ import annotations

import gc

from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import workqueue, zonehistory
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.zonesource import SqlZoneSource

from conftest import project, serve_pending  # type: ignore[import-not-found]

ADMIN = project("reads-admin", "admin")
OWNER = "test-zonesource-reads"


async def _serve(services) -> list[workqueue.ClaimedZone]:  # noqa: ANN001 - fixture
    return await serve_pending(services, OWNER)


async def test_zone_lookup_rrset_and_history(services, client) -> None:
    source = SqlZoneSource(services.db)
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "reads.example.", "email": "h@reads.example"})
    assert made.status_code == 202, made.text
    zone_id, pool_id = made.json()["id"], made.json()["pool_id"]
    [first] = await _serve(services)

    head = await source.find_zone("READS.example.", pool_id)
    assert (head.id, head.name, head.pool_id, head.serial, head.type, head.masters) == (
        zone_id, "reads.example.", pool_id, first.serial, "PRIMARY", ())
    assert (await source.find_zone("reads.example.", None)).id == zone_id
    assert await source.find_zone("reads.example.", "another-pool") is None
    assert await source.find_zone("www.reads.example.", pool_id) is None

    [soa] = await source.rrset(zone_id, "Reads.Example.", "SOA")
    assert soa.data.split()[2] == str(first.serial)

    added = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=ADMIN, json={
        "name": "www.reads.example.", "type": "A", "records": ["192.0.2.7"]})
    assert added.status_code == 202, added.text
    [second] = await _serve(services)
    assert [(r.name, r.type, r.data) for r in await source.rrset(
        zone_id, "WWW.reads.example.", "A")] == [("www.reads.example.", "A", "192.0.2.7")]
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert (delta.from_serial, delta.serial, delta.removed) == (first.serial, second.serial, ())
    assert [(r.name, r.type, r.data) for r in delta.added] == [
        ("www.reads.example.", "A", "192.0.2.7")]
    assert await source.zone_changes(zone_id, first.serial - 1) is None
    assert await source.zone_signing(zone_id) is None  # DNSSEC never turned on

    gone = await client.delete(f"/v2/zones/{zone_id}", headers=ADMIN)
    assert gone.status_code == 202, gone.text
    assert await source.find_zone("reads.example.", pool_id) is None  # being deleted


async def test_secondary_zone_comes_with_its_masters(services, client) -> None:
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "second.example.", "type": "SECONDARY",
        "masters": ["192.0.2.53", "192.0.2.54:5300"]})
    assert made.status_code == 202, made.text
    head = await SqlZoneSource(services.db).find_zone("second.example.", None)
    assert (head.type, sorted(head.masters)) == (
        "SECONDARY", [("192.0.2.53", 53), ("192.0.2.54", 5300)])


async def test_a_large_zone_is_read_whole(services, client) -> None:
    """An AXFR's read of 5,000 records: on SQLite over the loop thread's step budget, so read
    on the driver's thread instead; every record either way, and the change's stamp and
    completion (more than ``SMALL_CHANGE`` records: not vouched small) serve them all."""
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "large-reads.example.", "email": "h@large-reads.example"})
    assert made.status_code == 202, made.text
    zone_id = made.json()["id"]
    await _serve(services)

    async def fill(session) -> None:  # noqa: ANN001 - a session
        zone = await zone_store.get(session, zone_id)
        sets = [rs_store.recordset_row(zone, f"h{i}.large-reads.example.", "A")
                for i in range(5000)]
        records = [rs_store.record_row(zone, row["id"], zone.tenant_id, f"10.0.{i // 250}.{i % 250}")
                   for i, row in enumerate(sets)]
        await rs_store.insert_rows(session, sets, records)
        await zone_store.mark_pending(session, zone_id, "UPDATE", True)

    await services.db.transaction(fill)
    [claimed] = await _serve(services)
    assert not claimed.small
    records = await SqlZoneSource(services.db).zone_records(zone_id)
    assert len([r for r in records if r.type == "A"]) == 5000
    assert records[0].type == "SOA" and records[0].data.split()[2] == str(claimed.serial)
    listed = await client.get(f"/v2/zones/{zone_id}/recordsets?type=A&limit=1", headers=ADMIN)
    assert listed.json()["recordsets"][0]["status"] == "ACTIVE"


async def test_history_steps_whether_the_last_set_is_remembered(services, client,
                                                                monkeypatch) -> None:
    """The claim diffs against the set it stored last time without decoding the snapshot, but
    only when the stored blob is byte for byte the one it remembers: a stale or forgotten set
    gives the same steps as a decoded snapshot."""
    source = SqlZoneSource(services.db)
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "remembered.example.", "email": "h@remembered.example"})
    assert made.status_code == 202, made.text
    zone_id = made.json()["id"]
    [before] = await _serve(services)

    async def step(label: str) -> tuple:
        nonlocal before
        added = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=ADMIN, json={
            "name": f"{label}.remembered.example.", "type": "A", "records": ["192.0.2.8"]})
        assert added.status_code == 202, added.text
        [after] = await _serve(services)
        [delta] = await source.zone_changes(zone_id, before.serial)
        before = after
        return (delta.removed, [(r.name, r.data) for r in delta.added])

    def no_decode(blob: bytes) -> set:
        raise AssertionError("the remembered set should have been used")

    with monkeypatch.context() as patched:  # remembered from the last claim: never decoded
        patched.setattr(zonehistory, "decode_steps", no_decode)
        assert await step("one") == ((), [("one.remembered.example.", "192.0.2.8")])

    # Another worker's snapshot (another blob): the remembered set must not be used.
    zonehistory.LAST_SETS.put(zone_id, b"another blob", {("bogus.remembered.example.", "A",
                                                         300, "192.0.2.99")})
    assert await step("two") == ((), [("two.remembered.example.", "192.0.2.8")])

    zonehistory.LAST_SETS.drop(zone_id)  # forgotten (or never this process's): decoded
    assert await step("three") == ((), [("three.remembered.example.", "192.0.2.8")])


async def test_history_step_runs_with_the_collector_paused(services, client,
                                                          monkeypatch) -> None:
    """The claim reads the zone whole for its IXFR step: with the collector paused meanwhile
    (``gcpause``), back on once the claim is done."""
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": "paused.example.", "email": "h@paused.example"})
    assert made.status_code == 202, made.text
    await _serve(services)
    added = await client.post(f"/v2/zones/{made.json()['id']}/recordsets", headers=ADMIN,
                              json={"name": "a.paused.example.", "type": "A",
                                    "records": ["192.0.2.1"]})
    assert added.status_code == 202, added.text
    collecting: list[bool] = []
    record_serial = zonehistory.record_serial

    async def watched(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        collecting.append(gc.isenabled())
        return await record_serial(*args, **kwargs)

    monkeypatch.setattr(zonehistory, "record_serial", watched)
    # nothing held to patch the step from the names changed: the whole read
    monkeypatch.setattr(zonehistory, "LAST_SETS", zonehistory.LastSets(max_rows=0))
    gc.enable()
    await _serve(services)
    assert collecting == [False]
    assert gc.isenabled()


def test_last_sets_bounded_by_rows() -> None:
    sets = zonehistory.LastSets(max_rows=3)
    two = {("a.x.", "A", 1, "192.0.2.1"), ("b.x.", "A", 1, "192.0.2.2")}
    sets.put("z1", b"1", two)
    assert sets.get("z1", b"1") is two and sets.get("z1", b"other") is None
    sets.put("z2", b"2", {("c.x.", "A", 1, "192.0.2.3")})
    assert sets.get("z1", b"1") is two  # 3 rows: both kept
    sets.put("z3", b"3", {("d.x.", "A", 1, "192.0.2.4")})
    assert sets.get("z1", b"1") is None and sets.get("z2", b"2") is not None  # oldest went
    sets.put("big", b"4", {(f"{i}.x.", "A", 1, "192.0.2.5") for i in range(4)})
    assert sets.get("big", b"4") is None  # larger than the bound: not kept
    assert sets.get("z3", b"3") is not None
