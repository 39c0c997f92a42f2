"""The work queue's claim: a zone the worker is still pushing is not claimed a second time by the
same worker when its lease ran out (a starved loop renews late), but stays claimable by others;
and a retried claim of a new zone does not start its IXFR history twice."""

from __future__ import annotations

import pytest
from sqlalchemy import event, func, select

from conftest import project, serve_pending
from openkeel_designate import slices
from openkeel_designate.storage import database, propagation, workqueue, zonehistory
from openkeel_designate.storage.models import Record, Zone, ZoneChange

OWNER = project("proj-claim")


async def test_a_zone_still_being_pushed_is_not_claimed_again_by_its_worker(client, services):
    created = await client.post("/v2/zones", json={"name": "claim.example.", "email": "a@b.c"},
                                headers=OWNER)
    assert created.status_code == 202
    zone_id = created.json()["id"]
    first = await workqueue.claim(services.db, "worker-1", 0, 10)  # a lease that ends at once
    assert [z.id for z in first] == [zone_id]
    again = await workqueue.claim(services.db, "worker-1", 60, 10, busy={zone_id})
    assert again == []
    other = await workqueue.claim(services.db, "worker-2", 60, 10)
    assert [z.id for z in other] == [zone_id] and other[0].taken_over


async def test_only_the_zones_being_pushed_are_left_out_of_a_claim(client, services):
    """``busy`` (one list parameter, a form per database) leaves out those zones only."""
    ids = []
    for name in ("busy-one.example.", "busy-two.example.", "busy-three.example."):
        created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                    headers=OWNER)
        assert created.status_code == 202
        ids.append(created.json()["id"])
    claimed = await workqueue.claim(services.db, "worker-1", 60, 10, busy={ids[0], ids[2]})
    assert [z.id for z in claimed] == [ids[1]]


@pytest.mark.parametrize("batched", [False, True])
async def test_a_server_row_keeps_since_until_its_status_changes(client, services, batched):
    """What a push saw is overwritten in place: ``since`` moves only with the status (MySQL
    evaluates SET from left to right, so the new status must not be seen first), and a server
    back in sync keeps its last error; alike by ``record`` and by the worker's
    ``record_many`` (one statement on PostgreSQL)."""
    created = await client.post("/v2/zones", json={"name": "seen.example.", "email": "a@b.c"},
                                headers=OWNER)
    zone_id = created.json()["id"]

    async def record(status: str, serial: int, error: str | None) -> propagation.ZonePropagation:
        seen = [propagation.Seen(propagation.NAMESERVER, "192.0.2.53", 53, status, serial, error)]
        if batched:
            await propagation.record_many(services.db, [(zone_id, seen)])
        else:
            await services.db.transaction(lambda s: propagation.record(s, zone_id, seen))
        async with services.db.read() as session:
            [row] = await propagation.for_zone(session, zone_id)
            return row

    first = await record("BEHIND", 1, "answered serial 1")
    again = await record("BEHIND", 2, None)
    assert (again.since, again.serial, again.last_error) == (first.since, 2, "answered serial 1")
    assert again.checked_at > first.checked_at
    synced = await record("IN_SYNC", 3, None)
    assert synced.since > first.since and synced.since == synced.checked_at
    assert (synced.status, synced.last_error) == ("IN_SYNC", "answered serial 1")


async def test_the_servers_of_many_zones_are_recorded_together(client, services):
    """``record_many`` of a batch: rows added for servers not seen before and overwritten for
    the others, a target's type kept when not given again, and a zone twice in one batch
    keeping its last observation (one row per server)."""
    zone_ids = []
    for name in ("many-1.example.", "many-2.example."):
        created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                    headers=OWNER)
        zone_ids.append(created.json()["id"])
    first, second = zone_ids
    ns = propagation.NAMESERVER
    await propagation.record_many(services.db, [
        (first, [propagation.Seen(ns, "192.0.2.53", 53, "BEHIND", 1, "late"),
                 propagation.Seen(propagation.TARGET, "192.0.2.1", 8081, "OK",
                                  target_type="pdns4")])])
    await propagation.record_many(services.db, [
        (first, [propagation.Seen(ns, "192.0.2.53", 53, "IN_SYNC", 2),
                 propagation.Seen(propagation.TARGET, "192.0.2.1", 8081, "OK")]),
        (second, [propagation.Seen(ns, "192.0.2.53", 53, "BEHIND", 1)]),
        (second, [propagation.Seen(ns, "192.0.2.53", 53, "IN_SYNC", 3)])])
    async with services.db.read() as session:
        rows = {zone_id: [(r.kind, r.host, r.port, r.status, r.serial, r.last_error,
                           r.target_type) for r in await propagation.for_zone(session, zone_id)]
                for zone_id in zone_ids}
    assert rows == {
        first: [("nameserver", "192.0.2.53", 53, "IN_SYNC", 2, "late", None),
                ("target", "192.0.2.1", 8081, "OK", None, None, "pdns4")],
        second: [("nameserver", "192.0.2.53", 53, "IN_SYNC", 3, None, None)]}


