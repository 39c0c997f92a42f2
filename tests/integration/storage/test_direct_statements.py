"""What both drivers' own statement runners must do alike (``storage/asyncpg_statements`` on
PostgreSQL, ``storage/sqlite_statements`` on SQLite, through ``database.execute``): a unique
violation is a Duplicate and leaves nothing written, and a recordset create's transaction
sends nothing through SQLAlchemy's execution and writes what SQLAlchemy would have.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from openkeel_designate.domain import errors
from openkeel_designate.storage import merged, quotas, recordsets, zone_create, zones
from openkeel_designate.storage.database import Database, bounded, execute_many
from openkeel_designate.storage.models import new_id
from support.databases import migrated_database_url
from support.direct_statements import INSERT_TLD, TLD_NAMES, SQLAlchemyStatements, a_zone, tld

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request):
    with migrated_database_url(request.param, prefix="okd-direct-") as made:
        yield made


async def test_a_unique_violation_is_a_duplicate(url: str) -> None:
    db = Database(url)
    try:
        async def twice(session) -> None:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("first")])
            await execute_many(session, bounded(INSERT_TLD), [tld("first")])

        with pytest.raises(errors.Duplicate):
            await db.transaction(twice)
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert names == []
    finally:
        await db.dispose()


async def test_a_recordset_create_runs_no_statement_through_sqlalchemy(url: str) -> None:
    """The statements of a recordset POST's transaction (on SQLite BEGIN IMMEDIATE, the zone
    locked, the facts of the name, the rows, the zone marked PENDING), as central runs them."""
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone())
        seen = SQLAlchemyStatements(db)

        async def create(session) -> object:  # noqa: ANN001
            zone = await zones.get_locked_copy(session, "z-1", project_id="p", all_tenants=False)
            assert zone is not None and zone.name == "a.example."
            facts = await recordsets.placement_facts(
                session, "z-1", "www.a.example.", "p",
                quotas.Caps({"zone_recordsets": 500, "zone_records": 500}, False))
            assert (facts.recordsets, facts.child_zones) == (0, [])
            return await _create(session, zone, "www.a.example.", ["192.0.2.1", "192.0.2.2"])

        recordset_id = await db.transaction(create)
        assert seen.sent == []
        assert await _written(db, recordset_id) == (
            [("192.0.2.1", "PENDING"), ("192.0.2.2", "PENDING")], ("PENDING", "UPDATE", True, 2))
    finally:
        await db.dispose()


@pytest.mark.parametrize("count", [1, merged.MERGED_ROWS, merged.MERGED_ROWS + 1])
async def test_a_recordset_create_writes_its_rows_and_marks_the_zone(url: str, count: int) -> None:
    """``insert_marking_pending``, one statement on PostgreSQL up to ``merged.MERGED_ROWS`` records
    (data-modifying CTEs) and three beyond and elsewhere: the same rows either way."""
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone())
        data = [f"192.0.2.{index}" for index in range(1, count + 1)]

        async def create(session) -> str:  # noqa: ANN001
            zone = await zones.get_locked_copy(session, "z-1", project_id="p", all_tenants=False)
            return await _create(session, zone, "www.a.example.", data)

        recordset_id = await db.transaction(create)
        assert await _written(db, recordset_id) == (
            [(item, "PENDING") for item in sorted(data)], ("PENDING", "UPDATE", True, 2))
    finally:
        await db.dispose()


async def test_a_duplicate_create_is_a_duplicate_and_writes_nothing(url: str) -> None:
    """The second create of a name and type (in another case) breaks the unique key inside the
    merged statement on PostgreSQL: Duplicate, and neither its rows nor its mark are written."""
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone())

        async def create(name: str) -> str:
            async def work(session) -> str:  # noqa: ANN001
                zone = await zones.get_locked_copy(session, "z-1", project_id="p", all_tenants=False)
                return await _create(session, zone, name, ["192.0.2.1"])
            return await db.transaction(work)

        await create("www.a.example.")
        [[before]] = await db.point_reads([(text("SELECT change_seq FROM zones"), {})])
        with pytest.raises(errors.Duplicate):
            await create("WWW.a.example.")
        [[[count]], [after]] = await db.point_reads([
            (text("SELECT count(*) FROM records"), {}),
            (text("SELECT change_seq FROM zones"), {})])
        assert (count, tuple(after)) == (1, tuple(before))
    finally:
        await db.dispose()


async def _create(session, zone, name: str, data: list[str]) -> str:  # noqa: ANN001
    recordset = recordsets.recordset_row(zone, name, "A", tenant_id="p")
    await recordsets.insert_marking_pending(
        session, recordset, [recordsets.record_row(zone, recordset["id"], "p", item)
                             for item in data], "UPDATE", bump_serial=True)
    return recordset["id"]


async def _written(db: Database, recordset_id: str) -> tuple[list[tuple], tuple]:
    """The recordset's records (data, status) and the zone's (status, action,
    increment_serial, change_seq: 1 when made, so 2 after one create)."""
    [records, [zone]] = await db.point_reads([
        (text("SELECT data, status FROM records WHERE recordset_id = :id ORDER BY data"),
         {"id": recordset_id}),
        (text("SELECT status, action, increment_serial, change_seq FROM zones WHERE id = 'z-1'"),
         {})])
    status, action, increment_serial, change_seq = zone
    return [tuple(row) for row in records], (status, action, bool(increment_serial), change_seq)


def _zone_values(name: str) -> dict:
    """A new zone's columns as central gives them (``central/zones._new_zone``)."""
    zone_id = new_id()
    return dict(id=zone_id, shard=int(zone_id[:3], 16), tenant_id="p", name=name,
                email="h@a.example", ttl=300, refresh=1, retry=2, expire=3, minimum=4,
                serial=5, status="PENDING", action="CREATE", pool_id="pool",
                reverse_name=name[::-1], change_seq=1, version=1, deleted=zones.LIVE)


