"""``Database.transaction(..., plain=True)`` (``storage/plain_session``): a write transaction
without SQLAlchemy's session on a SQLite file and on PostgreSQL. It must keep every promise of
the session's: all or nothing, a unique violation a Duplicate, a connection handed back clean
after a failure or a cancellation, and work that needs the ORM run again in a real session,
written once.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import errors
from openkeel_designate.storage import plain_session
from openkeel_designate.storage.database import Database, bounded, execute, execute_many
from openkeel_designate.storage.models import Tld
from support.databases import migrated_database_url
from support.direct_statements import INSERT_TLD, TLD_NAMES, SQLAlchemyStatements, tld

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "postgresql", "mysql"])
def url(request):
    with migrated_database_url(request.param, prefix="okd-plain-") as made:
        yield made


async def _names(db: Database) -> list[str]:
    [rows] = await db.point_reads([(TLD_NAMES, {})])
    return [row.name for row in rows]


async def _server_connection(db: Database) -> object:
    """Which server connection a plain transaction runs on (PostgreSQL's backend pid; None
    elsewhere)."""
    if db.backend != "postgresql":
        return None
    return await db.transaction(
        lambda s: execute(s, select(text("pg_backend_pid()"))), plain=True)


async def test_plain_work_commits_without_sqlalchemy(url: str) -> None:
    """Its statements and its COMMIT go nowhere near SQLAlchemy's execution (on MariaDB, which
    has no runner, the work runs in a session as before), and the rows are there after."""
    db = Database(url)
    try:
        seen = SQLAlchemyStatements(db)
        kinds: list[type] = []

        async def work(session) -> None:  # noqa: ANN001
            kinds.append(type(session))
            await execute_many(session, bounded(INSERT_TLD), [tld("one"), tld("two")])
            [[count]] = await execute(session, bounded(select(text("count(*)")).select_from(
                Tld.__table__)))
            assert count == 2  # its own writes, seen inside

        await db.transaction(work, plain=True)
        assert await _names(db) == ["one", "two"]
        if db.backend == "mysql":
            assert kinds == [AsyncSession]
        else:
            assert kinds == [plain_session.PlainSession]
            assert seen.sent == []
    finally:
        await db.dispose()


async def test_a_failure_rolls_everything_back(url: str) -> None:
    """An exception after a write: nothing of the work is kept, the error is the work's own,
    and the connection goes on serving transactions."""
    db = Database(url)
    try:
        async def fails(session) -> None:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("kept-not")])
            raise errors.BadRequest("the rules said no")

        before = await _server_connection(db)
        for _ in range(3):  # the same pooled connection, each time
            with pytest.raises(errors.BadRequest):
                await db.transaction(fails, plain=True)
        await db.transaction(lambda s: execute_many(s, bounded(INSERT_TLD), [tld("after")]),
                             plain=True)
        assert await _names(db) == ["after"]
        # rolled back and handed back, not thrown away by the pool
        assert await _server_connection(db) == before
    finally:
        await db.dispose()


async def test_a_unique_violation_is_a_duplicate_and_writes_nothing(url: str) -> None:
    db = Database(url)
    try:
        async def twice(session) -> None:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("first")])
            await execute_many(session, bounded(INSERT_TLD), [tld("second")])
            await execute_many(session, bounded(INSERT_TLD), [tld("first")])

        with pytest.raises(errors.Duplicate):
            await db.transaction(twice, plain=True)
        assert await _names(db) == []
    finally:
        await db.dispose()


async def test_work_that_needs_the_orm_runs_again_in_a_session_once(url: str) -> None:
    """A statement written before the work reached for the ORM is rolled back with the plain
    attempt; the session's attempt writes everything, once."""
    db = Database(url)
    try:
        attempts: list[str] = []

        async def work(session) -> None:  # noqa: ANN001
            attempts.append(type(session).__name__)
            await execute_many(session, bounded(INSERT_TLD), [tld("by-statement")])
            session.add(Tld(**tld("by-orm")))

        await db.transaction(work, plain=True)
        assert await _names(db) == ["by-orm", "by-statement"]
        expected = ["AsyncSession"] if db.backend == "mysql" else ["PlainSession", "AsyncSession"]
        assert attempts == expected
    finally:
        await db.dispose()


async def test_a_cancelled_transaction_leaves_nothing_open(url: str) -> None:
    """Cancelled while it waits inside the transaction: nothing written, and the next
    transactions (on SQLite, the next writer of the file too) are not blocked by a
    transaction left open on the pooled connection."""
    db = Database(url)
    try:
        inside = asyncio.Event()

        async def waits(session) -> None:  # noqa: ANN001
            await execute_many(session, bounded(INSERT_TLD), [tld("cancelled")])
            inside.set()
            await asyncio.sleep(30)

        task = asyncio.create_task(db.transaction(waits, plain=True))
        await inside.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for name in ("next", "then"):
            await asyncio.wait_for(db.transaction(
                lambda s, n=name: execute_many(s, bounded(INSERT_TLD), [tld(n)]), plain=True),
                timeout=10)
        other = Database(url)  # another process's writer, as far as the file can tell
        try:
            await asyncio.wait_for(other.transaction(
                lambda s: execute_many(s, bounded(INSERT_TLD), [tld("other")])), timeout=10)
        finally:
            await other.dispose()
        assert await _names(db) == ["next", "other", "then"]
    finally:
        await db.dispose()
