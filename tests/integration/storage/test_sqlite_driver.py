"""Our SQLite driver (storage/sqlite_driver.py) under SQLAlchemy's async engine, on a real file:
one thread crossing per statement (none for reads and vouched writes inside a write
transaction), and everything a statement reports still right."""

from __future__ import annotations

import asyncio
import random
import sqlite3

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from openkeel_designate.storage import sqlite_driver, wal
from openkeel_designate.domain import errors
from openkeel_designate.storage.database import Database, bounded


@pytest.fixture
async def db(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'driver.sqlite'}")
    async with database.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)"))
    yield database
    await database.engine.dispose()


@pytest.fixture
def crossings(monkeypatch) -> list[str]:
    """Every hand-over to a connection's thread, by the name of what ran there."""
    seen: list[str] = []
    original = sqlite_driver.OneTripConnection._execute

    async def counted(self, fn, *args, **kwargs):
        seen.append(getattr(fn, "__name__", repr(fn)))
        return await original(self, fn, *args, **kwargs)

    monkeypatch.setattr(sqlite_driver.OneTripConnection, "_execute", counted)
    return seen


async def _fill(db, count: int) -> None:
    """``count`` rows named n0, n1, ... in ``t``."""
    async with db.engine.begin() as conn:
        await conn.execute(text("INSERT INTO t (name) VALUES (:n)"),
                           [{"n": f"n{i}"} for i in range(count)])


async def test_the_engine_uses_our_connection(db):
    async with db.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        assert isinstance(raw.driver_connection, sqlite_driver.OneTripConnection)


async def test_a_select_crosses_once_and_returns_every_row(db, crossings):
    async with db.engine.begin() as conn:
        await conn.execute(text("INSERT INTO t (name) VALUES ('a'), ('b'), ('c')"))
    async with db.engine.connect() as conn:
        crossings.clear()
        rows = (await conn.execute(text("SELECT id, name FROM t ORDER BY id"))).all()
        assert crossings == ["_run"]
    assert [r.name for r in rows] == ["a", "b", "c"]


async def test_rowcount_lastrowid_and_executemany(db):
    async with db.engine.begin() as conn:
        inserted = await conn.execute(text("INSERT INTO t (name) VALUES ('x')"))
        assert inserted.lastrowid == 1
        await conn.execute(text("INSERT INTO t (name) VALUES (:n)"), [{"n": "y"}, {"n": "z"}])
        updated = await conn.execute(text("UPDATE t SET name = name || '!' WHERE id > 1"))
        assert updated.rowcount == 2
    async with db.engine.connect() as conn:
        names = (await conn.execute(text("SELECT name FROM t ORDER BY id"))).scalars().all()
    assert names == ["x", "y!", "z!"]


async def test_errors_are_sqlalchemys_and_the_transaction_rolls_back(db):
    with pytest.raises(IntegrityError):
        async with db.engine.begin() as conn:
            await conn.execute(text("INSERT INTO t (name) VALUES ('dup')"))
            await conn.execute(text("INSERT INTO t (name) VALUES ('dup')"))
    async with db.engine.connect() as conn:
        count = (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one()
    assert count == 0


async def test_a_large_result_comes_back_whole(db):
    async with db.engine.begin() as conn:
        await conn.execute(text("INSERT INTO t (name) VALUES (:n)"),
                           [{"n": f"n{i}"} for i in range(5000)])
    async with db.engine.connect() as conn:
        result = await conn.stream(text("SELECT name FROM t ORDER BY id"))
        streamed = [row.name async for row in result]
    assert len(streamed) == 5000 and streamed[0] == "n0" and streamed[-1] == "n4999"


# --- inside a write transaction: statements on the loop's thread -------------------------------

async def test_a_write_transaction_crosses_only_for_unvouched_writes_and_the_commit(db, crossings):
    async def work(session):
        connection = await session.connection()
        await connection.execute(bounded(text("INSERT INTO t (name) VALUES ('kept')")))
        assert (await connection.execute(text("SELECT name FROM t"))).scalars().all() == ["kept"]
        assert crossings == []  # BEGIN IMMEDIATE, the vouched INSERT and the read: no crossing
        await connection.execute(text("UPDATE t SET name = 'kept!'"))
        assert crossings == ["_run"]

    await db.transaction(work)
    assert crossings == ["_run", "commit"]  # an unvouched write: its COMMIT crosses too
    async with db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT name FROM t"))).scalars().all() == ["kept!"]


async def test_a_long_read_goes_to_the_thread_and_the_transaction_survives(db, crossings):
    await _fill(db, 20000)
    crossings.clear()

    async def work(session):
        connection = await session.connection()
        await connection.execute(bounded(text("UPDATE t SET name = 'first' WHERE id = 1")))
        # far over the step budget: interrupted here, read again on the connection's thread
        rows = (await connection.execute(text("SELECT name FROM t ORDER BY name DESC"))).all()
        assert len(rows) == 20000 and crossings == ["_run"]
        await connection.execute(bounded(text("UPDATE t SET name = 'second' WHERE id = 2")))

    await db.transaction(work)
    async with db.engine.connect() as conn:
        names = (await conn.execute(text("SELECT name FROM t WHERE id <= 2 ORDER BY id"))).scalars()
        assert list(names) == ["first", "second"]


async def test_a_short_read_run_again_and_again_in_write_transactions_stays_here(db, crossings):
    """Each run of a read has the whole step budget: one prepared statement run 100 times
    (about 250,000 instructions in all, five budgets) never crosses to the thread."""
    await _fill(db, 300)
    crossings.clear()

    async def work(session):
        connection = await session.connection()
        result = await connection.execute(text("SELECT count(*) FROM t WHERE name LIKE 'n%'"))
        assert result.scalar_one() == 300

    for _ in range(100):
        await db.transaction(work)
    assert "_run" not in crossings


async def test_a_clash_in_a_vouched_write_rolls_the_whole_transaction_back(db):
    async def work(session):
        connection = await session.connection()
        await connection.execute(bounded(text("INSERT INTO t (name) VALUES ('a')")))
        await connection.execute(bounded(text("INSERT INTO t (name) VALUES ('a')")))

    with pytest.raises(errors.Duplicate):
        await db.transaction(work)
    async with db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == 0


async def test_begin_waits_on_the_thread_when_another_process_holds_the_lock(db, tmp_path, crossings):
    other = sqlite3.connect(tmp_path / "driver.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t (name) VALUES ('other')")
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, other.execute, "COMMIT")  # the loop stays free while BEGIN waits

    async def work(session):
        connection = await session.connection()
        await connection.execute(bounded(text("INSERT INTO t (name) VALUES ('ours')")))

    await db.transaction(work)
    other.close()
    assert crossings[0] == "_run"  # BEGIN IMMEDIATE, found the lock taken and waited there
    async with db.engine.connect() as conn:
        names = (await conn.execute(text("SELECT name FROM t ORDER BY id"))).scalars().all()
    assert names == ["other", "ours"]


