"""``manage database downgrade-to-designate``: our rows written back into Designate's tables.

Possible only while Designate's tables are still aside (before ``forget-designate``), and only
when it can be exact: every value we hold must fit Designate's columns and enums, else the
command refuses and the backup is the way back.  Rows are merged by id, not rewritten: a row's
columns we never kept (the ``version`` of pool rows, a nameserver's ``tsigkey_id``) keep their
value in Designate's table; rows we deleted are deleted there, rows we created are inserted.
Then our tables are dropped and Designate's come back under their own names.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import pool
from sqlalchemy.engine import Connection, make_url

from openkeel_designate.storage.database import sync_url
from openkeel_designate.storage.models import Base
from openkeel_designate.storage.takeover import detect, shape
from openkeel_designate.storage.takeover.procedure import Refused, our_revisions
from openkeel_designate.storage.takeover.sql import ASIDE, DONE_MARK, Sql, dialect_of

# Designate columns with no column of ours, and the value a row we created gets there.
_DEFAULTS = {"version": "1", "tsigkey_id": "NULL"}
# Parents first (inserts, updates); deletes go the other way.
ORDER = ("pools", "pool_attributes", "pool_ns_records", "pool_nameservers", "pool_targets",
         "pool_target_options", "pool_target_masters", "pool_also_notifies", "quotas", "tlds",
         "blacklists", "tsigkeys", "zones", "zone_attributes", "zone_masters", "shared_zones",
         "recordsets", "records", "zone_tasks", "zone_transfer_requests",
         "zone_transfer_accepts", "service_statuses")


def downgrade(url: str) -> None:
    sql = dialect_of(make_url(url).get_backend_name())
    engine = sa.create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            finding = detect.inspect(connection, sql, our_revisions(url))
            if not finding.taken_over:
                raise Refused("Designate's tables are not aside in this database (never taken "
                              "over, or forgotten): restore the backup taken before the takeover")
            problems = _inexact(connection, sql)
            if problems:
                raise Refused("a downgrade would not be exact (" + "; ".join(problems)
                              + "): restore the backup taken before the takeover instead")
            for table in reversed(ORDER):
                connection.execute(sa.text(_delete_gone(sql, table)))
            for table in ORDER:
                connection.execute(sa.text(_update(sql, table)))
                connection.execute(sa.text(_insert_new(sql, table)))
            connection.execute(sa.text(f"DELETE FROM {sql.aside('alembic_version')} "
                                       f"WHERE version_num = '{DONE_MARK}'"))
            if not sql.mysql:
                _swap_back(connection, sql)
        if sql.mysql:
            with engine.begin() as connection:
                _swap_back(connection, sql)
    finally:
        engine.dispose()


def _inexact(connection: Connection, sql: Sql) -> list[str]:
    def values(query: str) -> list:
        return list(connection.execute(sa.text(query)).scalars())

    problems = []
    allowed = _enum_values(connection, sql, "record_type")
    types = [t for t in values("SELECT DISTINCT type FROM recordsets") if t not in allowed]
    if types:
        problems.append("record types Designate cannot store: " + ", ".join(sorted(types)))
    if values("SELECT COUNT(*) FROM zones WHERE serial > 2147483647")[0]:
        problems.append("zone serials above Designate's 32-bit column")
    if values("SELECT COUNT(*) FROM zone_masters WHERE LENGTH(host) > 32")[0]:
        problems.append("zone masters longer than Designate's 32 characters")
    return problems


def _enum_values(connection: Connection, sql: Sql, kind: str) -> set[str]:
    values, pg_type = shape.ENUMS[kind]
    if sql.mysql:
        return set(values)
    query = f"SELECT unnest(enum_range(NULL::public.{pg_type}))::text"
    return set(connection.execute(sa.text(query)).scalars())


def _ours(table: str) -> set[str]:
    return {c.name for c in Base.metadata.tables[table].columns}


def _columns(sql: Sql, table: str) -> list[tuple[str, str]]:
    """(Designate column, expression over our row ``o``) for the columns we hold."""
    ours = _ours(table)
    result = []
    for name, kind, _ in shape.TABLES[table] + [("created_at", "time", True),
                                                ("updated_at", "time", True)]:
        if name not in ours:
            continue
        expr = f"o.{sql.q(name)}"
        if kind == "id":
            expr = sql.hexid(expr)
        elif kind in shape.ENUMS:
            expr = sql.to_enum(expr, shape.ENUMS[kind][1])
        if table == "records" and name == "serial":
            expr = "COALESCE(o.serial, 1)"
        if table == "pools" and name == "provisioner":
            expr = sql.to_enum("COALESCE(o.provisioner, 'UNMANAGED')", shape.ENUMS[kind][1])
        result.append((name, expr))
    return result


def _keep(sql: Sql, table: str) -> str:
    """Designate rows a takeover never copied stay as they are (catalog zones and theirs)."""
    if table == "zones":
        return f" AND {sql.text('a.type')} <> 'CATALOG'"
    if table in ("recordsets", "records", "zone_attributes", "zone_masters", "shared_zones"):
        return (f" AND NOT EXISTS (SELECT 1 FROM {sql.aside('zones')} z WHERE z.id = a.zone_id "
                f"AND {sql.text('z.type')} = 'CATALOG')")
    return ""


def _delete_gone(sql: Sql, table: str) -> str:
    return (f"DELETE FROM {sql.aside(table)} a WHERE NOT EXISTS (SELECT 1 FROM {table} o "
            f"WHERE o.id = {sql.dashed('a.id')}){_keep(sql, table)}") if not sql.mysql else (
        f"DELETE a FROM {sql.aside(table)} a WHERE NOT EXISTS (SELECT 1 FROM {table} o "
        f"WHERE o.id = {sql.dashed('a.id')}){_keep(sql, table)}")


def _update(sql: Sql, table: str) -> str:
    pairs = [(n, e) for n, e in _columns(sql, table) if n != "id"]
    if sql.mysql:
        sets = ", ".join(f"a.{sql.q(n)} = {e}" for n, e in pairs)
        return (f"UPDATE {sql.aside(table)} a JOIN {table} o ON o.id = {sql.dashed('a.id')} "
                f"SET {sets}")
    sets = ", ".join(f"{sql.q(n)} = {e}" for n, e in pairs)
    return f"UPDATE {sql.aside(table)} a SET {sets} FROM {table} o WHERE o.id = {sql.dashed('a.id')}"


def _insert_new(sql: Sql, table: str) -> str:
    held = dict(_columns(sql, table))
    names, exprs = [], []
    for name, kind, nullable in shape.TABLES[table]:
        if name in held:
            names.append(name)
            exprs.append(held[name])
        elif name in _DEFAULTS:
            names.append(name)
            exprs.append(_DEFAULTS[name])
    names += ["created_at", "updated_at"]
    exprs += ["o.created_at", "o.updated_at"]
    return (f"INSERT INTO {sql.aside(table)} ({', '.join(sql.q(n) for n in names)}) "
            f"SELECT {', '.join(exprs)} FROM {table} o WHERE NOT EXISTS (SELECT 1 FROM "
            f"{sql.aside(table)} a WHERE {sql.dashed('a.id')} = o.id)")


def _swap_back(connection: Connection, sql: Sql) -> None:
    """Drop our tables; Designate's take their names back."""
    ours = [t.name for t in reversed(Base.metadata.sorted_tables)] + ["alembic_version"]
    tables = [*shape.TABLES, "alembic_version"]
    if sql.mysql:
        connection.execute(sa.text("DROP TABLE " + ", ".join(f"`{t}`" for t in ours)))
        renames = ", ".join(f"`{sql.aside(t)}` TO `{t}`" for t in tables)
        connection.execute(sa.text(f"RENAME TABLE {renames}"))
        return
    for table in ours:
        connection.execute(sa.text(f"DROP TABLE public.{table}"))
    for table in tables:
        connection.execute(sa.text(f"ALTER TABLE {ASIDE}.{table} SET SCHEMA public"))
    connection.execute(sa.text(f"DROP SCHEMA {ASIDE}"))
