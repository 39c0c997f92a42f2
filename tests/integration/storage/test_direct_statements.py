"""What both drivers' own statement runners must do alike (``storage/asyncpg_statements`` on
PostgreSQL, ``storage/sqlite_statements`` on SQLite, through ``database.execute``): a unique
violation is a Duplicate and leaves nothing written, and a recordset create's transaction
sends nothing through SQLAlchemy's execution and writes what SQLAlchemy would have.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from openkeel_designate.domain import errors
from openkeel_designate.storage import migrate, quotas, recordsets, zones
from openkeel_designate.storage.database import Database, bounded, execute_many
from support.databases import empty_database_url
from support.direct_statements import INSERT_TLD, TLD_NAMES, SQLAlchemyStatements, a_zone, tld

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request):
    with empty_database_url(request.param, prefix="okd-direct-") as made:
        migrate.upgrade(made)
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
            recordset = recordsets.recordset_row(zone, "www.a.example.", "A", tenant_id="p")
            await recordsets.insert_rows(session, [recordset], [recordsets.record_row(
                zone, recordset["id"], "p", "192.0.2.1")])
            await zones.mark_pending(session, "z-1", "UPDATE", True)
            return recordset["id"]

        recordset_id = await db.transaction(create)
        assert seen.sent == []
        [records, [zone]] = await db.point_reads([
            (text("SELECT data, status FROM records WHERE recordset_id = :id"), {"id": recordset_id}),
            (text("SELECT status, action FROM zones WHERE id = 'z-1'"), {})])
        assert [tuple(row) for row in records] == [("192.0.2.1", "PENDING")]
        assert tuple(zone) == ("PENDING", "UPDATE")
    finally:
        await db.dispose()
