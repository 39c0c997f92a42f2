"""Statements of SQLite write transactions run on the driver without SQLAlchemy's execution
(``storage/sqlite_statements.py``, through ``database.execute``).

They must return what SQLAlchemy's execution of the same statement returns, its conversions
included (SQLite keeps a DateTime as text), be part of the one transaction the session commits
or rolls back, leave what they cannot run as SQLAlchemy would to SQLAlchemy, and fail as
SQLAlchemy's execution fails: a unique violation is a Duplicate.
"""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import bindparam, event, insert, select, text

from openkeel_designate.domain import errors
from openkeel_designate.storage import migrate, quotas, recordsets, rows, zones
from openkeel_designate.storage.database import Database, bounded, execute, execute_count, execute_many
from openkeel_designate.storage.models import Tld, Zone, new_id, utcnow
from openkeel_designate.storage.prebuilt import Unsupported
from support.databases import empty_database_url

pytestmark = pytest.mark.integration

INSERT_TLD = insert(Tld.__table__)
TLD_NAMES = select(Tld.name).order_by(Tld.name)


@pytest.fixture
def url():
    with empty_database_url("sqlite", prefix="okd-sqlite-statements-") as made:
        migrate.upgrade(made)
        yield made


def tld(name: str, tld_id: str | None = None) -> dict:
    return rows.complete(Tld, {"id": tld_id or new_id(), "name": name, "created_at": utcnow()})


class SQLAlchemyStatements:
    """The statements SQLAlchemy's execution sent (those the runner ran itself are not here)."""

    def __init__(self, db: Database) -> None:
        self.sent: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", self._one)

    def _one(self, _conn, _cursor, statement, *_rest) -> None:  # noqa: ANN001
        self.sent.append(statement)


def a_zone(**changes: object) -> Zone:
    return Zone(**{"id": "z-1", "tenant_id": "p", "name": "a.example.", "email": "h@a.example",
                   "ttl": 300, "refresh": 1, "retry": 2, "expire": 3, "minimum": 4, "serial": 5,
                   "shard": 6, "pool_id": "pool", "reverse_name": ".elpmaxe.a", **changes})


async def test_rows_are_those_sqlalchemy_returns_converted_alike(url: str) -> None:
    """A DateTime comes back a datetime, not SQLite's text; a row answers by name and index."""
    db = Database(url)
    when = datetime.datetime(2026, 12, 6, 3, 4, 5, 678901)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone(transferred_at=when, description="d ✓"))
        query = select(Zone.id, Zone.transferred_at, Zone.description, Zone.serial,
                       Zone.created_at).where(Zone.id == bindparam("zone_id"))
        seen = SQLAlchemyStatements(db)

        async def both(session) -> tuple[list, list]:  # noqa: ANN001
            ours = await execute(session, query, {"zone_id": "z-1"})
            theirs = list(await session.execute(query, {"zone_id": "z-1"}))
            return ours, theirs

        ours, theirs = await db.transaction(both)
        assert [tuple(row) for row in ours] == [tuple(row) for row in theirs]
        assert ours[0].transferred_at == when and isinstance(ours[0].created_at, datetime.datetime)
        assert ours[0].description == "d ✓" and ours[0][3] == 5
        assert len([sql for sql in seen.sent if "FROM zones" in sql]) == 1, "only SQLAlchemy's own"
    finally:
        await db.dispose()


async def test_a_write_is_part_of_the_transaction(url: str) -> None:
    """Rolled back with the transaction it ran in; committed with it, whether it ran on the
    loop's thread (vouched small) or on the connection's."""
    db = Database(url)
    try:
        seen = SQLAlchemyStatements(db)

        async def fails(session) -> None:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("rolledback")])
            assert [name for (name,) in await execute(session, TLD_NAMES)] == ["rolledback"]
            raise RuntimeError("after the write")

        with pytest.raises(RuntimeError):
            await db.transaction(fails)

        async def writes(session) -> int:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("kept")])
            await execute_many(session, INSERT_TLD, [tld("kept2"), tld("renamed")])
            return await execute_count(session, text("UPDATE tlds SET name = :new WHERE name = :old"),
                                       {"new": "kept3", "old": "renamed"})

        assert await db.transaction(writes) == 1
        assert not [sql for sql in seen.sent if "tlds" in sql], "the runner ran all of them"
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert [name for (name,) in names] == ["kept", "kept2", "kept3"]
    finally:
        await db.dispose()


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


async def test_what_the_runner_cannot_run_goes_through_sqlalchemy(url: str) -> None:
    """An expanding IN-list is refused by the runner, every time, and runs the general way
    with the same rows."""
    db = Database(url)
    query = text("SELECT 1 WHERE 'a' IN :names").bindparams(bindparam("names", expanding=True))
    try:
        with pytest.raises(Unsupported):
            db._statements._statements.prepare(query)
        seen = SQLAlchemyStatements(db)

        async def reads(session) -> list:  # noqa: ANN001
            return [await execute(session, query, {"names": names}) for names in (["a"], ["b", "a"])]

        assert [[tuple(row) for row in found] for found in await db.transaction(reads)] == [[(1,)], [(1,)]]
        assert len([sql for sql in seen.sent if "IN (" in sql]) == 2
    finally:
        await db.dispose()


async def test_a_recordset_create_runs_no_statement_through_sqlalchemy(url: str) -> None:
    """The statements of a recordset POST's transaction (BEGIN IMMEDIATE, the zone locked,
    the facts of the name, the rows, the zone marked PENDING): none through SQLAlchemy's
    execution, and the rows they wrote read back as SQLAlchemy wrote them."""
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone())
        seen = SQLAlchemyStatements(db)

        async def create(session) -> object:  # noqa: ANN001
            zone = await zones.get_locked_copy(session, "z-1", project_id="p", all_tenants=False)
            assert zone is not None and zone.name == "a.example."
            assert isinstance(zone.created_at, datetime.datetime)
            facts = await recordsets.placement_facts(session, "z-1", "www.a.example.", "p",
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