async def _create_zone(db: Database, name: str, hosts: int) -> str:
    """A zone with an attribute, a master, its SOA and an NS recordset of ``hosts`` records,
    written as a zone create writes them (``zone_create.insert_zone``)."""
    async def work(session) -> str:  # noqa: ANN001
        row, zone = zone_create.new_zone(_zone_values(name))
        soa = recordsets.recordset_row(zone, name, "SOA")
        ns = recordsets.recordset_row(zone, name, "NS")
        records = [recordsets.record_row(zone, soa["id"], "p", "ns1.example. h.a.example. 5 1 2 3 4",
                                         managed=True)]
        records += [recordsets.record_row(zone, ns["id"], "p", f"ns{index}.example.", managed=True)
                    for index in range(hosts)]
        await zone_create.insert_zone(session, row, {"pool_hint": "east"}, [("192.0.2.53", 53)],
                                      [soa, ns], records)
        return row["id"]
    return await db.transaction(work)


_ZONE_ROWS = text(
    "SELECT (SELECT count(*) FROM zones), (SELECT count(*) FROM zone_attributes),"
    " (SELECT count(*) FROM zone_masters), (SELECT count(*) FROM recordsets),"
    " (SELECT count(*) FROM records)")


@pytest.mark.parametrize("hosts", [1, merged.MERGED_ROWS - 1, merged.MERGED_ROWS])
async def test_a_zone_create_writes_every_part(url: str, hosts: int) -> None:
    """``zone_create.insert_zone``: one statement on PostgreSQL while each part has at most
    ``MERGED_ROWS`` rows (records: the SOA and ``hosts`` NS; the last case is one past), the
    statements one by one beyond and elsewhere: the same rows either way."""
    db = Database(url)
    try:
        zone_id = await _create_zone(db, "b.example.", hosts)
        [[counts], attributes, records] = await db.point_reads([
            (_ZONE_ROWS, {}),
            (text("SELECT z.name, a.key, a.value, m.host, m.port FROM zones z"
                  " JOIN zone_attributes a ON a.zone_id = z.id"
                  " JOIN zone_masters m ON m.zone_id = z.id WHERE z.id = :id"), {"id": zone_id}),
            (text("SELECT rs.type, r.data, r.status FROM records r"
                  " JOIN recordsets rs ON rs.id = r.recordset_id"
                  " WHERE r.zone_id = :id AND rs.zone_id = :id ORDER BY rs.type, r.data"),
             {"id": zone_id})])
        assert tuple(counts) == (1, 1, 1, 2, 1 + hosts)
        assert [tuple(row) for row in attributes] == [
            ("b.example.", "pool_hint", "east", "192.0.2.53", 53)]
        assert [tuple(row) for row in records] == (
            [("NS", f"ns{index}.example.", "PENDING") for index in sorted(range(hosts), key=str)]
            + [("SOA", "ns1.example. h.a.example. 5 1 2 3 4", "PENDING")])
    finally:
        await db.dispose()


async def test_a_duplicate_zone_is_a_duplicate_and_writes_nothing(url: str) -> None:
    """A second zone of the same name (in another case) breaks the unique key inside the
    merged statement on PostgreSQL: Duplicate, and none of its parts are written."""
    db = Database(url)
    try:
        await _create_zone(db, "b.example.", 2)
        with pytest.raises(errors.Duplicate):
            await _create_zone(db, "B.example.", 2)
        [[counts]] = await db.point_reads([(_ZONE_ROWS, {})])
        assert tuple(counts) == (1, 1, 1, 2, 3)
    finally:
        await db.dispose()


async def test_a_zone_create_reads_its_facts_without_sqlalchemy(url: str) -> None:
    """``zone_create.read_facts``: the name's ancestors go as one parameter (an array on
    PostgreSQL, a JSON text on SQLite), so the read runs through the driver's own runner; it
    finds the zones above and below the name, and the same name in another case, only."""
    db = Database(url)
    try:
        for name in ("example.", "a.example.", "x.b.example.", "B.example.", "c.example."):
            await _create_zone(db, name, 1)
        seen = SQLAlchemyStatements(db)
        facts = await db.transaction(lambda session: zone_create.read_facts(
            session, "p", "b.example.", quotas.Caps({"zones": 10}, False)))
        assert seen.sent == []
        assert sorted(zone.name for zone in facts.related) == [
            "B.example.", "example.", "x.b.example."]
        assert facts.zones_of_project == 5
    finally:
        await db.dispose()
