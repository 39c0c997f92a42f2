"""Creates without a transaction on PostgreSQL: recordsets (``central.recordsets._create_unlocked``)
and zones (``central.zones._create_alone``, at the end).

The create reads the zone and its facts, checks the rules, then writes with one statement that
is made only if no write reached the zone in between (``rs_store.create_if_unchanged``). These
tests put a write exactly in between (the read is wrapped so that another request runs after
it) and check that the create then goes the locked way and ends as if the two had been
serialized: both made, or the rule the other write broke enforced (a duplicate, a quota, a
deleting zone), and never half of the create written. They also check that a plain create
does take the unlocked way, and that SQLite and MariaDB never do.

After a create, the next one in the zone is judged on what this process knows of it
(``central.known_zones``) and written by one statement that checks what the knowledge assumed
(``rs_store.create_if_assumed``). The tests of that way (at the end) change each assumed fact
behind the process's back — the zone, the name, a child zone, the stored quotas — and check
that the create still answers what a read would have answered.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import bindparam, func, select, update

from openkeel_designate.central import known_zones, quotas
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zone_create as create_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Record, RecordSet, Zone
from support.databases import empty_database_url
from support.unlocked import between, spy

from conftest import project  # type: ignore[import-not-found]

OWNER = project("unlocked-p")
ADMIN_ALL = {**project("unlocked-admin", "admin"), "X-Auth-All-Projects": "true"}
ZONE = "unlocked.example."


@pytest.fixture
def database_url():  # noqa: ANN201 - overrides the conftest's three engines
    with empty_database_url("postgresql", prefix="okd-unlocked-") as url:
        yield url


@pytest.fixture
async def zone_id(client) -> str:  # noqa: ANN001 - fixture
    created = await client.post("/v2/zones", json={"name": ZONE, "email": "h@unlocked.example"},
                                headers=OWNER)
    assert created.status_code == 202
    return created.json()["id"]


def _spy(monkeypatch, module=rs_store, name="create_if_unchanged") -> list[bool]:  # noqa: ANN001
    """What each write without a transaction answered (by default the recordset create's)."""
    return spy(monkeypatch, module, name)


def _between(monkeypatch, write) -> None:  # noqa: ANN001 - fixture, coroutine function
    """Run ``write()`` once, right after the next create's unlocked read."""
    between(monkeypatch, rs_store, "read_for_create", write)


async def _post(client, zone_id: str, name: str, *records: str):  # noqa: ANN001, ANN202
    return await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": name, "type": "A", "records": list(records or ["192.0.2.1"])})


async def _zone_and_counts(services, zone_id: str) -> tuple[int, int, int]:  # noqa: ANN001
    """(the zone's change_seq, its recordsets, its records)."""
    async with services.db.read() as session:
        seq = (await session.execute(select(Zone.change_seq).where(Zone.id == zone_id))).scalar_one()
        sets = (await session.execute(select(func.count()).select_from(RecordSet)
                                      .where(RecordSet.zone_id == zone_id))).scalar_one()
        records = (await session.execute(select(func.count()).select_from(Record)
                                         .where(Record.zone_id == zone_id))).scalar_one()
    return seq, sets, records


async def test_a_plain_create_is_written_unlocked(client, services, zone_id, monkeypatch):  # noqa: ANN001
    answers = _spy(monkeypatch)
    before = await _zone_and_counts(services, zone_id)
    created = await _post(client, zone_id, "www.unlocked.example.", "192.0.2.1", "192.0.2.2")
    assert created.status_code == 202, created.text
    body = created.json()
    assert (body["status"], body["action"], sorted(body["records"])) == (
        "PENDING", "CREATE", ["192.0.2.1", "192.0.2.2"])
    assert answers == [True]
    seq, sets, records = await _zone_and_counts(services, zone_id)
    assert (seq, sets, records) == (before[0] + 1, before[1] + 1, before[2] + 2)
    async with services.db.read() as session:
        zone = await session.get(Zone, zone_id)
        assert (zone.status, zone.increment_serial) == ("PENDING", True)
        stored = (await session.execute(select(Record.status, Record.serial).where(
            Record.recordset_id == body["id"]))).all()
    assert sorted(stored) == [("PENDING", None), ("PENDING", None)]
    shown = await client.get(f"/v2/zones/{zone_id}/recordsets/{body['id']}", headers=OWNER)
    assert shown.json()["name"] == "www.unlocked.example."


@pytest.mark.parametrize(("other", "status", "made"), [
    ("other.unlocked.example.", 202, 2),  # both made
    ("SAME.unlocked.example.", 409, 1),  # the same name in another case: a duplicate
])
async def test_a_create_in_between_sends_the_create_the_locked_way(
        client, services, zone_id, monkeypatch, other, status, made):  # noqa: ANN001
    answers = _spy(monkeypatch)
    before = await _zone_and_counts(services, zone_id)

    async def create_other() -> None:
        assert (await _post(client, zone_id, other)).status_code == 202

    _between(monkeypatch, create_other)
    mine = await _post(client, zone_id, "same.unlocked.example.", "192.0.2.9")
    assert mine.status_code == status, mine.text
    if status == 409:
        assert mine.json()["type"] == "duplicate_recordset"
    # the other create was written unlocked; this one found the zone changed
    assert answers == [True, False]
    assert await _zone_and_counts(services, zone_id) == (before[0] + made, before[1] + made,
                                                          before[2] + made)


async def test_a_quota_used_up_in_between_is_enforced(client, services, zone_id,
                                                      monkeypatch):  # noqa: ANN001
    _, sets, _ = await _zone_and_counts(services, zone_id)
    limited = await client.patch("/v2/quotas/unlocked-p", json={"zone_recordsets": sets + 1},
                                 headers=ADMIN_ALL)
    assert limited.status_code == 200
    answers = _spy(monkeypatch)

    async def last() -> None:
        assert (await _post(client, zone_id, "last.unlocked.example.")).status_code == 202

    _between(monkeypatch, last)
    over = await _post(client, zone_id, "over.unlocked.example.")
    assert over.status_code == 413, over.text
    assert answers == [True, False]
    assert (await _zone_and_counts(services, zone_id))[1] == sets + 1


async def test_a_zone_deleted_in_between_takes_nothing(client, services, zone_id,
                                                       monkeypatch):  # noqa: ANN001
    answers = _spy(monkeypatch)
    before = await _zone_and_counts(services, zone_id)

    async def delete_zone() -> None:
        assert (await client.delete(f"/v2/zones/{zone_id}", headers=OWNER)).status_code == 202

    _between(monkeypatch, delete_zone)
    refused = await _post(client, zone_id, "late.unlocked.example.")
    assert refused.status_code == 400, refused.text
    assert refused.json()["message"] == "Can not update a deleting zone"
    assert answers == [False]
    assert (await _zone_and_counts(services, zone_id))[1:] == before[1:]


async def test_a_new_owner_in_between_is_a_change(client, services, zone_id):  # noqa: ANN001
    """A transfer changes the owner; the guard compares it as well as ``change_seq``."""
    zone, facts = await rs_store.read_for_create(services.db, zone_id, "unlocked-p",
                                                 "moved.unlocked.example.", quotas.caps(services))
    assert zone is not None and facts.types_at_name == []
    await services.db.transaction(lambda session: session.execute(
        update(Zone).where(Zone.id == zone_id).values(tenant_id="someone-else")))
    recordset = rs_store.recordset_row(zone, "moved.unlocked.example.", "A")
    record = rs_store.record_row(zone, recordset["id"], recordset["tenant_id"], "192.0.2.1")
    before = await _zone_and_counts(services, zone_id)
    assert not await rs_store.create_if_unchanged(services.db, zone, recordset, [record],
                                                  "UPDATE", bump_serial=True)
    assert await _zone_and_counts(services, zone_id) == before


async def test_racing_creates_end_serialized(client, services, zone_id, monkeypatch):  # noqa: ANN001
    """Twenty creates at once of one name (one made, the rest duplicates), then twenty of
    twenty names (all made): the zone's counter counts exactly the creates made."""
    answers = _spy(monkeypatch)
    before = await _zone_and_counts(services, zone_id)
    same = await asyncio.gather(*(_post(client, zone_id, "race.unlocked.example.", f"192.0.2.{i}")
                                  for i in range(1, 21)))
    assert sorted(r.status_code for r in same) == [202] + [409] * 19
    spread = await asyncio.gather(*(_post(client, zone_id, f"n{i}.unlocked.example.")
                                    for i in range(20)))
    assert [r.status_code for r in spread] == [202] * 20
    assert await _zone_and_counts(services, zone_id) == (before[0] + 21, before[1] + 21,
                                                          before[2] + 21)
    assert True in answers


@pytest.mark.parametrize("backend", ["sqlite", "mysql"])
async def test_other_engines_write_in_a_transaction(backend):  # noqa: ANN001
    with empty_database_url(backend, prefix="okd-unlocked-") as url:
        db = Database(url)
        assert not db.writes_alone and not rs_store.writes_alone(db, ["192.0.2.1"])
        await db.dispose()


# --- zone creates (``central.zones._create_alone``) ------------------------------------------

def _zone_spy(monkeypatch) -> list[bool]:  # noqa: ANN001 - fixture
    """What each zone write without a transaction answered (True: written)."""
    return _spy(monkeypatch, create_store, "insert_zone_alone")


async def test_a_plain_zone_create_is_one_statement(client, services, monkeypatch):  # noqa: ANN001
    answers = _zone_spy(monkeypatch)
    created = await client.post("/v2/zones", headers=OWNER, json={
        "name": "alone.example.", "email": "h@alone.example", "attributes": {"tier": "gold"}})
    assert created.status_code == 202, created.text
    assert answers == [True]
    zone = created.json()
    assert (zone["status"], zone["action"], zone["attributes"]) == (
        "PENDING", "CREATE", {"tier": "gold"})
    listed = await client.get(f"/v2/zones/{zone['id']}/recordsets", headers=OWNER)
    assert sorted(rs["type"] for rs in listed.json()["recordsets"]) == ["NS", "SOA"]
    shown = await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)
    assert shown.json()["attributes"] == {"tier": "gold"}