async def test_a_transaction_of_vouched_writes_commits_here(db, crossings):
    async def work(session):
        connection = await session.connection()
        await connection.execute(bounded(text("INSERT INTO t (name) VALUES ('small')")))

    await db.transaction(work)
    assert crossings == []
    async with db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT name FROM t"))).scalars().all() == ["small"]


async def test_the_log_is_checkpointed_after_every_hundred_writes_not_in_a_commit(db, tmp_path):
    path = tmp_path / "driver.sqlite"
    async with db.engine.connect() as conn:
        assert (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar() == 0
        await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # the table, in the file

    def in_the_file_itself() -> int:
        """Rows the database file holds without its write-ahead log."""
        with sqlite3.connect(f"file:{path}?immutable=1", uri=True) as raw:
            return raw.execute("SELECT count(*) FROM t").fetchone()[0]

    async def insert(session):
        await (await session.connection()).execute(
            bounded(text("INSERT INTO t (name) VALUES (:n)")), {"n": f"n{random.random()}"})

    for _ in range(wal.EVERY - 1):
        await db.transaction(insert)
    await asyncio.sleep(0.05)
    assert in_the_file_itself() == 0  # all in the log: no COMMIT checkpointed
    await db.transaction(insert)
    for _ in range(100):  # the checkpoint runs in a task of its own
        if in_the_file_itself() == wal.EVERY:
            break
        await asyncio.sleep(0.02)
    assert in_the_file_itself() == wal.EVERY


async def test_the_log_starts_over_under_a_steady_stream_of_writes(db, tmp_path):
    """A checkpoint runs while writes go on; the log is written from its start again only if a
    writer begins with all of it copied, so the checkpoint ends in the writers' turn. Without
    that, 2,000 writes with no pause between them left every frame in the log."""
    log = tmp_path / "driver.sqlite-wal"

    async def insert(session):
        await (await session.connection()).execute(
            bounded(text("INSERT INTO t (name) VALUES (:n)")), {"n": f"n{random.random()}"})

    for _ in range(wal.EVERY):  # one round of writes: about the most the log should hold
        await db.transaction(insert)
    await asyncio.sleep(0.2)  # (its checkpoint ends; the log starts over with the next write)
    one_round = log.stat().st_size
    for _ in range(20 * wal.EVERY):
        await db.transaction(insert)
    # (checkpoints run one at a time: a slow one lets more writes land before the next)
    assert db._checkpoints.done >= 5
    assert log.stat().st_size < 8 * one_round  # every write kept: about 21 rounds


async def test_the_log_file_shrinks_when_the_log_starts_over_after_a_large_write(
        tmp_path, monkeypatch):
    """SQLite reuses the log's file rather than shrinking it: without ``journal_size_limit``
    one large transaction (an import) left a file of its size for as long as the service ran."""
    monkeypatch.setattr(wal, "KEPT_BYTES", 256 * 1024)
    database = Database(f"sqlite:///{tmp_path / 'big.sqlite'}")
    log = tmp_path / "big.sqlite-wal"
    try:
        async with database.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)"))

        async def large(session):
            await (await session.connection()).execute(
                text("INSERT INTO t (body) VALUES (:b)"), [{"b": bytes(4096)} for _ in range(1000)])

        async def small(session):
            await (await session.connection()).execute(
                bounded(text("INSERT INTO t (body) VALUES (:b)")), {"b": b"x"})

        await database.transaction(large)
        assert log.stat().st_size > 4 * 1024 * 1024
        for _ in range(wal.EVERY):  # a checkpoint, in the writers' turn at its end
            await database.transaction(small)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if database._checkpoints.done:
                break
        await database.transaction(small)  # starts the log over, and shrinks its file
        assert log.stat().st_size <= 256 * 1024
    finally:
        await database.dispose()


async def test_a_quiet_stream_reuses_the_connection_it_just_returned(db):
    """After a burst opened several connections, one request at a time gets the connection the
    last one returned (its page cache is current), not the next in a round robin whose cache
    another connection's writes made stale."""
    async def hold(seconds: float) -> None:
        async with db.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            await asyncio.sleep(seconds)

    await asyncio.gather(*(hold(0.05) for _ in range(4)))
    assert db.engine.pool.checkedin() >= 4
    used = []
    for i in range(6):
        async with db.engine.begin() as conn:
            await conn.execute(text("INSERT INTO t (name) VALUES (:n)"), {"n": f"q{i}"})
            used.append(id((await conn.get_raw_connection()).driver_connection))
    assert len(set(used)) == 1
