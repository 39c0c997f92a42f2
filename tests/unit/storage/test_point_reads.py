"""``Database.point_reads`` on a SQLite file: on the loop's thread, yet never waiting on it.

A read that SQLite cannot start at once (another connection holds the file exclusively) must go
the usual way, through the driver's thread, while the event loop keeps running; and what a
write committed is what the next point read sees.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from openkeel_designate.storage.database import Database

QUERY = text("SELECT value FROM items WHERE id = :id")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A WAL SQLite file with one table, ``items``, holding (1, 'one')."""
    made = tmp_path / "p.sqlite"
    conn = sqlite3.connect(made)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO items VALUES (1, 'one')")
    conn.commit()
    conn.close()
    return made


def _add_items(path: Path, count: int) -> None:
    """``count`` rows of value 'x' added to ``items``."""
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO items (value) VALUES (?)", [("x",)] * count)
    conn.commit()
    conn.close()


async def test_point_reads_see_the_last_commit(path: Path) -> None:
    db = Database(f"sqlite:///{path}")
    try:
        [[row]] = await db.point_reads([(QUERY, {"id": 1})])
        assert row.value == "one"
        await db.transaction(lambda s: s.execute(text("UPDATE items SET value = 'uno' WHERE id = 1")))
        [[row], missing] = await db.point_reads([(QUERY, {"id": 1}), (QUERY, {"id": 2})])
        assert (row.value, missing) == ("uno", [])
    finally:
        await db.dispose()


async def test_a_long_statement_is_interrupted_and_read_through_the_driver(
        path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A count over 200,000 rows outruns the step budget on the loop; the answer is the same."""
    caplog.set_level(logging.DEBUG, logger="openkeel_designate.storage.database")
    _add_items(path, 200_000)
    db = Database(f"sqlite:///{path}")
    try:
        [[(small,)]] = await db.point_reads([(text("SELECT count(*) FROM items WHERE id < 100"), {})])
        assert small == 99 and "interrupted" not in caplog.text
        # (with a condition: a bare count(*) is one instruction, SQLite counts the b-tree)
        [[(total,)]] = await db.point_reads([(text("SELECT count(*) FROM items WHERE value = 'x'"), {})])
        assert total == 200_000
        assert "point read through the async engine: interrupted" in caplog.text
    finally:
        await db.dispose()


async def test_a_short_statement_run_again_and_again_is_never_interrupted(
        path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The budget is each run's: SQLite counts a prepared statement's instructions over all its
    runs, and a budget read off that count interrupted a short read every few hundred runs."""
    caplog.set_level(logging.DEBUG, logger="openkeel_designate.storage.database")
    _add_items(path, 300)
    db = Database(f"sqlite:///{path}")
    try:
        short = text("SELECT count(*) FROM items WHERE value = 'x'")  # ~2,500 instructions
        for _ in range(100):  # 250,000 instructions in all: five budgets
            [[(count,)]] = await db.point_reads([(short, {})])
            assert count == 300
        assert "interrupted" not in caplog.text
    finally:
        await db.dispose()


async def test_point_reads_refuse_to_write(path: Path) -> None:
    """The reader's connection is query-only: a write sent there fails there and goes the
    usual way (which here, on a read session, does not commit it)."""
    db = Database(f"sqlite:///{path}")
    try:
        assert db._point_reader is not None
        try:
            db._point_reader.run([(text("DELETE FROM items"), {})])
        except Exception as exc:  # noqa: BLE001 - which class is the point of the next line
            assert "Declined" == type(exc).__name__ and "readonly" in str(exc).lower()
        else:
            raise AssertionError("the point reader wrote")
        [[row]] = await db.point_reads([(QUERY, {"id": 1})])
        assert row.value == "one"
    finally:
        await db.dispose()


async def test_a_locked_file_is_read_through_the_driver_while_the_loop_runs(
        path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="openkeel_designate.storage.database")
    db = Database(f"sqlite:///{path}")
    # Before the Database opens any connection: a WAL file held in exclusive locking mode is
    # the one case where a reader cannot start (SQLite's busy).
    holder = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE items SET value = 'held' WHERE id = 1")
    holder.execute("COMMIT")  # committed, but the exclusive lock stays until the connection ends
    release = threading.Timer(0.5, holder.close)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(ticker())
    try:
        release.start()
        [[row]] = await db.point_reads([(QUERY, {"id": 1})])
        assert row.value == "held"  # read after the holder let go, not before
        assert ticks >= 5, "the event loop did not run while the read waited for the lock"
        assert "point read through the async engine" in caplog.text
    finally:
        beat.cancel()
        release.join()
        await db.dispose()