async def test_a_new_zones_retried_claim_keeps_one_history_start(client, services):
    """The claim reads where the history stands with the zone: a push that failed and is
    claimed again finds its base already written at that serial and writes none again."""
    created = await client.post("/v2/zones", json={"name": "retry.example.", "email": "a@b.c"},
                                headers=OWNER)
    zone_id = created.json()["id"]
    [first] = await workqueue.claim(services.db, "worker-1", 60, 10)
    assert await workqueue.fail(services.db, first, "worker-1", "ns1 refused", 0)
    [again] = await workqueue.claim(services.db, "worker-1", 60, 10)
    assert (again.id, again.serial) == (zone_id, first.serial)
    async with services.db.read() as session:
        rows = (await session.execute(
            select(ZoneChange.serial, func.length(ZoneChange.snapshot))
            .where(ZoneChange.zone_id == zone_id))).all()
    assert [serial for serial, _ in rows] == [first.serial] and rows[0][1] > 0


async def test_a_change_is_claimed_and_completed_by_the_driver_itself(client, services):
    """The claim of a recordset change in a small zone (new serial, SOA, the zone read whole
    for its IXFR step, stamps), its completion and what the push saw run on the driver itself
    (``database.execute``: asyncpg on PostgreSQL, ours on SQLite), none through SQLAlchemy's
    execution; and the change ends ACTIVE as through SQLAlchemy."""
    if services.db.backend == "mysql":
        pytest.skip("on MariaDB SQLAlchemy runs these statements: aiomysql has no runner here")
    zone_id, recordset_id = await _served_zone_with_a_change(client, services, "direct.example.")
    sent: list[str] = []
    event.listen(services.db.engine.sync_engine, "before_cursor_execute",
                 lambda _c, _cu, statement, *_: sent.append(statement))
    [claimed] = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert await workqueue.complete(services.db, claimed, "worker-1", claimed.serial)
    seen = [propagation.Seen(propagation.NAMESERVER, "192.0.2.53", 53, "IN_SYNC", claimed.serial,
                             None)]
    await propagation.record_many(services.db, [(zone_id, seen)])
    assert sent == [], sent
    recordset = await client.get(f"/v2/zones/{zone_id}/recordsets/{recordset_id}",
                                 headers=OWNER)
    zone = await client.get(f"/v2/zones/{zone_id}", headers=OWNER)
    assert (recordset.json()["status"], zone.json()["status"]) == ("ACTIVE", "ACTIVE")
    assert zone.json()["serial"] == claimed.serial


async def test_pushes_completed_together_each_end_as_their_zone_stands(client, services):
    """``complete_many`` of a batch (one statement on PostgreSQL): a zone still at the change
    pushed ends ACTIVE with its served records; one written again meanwhile stays PENDING
    with its newer record, and its lease is handed back so the newer change is claimed."""
    zone_ids = []
    for name in ("batch-1.example.", "batch-2.example."):
        created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                    headers=OWNER)
        zone_ids.append(created.json()["id"])
    await serve_pending(services, "worker-1")
    posted = {}
    for zone_id, name in zip(zone_ids, ("batch-1.example.", "batch-2.example.")):
        answer = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
            "name": f"www.{name}", "type": "A", "records": ["192.0.2.1"]})
        posted[zone_id] = answer.json()["id"]
    claimed = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert sorted(c.id for c in claimed) == sorted(zone_ids)
    first, second = sorted(claimed, key=lambda c: zone_ids.index(c.id))
    newer = await client.post(f"/v2/zones/{second.id}/recordsets", headers=OWNER, json={
        "name": "mail.batch-2.example.", "type": "A", "records": ["192.0.2.2"]})
    assert newer.status_code == 202
    done = await workqueue.complete_many(
        services.db, [(first, first.serial), (second, second.serial)], "worker-1")
    assert done == [True, False]
    statuses = {}
    for zone_id in zone_ids:
        zone = (await client.get(f"/v2/zones/{zone_id}", headers=OWNER)).json()
        recordset = (await client.get(f"/v2/zones/{zone_id}/recordsets/{posted[zone_id]}",
                                      headers=OWNER)).json()
        statuses[zone_id] = (zone["status"], recordset["status"])
    assert statuses == {first.id: ("ACTIVE", "ACTIVE"), second.id: ("PENDING", "ACTIVE")}
    mail = (await client.get(f"/v2/zones/{second.id}/recordsets/{newer.json()['id']}",
                             headers=OWNER)).json()
    assert mail["status"] == "PENDING"
    [again] = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert again.id == second.id and again.change_seq > second.change_seq


