"""Statements on PostgreSQL run by asyncpg itself (``storage/asyncpg_statements.py``): point
reads, and the hot statements of write transactions (``database.execute``).

They must return what SQLAlchemy's execution of the same statement returns, leave what they
cannot run as SQLAlchemy would to SQLAlchemy, and answer a connection the server dropped as
SQLAlchemy's path does: 503 for that read, a fresh connection for the next one. Inside a write
transaction they must be part of it from its first statement, and fail as SQLAlchemy's
execution fails: a unique violation is a Duplicate, a serialization failure is retried.
"""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, event, insert, select, text

from openkeel_designate.domain import errors
from openkeel_designate.storage import migrate, quotas, recordsets, rows, zones
from openkeel_designate.storage.asyncpg_statements import Unsupported
from openkeel_designate.storage.database import Database, execute, execute_many
from openkeel_designate.storage.models import Tld, Zone, new_id, utcnow
from support.databases import empty_database_url

pytestmark = pytest.mark.integration

WHO = text("SELECT pg_backend_pid()")


@pytest.fixture
def url():
    with empty_database_url("postgresql", prefix="okd-pgreads-") as made:
        migrate.upgrade(made)
        yield made


async def test_rows_are_those_sqlalchemy_returns(url: str) -> None:
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(Zone(id="z-1", tenant_id="p", name="a.example.", email="h@a.example",
                             ttl=300, refresh=1, retry=2, expire=3, minimum=4, serial=5,
                             shard=6, pool_id="pool", reverse_name=".elpmaxe.a",
                             transferred_at=utcnow(), description="d ✓"))
            await session.flush()
            zones.add_attributes(session, "z-1", {"k": "v"})
        params = {"zone_id": "z-1", "project_id": "p"}
        [raw] = await db.point_reads([(zones._GET["project"], params)])
        async with db.read() as session:
            expected = list(await session.execute(zones._GET["project"], params))
        assert [tuple(row) for row in raw] == [tuple(row) for row in expected] and len(raw) == 1
        assert zones._zone_row(raw[0])[2] == {"k": "v"}
    finally:
        await db.dispose()


async def test_what_asyncpg_cannot_run_is_read_through_sqlalchemy(url: str) -> None:
    """An expanding IN-list (the worker's claim candidates with zones still being pushed) is
    refused by the runner, every time, and read the general way with the same rows."""
    db = Database(url)
    try:
        query = text("SELECT 1 WHERE 'a' IN :names").bindparams(bindparam("names", expanding=True))
        for _ in range(2):
            with pytest.raises(Unsupported):
                await db._asyncpg.reads([(query, {"names": ["a"]})])
            [rows] = await db.point_reads([(query, {"names": ["a", "b"]})])
            assert [tuple(row) for row in rows] == [(1,)]
    finally:
        await db.dispose()


async def test_a_connection_dropped_by_the_server_answers_503_then_reads_go_on(url: str) -> None:
    db, killer = Database(url, pool_size=1, max_overflow=0), Database(url)
    try:
        [[(victim,)]] = await db.point_reads([(WHO, {})])
        await killer.point_reads([(text(f"SELECT pg_terminate_backend({int(victim)})"), {})])
        # At once: the pool pings only connections idle for a second, so this one is handed out.
        with pytest.raises(errors.ServiceUnavailable):
            await db.point_reads([(WHO, {})])
        [[(now,)]] = await db.point_reads([(WHO, {})])
        assert now != victim
    finally:
        await db.dispose()
        await killer.dispose()


INSERT_TLD = insert(Tld.__table__)
TLD_NAMES = select(Tld.name).order_by(Tld.name)


def tld(name: str, tld_id: str | None = None) -> dict:
    return rows.complete(Tld, {"id": tld_id or new_id(), "name": name, "created_at": utcnow()})


