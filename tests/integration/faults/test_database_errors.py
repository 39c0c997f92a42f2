"""Regression tests for two storage defects the database-restart test found (no I/O here).

1. asyncpg reports "the database system is shutting down" (SQLSTATE 57P03) and its relatives as
   a plain ``DBAPIError``, not ``OperationalError``: a restart of PostgreSQL gave clients 500s.
2. aiomysql 0.3.2 on PyMySQL >= 1.2.3 cannot escape ``bytes`` (aio-libs/aiomysql#1080): every
   write of the IXFR history failed on MariaDB, so zone updates never became ACTIVE there.
"""

from __future__ import annotations

import pytest
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    OperationalError,
    ProgrammingError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from openkeel_designate.domain import errors
from openkeel_designate.storage import database
from openkeel_designate.storage.database import Database


class _DriverError(Exception):
    """Stands for a driver exception carrying a SQLSTATE, as asyncpg's adapted errors do."""

    def __init__(self, message: str, sqlstate: str | None):
        super().__init__(message)
        self.sqlstate = sqlstate


def _dbapi(sqlstate: str | None, cls: type[DBAPIError] = DBAPIError) -> DBAPIError:
    return cls("SELECT 1", {}, _DriverError("boom", sqlstate))


@pytest.mark.parametrize("sqlstate", ["57P03", "57P01", "08006", "53300"])
def test_outage_sqlstates_are_unavailable(sqlstate: str) -> None:
    assert database._is_outage(_dbapi(sqlstate))


def test_bugs_stay_bugs() -> None:
    assert not database._is_outage(_dbapi("42601", ProgrammingError))
    assert not database._is_outage(_dbapi("22001"))
    assert not database._is_outage(_dbapi(None))


def test_connection_and_pool_failures_are_unavailable() -> None:
    assert database._is_outage(_dbapi(None, OperationalError))
    assert database._is_outage(PoolTimeout("QueuePool limit reached"))
    assert database._is_outage(ConnectionRefusedError())


def test_postgres_deadlock_is_retried() -> None:
    assert database._is_retryable(_dbapi("40P01"))
    assert database._is_retryable(_dbapi("40001"))


async def test_transaction_maps_shutdown_to_503_and_keeps_integrity_errors() -> None:
    db = Database("sqlite+aiosqlite:///:memory:")

    async def shutting_down(_session: object) -> None:
        raise _dbapi("57P03")

    async def duplicate(_session: object) -> None:
        raise IntegrityError("INSERT", {}, _DriverError("dup", "23505"))

    async def bad_sql(_session: object) -> None:
        raise _dbapi("42601", ProgrammingError)

    try:
        with pytest.raises(errors.ServiceUnavailable):
            await db.transaction(shutting_down)
        with pytest.raises(errors.Duplicate):
            await db.transaction(duplicate)
        with pytest.raises(ProgrammingError):
            await db.transaction(bad_sql)
    finally:
        await db.dispose()


def test_aiomysql_escapes_bytes_after_repair() -> None:
    import aiomysql.connection

    database.repair_aiomysql_bytes_escape()
    assert aiomysql.connection.escape_bytes_prefixed(b"\x00ab") == "_binary X'006162'"
