"""The copy of every Designate row into our tables: one ``INSERT … SELECT`` per table.

The database does the work (no row passes through Python), so 200,000 recordsets take seconds,
and the whole copy is one transaction: it lands completely or not at all.  Ids keep their value
(Designate's 32 hex digits or uuid become the dashed text we store); what we keep and Designate
does not (name keys, the zone owner on recordsets, the work-queue columns) is derived here.
Rows that Designate was still working on become our durable work (``pending``).
"""

from __future__ import annotations

from dataclasses import dataclass

from openkeel_designate.storage.takeover.sql import Sql

_TS = ("created_at", "updated_at")


@dataclass(frozen=True)
class Copy:
    table: str          # ours
    columns: tuple[str, ...]
    select: str         # the SELECT list, in the order of ``columns``
    source: str         # FROM … (with joins) WHERE …

    def statement(self, sql: Sql) -> str:
        """On MariaDB in the source's primary key order: our ids keep their hex order, so the
        rows append to the clustered index instead of splitting pages at random."""
        order = f" ORDER BY {self.source.split()[1]}.id" if sql.mysql and "id" in self.columns \
            else ""
        return (f"INSERT INTO {self.table} ({', '.join(sql.q(c) for c in self.columns)}) "
                f"SELECT {self.select} FROM {self.source}{order}")

    def count_source(self) -> str:
        return f"SELECT COUNT(*) FROM {self.source}"


def _copy(sql: Sql, table: str, alias: str, mapping: list[tuple[str, str]], joins: str = "",
          where: str = "", source_table: str | None = None) -> Copy:
    """``mapping``: (our column, expression over ``alias``); ``id:``/``text:`` prefixes convert."""
    exprs = []
    for _, expr in mapping:
        if expr.startswith("id:"):
            expr = sql.dashed(expr[3:])
        elif expr.startswith("text:"):
            expr = sql.text(expr[5:])
        exprs.append(expr)
    columns = tuple(c for c, _ in mapping)
    source = f"{sql.aside(source_table or table)} {alias} {joins}"
    return Copy(table, columns, ", ".join(exprs), source + (f" WHERE {where}" if where else ""))


def _same(sql: Sql, alias: str, *names: str) -> list[tuple[str, str]]:
    return [(n, f"{alias}.{sql.q(n)}") for n in names]


