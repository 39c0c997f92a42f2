"""Point reads on PostgreSQL run by asyncpg itself (``storage/asyncpg_reads.py``).

They must return what SQLAlchemy's execution of the same statement returns, leave what they
cannot run as SQLAlchemy would to SQLAlchemy, and answer a connection the server dropped as SQLAlchemy's path
does: 503 for that read, a fresh connection for the next one.
"""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, text

from openkeel_designate.domain import errors
from openkeel_designate.storage import migrate, zones
from openkeel_designate.storage.asyncpg_reads import Unsupported
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Zone, utcnow
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
                await db._asyncpg_reads.run([(query, {"names": ["a"]})])
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
