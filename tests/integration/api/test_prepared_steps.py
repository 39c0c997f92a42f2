"""A large zone's IXFR step made before the claim's write transaction
(``zonehistory.PreparedStep``), on each engine: used when nothing changed in between, and the
zone read again inside the claim when a write or a new SOA came after it — the steps are those
of a claim that prepared nothing."""

from __future__ import annotations

from sqlalchemy import update

from openkeel_designate.storage import workqueue, zonehistory
from openkeel_designate.storage.models import PoolNsRecord
from openkeel_designate.storage.zonesource import SqlZoneSource

from conftest import project, serve_pending  # type: ignore[import-not-found]

ADMIN = project("prepared-admin", "admin")
OWNER = "test-prepared-steps"


async def _serve(services) -> list[workqueue.ClaimedZone]:  # noqa: ANN001 - fixture
    return await serve_pending(services, OWNER)


async def _zone(client, name: str) -> str:  # noqa: ANN001 - fixture
    made = await client.post("/v2/zones", headers=ADMIN, json={
        "name": name, "email": f"h@{name.rstrip('.')}"})
    assert made.status_code == 202, made.text
    return made.json()["id"]


async def _add(client, zone_id: str, name: str) -> None:  # noqa: ANN001 - fixture
    added = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=ADMIN, json={
        "name": name, "type": "A", "records": ["192.0.2.9"]})
    assert added.status_code == 202, added.text