def copies(sql: Sql) -> list[Copy]:
    """Parents before children, so that our foreign keys hold at every statement."""
    live_zone = f"{sql.text('z.type')} <> 'CATALOG'"
    zones = sql.aside("zones")
    result = [
        _copy(sql, "pools", "p", [("id", "id:p.id"), *_same(sql, "p", "version", "name", "description",
              "tenant_id"), ("provisioner", "text:p.provisioner"), *_same(sql, "p", *_TS)]),
        _copy(sql, "pool_attributes", "a", [("id", "id:a.id"), ("pool_id", "id:a.pool_id"),
              *_same(sql, "a", "key", "value", *_TS)]),
        _copy(sql, "pool_ns_records", "n", [("id", "id:n.id"), ("pool_id", "id:n.pool_id"),
              *_same(sql, "n", "priority", "hostname", *_TS)]),
        _copy(sql, "pool_nameservers", "n", [("id", "id:n.id"), ("pool_id", "id:n.pool_id"),
              *_same(sql, "n", "host", "port", *_TS)]),
        _copy(sql, "pool_targets", "t", [("id", "id:t.id"), ("pool_id", "id:t.pool_id"),
              *_same(sql, "t", "type", "description"), ("tsigkey_id", "id:t.tsigkey_id"),
              *_same(sql, "t", *_TS)]),
        _copy(sql, "pool_target_options", "o", [("id", "id:o.id"),
              ("pool_target_id", "id:o.pool_target_id"), *_same(sql, "o", "key", "value", *_TS)]),
        _copy(sql, "pool_target_masters", "m", [("id", "id:m.id"),
              ("pool_target_id", "id:m.pool_target_id"), *_same(sql, "m", "host", "port", *_TS)]),
        _copy(sql, "pool_also_notifies", "n", [("id", "id:n.id"), ("pool_id", "id:n.pool_id"),
              *_same(sql, "n", "host", "port", *_TS)]),
        _copy(sql, "quotas", "q", [("id", "id:q.id"),
              *_same(sql, "q", "tenant_id", "resource", "hard_limit", *_TS)]),
        _copy(sql, "tlds", "t", [("id", "id:t.id"), *_same(sql, "t", "version", "name", "description",
              *_TS)]),
        _copy(sql, "blacklists", "b", [("id", "id:b.id"), *_same(sql, "b", "version", "pattern",
              "description", *_TS)]),
        _copy(sql, "tsigkeys", "k", [("id", "id:k.id"), *_same(sql, "k", "version", "name"),
              ("algorithm", "text:k.algorithm"), ("secret", "k.secret"),
              ("scope", "text:k.scope"), ("resource_id", "id:k.resource_id"), *_same(sql, "k", *_TS)]),
        _zones(sql),
        _copy(sql, "zone_attributes", "a", [("id", "id:a.id"), ("zone_id", "id:a.zone_id"),
              ("key", f"COALESCE(a.{sql.q('key')}, '')"), *_same(sql, "a", "value", *_TS)],
              joins=f"JOIN {zones} z ON z.id = a.zone_id", where=live_zone),
        _copy(sql, "zone_masters", "m", [("id", "id:m.id"), ("zone_id", "id:m.zone_id"),
              *_same(sql, "m", "host", "port", *_TS)],
              joins=f"JOIN {zones} z ON z.id = m.zone_id", where=live_zone),
        _copy(sql, "shared_zones", "s", [("id", "id:s.id"), ("zone_id", "id:s.zone_id"),
              *_same(sql, "s", "project_id", "target_project_id", *_TS)],
              joins=f"JOIN {zones} z ON z.id = s.zone_id", where=live_zone),
        _recordsets(sql, zones, live_zone),
        _records(sql, zones, live_zone),
        _copy(sql, "zone_tasks", "t", [("id", "id:t.id"), *_same(sql, "t", "version", "tenant_id"),
              ("zone_id", "id:t.zone_id"), ("task_type", "text:t.task_type"), ("message",
              "t.message"), ("status", "text:t.status"), *_same(sql, "t", "location", *_TS)]),
        _copy(sql, "zone_transfer_requests", "r", [("id", "id:r.id"), ("version", "r.version"),
              ("zone_id", "id:r.zone_id"), *_same(sql, "r", "key", "description", "tenant_id",
              "target_tenant_id"), ("status", "text:r.status"), *_same(sql, "r", *_TS)],
              where="r.zone_id IS NOT NULL"),
        _copy(sql, "zone_transfer_accepts", "a", [("id", "id:a.id"), ("version", "a.version"),
              ("zone_transfer_request_id", "id:a.zone_transfer_request_id"),
              ("zone_id", "id:" + "COALESCE(a.zone_id, r.zone_id)"), ("tenant_id", "a.tenant_id"),
              ("key", f"r.{sql.q('key')}"), ("status", "text:a.status"), *_same(sql, "a", *_TS)],
              joins=f"JOIN {sql.aside('zone_transfer_requests')} r "
                    "ON r.id = a.zone_transfer_request_id", where="r.zone_id IS NOT NULL"),
        _copy(sql, "service_statuses", "s", [("id", "id:s.id"), *_same(sql, "s", "service_name",
              "hostname", "heartbeated_at"), ("status", "COALESCE(" + sql.text("s.status")
              + ", 'DOWN')"), *_same(sql, "s", "stats", "capabilities", *_TS)]),
        _copy(sql, "pool_catalog_zones", "z", [("pool_id", "id:z.pool_id"),
              ("fqdn", "z.name"), ("refresh", "z.refresh"), ("tsig_key", "k.secret"),
              ("tsig_algorithm", sql.text("k.algorithm")), ("serial", "z.serial"),
              ("digest", "''"), *_same(sql, "z", *_TS)],
              joins=f"LEFT JOIN {sql.aside('tsigkeys')} k ON k.resource_id = z.id",
              where=f"{sql.text('z.type')} = 'CATALOG' AND z.deleted = '0'",
              source_table="zones"),
    ]
    return result