async def test_a_zone_with_zones_below_it_is_created_in_a_transaction(client, services,
                                                                      monkeypatch):  # noqa: ANN001
    """Zones below a new zone are adopted by it (their parent moves): not one statement."""
    below = await client.post("/v2/zones", headers=OWNER, json={
        "name": "deep.upper.example.", "email": "h@upper.example"})
    answers = _zone_spy(monkeypatch)
    upper = await client.post("/v2/zones", headers=OWNER, json={
        "name": "upper.example.", "email": "h@upper.example"})
    assert upper.status_code == 202
    assert answers == []
    async with services.db.read() as session:
        parent = (await session.execute(select(Zone.parent_zone_id).where(
            Zone.id == below.json()["id"]))).scalar_one()
    assert parent == upper.json()["id"]


async def test_racing_zone_creates_of_one_name_make_one(client, services):  # noqa: ANN001
    names = ["race.example.", "RACE.example.", "Race.Example."] * 4
    answers = await asyncio.gather(*(client.post("/v2/zones", headers=OWNER, json={
        "name": name, "email": "h@race.example"}) for name in names))
    assert sorted(r.status_code for r in answers) == [202] + [409] * (len(names) - 1)
    assert {r.json()["type"] for r in answers if r.status_code == 409} == {"duplicate_zone"}
    async with services.db.read() as session:
        made = (await session.execute(select(func.count()).select_from(Zone).where(
            Zone.name_key == "race.example."))).scalar_one()
    assert made == 1


