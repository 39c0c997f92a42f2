"""Statements on PostgreSQL run by asyncpg itself (``storage/asyncpg_statements.py``): point
reads, and the hot statements of write transactions (``database.execute``).

They must return what SQLAlchemy's execution of the same statement returns, leave what they
cannot run as SQLAlchemy would to SQLAlchemy, and answer a connection the server dropped as
SQLAlchemy's path does: 503 for that read, a fresh connection for the next one. Inside a write
transaction they must be part of it from its first statement, and fail as SQLAlchemy's
execution fails: a serialization failure is retried. What both runners must do alike is in
``test_direct_statements.py``.
"""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, text

from openkeel_designate.domain import errors
from openkeel_designate.storage import zones
from openkeel_designate.storage.database import Database, execute, execute_many
from openkeel_designate.storage.models import utcnow
from openkeel_designate.storage.prebuilt import Unsupported
from support.databases import migrated_database_url
from support.direct_statements import INSERT_TLD, TLD_NAMES, SQLAlchemyStatements, a_zone, tld

pytestmark = pytest.mark.integration

WHO = text("SELECT pg_backend_pid()")


@pytest.fixture
def url():
    with migrated_database_url("postgresql", prefix="okd-pgreads-") as made:
        yield made


async def test_rows_are_those_sqlalchemy_returns(url: str) -> None:
    db = Database(url)
    try:
        async with db.read() as session, session.begin():
            session.add(a_zone(transferred_at=utcnow(), description="d ✓"))
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
