"""What is in the database ``database sync`` was pointed at: ours, Designate 23.0.0's, or neither.

Nothing is moved before this says "designate": a database at another Designate revision, or one
that only looks like Designate (missing tables or columns), is refused with the reason, since a
copy from it could not keep every row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from openkeel_designate.storage.takeover import shape
from openkeel_designate.storage.takeover.sql import ASIDE, DONE_MARK, Sql

EMPTY, OURS, DESIGNATE, RESUME, UNKNOWN = "empty", "ours", "designate", "resume", "unknown"


@dataclass
class Finding:
    state: str
    reason: str = ""
    aside: list[str] = field(default_factory=list)  # Designate's tables moved aside, if any
    taken_over: bool = False  # aside tables hold the done mark: a finished takeover


def inspect(connection: Connection, sql: Sql, our_revisions: set[str]) -> Finding:
    inspector = sa.inspect(connection)
    tables = set(inspector.get_table_names())
    aside = _aside_tables(connection, sql, inspector)
    marks = _aside_marks(connection, sql) if "alembic_version" in aside else set()
    version = _revision(connection) if "alembic_version" in tables else None
    heads = shape.heads(sql.dialect)
    if aside and marks & heads and DONE_MARK not in marks:
        return Finding(RESUME, "an earlier takeover stopped before the copy finished", aside)
    if version in our_revisions or (not tables and not aside):
        return Finding(OURS if tables else EMPTY, aside=aside, taken_over=DONE_MARK in marks)
    if version in heads:
        missing = _missing(inspector, tables)
        if missing:
            return Finding(UNKNOWN, "it is at Designate 23.0.0's alembic head but lacks "
                           + ", ".join(missing))
        return Finding(DESIGNATE)
    if version is not None:
        return Finding(UNKNOWN, f"its alembic revision {version!r} is neither ours nor Designate "
                       f"23.0.0's ({', '.join(sorted(heads))}); if it is an older Designate, upgrade it to "
                       "23.0.0 with designate-manage database sync first")
    return Finding(UNKNOWN, "it holds tables (" + ", ".join(sorted(tables)[:8])
                   + ") but no alembic_version: not a database of ours or of Designate")


def _revision(connection: Connection) -> str | None:
    rows = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    return rows[0] if len(rows) == 1 else None


def _aside_tables(connection: Connection, sql: Sql, inspector) -> list[str]:
    if sql.mysql:
        prefix = f"{ASIDE}_"
        return sorted(t[len(prefix):] for t in inspector.get_table_names() if t.startswith(prefix))
    if ASIDE not in inspector.get_schema_names():
        return []
    return sorted(inspector.get_table_names(schema=ASIDE))


def _aside_marks(connection: Connection, sql: Sql) -> set[str]:
    query = f"SELECT version_num FROM {sql.aside('alembic_version')}"
    return set(connection.execute(sa.text(query)).scalars())


def _missing(inspector, tables: set[str]) -> list[str]:
    missing = []
    for table, columns in shape.TABLES.items():
        if table not in tables:
            missing.append(f"table {table}")
            continue
        present = {c["name"] for c in inspector.get_columns(table)}
        missing += [f"{table}.{name}" for name, _, _ in columns if name not in present]
    return missing
