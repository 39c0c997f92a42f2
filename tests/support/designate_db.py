"""A Designate 23.0.0-shaped database with one row of every kind, without Designate installed.

The tables come from ``storage/takeover/shape.py``; the rows are what Designate's API would have
written: ids as its storage keeps them (32 hex digits on MariaDB, uuid on PostgreSQL), enum
values, second-precision timestamps, ``deleted`` holding the hex id of a soft-deleted zone.
``IDS`` holds the dashed ids the migrated rows must keep.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import sqlalchemy as sa

from openkeel_designate.storage.database import sync_url
from openkeel_designate.storage.takeover import shape

T0 = datetime(2026, 11, 30, 12, 0, 0)
IDS = {name: str(uuid.uuid5(uuid.NAMESPACE_DNS, name)) for name in (
    "pool", "attr", "ns", "nameserver", "target", "option", "tmaster", "notify", "quota", "tld",
    "blacklist", "tsig", "tsig_cat", "active", "pending_create", "pending_update",
    "pending_delete", "deleted", "error", "secondary", "catalog", "delayed", "zattr", "zmaster",
    "share", "task_import", "task_export", "request", "accept", "service")}


def rid(key: str, dialect: str) -> str:
    """The id of ``IDS[key]`` as Designate stores it."""
    return IDS[key] if dialect == "postgresql" else IDS[key].replace("-", "")


def build(url: str, *, revision: str = shape.HEAD) -> None:
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    dialect = "postgresql" if engine.dialect.name == "postgresql" else "mysql"
    meta = shape.metadata(dialect)
    try:
        meta.create_all(engine)
        with engine.begin() as connection:
            for table, rows in _rows(dialect).items():
                full = [{"created_at": T0, "updated_at": None, **row} for row in rows]
                connection.execute(meta.tables[table].insert(), full)
            connection.execute(meta.tables["alembic_version"].insert(), {"version_num": revision})
    finally:
        engine.dispose()


def _zone(key: str, dialect: str, name: str, **values) -> dict:
    row = dict(id=rid(key, dialect), version=1, tenant_id="proj-a", name=name,
               email="admin@example.org", ttl=3600, refresh=3500, retry=600, expire=86400,
               minimum=3600, parent_zone_id=None, serial=1700000000, deleted="0",
               deleted_at=None, description=None, status="ACTIVE", action="NONE",
               pool_id=rid("pool", dialect), reverse_name=name[::-1], type="PRIMARY",
               transferred_at=None, shard=1234, delayed_notify=False, increment_serial=False)
    return {**row, **values}


def _recordset(zone: str, dialect: str, name: str, rtype: str, data: list[tuple[str, str, str]],
               serial: int = 1700000000) -> tuple[dict, list[dict]]:
    rs_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{zone}/{name}/{rtype}")
    rs = dict(id=_fmt(rs_id, dialect), version=1, zone_shard=1234, tenant_id="proj-a",
              zone_id=rid(zone, dialect), name=name, type=rtype, ttl=None, description=None,
              reverse_name=name[::-1])
    records = []
    for text, status, action in data:
        record_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{zone}/{name}/{rtype}/{text}")
        records.append(dict(id=_fmt(record_id, dialect), version=1, data=text,
                            zone_id=rid(zone, dialect), managed=False, managed_resource_type=None,
                            managed_resource_id=None, managed_plugin_type=None,
                            managed_plugin_name=None, hash=record_id.hex, description=None,
                            status=status, tenant_id="proj-a", recordset_id=rs["id"],
                            managed_tenant_id=None, managed_resource_region=None,
                            managed_extra=None, action=action, serial=serial, zone_shard=1234))
    return rs, records


def _fmt(value: uuid.UUID, dialect: str) -> str:
    return str(value) if dialect == "postgresql" else value.hex


def _rows(d: str) -> dict[str, list[dict]]:
    pool = rid("pool", d)
    zones = [
        _zone("active", d, "active.example.org."),
        _zone("pending_create", d, "create.example.org.", status="PENDING", action="CREATE"),
        _zone("pending_update", d, "update.example.org.", status="PENDING", action="UPDATE",
              increment_serial=True),
        _zone("pending_delete", d, "delete.example.org.", status="PENDING", action="DELETE"),
        _zone("deleted", d, "gone.example.org.", status="DELETED", action="NONE",
              deleted=IDS["deleted"].replace("-", ""), deleted_at=T0),
        _zone("error", d, "error.example.org.", status="ERROR", action="UPDATE"),
        _zone("secondary", d, "secondary.example.org.", type="SECONDARY",
              email="hostmaster@example.com", transferred_at=T0),
        _zone("catalog", d, "catalog.example.org.", type="CATALOG", tenant_id=None),
        _zone("delayed", d, "delayed.example.org.", delayed_notify=True),
        _zone("active", d, "sub.active.example.org.", id=_fmt(uuid.uuid5(uuid.NAMESPACE_DNS,
              "child"), d), parent_zone_id=rid("active", d)),
    ]
    recordsets, records = [], []
    ok = ("ACTIVE", "NONE")
    for zone, zname in (("active", "active.example.org."), ("pending_update",
                                                            "update.example.org.")):
        for name, rtype, data in (
                (zname, "SOA", [(f"ns1.example.net. admin.example.org. 1700000000 3500 600 "
                                 "86400 3600", *ok)]),
                (zname, "NS", [("ns1.example.net.", *ok)]),
                (f"www.{zname}", "A", [("192.0.2.1", *ok), ("192.0.2.2", "PENDING", "CREATE")]),
                (f"mail.{zname}", "MX", [("10 mx.example.org.", *ok)]),
                (f"old.{zname}", "TXT", [('"bye"', "PENDING", "DELETE")])):
            rs, recs = _recordset(zone, d, name, rtype, data)
            recordsets.append(rs)
            records += recs
    return {
        "pools": [dict(id=pool, version=3, name="default", description="the pool",
                       tenant_id=None, provisioner="UNMANAGED")],
        "pool_attributes": [dict(id=rid("attr", d), version=1, key="internal", value="true",
                                 pool_id=pool)],
        "pool_ns_records": [dict(id=rid("ns", d), version=1, pool_id=pool, priority=1,
                                 hostname="ns1.example.net.")],
        "pool_nameservers": [dict(id=rid("nameserver", d), version=1, pool_id=pool,
                                  host="192.0.2.53", port=53, tsigkey_id=None)],
        "pool_targets": [dict(id=rid("target", d), version=1, pool_id=pool, type="pdns4",
                              tsigkey_id=None, description="PowerDNS")],
        "pool_target_options": [dict(id=rid("option", d), version=1,
                                     pool_target_id=rid("target", d), key="api_endpoint",
                                     value="http://192.0.2.53:8081")],
        "pool_target_masters": [dict(id=rid("tmaster", d), version=1,
                                     pool_target_id=rid("target", d), host="192.0.2.10",
                                     port=5354)],
        "pool_also_notifies": [dict(id=rid("notify", d), version=1, pool_id=pool,
                                    host="192.0.2.99", port=53)],
        "quotas": [dict(id=rid("quota", d), version=1, tenant_id="proj-a", resource="zones",
                        hard_limit=42)],
        "tlds": [dict(id=rid("tld", d), version=1, name="org", description="org TLD")],
        "blacklists": [dict(id=rid("blacklist", d), version=1, pattern="^evil\\.org\\.$",
                            description=None)],
        "tsigkeys": [dict(id=rid("tsig", d), version=1, name="key-a", algorithm="hmac-sha256",
                          secret="c2VjcmV0", scope="POOL", resource_id=pool),
                     dict(id=rid("tsig_cat", d), version=1, name="catalog-key",
                          algorithm="hmac-sha256", secret="Y2F0", scope="ZONE",
                          resource_id=rid("catalog", d))],
        "zones": zones,
        "zone_attributes": [dict(id=rid("zattr", d), version=1, key="tier", value="gold",
                                 zone_id=rid("active", d))],
        "zone_masters": [dict(id=rid("zmaster", d), version=1, host="192.0.2.7", port=53,
                              zone_id=rid("secondary", d))],
        "shared_zones": [dict(id=rid("share", d), zone_id=rid("active", d), project_id="proj-a",
                              target_project_id="proj-b")],
        "recordsets": recordsets,
        "records": records,
        "zone_tasks": [dict(id=rid("task_import", d), version=1, tenant_id="proj-a",
                            zone_id=rid("active", d), task_type="IMPORT", message="imported",
                            status="COMPLETE", location=None),
                       dict(id=rid("task_export", d), version=1, tenant_id="proj-a",
                            zone_id=rid("active", d), task_type="EXPORT", message=None,
                            status="COMPLETE", location="designate://v2/zones/tasks/exports/"
                            + IDS["task_export"] + "/export")],
        "zone_transfer_requests": [dict(id=rid("request", d), version=1,
                                        zone_id=rid("pending_update", d), key="SECRETKEY",
                                        description="to b", tenant_id="proj-a",
                                        target_tenant_id="proj-b", status="COMPLETE")],
        "zone_transfer_accepts": [dict(id=rid("accept", d), version=1,
                                       zone_id=rid("pending_update", d),
                                       zone_transfer_request_id=rid("request", d),
                                       tenant_id="proj-b", status="COMPLETE")],
        "service_statuses": [dict(id=rid("service", d), service_name="worker", hostname="h1",
                                  heartbeated_at=T0, status="UP", stats="{}",
                                  capabilities="{}")],
    }
