"""Connections kept checked out between point reads, single writes and plain transactions
(``storage/connections.py``, PostgreSQL).

They must save the pool's checkout without changing what the pool promised: no more than
``keep`` held, a connection that sat idle checked before use, a lost server's connections all
thrown away (one 503, then reads go on), and every connection closed when the database is
disposed.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event, text

from openkeel_designate.domain import errors
from openkeel_designate.storage import connections, probe
from openkeel_designate.storage.database import Database
from support.databases import migrated_database_url

pytestmark = pytest.mark.integration

WHO = text("SELECT pg_backend_pid()")
SLOW_WHO = text("SELECT pg_backend_pid() FROM pg_sleep(0.2)")
IN_THIS_DATABASE = text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND pid <> pg_backend_pid()")


@pytest.fixture
def url():
    with migrated_database_url("postgresql", prefix="okd-kept-") as made:
        yield made


async def who(db: Database, query=WHO) -> int:
    [[row]] = await db.point_reads([(query, {})])
    return int(row[0])


async def kill(killer: Database, pids: set[int]) -> None:
    for pid in pids:
        await killer.point_reads([(text(f"SELECT pg_terminate_backend({pid})"), {})])


def count_checkouts(db: Database) -> list[int]:
    taken = [0]

    @event.listens_for(db.engine.sync_engine.pool, "checkout")
    def checked_out(*_: object) -> None:
        taken[0] += 1
    return taken


async def test_a_stream_of_reads_and_writes_reuses_one_connection(url: str) -> None:
    db = Database(url)
    try:
        taken = count_checkouts(db)
        pids = {await who(db) for _ in range(10)}
        for _ in range(5):
            await db.write_one(text("SELECT pg_backend_pid()"), {})
        assert len(pids) == 1 and taken[0] == 1
        assert probe.pool_use(db)["checked_out"] == 0 and db.kept.idle == 1
    finally:
        await db.dispose()


async def test_no_more_than_keep_are_kept(url: str) -> None:
    db = Database(url)
    try:
        db.kept.keep = 3
        pids = await asyncio.gather(*(who(db, SLOW_WHO) for _ in range(6)))
        assert len(set(pids)) == 6  # six at once: six connections
        assert db.kept.idle == 3
        assert db.engine.sync_engine.pool.checkedout() == 3
        assert probe.pool_use(db)["checked_out"] == 0
    finally:
        await db.dispose()


async def test_a_kept_connection_that_sat_idle_is_checked_before_use(url: str) -> None:
    """Its server end killed while it idled: the next read still answers, on a new one."""
    db, killer = Database(url), Database(url)
    try:
        victim = await who(db)
        await kill(killer, {victim})
        await asyncio.sleep(connections.PING_AFTER_IDLE_SECONDS + 0.2)
        assert await who(db) != victim
    finally:
        await db.dispose()
        await killer.dispose()


async def test_a_lost_connection_throws_the_other_kept_ones_away(url: str) -> None:
    """The server dropped every kept connection (a restart): one read answers 503, and the
    next runs on a new connection, not on another kept dead one."""
    db, killer = Database(url), Database(url)
    try:
        victims = set(await asyncio.gather(*(who(db, SLOW_WHO) for _ in range(3))))
        assert db.kept.idle == 3
        await kill(killer, victims)
        with pytest.raises(errors.ServiceUnavailable):
            await who(db)
        assert db.kept.idle == 0
        assert await who(db) not in victims
    finally:
        await db.dispose()
        await killer.dispose()


async def test_dispose_closes_the_kept_connections(url: str) -> None:
    db, watcher = Database(url), Database(url)
    try:
        await asyncio.gather(*(who(db, SLOW_WHO) for _ in range(3)))
        [[before]] = await watcher.point_reads([(IN_THIS_DATABASE, {})])
        await db.dispose()
        await asyncio.sleep(0.2)
        [[after]] = await watcher.point_reads([(IN_THIS_DATABASE, {})])
        assert before[0] >= 3 and after[0] == 0
    finally:
        await watcher.dispose()


async def test_a_connection_in_use_at_dispose_is_not_kept_after(url: str) -> None:
    """A read still running when the database is disposed hands its connection back to the
    pool when it ends, instead of keeping it checked out until the garbage collector."""
    db = Database(url)
    returned = [0]

    @event.listens_for(db.engine.sync_engine.pool, "checkin")
    def checked_in(*_: object) -> None:
        returned[0] += 1
    try:
        running = asyncio.create_task(who(db, SLOW_WHO))
        await asyncio.sleep(0.05)
        await db.dispose()
        assert await running > 0
        assert db.kept.idle == 0 and returned[0] == 1
        await who(db)  # used after all: served, and not kept either
        assert db.kept.idle == 0
    finally:
        await db.dispose()
