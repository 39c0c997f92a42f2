"""``database sync`` with a takeover in it: detect, back up, move aside, create ours, copy.

Order matters for "loses nothing": nothing is written before the backup; Designate's tables are
moved aside, never dropped, before ours are created; the copy is one transaction, and only when
it committed is the done mark written, so a sync cut at any point simply runs again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy import pool
from sqlalchemy.engine import Connection, make_url

from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import sync_url
from openkeel_designate.storage.takeover import backup, copy, detect, shape
from openkeel_designate.storage.takeover.sql import ASIDE, DONE_MARK, Sql, dialect_of


class Refused(Exception):
    """The database cannot be synced as asked; the message says why and what to do."""


@dataclass
class Result:
    took_over: bool = False
    rows: dict[str, int] = field(default_factory=dict)  # our table -> rows copied
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def sync(url: str, *, backup_file: str | None = None, no_backup: bool = False,
         say: Callable[[str], None] = print) -> Result:
    """Bring the database to our latest schema, taking a Designate 23.0.0 database over."""
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        migrate.upgrade(url)
        return Result()
    with migrate.migration_lock(url):
        return _sync_holding_lock(url, dialect_of(backend), backup_file, no_backup, say)


def _sync_holding_lock(url: str, sql: Sql, backup_file: str | None, no_backup: bool,
                       say: Callable[[str], None]) -> Result:
    engine = sa.create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            finding = detect.inspect(connection, sql, our_revisions(url))
        if finding.state == detect.UNKNOWN:
            raise Refused(f"refusing to touch this database: {finding.reason}")
        if finding.state in (detect.EMPTY, detect.OURS):
            migrate.upgrade_holding_lock(url)
            return Result()
        if finding.state == detect.DESIGNATE:
            say("found a Designate 23.0.0 database")
            _backup_first(url, backup_file, no_backup, say)
            _move_aside(engine, sql)
            say(f"moved Designate's tables aside ({_where(sql)})")
        else:
            say(f"resuming: {finding.reason}")
        migrate.upgrade_holding_lock(url)
        return _copy_all(engine, sql, say)
    finally:
        engine.dispose()


def our_revisions(url: str) -> set[str]:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(migrate.alembic_config(url))
    return {rev.revision for rev in script.walk_revisions()}


def _where(sql: Sql) -> str:
    return f"tables {ASIDE}_*" if sql.mysql else f"schema {ASIDE}"


def _backup_first(url: str, path: str | None, no_backup: bool,
                  say: Callable[[str], None]) -> None:
    if path:
        say(f"backing up: {backup.printable(url, path)}")
        backup.take(url, path)
        say(f"backup written to {path}")
        return
    if not no_backup:
        raise Refused("a backup comes first. Either let this command take it:\n"
                      "  ... database sync --backup FILE\n"
                      "or take it yourself and run again with --no-backup:\n  "
                      + backup.printable(url, "designate-23.0.0-backup.sql"))
    say("no backup taken (--no-backup); the way back is your own dump")


def _move_aside(engine: sa.Engine, sql: Sql) -> None:
    tables = [*shape.TABLES, "alembic_version"]
    with engine.begin() as connection:
        if sql.mysql:
            renames = ", ".join(f"`{t}` TO `{sql.aside(t)}`" for t in tables)
            connection.execute(sa.text(f"RENAME TABLE {renames}"))
            return
        connection.execute(sa.text(f"CREATE SCHEMA IF NOT EXISTS {ASIDE}"))
        for table in tables:
            connection.execute(sa.text(f"ALTER TABLE public.{table} SET SCHEMA {ASIDE}"))


def _copy_all(engine: sa.Engine, sql: Sql, say: Callable[[str], None]) -> Result:
    started = time.monotonic()
    result = Result(took_over=True)
    plan = copy.copies(sql)
    with engine.begin() as connection:
        if sql.mysql:  # rows come parents first from tables Designate kept consistent
            connection.execute(sa.text("SET SESSION foreign_key_checks = 0"))
        for step in reversed(plan):  # a resumed copy starts from empty tables
            connection.execute(sa.text(f"DELETE FROM {step.table}"))
        for step in plan:
            result.rows[step.table] = connection.execute(sa.text(step.statement(sql))).rowcount
        for query, change in copy.pending(sql):
            _make_pending(connection, query, change)
        result.skipped = _skipped(connection, sql)
        connection.execute(sa.text(f"INSERT INTO {sql.aside('alembic_version')} (version_num) "
                                   f"VALUES ('{DONE_MARK}')"))
        if sql.mysql:
            connection.execute(sa.text("SET SESSION foreign_key_checks = 1"))
    result.seconds = time.monotonic() - started
    say("copied " + ", ".join(f"{table} {rows}" for table, rows in result.rows.items() if rows))
    for what, count in result.skipped.items():
        if count:
            say(f"not copied: {count} {what}")
    return result


def _make_pending(connection: Connection, query: str, change: str, chunk: int = 1000) -> None:
    zone_ids = list(connection.execute(sa.text(query)).scalars())
    update = sa.text(f"UPDATE zones SET {change} WHERE deleted = '0' AND status = 'ACTIVE' "
                     "AND id IN :ids").bindparams(sa.bindparam("ids", expanding=True))
    for start in range(0, len(zone_ids), chunk):
        connection.execute(update, {"ids": zone_ids[start:start + chunk]})


def _skipped(connection: Connection, sql: Sql) -> dict[str, int]:
    """Designate rows that have no row of ours, and why (printed, so nothing goes silently)."""
    def count(query: str) -> int:
        return connection.execute(sa.text(query)).scalar() or 0

    zone_type = sql.text("type")
    return {
        "records Designate was deleting (their zones are pushed again)": count(
            f"SELECT COUNT(*) FROM {sql.aside('records')} WHERE {sql.text('action')} = 'DELETE'"),
        "catalog zone rows (kept as the pool's catalog zone settings)": count(
            f"SELECT COUNT(*) FROM {sql.aside('zones')} WHERE {zone_type} = 'CATALOG'"),
        "transfer requests or accepts without a zone": count(
            f"SELECT COUNT(*) FROM {sql.aside('zone_transfer_requests')} WHERE zone_id IS NULL"),
    }
