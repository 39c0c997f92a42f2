"""The claim's IXFR step from the names changed alone (``zonehistory.record_patched_serial``)
against the whole zone read, on each engine.

Random writes of every kind a tenant can make (recordsets created in any case, their records
replaced, their TTL changed or removed, recordsets deleted, the zone's TTL and email changed),
a claim after each round: the snapshot the step stored must be the zone as a whole read finds
it, and the step itself the difference between the two whole reads. A write the patch cannot
see (a deletion, the zone's TTL) must make the claim read the zone whole."""

from __future__ import annotations

import random

import pytest

from openkeel_designate import slices
from openkeel_designate.storage import workqueue, zonehistory
from openkeel_designate.storage.zonesource import SqlZoneSource

from conftest import project, serve_pending  # type: ignore[import-not-found]

ADMIN = project("patched-admin", "admin")
OWNER = "test-patched-steps"
ZONE = "patched.example."
NAMES = ("www", "WWW", "mail", "Mail", "a.b", "A.B", "deep.a.b", "x")
DATA = {
    "A": [f"192.0.2.{i}" for i in range(1, 6)],
    "AAAA": [f"2001:db8::{i}" for i in range(1, 4)],
    "TXT": ['"one"', '"two"', '"three"'],
    "MX": [f"10 mail.{ZONE}", f"20 x.{ZONE}"],
    "CNAME": [f"target.{ZONE}", f"other.{ZONE}"],
}


def _spy(monkeypatch) -> dict[str, int]:  # noqa: ANN001 - fixture
    """How many claims patched their step, and how many read the zone whole."""
    calls = {"patched": 0, "whole": 0}
    patched, whole = zonehistory.record_patched_serial, workqueue._served_set

    async def counted_patch(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        done = await patched(*args, **kwargs)
        calls["patched"] += done
        return done

    async def counted_read(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        calls["whole"] += 1
        return await whole(*args, **kwargs)

    monkeypatch.setattr(zonehistory, "record_patched_serial", counted_patch)
    monkeypatch.setattr(workqueue, "_served_set", counted_read)
    return calls


# the whole read itself, taken before ``_spy`` replaces it: the test's own reads are not counted
WHOLE_READ = workqueue._served_set


async def _whole(services, zone_id: str) -> set:  # noqa: ANN001 - fixture
    """The zone's served set as a whole read finds it now."""
    async with services.db.read() as session:
        return await WHOLE_READ(session, zone_id)


async def _stored(services, zone_id: str) -> set:  # noqa: ANN001 - fixture
    """The newest snapshot as its step stored it."""
    async with services.db.read() as session:
        blob = await zonehistory.newest_snapshot(session, zone_id)
    assert blob is not None
    return slices.run(zonehistory.decode_steps(blob))


async def _random_write(rng: random.Random, client, zone_id: str,  # noqa: ANN001
                        recordsets: dict[str, str]) -> str:
    """One write of a random kind; what it was (its answer may be an error: a CNAME beside
    other data, a name taken in another case; the step must hold either way)."""
    base = f"/v2/zones/{zone_id}/recordsets"
    kind = rng.choice(("create", "create", "create", "records", "ttl", "no ttl", "delete",
                       "zone ttl", "zone email"))
    if kind in ("records", "ttl", "no ttl", "delete") and not recordsets:
        kind = "create"
    if kind == "create":
        rtype = rng.choice(sorted(DATA))
        name = f"{rng.choice(NAMES)}.{ZONE}"
        records = rng.sample(DATA[rtype], 1 if rtype == "CNAME" else rng.randint(1, 2))
        body = {"name": name, "type": rtype, "records": records}
        if rng.random() < 0.5:
            body["ttl"] = rng.choice((300, 600, 3600))
        made = await client.post(base, headers=ADMIN, json=body)
        if made.status_code == 202:
            recordsets[made.json()["id"]] = rtype
        return f"create {rtype} {name}: {made.status_code}"
    recordset_id = rng.choice(sorted(recordsets))
    rtype = recordsets[recordset_id]
    if kind == "delete":
        gone = await client.delete(f"{base}/{recordset_id}", headers=ADMIN)
        del recordsets[recordset_id]
        return f"delete {rtype}: {gone.status_code}"
    if kind == "records":
        count = 1 if rtype == "CNAME" else rng.randint(1, 2)
        body = {"records": rng.sample(DATA[rtype], count) if rng.random() < 0.8 else []}
    elif kind == "ttl":
        body = {"ttl": rng.choice((60, 300, 900))}
    elif kind == "no ttl":
        body = {"ttl": None}
    elif kind == "zone ttl":
        changed = await client.patch(f"/v2/zones/{zone_id}", headers=ADMIN,
                                     json={"ttl": rng.choice((1800, 3600, 7200))})
        return f"zone ttl: {changed.status_code}"
    else:
        changed = await client.patch(f"/v2/zones/{zone_id}", headers=ADMIN,
                                     json={"email": f"h{rng.randint(1, 9)}@{ZONE.rstrip('.')}"})
        return f"zone email: {changed.status_code}"
    changed = await client.put(f"{base}/{recordset_id}", headers=ADMIN, json=body)
    return f"{kind} {rtype}: {changed.status_code}"


def _rows(records) -> set:  # noqa: ANN001 - ServedRecords
    return {zonehistory.history_row(r.name, r.type, r.ttl, r.data) for r in records}


def _content(rows: set) -> set:
    return {row for row in rows if row[1] != "SOA"}


@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
@pytest.mark.parametrize("seed", [1, 2])
async def test_patched_steps_match_the_whole_zone(services, client, monkeypatch, seed,
                                                  large) -> None:
    """``large``: the zone counts as large (its step is prepared before the claim when it is
    not patched, ``zonehistory.PreparedStep``)."""
    if large:
        monkeypatch.setattr(workqueue, "PREPARE_BYTES", 1)
    rng = random.Random(seed)
    made = await client.post("/v2/zones", headers=ADMIN, json={"name": ZONE,
                                                               "email": f"h@{ZONE.rstrip('.')}"})
    assert made.status_code == 202, made.text
    zone_id = made.json()["id"]
    [created] = await serve_pending(services, OWNER)
    source = SqlZoneSource(services.db)
    serial, before = created.serial, await _whole(services, zone_id)
    calls = _spy(monkeypatch)
    recordsets: dict[str, str] = {}
    for round_ in range(30):
        done = [await _random_write(rng, client, zone_id, recordsets)
                for _ in range(rng.randint(1, 3))]
        claimed = await serve_pending(services, OWNER)
        if not claimed:  # every write of the round was refused
            continue
        after = await _whole(services, zone_id)
        assert await _stored(services, zone_id) == after, (round_, done)
        [step] = await source.zone_changes(zone_id, serial)
        assert (step.from_serial, step.serial) == (serial, claimed[0].serial)
        assert (_content(before) - _rows(step.removed)) | _rows(step.added) == _content(after), \
            (round_, done)
        assert not _rows(step.removed) & _rows(step.added)
        serial, before = claimed[0].serial, after
    # both ways were taken: the patch for most rounds, the whole read after a deletion or a
    # new zone TTL
    assert calls["patched"] >= 10 and calls["whole"] >= 3, calls
