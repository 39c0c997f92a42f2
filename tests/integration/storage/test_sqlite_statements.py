"""Statements of SQLite write transactions run on the driver without SQLAlchemy's execution
(``storage/sqlite_statements.py``, through ``database.execute``).

They must return what SQLAlchemy's execution of the same statement returns, its conversions
included (SQLite keeps a DateTime as text), be part of the one transaction the session commits
or rolls back, and leave what they cannot run as SQLAlchemy would to SQLAlchemy. What both
runners must do alike is in ``test_direct_statements.py``.
"""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import bindparam, select, text

from openkeel_designate.storage.database import Database, bounded, execute, execute_count, execute_many
from openkeel_designate.storage.models import Zone
from openkeel_designate.storage.prebuilt import Unsupported
from support.databases import migrated_database_url
from support.direct_statements import INSERT_TLD, TLD_NAMES, SQLAlchemyStatements, a_zone, tld

pytestmark = pytest.mark.integration


@pytest.fixture
def url():
    with migrated_database_url("sqlite", prefix="okd-sqlite-statements-") as made:
        yield made


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