async def _three_pending_zones(client, services) -> list[str]:  # noqa: ANN001
    """Two new zones and one with a recordset change (its serial to be moved by the claim)."""
    ids = []
    for name in ("old.example.", "new-1.example.", "new-2.example."):
        created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                    headers=OWNER)
        ids.append(created.json()["id"])
        if name == "old.example.":
            await serve_pending(services, "worker-1")
    posted = await client.post(f"/v2/zones/{ids[0]}/recordsets", headers=OWNER, json={
        "name": "www.old.example.", "type": "A", "records": ["192.0.2.1"]})
    assert posted.status_code == 202
    return ids[1:] + ids[:1]


async def _claim_state(services, zone_ids: list[str]) -> dict:  # noqa: ANN001
    """Per zone: its lease owner, serial, the serials of its IXFR history and whether a record
    is still unstamped."""
    async with services.db.read() as session:
        state = {}
        for zone_id in zone_ids:
            zone = (await session.execute(select(Zone.lease_owner, Zone.serial)
                                          .where(Zone.id == zone_id))).one()
            history = (await session.execute(select(ZoneChange.serial).where(
                ZoneChange.zone_id == zone_id).order_by(ZoneChange.id))).scalars().all()
            unstamped = (await session.execute(select(func.count()).select_from(Record).where(
                Record.zone_id == zone_id, Record.serial.is_(None)))).scalar_one()
            state[zone_id] = (zone.lease_owner, zone.serial, list(history), unstamped)
        return state


async def test_zones_claimed_together_are_each_prepared(client, services, monkeypatch):
    """A claim of several zones (on PostgreSQL their leases taken and their rows read by one
    statement each, ``_claim_together``): every zone taken once, new zones with their history
    started, the changed zone with a new serial and a step; every record stamped. With the
    claim's time bound passed after each zone, the zones taken but not yet prepared are
    handed back and claimed in the next slice of the same claim, as one by one."""
    zone_ids = await _three_pending_zones(client, services)
    before = await _claim_state(services, zone_ids)
    monkeypatch.setattr(workqueue, "CLAIM_SLICE_SECONDS", -1.0)
    claimed = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert sorted(z.id for z in claimed) == sorted(zone_ids)
    after = await _claim_state(services, zone_ids)
    new_1, new_2, changed = zone_ids
    for zone_id in (new_1, new_2):
        assert after[zone_id] == ("worker-1", before[zone_id][1], [before[zone_id][1]], 0)
    owner, serial, history, unstamped = after[changed]
    assert (owner, unstamped) == ("worker-1", 0)
    assert serial > before[changed][1] and history == before[changed][2] + [serial]
    assert {z.id: z.serial for z in claimed} == {zone_id: after[zone_id][1] for zone_id in zone_ids}