def _zones(sql: Sql) -> Copy:
    false = sql.false()
    return _copy(sql, "zones", "z", [
        ("id", "id:z.id"), ("version", "z.version"), ("deleted", "text:z.deleted"),
        *_same(sql, "z", "deleted_at", "shard", "tenant_id", "name"), ("name_key", "LOWER(z.name)"),
        ("reverse_key", "LOWER(z.reverse_name)"),
        *_same(sql, "z", "email", "ttl", "refresh", "retry", "expire", "minimum"),
        ("parent_zone_id", "id:z.parent_zone_id"), ("serial", "z.serial"),
        ("description", "z.description"), ("status", "text:z.status"),
        ("action", "text:z.action"), ("pool_id", "id:z.pool_id"),
        ("reverse_name", "z.reverse_name"), ("type", "text:z.type"),
        ("transferred_at", "z.transferred_at"),
        ("delayed_notify", f"COALESCE(z.delayed_notify, {false})"),
        ("increment_serial", f"COALESCE(z.increment_serial, {false})"),
        ("change_seq", "1"), ("hard_delete", false), ("attempts", "0"), *_same(sql, "z", *_TS)],
        where=f"{sql.text('z.type')} <> 'CATALOG'")


def _recordsets(sql: Sql, zones: str, live_zone: str) -> Copy:
    return _copy(sql, "recordsets", "r", [
        ("id", "id:r.id"), ("version", "r.version"),
        ("zone_shard", "COALESCE(r.zone_shard, z.shard)"), ("tenant_id", "r.tenant_id"),
        ("zone_id", "id:r.zone_id"), ("zone_tenant_id", "z.tenant_id"), ("name", "r.name"),
        ("name_key", "LOWER(r.name)"), ("type", "text:r.type"),
        *_same(sql, "r", "ttl", "description", "reverse_name", *_TS)],
        joins=f"JOIN {zones} z ON z.id = r.zone_id", where=live_zone)


def _records(sql: Sql, zones: str, live_zone: str) -> Copy:
    """A record Designate had not confirmed yet loses its serial: our worker stamps it with the
    serial of its next push and marks it ACTIVE once every nameserver serves that serial."""
    return _copy(sql, "records", "r", [
        ("id", "id:r.id"), ("version", "r.version"),
        ("zone_shard", "COALESCE(r.zone_shard, z.shard)"), ("tenant_id", "r.tenant_id"),
        ("zone_id", "id:r.zone_id"), ("recordset_id", "id:r.recordset_id"),
        *_same(sql, "r", "data", "description", "hash"),
        ("managed", f"COALESCE(r.managed, {sql.false()})"),
        *_same(sql, "r", "managed_extra", "managed_plugin_type", "managed_plugin_name",
               "managed_resource_type", "managed_resource_region"),
        ("managed_resource_id", "id:r.managed_resource_id"),
        ("managed_tenant_id", "r.managed_tenant_id"), ("status", "text:r.status"),
        ("action", "text:r.action"),
        ("serial", f"CASE WHEN {sql.text('r.status')} = 'ACTIVE' THEN r.serial END"),
        *_same(sql, "r", *_TS)],
        joins=f"JOIN {zones} z ON z.id = r.zone_id",
        where=f"{live_zone} AND {sql.text('r.action')} <> 'DELETE'")


def pending(sql: Sql) -> list[tuple[str, str]]:
    """Work Designate had not finished, made ours: the worker claims PENDING zones.

    Returns (query of zone ids, how the live ACTIVE ones among them become pending):
    - ``delayed_notify``: Designate's producer would still NOTIFY these zones' nameservers;
    - records Designate was still removing (not copied): pushed again with a new serial;
    - records not yet ACTIVE: pushed again.
    The ids are read first and updated by id: MariaDB runs ``UPDATE … WHERE id IN (SELECT …)``
    as one subquery per zone, 20 minutes for 10,000 zones.
    """
    flip = "status = 'PENDING', action = 'UPDATE'"
    return [
        (f"SELECT id FROM zones WHERE delayed_notify = {sql.true()}",
         f"{flip}, delayed_notify = {sql.false()}"),
        (f"SELECT DISTINCT {sql.dashed('zone_id')} FROM {sql.aside('records')} "
         f"WHERE {sql.text('action')} = 'DELETE'", f"{flip}, increment_serial = {sql.true()}"),
        ("SELECT DISTINCT zone_id FROM records WHERE status <> 'ACTIVE'", flip),
    ]