async def test_a_write_asyncpg_cannot_run_alone_is_left_to_a_transaction(services):  # noqa: ANN001
    """An IN-list bound as one expanding parameter is compiled per execution, which asyncpg's
    prebuilt statements refuse: ``write_alone`` answers "not written" (the callers then write
    in a transaction), never an error."""
    statement = update(Zone).where(Zone.id.in_(bindparam("ids", expanding=True))).values(
        description="touched")
    assert await services.db.write_alone(statement, {"ids": ["no-such-zone"]}) is None


# --- creates on what is known (``central.known_zones``) --------------------------------------

@pytest.fixture
def ways(monkeypatch) -> dict[str, list]:  # noqa: ANN001 - fixture
    """What each create's read was asked for (its name) and what each write answered, by way:
    ``read`` the zone and facts read, ``unchanged`` the write after a read, ``assumed`` the
    write on known facts (True written, False the zone changed, None the name taken)."""
    reads: list[str] = []
    real_read = rs_store.read_for_create

    async def read(db, zone_id, project_id, name, caps):  # noqa: ANN001, ANN202
        reads.append(name)
        return await real_read(db, zone_id, project_id, name, caps)

    monkeypatch.setattr(rs_store, "read_for_create", read)
    return {"read": reads, "unchanged": _spy(monkeypatch),
            "assumed": _spy(monkeypatch, rs_store, "create_if_assumed")}