def _after_preparing(monkeypatch, then) -> None:  # noqa: ANN001 - fixture, coroutine function
    """The claim's preparation, then ``await then(made)`` before its write transaction."""
    prepare_steps = workqueue._prepare_steps

    async def prepared_then(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        made = await prepare_steps(*args, **kwargs)
        await then(made)
        return made

    monkeypatch.setattr(workqueue, "_prepare_steps", prepared_then)


def _not_held(monkeypatch) -> None:  # noqa: ANN001 - fixture
    """As when another worker stored the zone's last step: this process holds no set of it to
    patch the next step from (``zonehistory.record_patched_serial``), so a large zone's step is
    prepared."""
    monkeypatch.setattr(zonehistory, "LAST_SETS", zonehistory.LastSets(max_rows=0))


async def _large_zone_changed(services, client, monkeypatch, name: str,  # noqa: ANN001
                              record: str) -> tuple[SqlZoneSource, str, workqueue.ClaimedZone]:
    """A zone counted as large, served once, then ``record`` added: its next claim prepares."""
    monkeypatch.setattr(workqueue, "PREPARE_BYTES", 1)
    _not_held(monkeypatch)
    zone_id = await _zone(client, name)
    [first] = await _serve(services)
    await _add(client, zone_id, record)
    return SqlZoneSource(services.db), zone_id, first


def _spy(monkeypatch) -> dict[str, int]:  # noqa: ANN001 - fixture
    """Counts of the zone's whole reads and of the steps prepared."""
    calls = {"served_set": 0, "prepared": 0}
    served_set, prepare_step = workqueue._served_set, zonehistory.prepare_step

    async def counted_read(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        calls["served_set"] += 1
        return await served_set(*args, **kwargs)

    async def counted_prepare(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls["prepared"] += 1
        return await prepare_step(*args, **kwargs)

    monkeypatch.setattr(workqueue, "_served_set", counted_read)
    monkeypatch.setattr(zonehistory, "prepare_step", counted_prepare)
    return calls


async def test_the_step_is_prepared_and_used(services, client, monkeypatch) -> None:
    monkeypatch.setattr(workqueue, "PREPARE_BYTES", 1)  # every zone counts as large
    _not_held(monkeypatch)
    source = SqlZoneSource(services.db)
    zone_id = await _zone(client, "prepared.example.")
    [first] = await _serve(services)  # a new zone: its base, nothing to prepare from
    calls = _spy(monkeypatch)
    await _add(client, zone_id, "www.prepared.example.")
    [second] = await _serve(services)
    # read once, before the claim; the claim used what was prepared
    assert calls == {"served_set": 1, "prepared": 1}
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert (delta.from_serial, delta.serial, delta.removed, delta.old_soa) == (
        first.serial, second.serial, (), None)
    assert [(r.name, r.data) for r in delta.added] == [("www.prepared.example.", "192.0.2.9")]
    # the snapshot it stored is the base of the next step
    await _add(client, zone_id, "mail.prepared.example.")
    [third] = await _serve(services)
    [one, two] = await source.zone_changes(zone_id, first.serial)
    assert (two.from_serial, two.serial) == (second.serial, third.serial)
    assert [(r.name, r.data) for r in two.added] == [("mail.prepared.example.", "192.0.2.9")]


async def test_a_write_after_the_preparation_is_in_the_step(services, client,
                                                           monkeypatch) -> None:
    source, zone_id, first = await _large_zone_changed(services, client, monkeypatch,
                                                       "raced.example.", "one.raced.example.")

    async def then_a_write(made) -> None:  # noqa: ANN001
        assert list(made) == [zone_id]
        await _add(client, zone_id, "two.raced.example.")  # between it and the claim

    _after_preparing(monkeypatch, then_a_write)
    calls = _spy(monkeypatch)
    [second] = await _serve(services)
    assert calls == {"served_set": 2, "prepared": 1}  # read again inside the claim
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert delta.serial == second.serial
    assert sorted(r.name for r in delta.added) == ["one.raced.example.", "two.raced.example."]


async def test_a_new_soa_without_a_zone_write_is_in_the_step(services, client,
                                                            monkeypatch) -> None:
    """The pool's first NS record is the SOA's MNAME: changed after the preparation, it
    changes the SOA the claim writes without a write to the zone."""
    source, zone_id, first = await _large_zone_changed(services, client, monkeypatch,
                                                       "renamed.example.", "www.renamed.example.")

    async def then_a_new_mname(made) -> None:  # noqa: ANN001
        await services.db.transaction(lambda session: session.execute(
            update(PoolNsRecord).values(hostname="ns-new.renamed-pool.example.")))

    _after_preparing(monkeypatch, then_a_new_mname)
    calls = _spy(monkeypatch)
    [second] = await _serve(services)
    assert calls == {"served_set": 2, "prepared": 1}
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert delta.old_soa is not None and "ns-new.renamed-pool.example." not in delta.old_soa.data
    [soa] = await source.rrset(zone_id, "renamed.example.", "SOA")
    assert soa.data.split()[0] == "ns-new.renamed-pool.example."
    assert [(r.name, r.data) for r in delta.added] == [("www.renamed.example.", "192.0.2.9")]


async def test_a_large_zone_held_here_is_patched_not_prepared(services, client,
                                                              monkeypatch) -> None:
    """This process stored the zone's last step: its claim patches the next one from the
    names changed, and nothing is read whole, before the claim or in it; after a deletion
    (``whole_step``) the step is prepared again."""
    monkeypatch.setattr(workqueue, "PREPARE_BYTES", 1)  # every zone counts as large
    source = SqlZoneSource(services.db)
    zone_id = await _zone(client, "held.example.")
    [first] = await _serve(services)
    calls = _spy(monkeypatch)
    await _add(client, zone_id, "www.held.example.")
    [second] = await _serve(services)
    assert calls == {"served_set": 0, "prepared": 0}
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert (delta.from_serial, delta.serial, delta.removed) == (first.serial, second.serial, ())
    assert [(r.name, r.data) for r in delta.added] == [("www.held.example.", "192.0.2.9")]
    listed = await client.get(f"/v2/zones/{zone_id}/recordsets?type=A", headers=ADMIN)
    [recordset] = listed.json()["recordsets"]
    gone = await client.delete(f"/v2/zones/{zone_id}/recordsets/{recordset['id']}",
                               headers=ADMIN)
    assert gone.status_code == 202, gone.text
    [third] = await _serve(services)
    assert calls == {"served_set": 1, "prepared": 1}
    [_, last] = await source.zone_changes(zone_id, first.serial)
    assert (last.from_serial, last.serial, last.added) == (second.serial, third.serial, ())
    assert [(r.name, r.data) for r in last.removed] == [("www.held.example.", "192.0.2.9")]


async def test_a_small_zone_is_read_inside_the_claim(services, client, monkeypatch) -> None:
    source = SqlZoneSource(services.db)
    zone_id = await _zone(client, "small.example.")
    [first] = await _serve(services)
    calls = _spy(monkeypatch)
    await _add(client, zone_id, "www.small.example.")
    monkeypatch.setattr(zonehistory, "LAST_SETS", zonehistory.LastSets(max_rows=0))  # no patch
    await _serve(services)
    assert calls == {"served_set": 1, "prepared": 0}
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert [r.name for r in delta.added] == ["www.small.example."]


async def test_an_imported_zones_first_claim_uses_a_prepared_base(services, client, task_runner,
                                                                 monkeypatch) -> None:
    """An imported zone has no snapshot but many records: its served set is read and encoded
    before its first claim, and the history starts from it."""
    monkeypatch.setattr(workqueue, "PREPARE_RECORDS", 3)  # SOA, NS and one A count as many
    source = SqlZoneSource(services.db)
    text = ("$ORIGIN imported.example.\n$TTL 300\n"
            "@ IN SOA ns1.example.net. h.imported.example. 1 3600 600 86400 300\n"
            "@ IN NS ns1.example.net.\nwww IN A 192.0.2.9\n")
    started = await client.post("/v2/zones/tasks/imports", content=text.encode(),
                                headers={**ADMIN, "Content-Type": "text/dns"})
    assert started.status_code == 202, started.text
    await task_runner.drain()
    done = (await client.get(started.json()["links"]["self"], headers=ADMIN)).json()
    assert done["status"] == "COMPLETE", done
    zone_id = done["zone_id"]
    calls = _spy(monkeypatch)
    [first] = await _serve(services)
    assert first.action == "CREATE"
    assert calls == {"served_set": 1, "prepared": 1}
    # the base holds the imported record: the next step adds only the next one
    await _add(client, zone_id, "mail.imported.example.")
    [second] = await _serve(services)
    [delta] = await source.zone_changes(zone_id, first.serial)
    assert (delta.from_serial, delta.serial, delta.removed) == (first.serial, second.serial, ())
    assert [r.name for r in delta.added] == ["mail.imported.example."]


async def test_a_new_zone_written_after_the_preparation_is_read_in_the_claim(
        services, client, monkeypatch) -> None:
    """A zone written before its first claim (no snapshot yet, action UPDATE), and again
    between the preparation and the claim: the claim reads it, and its base has every record."""
    monkeypatch.setattr(workqueue, "PREPARE_RECORDS", 3)
    source = SqlZoneSource(services.db)
    zone_id = await _zone(client, "busy-import.example.")
    await _add(client, zone_id, "www.busy-import.example.")
    prepare_steps = workqueue._prepare_steps

    async def then_a_write(made) -> None:  # noqa: ANN001
        assert list(made) == [zone_id]
        await _add(client, zone_id, "late.busy-import.example.")

    _after_preparing(monkeypatch, then_a_write)
    calls = _spy(monkeypatch)
    [first] = await _serve(services)
    assert calls == {"served_set": 2, "prepared": 1}
    monkeypatch.setattr(workqueue, "_prepare_steps", prepare_steps)
    await _add(client, zone_id, "next.busy-import.example.")
    [second] = await _serve(services)
    [delta] = await source.zone_changes(zone_id, first.serial)
    # the late record was in the base: the step adds only the next one
    assert [r.name for r in delta.added] == ["next.busy-import.example."]
