"""What mdns reads of a zone per query (``SqlZoneSource``: point reads of prebuilt statements)
on each engine: which zone a name is, within a pool; the masters of a secondary; an rrset
whatever the case of its name; the IXFR history from a serial; a zone being deleted is gone."""

from __future__ import annotations

from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import workqueue
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.zonesource import SqlZoneSource

from conftest import project  # type: ignore[import-not-found]

ADMIN = project("reads-admin", "admin")
OWNER = "test-zonesource-reads"


async def _serve(services) -> list[workqueue.ClaimedZone]:  # noqa: ANN001 - fixture
    """What the worker does before its push: the pending zones get their serial (and history)."""
    claimed = await workqueue.claim(services.db, OWNER, 30, 10)
    await workqueue.complete_many(services.db, [(z, z.serial) for z in claimed], OWNER)
    return claimed


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