async def test_creates_after_the_first_take_one_statement(client, services, zone_id,
                                                          ways):  # noqa: ANN001
    before = await _zone_and_counts(services, zone_id)
    for index in range(4):
        made = await _post(client, zone_id, f"k{index}.unlocked.example.", "192.0.2.1",
                           "192.0.2.2")
        assert made.status_code == 202, made.text
        assert (made.json()["status"], made.json()["name"]) == (
            "PENDING", f"k{index}.unlocked.example.")
    assert ways == {"read": ["k0.unlocked.example."], "unchanged": [True],
                    "assumed": [True, True, True]}
    assert await _zone_and_counts(services, zone_id) == (before[0] + 4, before[1] + 4,
                                                          before[2] + 8)
    listed = await client.get(f"/v2/zones/{zone_id}/recordsets?type=A", headers=OWNER)
    assert sorted(rs["name"] for rs in listed.json()["recordsets"]) == [
        f"k{index}.unlocked.example." for index in range(4)]


async def test_a_write_elsewhere_is_read_then_the_zone_rests(client, services, zone_id, ways,
                                                           monkeypatch):  # noqa: ANN001
    """Another writer bumped the zone: the known write misses, the create reads and is made,
    and for a moment the zone's creates read first (no missed write each)."""
    assert (await _post(client, zone_id, "a.unlocked.example.")).status_code == 202
    await services.db.transaction(lambda session: session.execute(
        update(Zone).where(Zone.id == zone_id).values(change_seq=Zone.change_seq + 1)))
    assert (await _post(client, zone_id, "b.unlocked.example.")).status_code == 202
    assert (await _post(client, zone_id, "c.unlocked.example.")).status_code == 202
    assert ways["assumed"] == [False]
    assert ways["read"] == ["a.unlocked.example.", "b.unlocked.example.", "c.unlocked.example."]
    monkeypatch.setattr(known_zones, "CONTENDED_SECONDS", 0.0)
    services.known_zones.missed(zone_id)  # a moment that is over at once
    assert (await _post(client, zone_id, "d.unlocked.example.")).status_code == 202
    assert (await _post(client, zone_id, "e.unlocked.example.")).status_code == 202
    assert ways["assumed"] == [False, True]
    assert (await _zone_and_counts(services, zone_id))[1] == 2 + 5  # SOA, NS and five


@pytest.mark.parametrize(("rtype", "records", "status", "error"), [
    ("AAAA", ["2001:db8::1"], 202, None),  # another type at the name: allowed
    ("A", ["192.0.2.7"], 409, "duplicate_recordset"),  # the same in another case
    ("CNAME", ["target.example."], 400, "invalid_recordset_location"),
])
async def test_a_taken_name_is_judged_on_a_read(client, services, zone_id, ways, rtype, records,
                                                status, error):  # noqa: ANN001
    assert (await _post(client, zone_id, "www.unlocked.example.")).status_code == 202
    second = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=OWNER, json={
        "name": "WWW.unlocked.example.", "type": rtype, "records": records})
    assert second.status_code == status, second.text
    if error is not None:
        assert second.json()["type"] == error
    assert ways["assumed"] == [None]  # the name was taken: not written, no other writer
    assert ways["read"] == ["www.unlocked.example.", "WWW.unlocked.example."]
    after = await _post(client, zone_id, "after.unlocked.example.")
    assert after.status_code == 202
    assert ways["assumed"] == [None, True]  # known again, the zone not taken for contended