async def test_zones_with_changes_are_claimed_each_in_a_transaction_of_its_own(
        client, services, monkeypatch):
    """A claim holds each zone's row until its transaction commits, and a write into the zone
    waits for it. On PostgreSQL and MariaDB, which lock rows, a zone with changes is claimed
    in a transaction of its own: a tenant writing into one zone waits for that zone's claim,
    not for every zone's (one transaction for ten zones made 220 of about 1,650 POSTs wait
    22.9 ms on average). New zones are still claimed together. On SQLite, one writer at a
    time, one transaction takes them all."""
    new_1, new_2, changed_1 = await _three_pending_zones(client, services)
    created = await client.post("/v2/zones", json={"name": "old-2.example.", "email": "a@b.c"},
                                headers=OWNER)
    changed_2 = created.json()["id"]
    await serve_pending(services, "worker-1")
    for zone_id, name in ((changed_1, "mail.old.example."), (changed_2, "www.old-2.example.")):
        posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
            "name": name, "type": "A", "records": ["192.0.2.2"]})
        assert posted.status_code == 202
    new_3 = (await client.post("/v2/zones", json={"name": "new-3.example.", "email": "a@b.c"},
                               headers=OWNER)).json()["id"]
    transactions: list[list[str]] = []
    run = services.db.transaction

    async def noted(work, **kwargs):  # noqa: ANN001, ANN202
        result = await run(work, **kwargs)
        transactions.append(sorted(zone.id for zone in result[1]))
        return result
    monkeypatch.setattr(services.db, "transaction", noted)
    claimed = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert sorted(z.id for z in claimed) == sorted([changed_1, changed_2, new_3])
    assert sorted(zone for taken in transactions for zone in taken) == \
        sorted([changed_1, changed_2, new_3])
    if services.db.backend == "sqlite":
        assert len(transactions) == 1
    else:
        assert all(len({changed_1, changed_2} & set(taken)) <= 1 for taken in transactions)
        assert len(transactions) >= 2
    state = await _claim_state(services, [changed_1, changed_2, new_3])
    assert {zone_id: (owner, unstamped) for zone_id, (owner, _, _, unstamped) in state.items()} \
        == dict.fromkeys([changed_1, changed_2, new_3], ("worker-1", 0))
    assert {z.id: z.serial for z in claimed} == {z: state[z][1] for z in state}
    assert {new_1, new_2}.isdisjoint(z.id for z in claimed)  # served before: nothing pending


async def test_a_zone_taken_by_another_worker_meanwhile_is_left_to_it(client, services,
                                                                       monkeypatch):
    """Between the candidates' read and the claim's transaction another worker took one of
    them: the claim takes the others and leaves that one (its lease and its serial) alone."""
    zone_ids = await _three_pending_zones(client, services)
    read_candidates = workqueue._prepare_steps
    other: list = []

    async def meanwhile(db, heads):  # noqa: ANN001, ANN202
        if heads and not other:
            other.append(None)  # the other worker's claim reads candidates too: once
            other.extend(await workqueue.claim(services.db, "worker-2", 30, 1))
        return await read_candidates(db, heads)
    monkeypatch.setattr(workqueue, "_prepare_steps", meanwhile)
    claimed = await workqueue.claim(services.db, "worker-1", 30, 10)
    after = await _claim_state(services, zone_ids)
    owners = {zone_id: after[zone_id][0] for zone_id in zone_ids}
    assert sorted(owners.values()) == ["worker-1", "worker-1", "worker-2"]
    assert [owners[z.id] for z in other[1:]] == ["worker-2"]
    assert sorted(z.id for z in claimed) == sorted(
        zone_id for zone_id, owner in owners.items() if owner == "worker-1")


async def test_new_zones_claimed_together_start_their_own_history(client, services):
    """New zones claimed in one claim (on PostgreSQL read, started and stamped by one
    statement each for them all, ``_prepare_new``): each zone's history starts at its serial
    with its own served records (its SOA and NS, none of another zone's), each remembered
    set is its own, and none of their records is left without a serial."""
    zone_ids = []
    for index in range(4):
        created = await client.post("/v2/zones", json={"name": f"fresh-{index}.example.",
                                                       "email": "a@b.c"}, headers=OWNER)
        zone_ids.append(created.json()["id"])
    claimed = await workqueue.claim(services.db, "worker-1", 30, 10)
    assert sorted(z.id for z in claimed) == sorted(zone_ids)
    state = await _claim_state(services, zone_ids)
    async with services.db.read() as session:
        for zone in claimed:
            snapshot = await zonehistory.newest_snapshot(session, zone.id)
            stored = set(slices.run(zonehistory.decode_steps(snapshot)))
            assert stored == await workqueue._served_set(session, zone.id, True)
            assert {row[0] for row in stored} == {zone.name}
            assert zonehistory.LAST_SETS.get(zone.id, snapshot) == stored
            assert state[zone.id] == ("worker-1", zone.serial, [zone.serial], 0)


