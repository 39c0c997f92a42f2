"""Our SQLite driver (storage/sqlite_driver.py) under SQLAlchemy's async engine, on a real file:
one thread crossing per statement, and everything a statement reports still right."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from openkeel_designate.storage import sqlite_driver
from openkeel_designate.storage.database import Database


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
