"""What a Designate 23.0.0 database looks like, as ``designate-manage database sync`` leaves it.

Written from the schema the real 23.0.0 creates (its alembic head ``f49c4409c8ba``), not from its
code.  Two uses: ``detect`` checks that a database really has these tables and columns before
anything is moved, and tests and ``bench/takeover.py`` build a Designate-shaped database from
it without installing Designate.  Ids are ``CHAR(32)`` hex on MariaDB and ``uuid`` on PostgreSQL;
statuses, actions and types are SQL enums (on PostgreSQL named types, created once per name).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

HEAD = "f49c4409c8ba"
# On PostgreSQL, 23.0.0's own ``database sync`` stops one step short of HEAD: its last migration
# (``service_statuses.status`` gains STOPPED) fails there with "composite type service_statuses
# cannot be made a member of itself", and the database stays at this revision, which the 23.0.0
# services run on.  Its tables are HEAD's but for that enum value.
PG_STOP = "b57384b28335"


def heads(dialect: str) -> set[str]:
    """The revisions a working 23.0.0 database is at, as its own sync leaves it."""
    return {HEAD, PG_STOP} if dialect == "postgresql" else {HEAD}

_RECORD_TYPES = ("A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA",
                 "NAPTR", "CAA", "CERT", "HTTPS", "SVCB", "TLSA")
_TASK_STATUSES = ("ACTIVE", "PENDING", "DELETED", "ERROR", "COMPLETE")
# (enum values, PostgreSQL type name) by the short names used in the column lists below.
ENUMS = {
    "zone_status": (("ACTIVE", "PENDING", "DELETED", "ERROR"), "domains_resource_statuses"),
    "zone_action": (("CREATE", "DELETE", "UPDATE", "NONE"), "domain_actions"),
    "zone_type": (("PRIMARY", "SECONDARY", "CATALOG"), "type"),
    "record_status": (("ACTIVE", "PENDING", "DELETED", "ERROR"), "record_resource_statuses"),
    "record_action": (("CREATE", "DELETE", "UPDATE", "NONE"), "record_actions"),
    "record_type": (_RECORD_TYPES, "record_types"),
    "provisioner": (("UNMANAGED",), "pool_provisioner"),
    "service_status": (("UP", "DOWN", "WARNING", "STOPPED"), "service_statuses_enum"),
    "task_type": (("IMPORT", "EXPORT"), "task_types"),
    "task_status": (_TASK_STATUSES, "zone_tasks_resource_statuses"),
    "accept_status": (_TASK_STATUSES, "zone_transfer_accepts_resource_statuses"),
    "request_status": (_TASK_STATUSES, "zone_transfer_requests_resource_statuses"),
    "tsig_algorithm": (("hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384",
                        "hmac-sha512"), "tsig_algorithms"),
    "tsig_scope": (("POOL", "ZONE"), "tsig_scopes"),
}

# table -> [(column, kind, nullable)]; kind: id (uuid), str<N>, text, int, small, bool, time,
# or an ENUMS key.  created_at/updated_at are added to every table.
TABLES: dict[str, list[tuple[str, str, bool]]] = {
    "pools": [("id", "id", False), ("version", "int", False), ("name", "str50", False),
              ("description", "str160", True), ("tenant_id", "str36", True),
              ("provisioner", "provisioner", False)],
    "pool_attributes": [("id", "id", False), ("version", "int", False), ("key", "str255", False),
                        ("value", "str255", False), ("pool_id", "id", False)],
    "pool_ns_records": [("id", "id", False), ("version", "int", False), ("pool_id", "id", False),
                        ("priority", "int", False), ("hostname", "str255", False)],
    "pool_nameservers": [("id", "id", False), ("version", "int", False), ("pool_id", "id", False),
                         ("host", "str255", False), ("port", "int", False),
                         ("tsigkey_id", "id", True)],
    "pool_targets": [("id", "id", False), ("version", "int", False), ("pool_id", "id", False),
                     ("type", "str50", False), ("tsigkey_id", "id", True),
                     ("description", "str160", True)],
    "pool_target_options": [("id", "id", False), ("version", "int", False),
                            ("pool_target_id", "id", False), ("key", "str255", False),
                            ("value", "str255", False)],
    "pool_target_masters": [("id", "id", False), ("version", "int", False),
                            ("pool_target_id", "id", False), ("host", "str255", False),
                            ("port", "int", False)],
    "pool_also_notifies": [("id", "id", False), ("version", "int", False), ("pool_id", "id", False),
                           ("host", "str255", False), ("port", "int", False)],
    "zones": [("id", "id", False), ("version", "int", False), ("tenant_id", "str36", True),
              ("name", "str255", False), ("email", "str255", False), ("ttl", "int", False),
              ("refresh", "int", False), ("retry", "int", False), ("expire", "int", False),
              ("minimum", "int", False), ("parent_zone_id", "id", True), ("serial", "int", False),
              ("deleted", "char32", False), ("deleted_at", "time", True),
              ("description", "str160", True), ("status", "zone_status", False),
              ("action", "zone_action", False), ("pool_id", "id", True),
              ("reverse_name", "str255", False), ("type", "zone_type", False),
              ("transferred_at", "time", True), ("shard", "small", False),
              ("delayed_notify", "bool", True), ("increment_serial", "bool", True)],
    "zone_attributes": [("id", "id", False), ("version", "int", False), ("key", "str50", True),
                        ("value", "str255", False), ("zone_id", "id", True)],
    "zone_masters": [("id", "id", False), ("version", "int", False), ("host", "str32", False),
                     ("port", "int", False), ("zone_id", "id", False)],
    "shared_zones": [("id", "id", False), ("zone_id", "id", False), ("project_id", "str36", False),
                     ("target_project_id", "str36", False)],
    "recordsets": [("id", "id", False), ("version", "int", False), ("zone_shard", "small", True),
                   ("tenant_id", "str36", True), ("zone_id", "id", True), ("name", "str255", False),
                   ("type", "record_type", False), ("ttl", "int", True),
                   ("description", "str160", True), ("reverse_name", "str255", False)],
    "records": [("id", "id", False), ("version", "int", False), ("data", "text", False),
                ("zone_id", "id", True), ("managed", "bool", True),
                ("managed_resource_type", "str50", True), ("managed_resource_id", "id", True),
                ("managed_plugin_type", "str50", True), ("managed_plugin_name", "str50", True),
                ("hash", "str32", False), ("description", "str160", True),
                ("status", "record_status", False), ("tenant_id", "str36", True),
                ("recordset_id", "id", False), ("managed_tenant_id", "str36", True),
                ("managed_resource_region", "str100", True), ("managed_extra", "str100", True),
                ("action", "record_action", False), ("serial", "int", False),
                ("zone_shard", "small", True)],
    "quotas": [("id", "id", False), ("version", "int", False), ("tenant_id", "str36", False),
               ("resource", "str32", False), ("hard_limit", "int", False)],
    "tlds": [("id", "id", False), ("version", "int", False), ("name", "str255", False),
             ("description", "str160", True)],
    "blacklists": [("id", "id", False), ("version", "int", False), ("pattern", "str255", False),
                   ("description", "str160", True)],
    "tsigkeys": [("id", "id", False), ("version", "int", False), ("name", "str255", False),
                 ("algorithm", "tsig_algorithm", False), ("secret", "str255", False),
                 ("scope", "tsig_scope", False), ("resource_id", "id", False)],
    "zone_tasks": [("id", "id", False), ("version", "int", False), ("tenant_id", "str36", True),
                   ("zone_id", "id", True), ("task_type", "task_type", True),
                   ("message", "str160", True), ("status", "task_status", False),
                   ("location", "str160", True)],
    "zone_transfer_requests": [("id", "id", False), ("version", "int", False),
                               ("zone_id", "id", True), ("key", "str255", False),
                               ("description", "str255", True), ("tenant_id", "str36", False),
                               ("target_tenant_id", "str36", True),
                               ("status", "request_status", False)],
    "zone_transfer_accepts": [("id", "id", False), ("version", "int", False),
                              ("zone_id", "id", True), ("zone_transfer_request_id", "id", False),
                              ("tenant_id", "str36", False), ("status", "accept_status", False)],
    "service_statuses": [("id", "id", False), ("service_name", "str40", False),
                         ("hostname", "str255", False), ("heartbeated_at", "time", True),
                         ("status", "service_status", True), ("stats", "text", False),
                         ("capabilities", "text", False)],
}

# child table, column -> parent table (all ON DELETE CASCADE in Designate, parent zone SET NULL).
FOREIGN_KEYS = {
    ("pool_attributes", "pool_id"): "pools", ("pool_ns_records", "pool_id"): "pools",
    ("pool_nameservers", "pool_id"): "pools", ("pool_targets", "pool_id"): "pools",
    ("pool_also_notifies", "pool_id"): "pools",
    ("pool_target_options", "pool_target_id"): "pool_targets",
    ("pool_target_masters", "pool_target_id"): "pool_targets",
    ("zone_attributes", "zone_id"): "zones", ("zone_masters", "zone_id"): "zones",
    ("shared_zones", "zone_id"): "zones", ("recordsets", "zone_id"): "zones",
    ("records", "zone_id"): "zones", ("records", "recordset_id"): "recordsets",
    ("zone_tasks", "zone_id"): "zones", ("zone_transfer_requests", "zone_id"): "zones",
    ("zone_transfer_accepts", "zone_id"): "zones",
    ("zone_transfer_accepts", "zone_transfer_request_id"): "zone_transfer_requests",
}


def metadata(dialect: str) -> sa.MetaData:
    """Designate's tables for ``dialect`` (``mysql``/``mariadb`` or ``postgresql``)."""
    meta = sa.MetaData()
    enums: dict[str, sa.Enum] = {}
    for table, columns in TABLES.items():
        cols = [_column(table, name, kind, nullable, dialect, enums)
                for name, kind, nullable in columns]
        cols += [sa.Column("created_at", sa.DateTime), sa.Column("updated_at", sa.DateTime)]
        sa.Table(table, meta, *cols)
    sa.Table("alembic_version", meta, sa.Column("version_num", sa.String(32), primary_key=True))
    return meta