async def test_zones_read_together_count_their_own_records(client, services):
    """``_READ_ZONES`` (PostgreSQL: many zones in one read) counts each zone's records and
    unserved records as ``_READ_ZONE`` does for one: its own, not every zone's."""
    if services.db.backend != "postgresql":
        pytest.skip("_READ_ZONES is PostgreSQL's: an array of ids")
    zone_ids = []
    for name, extra in (("count-1.example.", 3), ("count-2.example.", 0)):
        created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                    headers=OWNER)
        zone_ids.append(created.json()["id"])
        if extra:
            await client.post(f"/v2/zones/{zone_ids[-1]}/recordsets", headers=OWNER, json={
                "name": f"www.{name}", "type": "A",
                "records": [f"192.0.2.{index}" for index in range(1, extra + 1)]})
    columns = ("records", "unserved", "history_serial", "soa_set_id", "mname", "signed")
    together = await services.db.transaction(lambda s: database.execute(
        s, workqueue._READ_ZONES, {"b_zone_ids": zone_ids}))
    alone = [(await services.db.transaction(lambda s, z=zone_id: database.execute(
        s, workqueue._READ_ZONE, {"b_zone_id": z})))[0] for zone_id in zone_ids]
    by_id = {row.id: row for row in together}
    assert [[getattr(by_id[row.id], c) for c in columns] for row in alone] == \
        [[getattr(row, c) for c in columns] for row in alone]
    assert alone[0].records == alone[1].records + 3


async def test_the_history_keeps_its_newest_steps_and_one_snapshot(client, services):
    """Each claim of a change appends a step and keeps the ``KEEP`` newest (on PostgreSQL the
    snapshot dropped, the step appended and the oldest pruned by one statement, which sees
    the rows as they were before the new one): after more claims than that, exactly ``KEEP``
    steps, an unbroken chain of serials, and the snapshot on the newest alone."""
    created = await client.post("/v2/zones", json={"name": "keep.example.", "email": "a@b.c"},
                                headers=OWNER)
    zone_id = created.json()["id"]
    await serve_pending(services, "worker-1")
    serials = []
    for index in range(zonehistory.KEEP + 3):
        posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
            "name": f"r{index}.keep.example.", "type": "A", "records": ["192.0.2.1"]})
        assert posted.status_code == 202
        [claimed] = await serve_pending(services, "worker-1")
        serials.append(claimed.serial)
    async with services.db.read() as session:
        steps = (await session.execute(
            select(ZoneChange.serial, ZoneChange.from_serial, ZoneChange.snapshot.is_not(None))
            .where(ZoneChange.zone_id == zone_id).order_by(ZoneChange.id))).all()
    assert len(steps) == zonehistory.KEEP
    assert [serial for serial, _, _ in steps] == serials[-zonehistory.KEEP:]
    assert all(after[1] == before[0] for before, after in zip(steps, steps[1:]))
    assert [kept for _, _, kept in steps] == [False] * (zonehistory.KEEP - 1) + [True]


async def test_the_common_writes_of_a_change_never_need_a_session(client, services):
    """A zone created, a recordset added, the zone written again while its push is out (its
    completion hands the lease back), then deleted (its claim forgets the history, its
    completion soft-deletes it): every transaction of these runs plain (``plain_session``) on
    SQLite and PostgreSQL, none a second time in a session. (MariaDB runs them in sessions.)"""
    db = services.db
    zone_id, _ = await _served_zone_with_a_change(client, services, "plain.example.")
    [claimed] = await workqueue.claim(db, "worker-1", 30, 10)
    again = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": "mail.plain.example.", "type": "A", "records": ["192.0.2.2"]})
    assert again.status_code == 202
    assert await workqueue.complete_many(db, [(claimed, claimed.serial)], "worker-1") == [False]
    await serve_pending(services, "worker-1")
    assert (await client.delete(f"/v2/zones/{zone_id}", headers=OWNER)).status_code == 202
    [deleting] = await serve_pending(services, "worker-1")
    assert deleting.action == "DELETE"
    async with db.read() as session:
        zone = await session.get(Zone, zone_id)
        history = (await session.execute(select(func.count()).select_from(ZoneChange).where(
            ZoneChange.zone_id == zone_id))).scalar_one()
    assert (zone.status, zone.lease_owner, history) == ("DELETED", None, 0)
    assert db.plain_declined == 0


async def _served_zone_with_a_change(client, services,  # noqa: ANN001
                                     name: str) -> tuple[str, str]:
    """A zone created and served, then an A recordset POSTed into it (not claimed yet): the
    zone's id and the recordset's."""
    created = await client.post("/v2/zones", json={"name": name, "email": "a@b.c"},
                                headers=OWNER)
    zone_id = created.json()["id"]
    await serve_pending(services, "worker-1")
    posted = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": f"www.{name}", "type": "A", "records": ["192.0.2.1"]})
    assert posted.status_code == 202
    return zone_id, posted.json()["id"]
