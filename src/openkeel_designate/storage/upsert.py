"""Insert a row unless one with the same key exists, in one statement, on every engine.

Why not "select, then insert if missing": processes started at the same instant (systemd, a
Kubernetes rollout) all see the row missing and all insert; every one but the first then fails
on the unique key. The engine's own insert-or-ignore waits for the first writer instead and
leaves its row alone, so the caller can go on and update the row it now knows exists.

Each engine's dialect module is imported in its branch: the PostgreSQL one is about 2 MB
resident that a process on SQLite or MariaDB would otherwise keep for nothing.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession


async def insert_if_absent(session: AsyncSession, model: type, values: dict[str, Any]) -> None:
    """Insert ``values`` into ``model``'s table; a row already holding one of its unique keys
    (primary or unique constraint) wins and is left unchanged."""
    dialect = session.bind.dialect.name
    table = model.__table__
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        statement = postgresql.insert(table).values(values).on_conflict_do_nothing()
    elif dialect == "sqlite":
        from sqlalchemy.dialects import sqlite

        statement = sqlite.insert(table).values(values).on_conflict_do_nothing()
    elif dialect in ("mysql", "mariadb"):
        from sqlalchemy.dialects import mysql

        # A no-op update rather than INSERT IGNORE, which would also swallow other errors
        # (a value too long, a missing foreign key) as warnings.
        key = next(iter(table.primary_key.columns))
        statement = mysql.insert(table).values(values).on_duplicate_key_update(
            {key.name: table.c[key.name]})
    else:
        raise ValueError(f"unsupported database dialect {dialect!r}")
    await session.execute(statement)