def _column(table: str, name: str, kind: str, nullable: bool, dialect: str,
            enums: dict[str, sa.Enum]) -> sa.Column:
    args: list = []
    parent = FOREIGN_KEYS.get((table, name))
    if parent:
        args.append(sa.ForeignKey(f"{parent}.id", ondelete="CASCADE"))
    if table == "zones" and name == "parent_zone_id":
        args.append(sa.ForeignKey("zones.id", ondelete="SET NULL"))
    return sa.Column(name, _type(kind, dialect, enums), *args, nullable=nullable,
                     primary_key=name == "id")


def _type(kind: str, dialect: str, enums: dict[str, sa.Enum]) -> sa.types.TypeEngine:
    if kind == "id":
        return postgresql.UUID(as_uuid=False) if dialect == "postgresql" else sa.CHAR(32)
    if kind in ENUMS:
        values, pg_name = ENUMS[kind]
        if pg_name not in enums:
            enums[pg_name] = sa.Enum(*values, name=pg_name)
        return enums[pg_name]
    if kind.startswith("str"):
        return sa.String(int(kind[3:]))
    simple = {"char32": sa.CHAR(32), "text": sa.Text(), "int": sa.Integer(),
              "small": sa.SmallInteger(), "bool": sa.Boolean(), "time": sa.DateTime()}
    return simple[kind]