async def test_a_child_zone_made_after_is_enforced(client, services, zone_id, ways):  # noqa: ANN001
    assert (await _post(client, zone_id, "first.unlocked.example.")).status_code == 202
    child = await client.post("/v2/zones", headers=OWNER, json={
        "name": "sub.unlocked.example.", "email": "h@unlocked.example"})
    assert child.status_code == 202, child.text
    inside = await _post(client, zone_id, "www.sub.unlocked.example.")
    assert inside.status_code == 400, inside.text
    assert inside.json()["type"] == "invalid_recordset_location"
    assert ways["assumed"] in ([None], [False])  # not written on what was known
    assert ways["read"][-1] == "www.sub.unlocked.example."
    async with services.db.read() as session:
        names = (await session.execute(select(RecordSet.name).where(
            RecordSet.zone_id == zone_id, RecordSet.type == "A"))).scalars().all()
    assert names == ["first.unlocked.example."]


@pytest.mark.parametrize("resource", ["zone_recordsets", "zone_records", "recordset_records"])
async def test_stored_quotas_set_after_are_enforced(client, services, zone_id, ways,
                                                    resource):  # noqa: ANN001
    assert (await _post(client, zone_id, "one.unlocked.example.")).status_code == 202
    _, sets, records = await _zone_and_counts(services, zone_id)
    unmanaged = records - 2  # the SOA and NS records are managed
    limit = {"zone_recordsets": sets, "zone_records": unmanaged, "recordset_records": 0}[resource]
    limited = await client.patch("/v2/quotas/unlocked-p", json={resource: limit},
                                 headers=ADMIN_ALL)
    assert limited.status_code == 200, limited.text
    over = await _post(client, zone_id, "two.unlocked.example.")
    assert over.status_code == 413, over.text
    assert over.json()["type"] == "over_quota"
    assert ways["assumed"] in ([], [None], [False])
    assert (await _zone_and_counts(services, zone_id))[1] == sets


async def test_known_counts_run_up_to_the_quota(client, services, zone_id, ways):  # noqa: ANN001
    """The counts known after each create are exact: the quota refuses the one create past it."""
    _, sets, _ = await _zone_and_counts(services, zone_id)
    limited = await client.patch("/v2/quotas/unlocked-p", json={"zone_recordsets": sets + 3},
                                 headers=ADMIN_ALL)
    assert limited.status_code == 200
    answers = [(await _post(client, zone_id, f"q{index}.unlocked.example.")).status_code
               for index in range(4)]
    assert answers == [202, 202, 202, 413]
    assert ways["assumed"] == [True, True]  # the fourth was refused on what was known, then read
    assert ways["read"] == ["q0.unlocked.example.", "q3.unlocked.example."]
    assert (await _zone_and_counts(services, zone_id))[1] == sets + 3


async def test_a_put_or_a_zone_delete_in_this_process_is_seen(client, services, zone_id,
                                                             ways):  # noqa: ANN001
    made = await _post(client, zone_id, "put.unlocked.example.")
    put = await client.put(f"/v2/zones/{zone_id}/recordsets/{made.json()['id']}",
                           headers=OWNER, json={"records": ["192.0.2.44"]})
    assert put.status_code == 202, put.text
    assert (await _post(client, zone_id, "next.unlocked.example.")).status_code == 202
    assert ways["assumed"] == []  # the PUT made what was known old: read
    assert (await client.delete(f"/v2/zones/{zone_id}", headers=OWNER)).status_code == 202
    late = await _post(client, zone_id, "late.unlocked.example.")
    assert late.status_code == 400, late.text
    assert late.json()["message"] == "Can not update a deleting zone"
    assert ways["assumed"] == [False]
    assert (await _zone_and_counts(services, zone_id))[1] == 2 + 2
