"""``database.among``: a constant IN-list written into the SQL, so the statement is prepared
once (asyncpg runs it itself on PostgreSQL) and means what ``in_`` with bound values means."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import column, select, table
from sqlalchemy.dialects.postgresql import asyncpg

from openkeel_designate.storage.database import among

RECORDS = table("records", column("id"), column("status"))


def test_the_constants_are_in_the_sql_and_no_parameter_is_expanded() -> None:
    compiled = select(RECORDS.c.id).where(among(RECORDS.c.status, ("PENDING", "ERROR"))).compile(
        dialect=asyncpg.dialect())
    assert "records.status IN ('PENDING', 'ERROR')" in str(compiled)
    assert not compiled.post_compile_params and not compiled.positiontup


def test_it_selects_what_a_bound_list_selects() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE records (id INTEGER, status TEXT)")
    db.executemany("INSERT INTO records VALUES (?, ?)",
                   [(1, "PENDING"), (2, "ACTIVE"), (3, "ERROR"), (4, "pending")])
    sql = str(select(RECORDS.c.id).where(among(RECORDS.c.status, ("PENDING", "ERROR")))
              .order_by(RECORDS.c.id).compile())
    assert db.execute(sql).fetchall() == [(1,), (3,)]


def test_only_plain_constants_are_written_into_the_sql() -> None:
    with pytest.raises(ValueError):
        among(RECORDS.c.status, ("PENDING", "x' OR '1'='1"))