class SQLAlchemyStatements:
    """The statements SQLAlchemy's execution sent (those asyncpg ran itself are not here)."""

    def __init__(self, db: Database) -> None:
        self.sent: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", self._one)

    def _one(self, _conn, _cursor, statement, *_rest) -> None:  # noqa: ANN001
        self.sent.append(statement)


async def test_a_write_run_first_is_part_of_the_transaction(url: str) -> None:
    """The adapter sends BEGIN lazily; a statement asyncpg runs before any of SQLAlchemy's must
    not run outside the transaction (autocommitted, surviving a rollback)."""
    db = Database(url)
    try:
        seen = SQLAlchemyStatements(db)

        async def fails(session) -> None:  # noqa: ANN001
            await execute_many(session, INSERT_TLD, [tld("rolledback")])
            assert [name for (name,) in await execute(session, TLD_NAMES)] == ["rolledback"]
            raise RuntimeError("after the write")

        with pytest.raises(RuntimeError):
            await db.transaction(fails)

        async def writes(session) -> None:  # noqa: ANN001
            await execute_many(session, INSERT_TLD, [tld("kept"), tld("kept2")])

        await db.transaction(writes)
        assert not [sql for sql in seen.sent if "tlds" in sql], "asyncpg ran none of them"
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert [name for (name,) in names] == ["kept", "kept2"]
    finally:
        await db.dispose()


async def test_a_unique_violation_is_a_duplicate(url: str) -> None:
    db = Database(url)
    try:
        async def twice(session) -> None:  # noqa: ANN001
            await execute_many(session, INSERT_TLD, [tld("first")])
            await execute_many(session, INSERT_TLD, [tld("first")])

        with pytest.raises(errors.Duplicate):
            await db.transaction(twice)
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert names == []
    finally:
        await db.dispose()


async def test_a_serialization_failure_is_retried(url: str) -> None:
    db = Database(url)
    attempts = []
    try:
        async def conflicts_once(session) -> int:  # noqa: ANN001
            attempts.append(1)
            await execute_many(session, INSERT_TLD, [tld(f"attempt{len(attempts)}")])
            if len(attempts) == 1:
                await execute(session, text(
                    "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$"))
            return len(attempts)

        assert await db.transaction(conflicts_once) == 2
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert [name for (name,) in names] == ["attempt2"]
    finally:
        await db.dispose()


async def test_a_connection_dropped_inside_a_write_answers_503_then_writes_go_on(url: str) -> None:
    db, killer = Database(url, pool_size=1, max_overflow=0), Database(url)
    try:
        async def dropped(session) -> None:  # noqa: ANN001
            [(victim,)] = await execute(session, WHO)
            await killer.point_reads([(text(f"SELECT pg_terminate_backend({int(victim)})"), {})])
            await execute_many(session, INSERT_TLD, [tld("lost")])

        with pytest.raises(errors.ServiceUnavailable):
            await db.transaction(dropped)

        async def writes(session) -> None:  # noqa: ANN001
            await execute_many(session, INSERT_TLD, [tld("after")])

        await db.transaction(writes)
        [names] = await db.point_reads([(TLD_NAMES, {})])
        assert [name for (name,) in names] == ["after"]
    finally:
        await db.dispose()
        await killer.dispose()


async def test_a_recordset_create_runs_its_statements_by_asyncpg(url: str) -> None:
    """The statements of a recordset POST's transaction (the zone locked, the facts of the
    name, the rows, the zone marked PENDING): none through SQLAlchemy's execution, and the
    rows they wrote read back as SQLAlchemy wrote them."""
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(Zone(id="z-1", tenant_id="p", name="a.example.", email="h@a.example",
                             ttl=300, refresh=1, retry=2, expire=3, minimum=4, serial=5,
                             shard=6, pool_id="pool", reverse_name=".elpmaxe.a"))
        seen = SQLAlchemyStatements(db)

        async def create(session) -> object:  # noqa: ANN001
            zone = await zones.get_locked_copy(session, "z-1", project_id="p", all_tenants=False)
            assert zone is not None and zone.name == "a.example."
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
